//! The mock's check of a value against its schema, whole: JSON types, `enum`/`const`,
//! `not` of values, alternatives (`oneOf`/`anyOf`: at least one fits), required and
//! unknown members, members, items and tuple elements, and at each schema the keywords
//! the runtime's constraint checks apply (`rpcsmith::protocol::constraint`: lengths,
//! `pattern`, bounds, `multipleOf`, counts, `uniqueItems`, `format`) — the same checks
//! the generated servers run, not a copy.

use std::collections::HashMap;

use rpcsmith::protocol::Violation;
use rpcsmith::protocol::constraint::{Format, Pattern, Rules, check_json};
use serde_json::Value;

use crate::shape::{self, Additional, Shape};
use rpcsmith_build::pattern::translate;
use rpcsmith_build::{Location, Resolver};

/// How deep a value is checked (a guard against recursive schemas and deep values).
const MAX_DEPTH: usize = 64;

/// The patterns read so far, compiled once each; `None` for one outside the subset.
#[derive(Debug, Default)]
pub(crate) struct Patterns(HashMap<String, Option<Pattern>>);

/// Checks values against the schemas of one document.
pub(crate) struct Checker<'m> {
    pub(crate) resolver: &'m mut Resolver,
    pub(crate) patterns: &'m mut Patterns,
}

impl Checker<'_> {
    /// Checks `value` against the schema at `at`.
    ///
    /// # Errors
    ///
    /// The first violation found, with the JSON pointer of the value at fault.
    pub(crate) fn check(
        &mut self,
        at: &Location,
        value: &Value,
        depth: usize,
    ) -> Result<(), Violation> {
        if depth > MAX_DEPTH {
            return Ok(());
        }
        let shape = Shape::read(self.resolver, at);
        if let Some(alternatives) = &shape.alternatives {
            let fits = alternatives
                .iter()
                .any(|alternative| self.check(alternative, value, depth + 1).is_ok());
            if !fits {
                let place = shape.place("alternatives").pointer;
                let keyword = if place.ends_with("anyOf") {
                    "anyOf"
                } else {
                    "oneOf"
                };
                let detail = format!(
                    "{value} fits none of the {} alternatives",
                    alternatives.len()
                );
                return Err(Violation::new(keyword, short(detail)));
            }
        } else if let Some(types) = &shape.types
            && !shape::covers(types, shape::json_type(value))
        {
            let expected: Vec<&str> = types.iter().map(String::as_str).collect();
            let detail = format!("expected {}, found {value}", expected.join(" or "));
            return Err(Violation::new("type", short(detail)));
        }
        if let Some(values) = &shape.values
            && !values.contains(value)
        {
            let detail = format!("{value} is not one of the allowed values");
            return Err(Violation::new("enum", short(detail)));
        }
        if shape.excluded.contains(value) {
            return Err(Violation::new(
                "not",
                short(format!("{value} is excluded by `not`")),
            ));
        }
        self.keywords(&shape, value)?;
        match value {
            Value::Object(members) => self.members(&shape, members, depth),
            Value::Array(items) => self.items(&shape, items, depth),
            _ => Ok(()),
        }
    }

    /// The runtime's constraint checks of the keywords written at this schema.
    fn keywords(&mut self, shape: &Shape, value: &Value) -> Result<(), Violation> {
        let pattern = shape.texts.get("pattern").cloned();
        if let Some(source) = &pattern {
            self.patterns.0.entry(source.clone()).or_insert_with(|| {
                translate(source)
                    .ok()
                    .map(|regex| Pattern::owned(source.clone(), regex))
            });
        }
        let pattern = pattern
            .and_then(|p| self.patterns.0.get(&p))
            .and_then(Option::as_ref);
        let count = |k: &str| shape.bounds.get(k).map(|b| *b as u64);
        let bound = |k: &str| shape.bounds.get(k).copied();
        let rules = Rules {
            min_length: count("minLength"),
            max_length: count("maxLength"),
            pattern,
            format: shape.texts.get("format").and_then(|f| Format::from_name(f)),
            minimum: bound("minimum"),
            exclusive_minimum: bound("exclusiveMinimum"),
            maximum: bound("maximum"),
            exclusive_maximum: bound("exclusiveMaximum"),
            multiple_of: shape.multiple_of,
            min_items: count("minItems"),
            max_items: count("maxItems"),
            unique_items: shape.unique_items,
            min_properties: count("minProperties"),
            max_properties: count("maxProperties"),
            ..Rules::NONE
        };
        check_json(value, &rules)
    }

    fn members(
        &mut self,
        shape: &Shape,
        members: &serde_json::Map<String, Value>,
        depth: usize,
    ) -> Result<(), Violation> {
        if let Some(missing) = shape.required.iter().find(|r| !members.contains_key(*r)) {
            let detail = format!("the required member `{missing}` is missing");
            return Err(Violation::new("required", detail));
        }
        for (key, member) in members {
            let schema = match (shape.properties.get(key), &shape.additional) {
                (Some(at), _) => at.clone(),
                (None, Additional::Schema(at)) => at.clone(),
                (None, Additional::Forbidden) if shape.alternatives.is_none() => {
                    let detail = format!("the member `{key}` is not allowed");
                    return Err(Violation::new("additionalProperties", detail));
                }
                (None, _) => continue,
            };
            self.check(&schema, member, depth + 1)
                .map_err(|v| v.at_key(key))?;
        }
        Ok(())
    }

    fn items(&mut self, shape: &Shape, items: &[Value], depth: usize) -> Result<(), Violation> {
        for (index, item) in items.iter().enumerate() {
            let schema = match &shape.tuple {
                Some(tuple) => tuple.get(index).cloned(),
                None => shape.items.clone(),
            };
            if let Some(schema) = schema {
                self.check(&schema, item, depth + 1)
                    .map_err(|v| v.at_index(index))?;
            }
        }
        Ok(())
    }
}

/// A detail cut to a readable length (values are quoted whole otherwise).
fn short(detail: String) -> String {
    const MAX: usize = 160;
    match detail.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &detail[..end]),
        None => detail,
    }
}
