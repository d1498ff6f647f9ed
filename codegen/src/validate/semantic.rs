//! Rules the meta-schemas cannot express, checked on the resolved methods.

use std::collections::HashMap;

use super::{Finding, Findings, Rule};
use crate::document::{ResolvedError, ResolvedMethod};
use crate::error::Severity::{Error, Warning};
use crate::openrpc::ParamStructure;
use crate::resolve::Resolver;

/// Checks method names, links, param names and order, and error codes. A param whose
/// name repeats an earlier one is dropped from a by-name method (an object can carry only
/// one), and is an error in a method called by position (`by-position`, `either`):
/// dropping it would move every later param to the wrong place in the array.
pub(crate) fn check_semantics(resolver: &Resolver, methods: &mut [ResolvedMethod]) -> Vec<Finding> {
    let mut findings = Findings::new(resolver);
    check_method_names(&mut findings, resolver, methods);
    for method in methods.iter_mut() {
        check_params(&mut findings, resolver, method);
        check_error_codes(&mut findings, resolver, method);
    }
    findings.into_vec()
}

fn check_method_names(
    findings: &mut Findings<'_>,
    resolver: &Resolver,
    methods: &[ResolvedMethod],
) {
    let mut names: HashMap<&str, &ResolvedMethod> = HashMap::new();
    for method in methods {
        let at = method.location.key("name");
        if method.name.starts_with("rpc.") {
            let message = format!(
                "method name \"{}\" is reserved: names starting with \"rpc.\" belong to JSON-RPC itself",
                method.name
            );
            findings.report(Rule::ReservedName, Error, &at, message);
        }
        if let Some(first) = names.get(method.name.as_str()) {
            let message = format!(
                "duplicate method name \"{}\" (first at {})",
                method.name,
                resolver.describe(&first.location, method.location.file)
            );
            findings.report(Rule::DuplicateMethod, Error, &at, message);
        } else {
            names.insert(&method.name, method);
        }
    }
    for link in methods.iter().flat_map(|m| &m.links) {
        if let Some(target) = &link.link.method
            && !names.contains_key(target.as_str())
        {
            let message =
                format!("link to method \"{target}\", which the document does not define");
            findings.report(
                Rule::LinkTarget,
                Warning,
                &link.location.key("method"),
                message,
            );
        }
    }
}

fn check_params(findings: &mut Findings<'_>, resolver: &Resolver, method: &mut ResolvedMethod) {
    let by_name = method.param_structure == ParamStructure::ByName;
    let mut kept: Vec<crate::document::ResolvedParam> = Vec::with_capacity(method.params.len());
    for param in std::mem::take(&mut method.params) {
        if let Some(first) = kept.iter().find(|p| p.name == param.name) {
            let first_at = resolver.describe(&first.site, param.site.file);
            let name = &param.name;
            if by_name {
                let message = format!(
                    "duplicate param name \"{name}\" (first at {first_at}): the later one is ignored"
                );
                findings.report(Rule::DuplicateParam, Warning, &param.site, message);
                continue;
            }
            let message = format!(
                "duplicate param name \"{name}\" (first at {first_at}) in a method called by position: \
                 leaving one out would shift the params after it; give each param its own name"
            );
            findings.report(Rule::DuplicateParam, Error, &param.site, message);
        }
        kept.push(param);
    }
    method.params = kept;
    if method.param_structure == ParamStructure::ByName {
        return;
    }
    let mut optional: Option<&str> = None;
    for param in &method.params {
        match (param.required, optional) {
            (false, None) => optional = Some(&param.name),
            (true, Some(before)) => {
                let message = format!(
                    "required param \"{}\" comes after optional param \"{before}\": \
                     positional calls must send null for \"{before}\"",
                    param.name
                );
                findings.report(Rule::RequiredAfterOptional, Warning, &param.site, message);
            }
            _ => {}
        }
    }
}

fn check_error_codes(findings: &mut Findings<'_>, resolver: &Resolver, method: &ResolvedMethod) {
    for (i, error) in method.errors.iter().enumerate() {
        let (code, text) = (error.error.code, &error.error.message);
        let same = |e: &&ResolvedError| e.error.code == code && e.error.message == *text;
        if let Some(first) = method.errors[..i].iter().find(same) {
            let message = format!(
                "error {code} \"{text}\" is declared twice (first at {})",
                resolver.describe(&first.site, error.site.file)
            );
            findings.report(Rule::DuplicateErrorCode, Warning, &error.site, message);
        }
    }
}
