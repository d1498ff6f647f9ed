//! The shapes of JSON Schema keywords (draft-07, as the OpenRPC meta-schemas use it),
//! checked in every schema of a document. Unknown keywords are allowed, as in JSON Schema.

use serde_json::{Map, Value};

use super::{Findings, Rule, kind_of};
use crate::error::Severity::{self, Error, Warning};
use crate::resolve::Location;

/// The values `type` may take.
pub(crate) const SIMPLE_TYPES: &[&str] = &[
    "array", "boolean", "integer", "null", "number", "object", "string",
];

pub(crate) fn check_schema_into(findings: &mut Findings<'_>, at: &Location, value: &Value) {
    match value {
        Value::Bool(_) => {}
        Value::Object(object) => {
            if object.get("$ref").is_some_and(Value::is_string) {
                findings.reference(at, super::Expect::Schema);
            }
            for (key, v) in object {
                check_keyword(findings, &at.key(key), key, v);
            }
        }
        _ => {
            let message = format!(
                "expected a schema (an object or a boolean), found {}",
                kind_of(value)
            );
            findings.report(Rule::Schema, Error, at, message);
        }
    }
}

fn check_keyword(findings: &mut Findings<'_>, at: &Location, key: &str, v: &Value) {
    match key {
        "$id" | "$schema" | "$ref" => expect(findings, at, v.is_string(), "a string", v, Error),
        "$comment" | "title" | "description" | "format" | "contentMediaType"
        | "contentEncoding" | "pattern" => {
            expect(findings, at, v.is_string(), "a string", v, Warning)
        }
        "readOnly" | "uniqueItems" => expect(findings, at, v.is_boolean(), "a boolean", v, Warning),
        "examples" => expect(findings, at, v.is_array(), "an array", v, Warning),
        "maximum" | "exclusiveMaximum" | "minimum" | "exclusiveMinimum" => {
            expect(findings, at, v.is_number(), "a number", v, Warning);
        }
        "multipleOf" => {
            let ok = v.as_f64().is_some_and(|n| n > 0.0);
            expect(findings, at, ok, "a number above 0", v, Warning);
        }
        "maxLength" | "minLength" | "maxItems" | "minItems" | "maxProperties" | "minProperties" => {
            expect(
                findings,
                at,
                is_count(v),
                "a non-negative integer",
                v,
                Warning,
            );
        }
        "additionalItems"
        | "contains"
        | "additionalProperties"
        | "propertyNames"
        | "if"
        | "then"
        | "else"
        | "not" => check_schema_into(findings, at, v),
        "items" => match v.as_array() {
            Some(items) => schemas(findings, at, items),
            None => check_schema_into(findings, at, v),
        },
        "allOf" | "anyOf" | "oneOf" => match v.as_array() {
            Some(items) if !items.is_empty() => schemas(findings, at, items),
            _ => expect(
                findings,
                at,
                false,
                "a non-empty array of schemas",
                v,
                Error,
            ),
        },
        "definitions" | "properties" | "patternProperties" => match v.as_object() {
            Some(members) => schema_map(findings, at, members),
            None => expect(findings, at, false, "an object of schemas", v, Error),
        },
        "dependencies" => check_dependencies(findings, at, v),
        "required" => check_string_set(findings, at, v),
        "enum" => check_enum(findings, at, v),
        "type" => check_type(findings, at, v),
        _ => {}
    }
}

fn expect(
    findings: &mut Findings<'_>,
    at: &Location,
    ok: bool,
    what: &str,
    v: &Value,
    level: Severity,
) {
    if !ok {
        let message = format!("expected {what}, found {}", kind_of(v));
        findings.report(Rule::Schema, level, at, message);
    }
}

/// A draft-07 non-negative integer (`2.0` counts).
fn is_count(v: &Value) -> bool {
    v.is_u64() || v.as_f64().is_some_and(|n| n >= 0.0 && n.fract() == 0.0)
}

fn schemas(findings: &mut Findings<'_>, at: &Location, items: &[Value]) {
    for (i, item) in items.iter().enumerate() {
        check_schema_into(findings, &at.index(i), item);
    }
}

fn schema_map(findings: &mut Findings<'_>, at: &Location, members: &Map<String, Value>) {
    for (k, item) in members {
        check_schema_into(findings, &at.key(k), item);
    }
}

fn check_dependencies(findings: &mut Findings<'_>, at: &Location, v: &Value) {
    let Some(members) = v.as_object() else {
        return expect(findings, at, false, "an object", v, Warning);
    };
    for (k, dep) in members {
        match dep {
            Value::Array(_) => check_string_set(findings, &at.key(k), dep),
            _ => check_schema_into(findings, &at.key(k), dep),
        }
    }
}

/// `required`: an array of distinct strings.
fn check_string_set(findings: &mut Findings<'_>, at: &Location, v: &Value) {
    let Some(items) = v.as_array() else {
        return expect(findings, at, false, "an array of strings", v, Error);
    };
    for (i, item) in items.iter().enumerate() {
        if !item.is_string() {
            expect(findings, &at.index(i), false, "a string", item, Error);
        } else if items[..i].contains(item) {
            let message = format!("{item} is listed twice");
            findings.report(Rule::Schema, Warning, &at.index(i), message);
        }
    }
}

fn check_enum(findings: &mut Findings<'_>, at: &Location, v: &Value) {
    let Some(items) = v.as_array() else {
        return expect(findings, at, false, "an array", v, Error);
    };
    if items.is_empty() {
        findings.report(Rule::Schema, Warning, at, "an empty enum allows no value");
    }
    for (i, item) in items.iter().enumerate() {
        if items[..i].contains(item) {
            let message = format!("enum value {item} is listed twice");
            findings.report(Rule::Schema, Warning, &at.index(i), message);
        }
    }
}

fn check_type(findings: &mut Findings<'_>, at: &Location, v: &Value) {
    let unknown = |findings: &mut Findings<'_>, at: &Location, name: &str| {
        let message = format!(
            "unknown type \"{name}\" (expected one of {})",
            SIMPLE_TYPES.join(", ")
        );
        findings.report(Rule::Schema, Error, at, message);
    };
    match v {
        Value::String(name) if !SIMPLE_TYPES.contains(&name.as_str()) => {
            unknown(findings, at, name)
        }
        Value::String(_) => {}
        Value::Array(items) => {
            if items.is_empty() {
                findings.report(
                    Rule::Schema,
                    Error,
                    at,
                    "an empty type array allows no value",
                );
            }
            for (i, item) in items.iter().enumerate() {
                match item.as_str() {
                    Some(name) if !SIMPLE_TYPES.contains(&name) => {
                        unknown(findings, &at.index(i), name)
                    }
                    Some(_) if items[..i].contains(item) => {
                        let message = format!("type {item} is listed twice");
                        findings.report(Rule::Schema, Warning, &at.index(i), message);
                    }
                    Some(_) => {}
                    None => expect(findings, &at.index(i), false, "a type name", item, Error),
                }
            }
        }
        _ => expect(
            findings,
            at,
            false,
            "a type name or an array of them",
            v,
            Error,
        ),
    }
}
