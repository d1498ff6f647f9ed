//! The generator's own validation of OpenRPC documents.
//!
//! Two passes, each collecting every finding before the caller decides:
//!
//! - **structure** ([`check_structure`]): the document against the OpenRPC specification
//!   (1.0.0-rc1 to 1.4.x) and every JSON Schema in it against the JSON Schema keywords'
//!   shapes: the checks the official meta-schemas make, with precise messages. Tests hold
//!   these verdicts against the meta-schemas on every corpus document.
//! - **semantics** ([`check_semantics`]): rules the meta-schemas cannot express, on the
//!   resolved methods: unique method names, names outside the reserved `rpc.` space,
//!   unique param names, required params before optional ones.
//!
//! Severity follows one rule: an **error** when generation cannot go on (a field the
//! generator reads is missing or of the wrong type, an unknown `type`, an unsupported
//! version, duplicate or reserved method names, a param name repeated in a method called
//! by position); a **warning** for everything else (an unknown member the generator
//! ignores, a missing `info.title`, a duplicate enum value).

mod schema;
mod semantic;
mod spec;

#[cfg(test)]
mod metaschema_tests;

use crate::error::{Diagnostic, Severity};
use crate::resolve::{Location, Resolver};

pub(crate) use schema::check_schema_into;
pub(crate) use semantic::check_semantics;
#[cfg(test)]
pub(crate) use spec::check_structure;
pub(crate) use spec::{Expect, check_expected, check_structure_parts};

/// Which rule a finding comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub(crate) enum Rule {
    /// The `openrpc` version is missing or outside 1.0.0-rc1 … 1.4.x.
    Version,
    /// An OpenRPC object breaks the specification (missing, mistyped or unknown member).
    Structure,
    /// A JSON Schema keyword has the wrong shape (including an unknown `type`).
    Schema,
    /// Two methods share a name.
    DuplicateMethod,
    /// A method name starts with `rpc.` (reserved by JSON-RPC 2.0).
    ReservedName,
    /// Two params of one method share a name.
    DuplicateParam,
    /// A required param comes after an optional one in a positional method.
    RequiredAfterOptional,
    /// A method declares the same error (code and message) twice.
    DuplicateErrorCode,
    /// A link names a method the document does not define.
    LinkTarget,
}

impl Rule {
    /// Whether the official meta-schemas check this rule too (tests compare them).
    #[cfg(test)]
    pub(crate) fn is_structural(self) -> bool {
        matches!(self, Rule::Version | Rule::Structure | Rule::Schema)
    }
}

/// One problem found by validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    /// The rule broken.
    pub(crate) rule: Rule,
    /// Where and what.
    pub(crate) diagnostic: Diagnostic,
}

/// Collects findings with positions from the resolver, and the `$ref`s met on the way
/// (each with what its target must be).
pub(crate) struct Findings<'r> {
    resolver: &'r Resolver,
    list: Vec<Finding>,
    refs: Vec<(Location, Expect)>,
}

impl<'r> Findings<'r> {
    pub(crate) fn new(resolver: &'r Resolver) -> Self {
        Findings {
            resolver,
            list: Vec::new(),
            refs: Vec::new(),
        }
    }

    pub(crate) fn report(
        &mut self,
        rule: Rule,
        severity: Severity,
        at: &Location,
        message: impl Into<String>,
    ) {
        let diagnostic = match severity {
            Severity::Error => self.resolver.error_at(at, message),
            Severity::Warning => self.resolver.warning_at(at, message),
        };
        self.list.push(Finding { rule, diagnostic });
    }

    /// Records the object at `at`, holding a `$ref`, whose target must be `expect`.
    pub(crate) fn reference(&mut self, at: &Location, expect: Expect) {
        self.refs.push((at.clone(), expect));
    }

    pub(crate) fn into_vec(self) -> Vec<Finding> {
        self.list
    }

    pub(crate) fn into_parts(self) -> (Vec<Finding>, Vec<(Location, Expect)>) {
        (self.list, self.refs)
    }
}

/// "a string", "an object" …: what a JSON value is, for messages.
pub(crate) fn kind_of(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
