//! `allOf` (and `$ref` with structural siblings): members merged into one type.
//!
//! Object members contribute their properties and `required` lists to one struct;
//! `oneOf`/`anyOf` members are flattened into it; a lone member (`allOf: [$ref]`, the
//! schemars wrapper that only adds a description) collapses to that member's own type.

use serde_json::Value;

use super::model::{Kind, Ty};
use super::{Converter, ShallowClone};
use crate::resolve::Location;

/// Nesting of `allOf` inside `allOf` deeper than this is not followed.
const MAX_DEPTH: usize = 16;

/// The members of an `allOf`, sorted by what they contribute.
#[derive(Default)]
struct Members {
    /// Objects whose properties are merged.
    objects: Vec<Location>,
    /// `oneOf`/`anyOf` members (the schema and its keyword), flattened in whole.
    sums: Vec<(Location, &'static str)>,
    /// Anything else (strings with a pattern, …): the first one gives the type.
    scalars: Vec<Location>,
}

impl Converter<'_> {
    /// The merged type of the `allOf` (or `$ref` + siblings) schema at `at`.
    pub(super) fn convert_all_of(&mut self, at: &Location, s: &Value) -> Ty {
        let mut members = Members::default();
        self.collect_members(at, s, &mut members, 0);
        let own_object = members.objects.first() == Some(at);
        match (members.objects.as_slice(), members.sums.as_slice()) {
            ([], []) => match members.scalars.first() {
                Some(first) => {
                    let first = first.clone();
                    self.convert(&first)
                }
                None => Ty::Value,
            },
            ([one], []) if !own_object => {
                let one = one.clone();
                self.convert(&one)
            }
            ([], [(one, key)]) => {
                let one = one.clone();
                self.convert_sum_member(&one, key)
            }
            _ => self.merged_struct(at, &members),
        }
    }

    fn merged_struct(&mut self, at: &Location, members: &Members) -> Ty {
        let id = match self.start_named(at) {
            Ok(id) => id,
            Err(ty) => return ty,
        };
        let flattened = members
            .sums
            .iter()
            .map(|(m, key)| self.convert_sum_member(m, key))
            .collect();
        let record = self.build_struct(&members.objects, flattened, None);
        self.define(id, Kind::Struct(record));
        Ty::Named(id)
    }

    /// The enum of a `oneOf`/`anyOf` member, named after its own place.
    fn convert_sum_member(&mut self, member: &Location, key: &str) -> Ty {
        let raw = self.resolver.get(member).cloned_shallow();
        if raw.get("properties").is_some() || raw.get("allOf").is_some() {
            let owner = member.key(key);
            self.convert_branches(&owner, member, key)
        } else {
            self.convert(member)
        }
    }

    /// Sorts the members of the schema at `at` (and of nested `allOf`s) into `out`.
    fn collect_members(&mut self, at: &Location, s: &Value, out: &mut Members, depth: usize) {
        if depth > MAX_DEPTH {
            self.warn(at, "`allOf` nested too deeply: inner members ignored");
            return;
        }
        if depth > 0 {
            // A member is merged, never converted by itself: its restrictions that the
            // type cannot express would go unnoticed.
            for keyword in ["not", "if"] {
                if s.get(keyword).is_some() {
                    self.unenforced(at, &format!("`{keyword}`"));
                }
            }
        }
        let is_object = [
            "properties",
            "required",
            "additionalProperties",
            "patternProperties",
        ]
        .iter()
        .any(|k| s.get(k).is_some())
            || s.get("type").and_then(Value::as_str) == Some("object");
        if is_object {
            out.objects.push(at.clone());
        }
        if s.get("oneOf").is_some() {
            out.sums.push((at.clone(), "oneOf"));
        } else if s.get("anyOf").is_some() {
            out.sums.push((at.clone(), "anyOf"));
        }
        let mut inner: Vec<Location> = Vec::new();
        if depth == 0 && s.get("$ref").is_some_and(Value::is_string) {
            inner.push(at.clone());
        }
        let count = self.resolver.array_len(&at.key("allOf"));
        inner.extend((0..count).map(|i| at.key("allOf").index(i)));
        for member in inner {
            self.collect_member(&member, out, depth);
        }
        let is_sum = ["allOf", "oneOf", "anyOf", "$ref"]
            .iter()
            .any(|k| s.get(k).is_some());
        if !is_object && depth > 0 && !is_sum && !is_annotation_only(s) {
            out.scalars.push(at.clone());
        }
    }

    fn collect_member(&mut self, member: &Location, out: &mut Members, depth: usize) {
        let Some(target) = self.deref(member) else {
            return;
        };
        let raw = self.resolver.get(&target).cloned_shallow();
        if raw == Value::Bool(true) {
            return;
        }
        if !raw.is_object() {
            out.scalars.push(target);
            return;
        }
        self.collect_members(&target, &raw, out, depth + 1);
    }
}

/// Whether a schema only describes (`{"description": …}`): it adds nothing to a merge.
fn is_annotation_only(s: &Value) -> bool {
    s.as_object().is_some_and(|o| {
        o.keys().all(|k| {
            matches!(
                k.as_str(),
                "title" | "description" | "examples" | "default" | "deprecated" | "$comment"
            ) || k.starts_with("x-")
        })
    })
}
