//! The view of the `JsonSchema` impls (`json_schema(true)`): for each generated type, its
//! embedded schema ([`crate::embedded`]) and, for each `$ref` in it, the type whose
//! schema the runtime asks its generator for.
//!
//! A type that is not a type of its own (an alias, a type replaced by the user's) has no
//! impl of its own: a private stand-in, named like it, carries its schema, so that a
//! `$ref` to it stays a reference under its name.

use serde::Serialize;

use super::rust::string_literal;
use crate::embedded::EmbeddedSchema;
use crate::typespace::{Kind, TypeDef};

/// One `JsonSchema` impl.
#[derive(Debug, Serialize)]
pub(crate) struct JsonSchemaView {
    /// The type's name, as a string literal (its `schema_name`).
    pub(crate) name: String,
    /// Whether the impl is on a stand-in (declared beside it, named like the type).
    pub(crate) stand_in: bool,
    /// The type the impl is for, from the module of the impls.
    pub(crate) path: String,
    /// The schema's JSON, as a string literal.
    pub(crate) json: String,
    /// Its `$ref`s, in order.
    pub(crate) references: Vec<ReferenceView>,
}

/// One `$ref` of an embedded schema.
#[derive(Debug, Serialize)]
pub(crate) struct ReferenceView {
    /// The `$ref` text, as a string literal.
    pub(crate) reference: String,
    /// The type it designates, from the module of the impls.
    pub(crate) path: String,
}

/// The impls of every def, sorted by name.
pub(crate) fn views(defs: &[TypeDef], schemas: &[EmbeddedSchema]) -> Vec<JsonSchemaView> {
    let mut out: Vec<JsonSchemaView> = defs
        .iter()
        .zip(schemas)
        .enumerate()
        .map(|(i, (def, schema))| JsonSchemaView {
            name: string_literal(&def.name),
            stand_in: is_stand_in(def),
            path: path(defs, i),
            json: raw_literal(&schema.json),
            references: schema
                .references
                .iter()
                .map(|(reference, to)| ReferenceView {
                    reference: string_literal(reference),
                    path: path(defs, *to),
                })
                .collect(),
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// `text` as a raw string literal (`r#"{"type":"string"}"#`): the JSON reads as written.
fn raw_literal(text: &str) -> String {
    let mut hashes = "#".to_owned();
    while text.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    format!("r{hashes}\"{text}\"{hashes}")
}

/// Whether the def has no Rust type of its own to implement `JsonSchema` on.
fn is_stand_in(def: &TypeDef) -> bool {
    def.replaced_by.is_some() || matches!(def.kind, Kind::Alias(_))
}

/// The path of def `i`'s impl target: the stand-in beside the impls, or the type in
/// the types module (their parent).
fn path(defs: &[TypeDef], i: usize) -> String {
    match defs.get(i) {
        Some(def) if is_stand_in(def) => def.name.clone(),
        Some(def) => format!("super::{}", def.name),
        None => "()".to_owned(),
    }
}
