//! A value satisfying a schema, generated deterministically from a seed.
//!
//! The schema is read as the diff reads it ([`Shape`]: `$ref`s followed, `allOf` merged).
//! `const` and `enum` give one of their values; alternatives (`oneOf`/`anyOf`) one of
//! them; objects every required member (and the optional ones near the top, as many as
//! `maxProperties` allows); arrays `minItems` items (at least one near the top; distinct
//! under `uniqueItems`); strings honour `pattern` (see
//! [`super::pattern`]), well-known `format`s and the length bounds; numbers the bounds
//! and `multipleOf`. Deep inside recursive schemas only what is required is generated.

use serde_json::{Map, Number, Value, json};

use crate::shape::{self, Shape};
use rpcsmith_build::{Location, Resolver};

use super::pattern;
use super::rng::Rng;

/// Past this depth, only required members and `minItems` items are generated.
const RICH_DEPTH: usize = 3;
/// Past this depth, generation stops (with `null`): a guard against required cycles.
const MAX_DEPTH: usize = 24;

/// Generates values for the schemas of one document.
pub(crate) struct Generator<'r> {
    pub(crate) resolver: &'r mut Resolver,
    pub(crate) rng: Rng,
    /// Patterns that could not be read, with where they are (reported once each).
    pub(crate) unreadable: Vec<(Location, String)>,
}

impl Generator<'_> {
    /// A value for the schema at `at`.
    pub(crate) fn value(&mut self, at: &Location, depth: usize) -> Value {
        if depth > MAX_DEPTH {
            return Value::Null;
        }
        let shape = Shape::read(self.resolver, at);
        if let Some(values) = &shape.values {
            // Values of a type the schema refuses cannot be given (a document that
            // writes both has no valid value); the type then decides.
            let fitting: Vec<&Value> = values
                .iter()
                .filter(|v| fits_types(&shape, v) && !shape.excluded.contains(v))
                .collect();
            if !fitting.is_empty() {
                let index = self.rng.below(fitting.len() as u64) as usize;
                return fitting[index].clone();
            }
        }
        if let Some(alternatives) = &shape.alternatives {
            let index = self.rng.below(alternatives.len() as u64) as usize;
            if let Some(alternative) = alternatives.get(index).cloned() {
                let value = self.value(&alternative, depth + 1);
                return merge_members(value, self.object(&shape, depth));
            }
        }
        match pick_type(&shape).as_str() {
            "object" => Value::Object(self.object(&shape, depth)),
            "array" => self.array(&shape, depth),
            "string" => Value::String(self.string(&shape)),
            "integer" => self.number(&shape, true),
            "number" => self.number(&shape, false),
            "boolean" => Value::Bool(self.rng.below(2) == 1),
            _ => Value::Null,
        }
    }

    fn object(&mut self, shape: &Shape, depth: usize) -> Map<String, Value> {
        let mut object = Map::new();
        let members: Vec<(String, Location)> = shape
            .properties
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        // Optional members stop at `maxProperties` (required ones are all there).
        let mut room = shape
            .count("maxProperties")
            .unwrap_or(usize::MAX)
            .saturating_sub(shape.required.len());
        for (name, at) in members {
            let required = shape.required.contains(&name);
            if !required && depth < RICH_DEPTH && room > 0 {
                room -= 1;
            } else if !required {
                continue;
            }
            let value = self.value(&at, depth + 1);
            object.insert(name, value);
        }
        // Required members the schema does not describe: present, with any value.
        for name in &shape.required {
            object.entry(name.clone()).or_insert(Value::Null);
        }
        object
    }

    fn array(&mut self, shape: &Shape, depth: usize) -> Value {
        let min = shape.count("minItems").unwrap_or(0);
        let max = shape.count("maxItems").unwrap_or(usize::MAX);
        let wanted = if depth < RICH_DEPTH { min.max(1) } else { min };
        if let Some(tuple) = shape.tuple.clone() {
            // Past the tuple any item is allowed: the last schema is repeated.
            let count = tuple.len().max(min).min(max);
            let last = tuple.len().saturating_sub(1);
            let items = (0..count).filter_map(|i| tuple.get(i.min(last)).cloned());
            return Value::Array(items.map(|at| self.value(&at, depth + 1)).collect());
        }
        let Some(items) = shape.items.clone() else {
            return Value::Array(vec![Value::Null; wanted.min(max)]);
        };
        let count = wanted.min(max);
        // Under `uniqueItems`, a value already there is drawn again (a few times at most:
        // a schema with fewer values than `minItems` has no valid array anyway).
        let mut out: Vec<Value> = Vec::with_capacity(count);
        for _ in 0..count.saturating_mul(4).saturating_add(8) {
            if out.len() >= count {
                break;
            }
            let value = self.value(&items, depth + 1);
            if !shape.unique_items || !out.contains(&value) {
                out.push(value);
            }
        }
        Value::Array(out)
    }

    fn string(&mut self, shape: &Shape) -> String {
        let min = shape.count("minLength").unwrap_or(0);
        let max = shape.count("maxLength").unwrap_or(usize::MAX);
        if let Some(pattern) = shape.texts.get("pattern") {
            match pattern::matching(pattern, &mut self.rng) {
                Some(s) => return s,
                None => self
                    .unreadable
                    .push((shape.place("pattern"), pattern.clone())),
            }
        }
        let mut s = match shape.texts.get("format").map(String::as_str) {
            Some(format) => formatted(format, &mut self.rng),
            None => format!("text{}", self.rng.below(1000)),
        };
        while s.chars().count() < min {
            s.push('x');
        }
        s.chars().take(max).collect()
    }

    fn number(&mut self, shape: &Shape, integer: bool) -> Value {
        let bound = |k: &str| shape.bounds.get(k).copied();
        let step = if integer { 1.0 } else { 0.5 };
        let low = bound("minimum").or(bound("exclusiveMinimum").map(|b| b + step));
        let high = bound("maximum").or(bound("exclusiveMaximum").map(|b| b - step));
        let (low, high) = match (low, high) {
            (Some(l), Some(h)) => (l, h),
            (Some(l), None) => (l, l + 100.0),
            (None, Some(h)) => (h - 100.0, h),
            (None, None) => (0.0, 100.0),
        };
        let span = (high - low).max(0.0);
        let mut n = low + (self.rng.below(span as u64 + 1) as f64).min(span);
        if let Some(multiple) = shape.multiple_of
            && multiple > 0.0
        {
            n = (low / multiple).ceil() * multiple;
        }
        if integer {
            return json!(n.ceil() as i64);
        }
        Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

/// Whether `value` is of a type the schema allows (any, without `type`).
fn fits_types(shape: &Shape, value: &Value) -> bool {
    shape
        .types
        .as_ref()
        .is_none_or(|types| shape::covers(types, shape::json_type(value)))
}

/// The members an alternative's object gets from the schema holding the alternatives
/// (`{"properties": …, "oneOf": […]}`).
fn merge_members(value: Value, members: Map<String, Value>) -> Value {
    match value {
        Value::Object(mut object) => {
            for (k, v) in members {
                object.entry(k).or_insert(v);
            }
            Value::Object(object)
        }
        other => other,
    }
}

/// The type generated: the schema's first type in this order of preference (`null`
/// last), or `object` where members are declared; `null` for a schema allowing anything.
fn pick_type(shape: &Shape) -> String {
    const ORDER: [&str; 7] = [
        "object", "array", "string", "integer", "number", "boolean", "null",
    ];
    match &shape.types {
        Some(types) => ORDER
            .iter()
            .find(|t| types.contains(**t))
            .map_or("null".to_owned(), |t| (*t).to_owned()),
        None if !shape.properties.is_empty() => "object".to_owned(),
        None => "null".to_owned(),
    }
}

/// A string of a well-known `format`; others get plain text.
fn formatted(format: &str, rng: &mut Rng) -> String {
    let n = rng.below(9) + 1;
    match format {
        "date-time" => format!("2024-01-0{n}T12:00:00Z"),
        "date" => format!("2024-01-0{n}"),
        "time" => "12:00:00Z".to_owned(),
        "email" => format!("user{n}@example.com"),
        "hostname" => format!("host{n}.example.com"),
        "ipv4" => format!("192.0.2.{n}"),
        "ipv6" => format!("2001:db8::{n}"),
        "uri" | "url" | "iri" => format!("https://example.com/{n}"),
        "uuid" => format!("00000000-0000-4000-8000-00000000000{n}"),
        _ => format!("text{n}"),
    }
}
