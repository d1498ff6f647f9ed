//! Sums: `oneOf`/`anyOf`, `enum`, `const`, and schemas allowing several JSON types.
//!
//! A `oneOf`/`anyOf` becomes, in order of preference: `Option<T>` (one branch besides
//! `null`); a string enum (every branch a string constant); an externally tagged enum
//! (every branch a single-key object, or a string constant: serde's own shape); an
//! adjacently or internally tagged enum (`tagged`); else an untagged enum, most specific
//! variants first.

use serde_json::Value;

use super::convert::STRUCTURAL;
use super::model::{
    Docs, Enum, Kind, Payload, Tagging, Ty, TypeDef, Validation, Variant, VariantHint,
};
use super::{Converter, ShallowClone};
use crate::resolve::Location;

/// One branch of a `oneOf`/`anyOf`: where it is written and what it resolves to.
pub(super) struct Branch {
    pub(super) at: Location,
    pub(super) target: Location,
    pub(super) raw: Value,
}

impl Converter<'_> {
    /// The sum of the branches under `schema/key`, as a type named after `owner`.
    pub(super) fn convert_branches(
        &mut self,
        owner: &Location,
        schema: &Location,
        key: &str,
    ) -> Ty {
        let list = schema.key(key);
        let count = self.resolver.array_len(&list);
        let mut branches = Vec::with_capacity(count);
        let mut nullable = false;
        for i in 0..count {
            let at = list.index(i);
            // A `$ref` beside structural keywords (JSON Schema 2019-09 on: schemars'
            // internally tagged newtype variant) is a member of the branch, not all of it.
            let beside = self.resolver.get(&at).is_some_and(|b| {
                b.get("$ref").is_some() && STRUCTURAL.iter().any(|k| b.get(*k).is_some())
            });
            let target = if beside {
                Some(at.clone())
            } else {
                self.deref(&at)
            };
            let Some(target) = target else {
                continue;
            };
            let raw = self.resolver.get(&target).cloned_shallow();
            if is_null_schema(&raw) {
                nullable = true;
            } else {
                branches.push(Branch { at, target, raw });
            }
        }
        let ty = match branches.as_slice() {
            [] => Ty::Unit,
            [one] => {
                let at = one.at.clone();
                self.convert(&at)
            }
            _ => self.convert_sum(owner, &branches),
        };
        if nullable { ty.optional() } else { ty }
    }

    fn convert_sum(&mut self, owner: &Location, branches: &[Branch]) -> Ty {
        let strings: Option<Vec<(String, Docs)>> = branches
            .iter()
            .map(|b| string_values(&b.raw).map(|vs| with_docs(vs, &b.raw)))
            .try_fold(Vec::new(), |mut acc, vs| {
                acc.extend(vs?);
                Some(acc)
            });
        if let Some(values) = strings {
            return self.string_enum(owner, values);
        }
        let id = match self.start_named(owner) {
            Ok(id) => id,
            Err(ty) => return ty,
        };
        let sum = self
            .external(branches)
            .or_else(|| self.adjacent(branches))
            .or_else(|| self.internal(branches))
            .unwrap_or_else(|| self.untagged(branches));
        self.define(id, Kind::Enum(sum));
        Ty::Named(id)
    }

    /// Every branch a single-key object (`{"Key": payload}`) or a string constant.
    fn external(&mut self, branches: &[Branch]) -> Option<Enum> {
        let mut shapes = Vec::with_capacity(branches.len());
        for b in branches {
            if let Some(values) = string_values(&b.raw) {
                // A branch of several constants describes the set, not each value.
                let docs = if values.len() == 1 {
                    Docs::of(&b.raw)
                } else {
                    Docs::default()
                };
                shapes.extend(values.into_iter().map(|v| (v, None, docs.clone())));
            } else {
                let key = self.single_key(&b.target, &b.raw)?;
                let payload_at = b.target.key("properties").key(&key);
                shapes.push((key, Some(payload_at), Docs::of(&b.raw)));
            }
        }
        let mut wires: Vec<&String> = shapes.iter().map(|s| &s.0).collect();
        wires.sort();
        wires.dedup();
        if wires.len() != shapes.len() || shapes.iter().all(|s| s.1.is_none()) {
            return None;
        }
        let variants = shapes
            .into_iter()
            .map(|(wire, payload_at, docs)| {
                let (payload, validation) = match payload_at {
                    Some(at) => (Payload::Newtype(self.convert(&at)), self.validation(&at)),
                    None => (Payload::Unit, Validation::default()),
                };
                Variant {
                    hint: VariantHint::Word(wire.clone()),
                    wire: Some(wire),
                    payload,
                    docs,
                    validation,
                }
            })
            .collect();
        Some(Enum {
            tagging: Tagging::External,
            variants,
        })
    }

    /// The one property of an object schema that lists exactly one, required.
    fn single_key(&self, at: &Location, raw: &Value) -> Option<String> {
        let props = self.resolver.get(&at.key("properties"))?.as_object()?;
        let required = raw.get("required")?.as_array()?;
        if props.len() != 1 || required.len() != 1 {
            return None;
        }
        let key = props.keys().next()?;
        (required[0].as_str() == Some(key.as_str())).then(|| key.clone())
    }

    /// The first branch that decodes wins: the variants are put most specific first by
    /// [`order_untagged`] once every type is known.
    fn untagged(&mut self, branches: &[Branch]) -> Enum {
        let variants = branches
            .iter()
            .map(|b| {
                let ty = self.convert(&b.at);
                let validation = self.validation(&b.at);
                let mut variant = self.untagged_variant(ty, Docs::of(&b.raw), validation);
                if let Some(title) = title_word(&b.raw)
                    && matches!(variant.hint, VariantHint::Word(_))
                {
                    variant.hint = VariantHint::Word(title);
                }
                variant
            })
            .collect();
        Enum {
            tagging: Tagging::Untagged,
            variants,
        }
    }

    pub(super) fn untagged_variant(&self, ty: Ty, docs: Docs, validation: Validation) -> Variant {
        let hint = match &ty {
            Ty::Named(id) => VariantHint::Type(*id),
            other => VariantHint::Word(other.word().to_owned()),
        };
        let payload = if ty == Ty::Unit {
            Payload::Unit
        } else {
            Payload::Newtype(ty)
        };
        Variant {
            wire: None,
            hint,
            payload,
            docs,
            validation,
        }
    }

    /// `enum: [...]`: string enum, integer enum, or the JSON type of the values.
    pub(super) fn convert_enum_values(&mut self, at: &Location, s: &Value) -> Ty {
        let values = s
            .get("enum")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let nullable = values.iter().any(Value::is_null);
        let rest: Vec<&Value> = values.iter().filter(|v| !v.is_null()).collect();
        let ty = if rest.is_empty() {
            Ty::Unit
        } else if rest.iter().all(|v| v.is_string()) {
            let docs = Docs::default();
            let strings = rest
                .iter()
                .filter_map(|v| v.as_str())
                .map(|v| (v.to_owned(), docs.clone()));
            let strings = strings.collect();
            self.string_enum(at, strings)
        } else if rest.iter().all(|v| v.is_i64()) {
            self.int_enum(at, rest.iter().filter_map(|v| v.as_i64()).collect())
        } else if rest.iter().all(|v| v.is_boolean()) {
            // Both values: exactly `bool`.
            if !(rest.contains(&&Value::Bool(true)) && rest.contains(&&Value::Bool(false))) {
                self.unenforced(at, &format!("`enum` {}", list(&rest)));
            }
            Ty::Bool
        } else if rest.iter().all(|v| v.is_number()) {
            self.unenforced(at, &format!("`enum` {}", list(&rest)));
            self.number()
        } else {
            self.fallback(at, "an `enum` mixing JSON types")
        };
        if nullable { ty.optional() } else { ty }
    }

    /// `const`: a one-value enum for strings and integers, else the value's JSON type.
    pub(super) fn convert_const(&mut self, at: &Location, value: &Value) -> Ty {
        match value {
            Value::String(s) => self.string_enum(at, vec![(s.clone(), Docs::default())]),
            Value::Number(n) if n.is_i64() => self.int_enum(at, n.as_i64().into_iter().collect()),
            Value::Number(_) => {
                self.unenforced(at, &format!("`const` {value}"));
                self.number()
            }
            Value::Bool(_) => {
                self.unenforced(at, &format!("`const` {value}"));
                Ty::Bool
            }
            Value::Null => Ty::Unit,
            _ => self.fallback(at, "a `const` object or array"),
        }
    }

    fn string_enum(&mut self, owner: &Location, mut values: Vec<(String, Docs)>) -> Ty {
        let mut seen = std::collections::HashSet::new();
        values.retain(|(v, _)| seen.insert(v.clone()));
        let id = match self.start_named(owner) {
            Ok(id) => id,
            Err(ty) => return ty,
        };
        let variants = values
            .into_iter()
            .map(|(wire, docs)| Variant {
                hint: VariantHint::Word(wire.clone()),
                wire: Some(wire),
                payload: Payload::Unit,
                docs,
                validation: Validation::default(),
            })
            .collect();
        self.define(
            id,
            Kind::Enum(Enum {
                tagging: Tagging::External,
                variants,
            }),
        );
        Ty::Named(id)
    }

    fn int_enum(&mut self, owner: &Location, mut values: Vec<i64>) -> Ty {
        let mut seen = std::collections::HashSet::new();
        values.retain(|v| seen.insert(*v));
        match self.start_named(owner) {
            Ok(id) => {
                self.define(id, Kind::IntEnum(values));
                Ty::Named(id)
            }
            Err(ty) => ty,
        }
    }

    /// `type: ["string", "integer", …]`: an untagged enum with a variant per type.
    pub(super) fn convert_multi_type(&mut self, at: &Location, s: &Value, types: &[String]) -> Ty {
        let owner = at.key("type");
        let id = match self.start_named(&owner) {
            Ok(id) => id,
            Err(ty) => return ty,
        };
        // The schema's keywords apply to whichever type the value has: the same for every
        // variant, so read once (after the first type is converted, as before).
        let mut keywords: Option<Validation> = None;
        let variants = types
            .iter()
            .map(|t| {
                let ty = self.convert_typed(at, s, t);
                let validation = keywords.get_or_insert_with(|| self.validation(at)).clone();
                self.untagged_variant(ty, Docs::default(), validation)
            })
            .collect();
        self.define(
            id,
            Kind::Enum(Enum {
                tagging: Tagging::Untagged,
                variants,
            }),
        );
        Ty::Named(id)
    }
}

/// Puts the variants of every untagged enum most specific first (the first variant that
/// decodes wins), keeping the document's order among equals. Done once every type is
/// known: during conversion, a type still being converted cannot be scored.
pub(super) fn order_untagged(defs: &mut [TypeDef]) {
    for i in 0..defs.len() {
        let Kind::Enum(e) = &defs[i].kind else {
            continue;
        };
        if e.tagging != Tagging::Untagged {
            continue;
        }
        let scores: Vec<i32> = e
            .variants
            .iter()
            .map(|v| match &v.payload {
                Payload::Newtype(ty) => specificity(defs, ty),
                Payload::Unit | Payload::Struct(_) => specificity(defs, &Ty::Unit),
            })
            .collect();
        if let Kind::Enum(e) = &mut defs[i].kind {
            let mut scored: Vec<(i32, Variant)> =
                scores.into_iter().zip(e.variants.drain(..)).collect();
            scored.sort_by_key(|(score, _)| -score);
            e.variants = scored.into_iter().map(|(_, v)| v).collect();
        }
    }
}

/// How narrow the set of JSON values a type accepts is (higher: try first).
///
/// A loop, not a recursion, through options, boxes and aliases: a long chain of aliases
/// must not deepen the stack.
fn specificity(defs: &[TypeDef], ty: &Ty) -> i32 {
    let mut ty = ty;
    let mut wrappers = 0;
    for _ in 0..=defs.len() {
        let score = match ty {
            Ty::Unit => 90,
            Ty::Bool => 85,
            Ty::Int(_) => 75,
            Ty::Number | Ty::Float => 70,
            Ty::Tuple(_) | Ty::Array(..) => 65,
            Ty::Vec(_) => 45,
            Ty::String => 40,
            Ty::Map(_) => 15,
            Ty::Object => 12,
            Ty::Value => 0,
            Ty::Option(inner) | Ty::Box(inner) => {
                wrappers += 1;
                ty = inner;
                continue;
            }
            Ty::Named(id) => match defs.get(id.0).map(|d| &d.kind) {
                Some(Kind::Alias(inner) | Kind::Newtype(inner)) => {
                    ty = inner;
                    continue;
                }
                Some(kind) => kind_specificity(kind),
                None => 0,
            },
        };
        return score - wrappers;
    }
    0
}

/// The specificity of a named type that is not an alias.
fn kind_specificity(kind: &Kind) -> i32 {
    match kind {
        Kind::Struct(s) => {
            let required = s.fields.iter().filter(|f| f.required).count() as i32;
            let base = if required == 0 && !s.deny_unknown {
                20
            } else {
                100
            };
            base + 3 * required + if s.deny_unknown { 2 } else { 0 }
        }
        Kind::Enum(e) if e.variants.iter().all(|v| v.payload == Payload::Unit) => 80,
        Kind::IntEnum(_) => 78,
        Kind::Enum(_) => 50,
        Kind::Never => 95,
        Kind::Alias(_) | Kind::Newtype(_) => 0,
    }
}

/// `[a, b]`: values for a message, cut after a few.
fn list(values: &[&Value]) -> String {
    let shown: Vec<String> = values.iter().take(4).map(ToString::to_string).collect();
    let more = if values.len() > 4 { ", …" } else { "" };
    format!("[{}{more}]", shown.join(", "))
}

/// `{"type": "null"}`, `{"type": ["null"]}`, `{"enum": [null]}` or `{"const": null}`.
fn is_null_schema(raw: &Value) -> bool {
    let t = raw.get("type");
    t == Some(&Value::String("null".into()))
        || t.and_then(Value::as_array)
            .is_some_and(|a| a.len() == 1 && a[0] == "null")
        || raw
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|a| a.len() == 1 && a[0].is_null())
        || raw.get("const") == Some(&Value::Null)
}

/// Each value with the branch's docs when it is the branch's only value (a branch of
/// several constants describes the set, not each value).
fn with_docs(values: Vec<String>, raw: &Value) -> impl Iterator<Item = (String, Docs)> {
    let docs = if values.len() == 1 {
        Docs::of(raw)
    } else {
        Docs::default()
    };
    values.into_iter().map(move |v| (v, docs.clone()))
}

/// The strings a string-constant schema allows (`const` or an all-string `enum`).
pub(super) fn string_values(raw: &Value) -> Option<Vec<String>> {
    let typed_other = match raw.get("type") {
        Some(Value::String(t)) => t != "string",
        Some(Value::Array(ts)) => ts.iter().any(|t| t != "string"),
        _ => false,
    };
    if typed_other {
        return None;
    }
    if let Some(Value::String(c)) = raw.get("const") {
        return Some(vec![c.clone()]);
    }
    let values = raw.get("enum")?.as_array()?;
    values
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// A branch's `title` when it reads as a name (`"Block hash"` → a variant `BlockHash`
/// rather than `String2`).
fn title_word(raw: &Value) -> Option<String> {
    raw.get("title")
        .and_then(Value::as_str)
        .filter(|t| crate::naming::title_is_identifier(t))
        .map(str::to_owned)
}
