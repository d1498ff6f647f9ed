//! The validation keywords of each place a type is used (see [`Validation`]).
//!
//! They are read from the schemas, not from the types: a place's keywords are those
//! written in its schema, then those of the schemas it is made of (a `$ref` target that
//! is not a component, `allOf` members); an array's items, a tuple's elements and a map's
//! values get theirs nested. A component's keywords stay with the named type it becomes,
//! so a long chain of component refs is never walked here.

use std::collections::{HashSet, VecDeque};

use serde_json::Value;

use super::Converter;
use super::model::Validation;
use super::place::is_component;
use crate::resolve::Location;

/// How deep nested items and values are read (a bound, not a limit real documents meet).
const MAX_NESTING: usize = 32;

/// How many schemas one place's keywords are gathered from, at most.
const MAX_PARTS: usize = 64;

impl Converter<'_> {
    /// The validation keywords of the place whose schema is at `at`.
    pub(super) fn validation(&mut self, at: &Location) -> Validation {
        self.validation_nested(at, 0)
    }

    fn validation_nested(&mut self, at: &Location, depth: usize) -> Validation {
        let mut found = Validation::default();
        let mut parts = VecDeque::from([at.clone()]);
        let mut seen = HashSet::new();
        while let Some(part) = parts.pop_front() {
            if seen.len() >= MAX_PARTS || !seen.insert(part.clone()) {
                continue;
            }
            let Some(schema) = self.resolver.get(&part).filter(|s| s.is_object()) else {
                continue;
            };
            let mut own = Validation::of(schema);
            let has_ref = schema.get("$ref").is_some_and(Value::is_string);
            if let Some(pattern) = own.pattern.take() {
                match crate::pattern::translate(&pattern) {
                    Ok(_) => own.pattern = Some(pattern),
                    Err(why) => {
                        self.refuse_pattern(&part.key("pattern"), pattern, &why.to_string());
                    }
                }
            }
            found.fill_from(own);
            let all_of = self.resolver.array_len(&part.key("allOf"));
            if depth < MAX_NESTING {
                let inside = self.inside(&part, depth);
                found.fill_from(inside);
            }
            if has_ref
                && let Ok(target) = self.resolver.deref(&part)
                && !is_component(&target)
            {
                parts.push_back(target);
            }
            parts.extend((0..all_of).map(|i| part.key("allOf").index(i)));
        }
        found
    }

    /// Warns, once, of a `pattern` outside the supported subset: no check is generated.
    fn refuse_pattern(&mut self, at: &Location, pattern: String, why: &str) {
        if self.refused_patterns.insert(at.clone()) {
            let message = format!(
                "pattern {pattern:?} is outside the supported ECMA-262 subset ({why}): not checked"
            );
            self.warn(at, message);
        }
    }

    /// The keywords of the items, elements or values of the schema at `at`.
    fn inside(&mut self, at: &Location, depth: usize) -> Validation {
        let mut found = Validation::default();
        let nested = |cx: &mut Self, at: &Location| {
            Some(cx.validation_nested(at, depth + 1))
                .filter(|v| !v.is_empty())
                .map(Box::new)
        };
        let tuple_key = ["prefixItems", "items"]
            .into_iter()
            .find(|k| self.resolver.get(&at.key(k)).is_some_and(Value::is_array));
        if let Some(key) = tuple_key {
            let list = at.key(key);
            let count = self.resolver.array_len(&list);
            let elements: Vec<Validation> = (0..count)
                .map(|i| self.validation_nested(&list.index(i), depth + 1))
                .collect();
            if elements.iter().any(|v| !v.is_empty()) {
                found.prefix_items = elements;
            }
        } else if self.resolver.get(&at.key("items")).is_some() {
            found.items = nested(self, &at.key("items"));
        }
        let values = match self.resolver.get(&at.key("additionalProperties")) {
            Some(Value::Object(_)) => Some(at.key("additionalProperties")),
            _ => self.single_pattern(at),
        };
        if let Some(values) = values {
            found.values = nested(self, &values);
        }
        found.keys = self.key_pattern(at);
        found
    }

    /// The pattern every key of the map at `at` must match: its `patternProperties` as
    /// one alternation, when `additionalProperties` is `false` and no property is listed
    /// (beside listed properties the keys are not checked: `structs` warns).
    fn key_pattern(&mut self, at: &Location) -> Option<String> {
        let closed =
            self.resolver.get(&at.key("additionalProperties")) == Some(&Value::Bool(false));
        let listed = self
            .resolver
            .get(&at.key("properties"))
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        if !closed || listed {
            return None;
        }
        let patterns: Vec<String> = self
            .resolver
            .get(&at.key("patternProperties"))?
            .as_object()?
            .keys()
            .cloned()
            .collect();
        let pattern = match patterns.as_slice() {
            [] => return None,
            [one] => one.clone(),
            many => many
                .iter()
                .map(|p| format!("({p})"))
                .collect::<Vec<_>>()
                .join("|"),
        };
        match crate::pattern::translate(&pattern) {
            Ok(_) => Some(pattern),
            Err(why) => {
                self.refuse_pattern(&at.key("patternProperties"), pattern, &why.to_string());
                None
            }
        }
    }

    /// The schema of the values of `patternProperties` when it has exactly one pattern.
    fn single_pattern(&self, at: &Location) -> Option<Location> {
        let patterns = self
            .resolver
            .get(&at.key("patternProperties"))?
            .as_object()?;
        match patterns.keys().collect::<Vec<_>>().as_slice() {
            [one] => Some(at.key("patternProperties").key(one)),
            _ => None,
        }
    }
}
