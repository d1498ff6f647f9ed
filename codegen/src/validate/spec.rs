//! The OpenRPC objects' shapes, as tables, and the walk that checks a document against
//! them (what the official meta-schemas check, with the generator's severities).

use serde_json::{Map, Value};

use super::{Finding, Findings, Rule, kind_of};
use crate::error::Severity::{self, Error, Warning};
use crate::resolve::{FileId, Location, Resolver};

/// The `openrpc` versions accepted besides `1.4.x`: those of the official 1.3 meta-schema
/// from 1.0.0-rc1 on.
pub(crate) const SUPPORTED_VERSIONS: &[&str] = &[
    "1.0.0-rc1",
    "1.0.0",
    "1.1.0",
    "1.1.1",
    "1.1.2",
    "1.1.3",
    "1.1.4",
    "1.1.5",
    "1.1.6",
    "1.1.7",
    "1.1.8",
    "1.1.9",
    "1.1.10",
    "1.1.11",
    "1.1.12",
    "1.2.0",
    "1.2.1",
    "1.2.2",
    "1.2.3",
    "1.2.4",
    "1.2.5",
    "1.2.6",
    "1.3.0",
    "1.3.1",
    "1.3.2",
];

/// Whether rpcsmith reads documents of this `openrpc` version.
pub(crate) fn is_supported_version(version: &str) -> bool {
    let is_1_4 = version
        .strip_prefix("1.4.")
        .is_some_and(|patch| !patch.is_empty() && patch.bytes().all(|b| b.is_ascii_digit()));
    is_1_4 || SUPPORTED_VERSIONS.contains(&version)
}

/// What a member must hold.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    Any,
    Str,
    /// A string of at least one character.
    Name,
    Bool,
    Int,
    Version,
    ParamStructure,
    Schema,
    Obj(&'static Spec),
    /// The object, or a reference object in its place.
    OrRef(&'static Spec),
    /// The object; a reference object in its place breaks the specification but is
    /// followed all the same, with a warning (a member of `components`).
    Tolerated(&'static Spec),
    Array(&'static Kind),
    /// An object whose every member holds the kind.
    Map(&'static Kind),
}

/// One member of an object.
pub(crate) struct Field {
    name: &'static str,
    kind: Kind,
    required: bool,
    /// The severity when it is missing (if required) or empty (a name).
    level: Severity,
}

/// One object of the specification.
pub(crate) struct Spec {
    /// Its name in messages ("method object").
    what: &'static str,
    fields: &'static [Field],
    /// Whether unknown members (other than allowed `x-…` extensions) are reported.
    closed: bool,
    /// Whether `x-…` members are allowed.
    extensions: bool,
}

const fn f(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        required: false,
        level: Error,
    }
}
const fn must(name: &'static str, kind: Kind, level: Severity) -> Field {
    Field {
        name,
        kind,
        required: true,
        level,
    }
}
const fn spec(
    what: &'static str,
    fields: &'static [Field],
    closed: bool,
    extensions: bool,
) -> Spec {
    Spec {
        what,
        fields,
        closed,
        extensions,
    }
}

static DOCUMENT: Spec = spec(
    "OpenRPC document",
    &[
        must("openrpc", Kind::Version, Error),
        must("info", Kind::Obj(&INFO), Warning),
        f("externalDocs", Kind::Obj(&EXTERNAL_DOCS)),
        f("servers", Kind::Array(&Kind::Obj(&SERVER))),
        must("methods", Kind::Array(&Kind::OrRef(&METHOD)), Error),
        f("components", Kind::Obj(&COMPONENTS)),
        f("$schema", Kind::Str),
    ],
    true,
    true,
);
static INFO: Spec = spec(
    "info object",
    &[
        must("title", Kind::Str, Warning),
        f("description", Kind::Str),
        f("termsOfService", Kind::Str),
        must("version", Kind::Str, Warning),
        f("contact", Kind::Obj(&CONTACT)),
        f("license", Kind::Obj(&LICENSE)),
    ],
    true,
    true,
);
static CONTACT: Spec = spec(
    "contact object",
    &[
        f("name", Kind::Str),
        f("email", Kind::Str),
        f("url", Kind::Str),
    ],
    true,
    true,
);
static LICENSE: Spec = spec(
    "license object",
    &[f("name", Kind::Str), f("url", Kind::Str)],
    true,
    true,
);
static SERVER: Spec = spec(
    "server object",
    &[
        must("url", Kind::Str, Warning),
        f("name", Kind::Str),
        f("description", Kind::Str),
        f("summary", Kind::Str),
        f("variables", Kind::Map(&Kind::Obj(&SERVER_VARIABLE))),
    ],
    true,
    true,
);
static SERVER_VARIABLE: Spec = spec(
    "server variable object",
    &[
        must("default", Kind::Str, Warning),
        f("description", Kind::Str),
        f("enum", Kind::Array(&Kind::Str)),
    ],
    false,
    true,
);
static EXTERNAL_DOCS: Spec = spec(
    "external documentation object",
    &[f("description", Kind::Str), must("url", Kind::Str, Warning)],
    true,
    true,
);
pub(crate) static METHOD: Spec = spec(
    "method object",
    &[
        must("name", Kind::Name, Error),
        f("description", Kind::Str),
        f("summary", Kind::Str),
        f("servers", Kind::Array(&Kind::Obj(&SERVER))),
        f("tags", Kind::Array(&Kind::OrRef(&TAG))),
        f("paramStructure", Kind::ParamStructure),
        must(
            "params",
            Kind::Array(&Kind::OrRef(&CONTENT_DESCRIPTOR)),
            Error,
        ),
        f("result", Kind::OrRef(&CONTENT_DESCRIPTOR)),
        f("errors", Kind::Array(&Kind::OrRef(&ERROR))),
        f("links", Kind::Array(&Kind::OrRef(&LINK))),
        f("examples", Kind::Array(&Kind::OrRef(&EXAMPLE_PAIRING))),
        f("deprecated", Kind::Bool),
        f("externalDocs", Kind::Obj(&EXTERNAL_DOCS)),
    ],
    true,
    true,
);
pub(crate) static CONTENT_DESCRIPTOR: Spec = spec(
    "content descriptor object",
    &[
        must("name", Kind::Name, Error),
        f("description", Kind::Str),
        f("summary", Kind::Str),
        must("schema", Kind::Schema, Error),
        f("required", Kind::Bool),
        f("deprecated", Kind::Bool),
    ],
    true,
    true,
);
pub(crate) static ERROR: Spec = spec(
    "error object",
    &[
        must("code", Kind::Int, Error),
        must("message", Kind::Str, Error),
        f("data", Kind::Any),
    ],
    true,
    false,
);
pub(crate) static TAG: Spec = spec(
    "tag object",
    &[
        must("name", Kind::Name, Warning),
        f("description", Kind::Str),
        f("externalDocs", Kind::Obj(&EXTERNAL_DOCS)),
    ],
    true,
    true,
);
pub(crate) static LINK: Spec = spec(
    "link object",
    &[
        f("name", Kind::Name),
        f("summary", Kind::Str),
        f("method", Kind::Str),
        f("description", Kind::Str),
        f("params", Kind::Any),
        f("server", Kind::Obj(&SERVER)),
    ],
    true,
    true,
);
pub(crate) static EXAMPLE: Spec = spec(
    "example object",
    &[
        f("summary", Kind::Str),
        must("value", Kind::Any, Warning),
        f("description", Kind::Str),
        must("name", Kind::Name, Warning),
    ],
    false,
    true,
);
pub(crate) static EXAMPLE_PAIRING: Spec = spec(
    "example pairing object",
    &[
        must("name", Kind::Name, Warning),
        f("description", Kind::Str),
        must("params", Kind::Array(&Kind::OrRef(&EXAMPLE)), Warning),
        f("result", Kind::OrRef(&EXAMPLE)),
    ],
    false,
    false,
);
static COMPONENTS: Spec = spec(
    "components object",
    &[
        f("schemas", Kind::Map(&Kind::Schema)),
        f("links", Kind::Map(&Kind::Tolerated(&LINK))),
        f("errors", Kind::Map(&Kind::Tolerated(&ERROR))),
        f("examples", Kind::Map(&Kind::Tolerated(&EXAMPLE))),
        f(
            "examplePairings",
            Kind::Map(&Kind::Tolerated(&EXAMPLE_PAIRING)),
        ),
        f(
            "contentDescriptors",
            Kind::Map(&Kind::Tolerated(&CONTENT_DESCRIPTOR)),
        ),
        f("tags", Kind::Map(&Kind::Tolerated(&TAG))),
    ],
    false,
    true,
);

/// Checks the structure of the OpenRPC document at the root of `file`.
#[cfg(test)]
pub(crate) fn check_structure(resolver: &Resolver, file: FileId) -> Vec<Finding> {
    check_structure_parts(resolver, file).0
}

/// [`check_structure`], also returning every `$ref` met, with what its target must be.
pub(crate) fn check_structure_parts(
    resolver: &Resolver,
    file: FileId,
) -> (Vec<Finding>, Vec<(Location, Expect)>) {
    let mut findings = Findings::new(resolver);
    let root = Location::root(file);
    if let Some(value) = resolver.get(&root) {
        check(&mut findings, &root, value, Kind::Obj(&DOCUMENT), Error);
    }
    findings.into_parts()
}

/// What the target of a `$ref` must be.
#[derive(Clone, Copy)]
pub(crate) enum Expect {
    /// A JSON Schema.
    Schema,
    /// An object of the specification (a content descriptor …).
    Object(&'static Spec),
}

/// Checks the target of a `$ref` for what it must be, collecting the refs inside it.
pub(crate) fn check_expected(
    findings: &mut Findings<'_>,
    at: &Location,
    value: &Value,
    expect: Expect,
) {
    match expect {
        Expect::Schema => super::check_schema_into(findings, at, value),
        Expect::Object(spec) => check(findings, at, value, Kind::Obj(spec), Error),
    }
}

fn check(findings: &mut Findings<'_>, at: &Location, value: &Value, kind: Kind, level: Severity) {
    let mismatch = |findings: &mut Findings<'_>, expected: &str| {
        mismatch(findings, at, value, expected);
    };
    match kind {
        Kind::Any => {}
        Kind::Str if !value.is_string() => mismatch(findings, "a string"),
        Kind::Name => match value.as_str() {
            None => mismatch(findings, "a string"),
            Some("") => findings.report(Rule::Structure, level, at, "must not be empty"),
            Some(_) => {}
        },
        Kind::Bool if !value.is_boolean() => mismatch(findings, "a boolean"),
        Kind::Int if !value.is_i64() => mismatch(findings, "an integer"),
        Kind::Version => check_version(findings, at, value),
        Kind::ParamStructure => check_param_structure(findings, at, value),
        Kind::Schema => super::check_schema_into(findings, at, value),
        Kind::Tolerated(_) | Kind::Obj(_) | Kind::OrRef(_) => {
            check_object(findings, at, value, kind, level);
        }
        Kind::Array(item) => match value.as_array() {
            Some(items) => {
                for (i, v) in items.iter().enumerate() {
                    check(findings, &at.index(i), v, *item, level);
                }
            }
            None => mismatch(findings, "an array"),
        },
        Kind::Map(item) => match value.as_object() {
            Some(members) => {
                for (k, v) in members {
                    check(findings, &at.key(k), v, *item, level);
                }
            }
            None => mismatch(findings, "an object"),
        },
        Kind::Str | Kind::Bool | Kind::Int => {}
    }
}

/// A value of the wrong type: always an error, the typed model cannot read it.
fn mismatch(findings: &mut Findings<'_>, at: &Location, value: &Value, expected: &str) {
    let message = format!("expected {expected}, found {}", kind_of(value));
    findings.report(Rule::Structure, Error, at, message);
}

/// Checks an object of a spec: its members, or, where a reference may stand (or is
/// tolerated, with a warning), the reference.
fn check_object(
    findings: &mut Findings<'_>,
    at: &Location,
    value: &Value,
    kind: Kind,
    level: Severity,
) {
    match kind {
        Kind::Tolerated(spec) if value.get("$ref").is_some() => {
            let message = format!(
                "a $ref where OpenRPC wants {} {} (the specification allows no reference here): followed",
                article(spec.what),
                spec.what
            );
            findings.report(Rule::Structure, Warning, &at.key("$ref"), message);
            check(findings, at, value, Kind::OrRef(spec), level);
        }
        Kind::Obj(spec) | Kind::Tolerated(spec) => match value.as_object() {
            Some(object) => check_members(findings, at, object, spec),
            None => {
                let expected = format!("an object ({} {})", article(spec.what), spec.what);
                mismatch(findings, at, value, &expected);
            }
        },
        Kind::OrRef(spec) => match value.as_object() {
            Some(object) if object.contains_key("$ref") => {
                check_reference(findings, at, object, spec);
            }
            Some(object) => check_members(findings, at, object, spec),
            None => {
                let (a, what) = (article(spec.what), spec.what);
                let expected = format!("an object ({a} {what} or a reference)");
                mismatch(findings, at, value, &expected);
            }
        },
        // Only the object kinds come here.
        _ => {}
    }
}

/// "a" or "an", for a spec's name.
fn article(what: &str) -> &'static str {
    match what.bytes().next() {
        Some(b'a' | b'e' | b'i' | b'o' | b'u' | b'O') => "an",
        _ => "a",
    }
}

fn check_members(
    findings: &mut Findings<'_>,
    at: &Location,
    object: &Map<String, Value>,
    spec: &Spec,
) {
    for field in spec.fields {
        match object.get(field.name) {
            Some(v) => check(findings, &at.key(field.name), v, field.kind, field.level),
            None if field.required => {
                // The severity says whether generation needs the member; the message
                // must not say "required" of one it does without.
                let message = match field.level {
                    Error => format!(
                        "missing required member \"{}\" of the {}",
                        field.name, spec.what
                    ),
                    Warning => format!(
                        "missing member \"{}\" of the {} (the specification requires it): generated without it",
                        field.name, spec.what
                    ),
                };
                findings.report(Rule::Structure, field.level, at, message);
            }
            None => {}
        }
    }
    if !spec.closed {
        return;
    }
    for key in object.keys() {
        let known = spec.fields.iter().any(|f| f.name == key);
        let extension = spec.extensions && key.starts_with("x-");
        if !(known || extension) {
            let message = format!("unknown member \"{key}\" in the {}: ignored", spec.what);
            findings.report(Rule::Structure, Warning, &at.key(key), message);
        }
    }
}

fn check_reference(
    findings: &mut Findings<'_>,
    at: &Location,
    object: &Map<String, Value>,
    spec: &'static Spec,
) {
    for (key, value) in object {
        if key == "$ref" {
            if value.is_string() {
                findings.reference(at, Expect::Object(spec));
            } else {
                let message = format!("expected a string, found {}", kind_of(value));
                findings.report(Rule::Structure, Error, &at.key(key), message);
            }
        } else {
            let message =
                format!("member \"{key}\" beside \"$ref\" in a reference object: ignored");
            findings.report(Rule::Structure, Warning, &at.key(key), message);
        }
    }
}

fn check_version(findings: &mut Findings<'_>, at: &Location, value: &Value) {
    let message = match value.as_str() {
        Some(v) if is_supported_version(v) => return,
        Some(v) => format!(
            "unsupported OpenRPC version \"{v}\": rpcsmith reads 1.0.0-rc1 to 1.3.2 and 1.4.x"
        ),
        None => format!("expected a version string, found {}", kind_of(value)),
    };
    findings.report(Rule::Version, Error, at, message);
}

fn check_param_structure(findings: &mut Findings<'_>, at: &Location, value: &Value) {
    if matches!(value.as_str(), Some("by-name" | "by-position" | "either")) {
        return;
    }
    let found = match value.as_str() {
        Some(s) => format!("\"{s}\""),
        None => kind_of(value).to_string(),
    };
    let message =
        format!("paramStructure must be \"by-name\", \"by-position\" or \"either\", not {found}");
    findings.report(Rule::Structure, Error, at, message);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        for v in [
            "1.0.0-rc1",
            "1.0.0",
            "1.2.4",
            "1.2.6",
            "1.3.2",
            "1.4.0",
            "1.4.1",
            "1.4.12",
        ] {
            assert!(is_supported_version(v), "{v}");
        }
        for v in [
            "1.0.0-rc0",
            "1.4",
            "1.4.",
            "1.4.x",
            "1.5.0",
            "2.0.0",
            "",
            "1.3.3",
        ] {
            assert!(!is_supported_version(v), "{v}");
        }
    }
}
