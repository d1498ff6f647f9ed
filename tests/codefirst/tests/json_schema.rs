//! The generated types' `JsonSchema` (`json_schema(true)`) is the document's own schema
//! of each, with its `$ref`s resolvable wherever a schemars generator puts definitions.

use rpcsmith_codefirst::codefirst::types as generated;
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::Value;

fn document() -> Value {
    serde_json::from_str(include_str!("../openrpc.json")).unwrap()
}

/// Asks `generator` for every type the document names in `components/schemas`.
fn every_component(generator: &mut SchemaGenerator) {
    generator.subschema_for::<generated::Command>();
    generator.subschema_for::<generated::Event>();
    generator.subschema_for::<generated::Expr>();
    generator.subschema_for::<generated::Key>();
    generator.subschema_for::<generated::Point>();
    generator.subschema_for::<generated::Refusal>();
    generator.subschema_for::<generated::Settings>();
    generator.subschema_for::<generated::Shape>();
    generator.subschema_for::<generated::Tree>();
    generator.subschema_for::<generated::User>();
    generator.subschema_for::<generated::UserPage>();
}

#[test]
fn each_schema_is_the_documents_text() {
    // Definitions where the document keeps them: each must be the document's, exactly.
    let mut generator = SchemaSettings::draft07()
        .with(|s| s.definitions_path = "/components/schemas".into())
        .into_generator();
    every_component(&mut generator);
    let definitions = generator.take_definitions(false);
    let document = document();
    let components = document["components"]["schemas"].as_object().unwrap();
    let mut names: Vec<&String> = definitions.keys().collect();
    names.sort();
    let mut expected: Vec<&String> = components.keys().collect();
    expected.sort();
    // `UserId` is an alias (`u64`): reached through `User`, it keeps its name.
    assert_eq!(names, expected);
    for (name, schema) in components {
        assert_eq!(
            definitions[name].to_string(),
            schema.to_string(),
            "the schema of {name}"
        );
    }
}

#[test]
fn references_resolve_under_schemars_defaults() {
    let root = schemars::schema_for!(generated::User).to_value();
    let mut references = Vec::new();
    collect_references(&root, &mut references);
    assert!(
        references.contains(&"#/$defs/UserId".to_owned()),
        "{references:?}"
    );
    assert!(
        references.contains(&"#/$defs/Point".to_owned()),
        "{references:?}"
    );
    for reference in references {
        let pointer = reference.strip_prefix('#').unwrap();
        assert!(
            root.pointer(pointer).is_some(),
            "{reference} resolves in {root}"
        );
    }
    // A recursive type refers to itself, and the reference resolves.
    let tree = schemars::schema_for!(generated::Tree).to_value();
    assert_eq!(tree["properties"]["children"]["items"]["$ref"], "#");
}

#[test]
fn the_schema_names_are_the_types_names() {
    assert_eq!(generated::CommandTurn::schema_name(), "CommandTurn");
    // Unique to the generated module: two documents' `Shape`s do not meet.
    let id = generated::Shape::schema_id();
    assert!(
        id.starts_with("rpcsmith_codefirst::codefirst::") && id.ends_with("::Shape"),
        "{id}"
    );
}

fn collect_references(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            if let Some(Value::String(r)) = object.get("$ref") {
                out.push(r.clone());
            }
            object.values().for_each(|v| collect_references(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_references(v, out)),
        _ => {}
    }
}
