//! Sums whose branches name themselves with a constant member, as serde writes them.
//!
//! Adjacently tagged (`#[serde(tag, content)]`): every branch an inline object of the tag
//! and at most one other member, the same one in all and in two branches at least
//! (`{"kind": "move", "data": …}`);
//! each variant holds that member's type, or nothing. Internally tagged
//! (`#[serde(tag)]`): inline object branches sharing a required string constant; each
//! variant holds the branch's other members, nothing when the tag is all it has, or the
//! type of the one `allOf` object merged beside the tag (schemars' newtype variant:
//! `{"properties": {"type": {"const": "reached"}}, "allOf": [{"$ref": "…/Point"}]}`).

use serde_json::Value;

use super::enums::{Branch, string_values};
use super::model::{Docs, Enum, Payload, Tagging, Validation, Variant, VariantHint};
use super::{Converter, ShallowClone};
use crate::resolve::Location;

impl Converter<'_> {
    /// Every branch the tag and at most one other member, the same in all.
    pub(super) fn adjacent(&mut self, branches: &[Branch]) -> Option<Enum> {
        let keys = self.inline_keys(branches)?;
        if branches
            .iter()
            .any(|b| b.raw.get("allOf").is_some() || b.raw.get("$ref").is_some())
        {
            return None;
        }
        let (tag, values) = self.tag_of(branches, &keys[0])?;
        let mut content: Option<&String> = None;
        for (b, keys) in branches.iter().zip(&keys) {
            match keys
                .iter()
                .filter(|k| **k != tag)
                .collect::<Vec<_>>()
                .as_slice()
            {
                [] => {}
                [one] if content.is_none_or(|c| c == *one) && is_required(&b.raw, one) => {
                    content = Some(one);
                }
                _ => return None,
            }
        }
        let content = content?.clone();
        // One branch with one other member reads better as a struct variant (Starknet's
        // `{"execution_status": "REVERTED", "revert_reason": …}`): a shared payload
        // member is one that several branches carry.
        let carrying = keys.iter().filter(|k| k.contains(&content)).count();
        if carrying < 2 {
            return None;
        }
        let variants = branches
            .iter()
            .zip(keys)
            .zip(values)
            .map(|((b, keys), value)| {
                let (payload, validation) = if keys.contains(&content) {
                    let at = b.target.key("properties").key(&content);
                    (Payload::Newtype(self.convert(&at)), self.validation(&at))
                } else {
                    (Payload::Unit, Validation::default())
                };
                tagged_variant(value, payload, Docs::of(&b.raw), validation)
            })
            .collect();
        Some(Enum {
            tagging: Tagging::Adjacent { tag, content },
            variants,
        })
    }

    /// Inline object branches sharing a required property that is a string constant.
    pub(super) fn internal(&mut self, branches: &[Branch]) -> Option<Enum> {
        let keys = self.inline_keys(branches)?;
        let (tag, values) = self.tag_of(branches, &keys[0])?;
        let variants = branches
            .iter()
            .zip(keys)
            .zip(values)
            .map(|((b, keys), value)| {
                let payload = self.internal_payload(b, &keys, &tag);
                let validation = self.validation(&b.at);
                tagged_variant(value, payload, Docs::of(&b.raw), validation)
            })
            .collect();
        Some(Enum {
            tagging: Tagging::Internal(tag),
            variants,
        })
    }

    /// What an internally tagged branch holds beside its tag.
    fn internal_payload(&mut self, b: &Branch, keys: &[String], tag: &str) -> Payload {
        let merged = self.merged_members(b);
        let only_tag = keys.iter().all(|k| k == tag);
        let open = b
            .raw
            .get("additionalProperties")
            .is_some_and(|a| a != &Value::Bool(false));
        match merged.as_slice() {
            [] if only_tag && !open => return Payload::Unit,
            [one] if only_tag && !open => {
                let target = self.deref(one);
                let raw = target.map(|t| self.resolver.get(&t).cloned_shallow());
                if raw.is_some_and(|r| r.get("type") == Some(&Value::from("object"))) {
                    return Payload::Newtype(self.convert(one));
                }
            }
            _ => {}
        }
        let mut parts = vec![b.target.clone()];
        for member in &merged {
            parts.extend(self.deref(member));
        }
        Payload::Struct(self.build_struct(&parts, Vec::new(), Some(tag)))
    }

    /// The schemas a branch merges beside its own members: its `allOf` members, and the
    /// target of a `$ref` written beside them (2019-09 on).
    fn merged_members(&mut self, b: &Branch) -> Vec<Location> {
        let all_of = b.target.key("allOf");
        let count = self.resolver.array_len(&all_of);
        let mut out: Vec<Location> = (0..count).map(|i| all_of.index(i)).collect();
        if let Some(Value::String(reference)) = b.raw.get("$ref") {
            match self.resolver.resolve_ref(&b.target, reference) {
                Ok(target) => out.push(target),
                Err(d) => self.diagnostics.push(d),
            }
        }
        out
    }

    /// The property names of each branch, when every branch is an inline object.
    fn inline_keys(&self, branches: &[Branch]) -> Option<Vec<Vec<String>>> {
        branches
            .iter()
            .map(|b| {
                if b.at != b.target {
                    return None;
                }
                let props = self
                    .resolver
                    .get(&b.target.key("properties"))?
                    .as_object()?;
                Some(props.keys().cloned().collect())
            })
            .collect()
    }

    /// The first of `candidates` that tags every branch, with each branch's value.
    fn tag_of(
        &mut self,
        branches: &[Branch],
        candidates: &[String],
    ) -> Option<(String, Vec<String>)> {
        candidates
            .iter()
            .find_map(|p| self.tag_values(branches, p).map(|v| (p.clone(), v)))
    }

    /// The constant of property `p` in each branch, if `p` is required and constant in
    /// all of them, with distinct values.
    fn tag_values(&mut self, branches: &[Branch], p: &str) -> Option<Vec<String>> {
        let mut values = Vec::with_capacity(branches.len());
        for b in branches {
            if !is_required(&b.raw, p) {
                return None;
            }
            let prop = b.target.key("properties").key(p);
            self.resolver.get(&prop)?;
            let target = self.resolver.deref(&prop).ok()?;
            let raw = self.resolver.get(&target).cloned_shallow();
            match string_values(&raw)?.as_slice() {
                [one] => values.push(one.clone()),
                _ => return None,
            }
        }
        let mut sorted = values.clone();
        sorted.sort();
        sorted.dedup();
        (sorted.len() == values.len()).then_some(values)
    }
}

fn is_required(raw: &Value, p: &str) -> bool {
    raw.get("required")
        .and_then(Value::as_array)
        .is_some_and(|r| r.iter().any(|r| r.as_str() == Some(p)))
}

fn tagged_variant(value: String, payload: Payload, docs: Docs, validation: Validation) -> Variant {
    Variant {
        hint: VariantHint::Word(value.clone()),
        wire: Some(value),
        payload,
        docs,
        validation,
    }
}
