//! The way back: a generated type's `JsonSchema` is the document's own schema of it.
//!
//! `rpcsmith-build` with `json_schema(true)` embeds, for each generated type, the JSON of
//! the schema it was generated from, and the Rust type each of its `$ref`s names. When a
//! schemars generator asks for the type's schema, each `$ref` is replaced by what the
//! generator makes of the named type (a `$ref` into its own definitions, which it fills),
//! so the schema resolves wherever it is used: in `schema_for!`, in an MCP tool's input
//! schema, in an OpenAPI document.

use schemars::{Schema, SchemaGenerator};
use serde_json::Value;

/// A `$ref` as the document writes it, and the schema of the generated type it names.
pub type Reference = (&'static str, fn(&mut SchemaGenerator) -> Schema);

/// The schema `json` (the document's, as generated code embeds it), with each `$ref`
/// listed in `references` replaced by the schema the generator gives its type. A `$ref`
/// written beside other keywords keeps them.
///
/// # Panics
///
/// If `json` is not a schema: the generator embeds it from a document it has parsed.
pub fn schema(generator: &mut SchemaGenerator, json: &str, references: &[Reference]) -> Schema {
    let mut value: Value = serde_json::from_str(json).expect("the generator embeds a schema");
    resolve(&mut value, generator, references);
    Schema::try_from(value).expect("the generator embeds a schema")
}

fn resolve(value: &mut Value, generator: &mut SchemaGenerator, references: &[Reference]) {
    match value {
        Value::Object(object) => {
            let target = object.get("$ref").and_then(Value::as_str);
            if let Some((_, of)) = target.and_then(|t| references.iter().find(|(r, _)| *r == t)) {
                object.remove("$ref");
                let replaced = of(generator).to_value();
                for (_, member) in object.iter_mut() {
                    resolve(member, generator, references);
                }
                match replaced {
                    Value::Object(mut with) if !object.is_empty() => {
                        with.extend(std::mem::take(object));
                        *value = Value::Object(with);
                    }
                    replaced if object.is_empty() => *value = replaced,
                    replaced => {
                        object.insert("allOf".into(), Value::Array(vec![replaced]));
                    }
                }
                return;
            }
            for (_, member) in object.iter_mut() {
                resolve(member, generator, references);
            }
        }
        Value::Array(items) => {
            for item in items {
                resolve(item, generator, references);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(_: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({"$ref": "#/definitions/Name"})
    }

    #[test]
    fn references_become_the_generators_own() {
        let mut generator = SchemaGenerator::default();
        let json = r##"{"type":"object","properties":{"a":{"$ref":"#/components/schemas/Name"},"b":{"$ref":"#/components/schemas/Name","description":"B"}}}"##;
        let schema = schema(
            &mut generator,
            json,
            &[("#/components/schemas/Name", string)],
        );
        assert_eq!(
            schema.to_value().to_string(),
            r##"{"type":"object","properties":{"a":{"$ref":"#/definitions/Name"},"b":{"$ref":"#/definitions/Name","description":"B"}}}"##
        );
    }

    #[test]
    fn references_not_listed_stay() {
        let mut generator = SchemaGenerator::default();
        let json = r##"{"items":{"$ref":"#/elsewhere"}}"##;
        let schema = schema(&mut generator, json, &[]);
        assert_eq!(schema.to_value().to_string(), json);
    }
}
