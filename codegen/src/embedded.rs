//! Each generated type's own schema, for the `JsonSchema` impls of `json_schema(true)`.
//!
//! The schema embedded for a type is the JSON the document writes where the type was
//! generated from, with each `$ref` in it resolved here, once: a `$ref` to a schema that
//! has a generated type keeps that type's place as its text (`#/components/schemas/Pet`)
//! and is listed with the type, for the runtime to hand to its schemars generator; any
//! other `$ref` (to a schema with no type of its own) is replaced by what it designates.
//! Values that are data, not schemas (`const`, `enum`, `default`, `examples`), are left
//! as they are.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::resolve::{Location, Resolver};
use crate::typespace::TypeSpace;

/// References inlined inside each other deeper than this are left as `$ref`s (a cycle of
/// schemas that have no type of their own).
const MAX_INLINE: usize = 16;

/// One type's schema: its compact JSON, and the type each `$ref` in it designates.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EmbeddedSchema {
    /// The schema, compact.
    pub(crate) json: String,
    /// Each `$ref` text of `json`, with the index of the def it designates.
    pub(crate) references: Vec<(String, usize)>,
}

/// The embedded schema of every def of `space`, by def index.
pub(crate) fn embedded_schemas(resolver: &mut Resolver, space: &TypeSpace) -> Vec<EmbeddedSchema> {
    let origins = space.origins();
    let by_location: HashMap<&Location, usize> =
        origins.iter().enumerate().map(|(i, l)| (l, i)).collect();
    let mut out = Vec::with_capacity(origins.len());
    for at in origins {
        let mut value = resolver.get(at).cloned().unwrap_or(Value::Bool(true));
        let mut references = BTreeMap::new();
        let mut walk = Walk {
            resolver: &mut *resolver,
            by_location: &by_location,
            names: space.defs().iter().map(|d| d.origin.as_str()).collect(),
            references: &mut references,
        };
        walk.schema(&mut value, at, 0);
        out.push(EmbeddedSchema {
            json: value.to_string(),
            references: references.into_iter().collect(),
        });
    }
    out
}

struct Walk<'a> {
    resolver: &'a mut Resolver,
    by_location: &'a HashMap<&'a Location, usize>,
    /// Each def's origin, the text its `$ref`s are given.
    names: Vec<&'a str>,
    references: &'a mut BTreeMap<String, usize>,
}

impl Walk<'_> {
    fn schema(&mut self, value: &mut Value, at: &Location, depth: usize) {
        match value {
            Value::Object(object) => {
                for (key, member) in object.iter_mut() {
                    if !is_data(key) {
                        self.schema(member, &at.key(key), depth);
                    }
                }
                let Some(Value::String(reference)) = object.get("$ref").cloned() else {
                    return;
                };
                let Ok(target) = self.resolver.resolve_ref(at, &reference) else {
                    return;
                };
                if let Some(&def) = self.by_location.get(&target) {
                    let name = self.names[def].to_owned();
                    object.insert("$ref".into(), Value::String(name.clone()));
                    self.references.insert(name, def);
                } else if depth < MAX_INLINE {
                    object.remove("$ref");
                    let mut inner = self.resolver.get(&target).cloned().unwrap_or_default();
                    self.schema(&mut inner, &target, depth + 1);
                    merge(object, inner);
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    self.schema(item, &at.index(i), depth);
                }
            }
            _ => {}
        }
    }
}

/// Members whose values are data, not schemas: a `$ref` member in them is not one.
fn is_data(key: &str) -> bool {
    matches!(
        key,
        "$ref" | "const" | "enum" | "default" | "examples" | "example"
    )
}

/// `object` (a `$ref` taken out) with the schema the `$ref` designated: that schema
/// alone when nothing else was written beside the `$ref`, else both through `allOf`.
fn merge(object: &mut serde_json::Map<String, Value>, inner: Value) {
    if object.is_empty() {
        if let Value::Object(inner) = inner {
            *object = inner;
        } else {
            object.insert("allOf".into(), Value::Array(vec![inner]));
        }
    } else {
        object.insert("allOf".into(), Value::Array(vec![inner]));
    }
}
