//! Dispatch on a schema's keywords; scalars and arrays.

use serde_json::Value;

use super::model::{Kind, Ty, TypeId};
use super::{Converter, Example, ShallowClone, Slot};
use crate::resolve::Location;

/// Keywords that change what a `$ref` means when written beside it.
pub(super) const STRUCTURAL: &[&str] = &[
    "properties",
    "allOf",
    "oneOf",
    "anyOf",
    "items",
    "additionalProperties",
    "patternProperties",
];

/// Keywords that only describe or constrain (they never change the Rust type).
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "examples",
    "example",
    "default",
    "deprecated",
    "$comment",
    "$schema",
    "$id",
    "definitions",
    "$defs",
    "readOnly",
    "writeOnly",
    "externalDocs",
    "summary",
    "name",
    "format",
    "pattern",
];

/// Keywords of a schema with no `type` that constrain only values of some JSON type
/// (`minLength` for strings …), or are read elsewhere: such a schema accepts any value
/// of the other types, so `serde_json::Value` is its exact type.
const ANY_VALUE_WORDS: &[&str] = &[
    "nullable",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "required",
    "dependencies",
    "dependentRequired",
    "propertyNames",
    "contains",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "id",
];

impl Converter<'_> {
    /// The type of the schema at `at`, converting it on first use.
    pub(super) fn convert(&mut self, at: &Location) -> Ty {
        match self.slots.get(at) {
            Some(Slot::Done(ty)) => return ty.clone(),
            Some(Slot::Busy(Some(id))) => return Ty::Named(*id),
            Some(Slot::Busy(None)) => {
                let id = self.reserve(at);
                self.placeholders.insert(at.clone(), id);
                self.slots.insert(at.clone(), Slot::Busy(Some(id)));
                return Ty::Named(id);
            }
            None => {}
        }
        if let Some(first) = self.same_definition(at) {
            let ty = self.convert(&first);
            self.slots.insert(at.clone(), Slot::Done(ty.clone()));
            return ty;
        }
        if self.depth >= super::deferred::MAX_DEPTH {
            return self.defer(at);
        }
        self.depth += 1;
        self.slots.insert(at.clone(), Slot::Busy(None));
        let mut ty = self.convert_fresh(at);
        self.depth -= 1;
        if ty == Ty::Value {
            self.value_sites.push(at.clone());
        }
        if let Some(id) = self.placeholders.remove(at) {
            if ty != Ty::Named(id) {
                self.define(id, Kind::Newtype(ty));
            }
            ty = Ty::Named(id);
        } else if super::place::is_component(at)
            && !self.names_itself(&ty, at)
            && !self.is_descriptor_of_named(&ty, at)
            && !self.refers_to_namesake(&ty, at)
        {
            let id = self.reserve(at);
            self.define(id, Kind::Alias(ty));
            ty = Ty::Named(id);
        } else if super::place::is_component(at) {
            self.keep_component_name(&ty, at);
        }
        self.slots.insert(at.clone(), Slot::Done(ty.clone()));
        self.collect_examples(at, &ty);
        ty
    }

    /// The first place of the file where a `$defs`/`definitions` entry of the same key
    /// and the same text sits, when it is not `at`: schemars' root schemas each carry the
    /// definitions they use, so one Rust type is written once per param and result that
    /// reaches it (its `$ref`s are relative to its own root, and mean the same there).
    fn same_definition(&mut self, at: &Location) -> Option<Location> {
        let parent = at.parent()?;
        let within = parent.pointer.rsplit('/').next()?;
        if !matches!(within, "$defs" | "definitions") || parent.pointer.contains("/components/") {
            return None;
        }
        let key = at.pointer.rsplit('/').next()?.to_owned();
        let text = serde_json::to_string(self.resolver.get(at)?).ok()?;
        let first = self
            .definitions
            .entry((at.file, key, text))
            .or_insert_with(|| at.clone());
        (first != at).then(|| first.clone())
    }

    /// Gives the type of a component that is its union's lone branch the component's name
    /// as its best candidate: the component is that type (no alias), under its own name.
    fn keep_component_name(&mut self, ty: &Ty, at: &Location) {
        let id = match ty {
            Ty::Named(id) => *id,
            Ty::Option(inner) => match **inner {
                Ty::Named(id) => id,
                _ => return,
            },
            _ => return,
        };
        let is_branch = self
            .origins
            .get(id.0)
            .is_some_and(|o| is_branch_of(&o.pointer, &at.pointer) || *o == at.key("schema"));
        if !is_branch {
            return;
        }
        let schema = self.resolver.get(at).cloned_shallow();
        let own = super::place::candidates(self.resolver, self.root, at, &schema);
        if let Some(def) = self.defs.get_mut(id.0) {
            def.candidates.extend(own);
        }
    }

    /// Whether `at` is a shared param's schema (`components/contentDescriptors/Cursor`)
    /// whose type is a named type, or only a `$ref` to one: the param is that type, and an
    /// alias named after the descriptor would only twin it (`Cursor2 = Cursor`, `PetId2`).
    fn is_descriptor_of_named(&self, ty: &Ty, at: &Location) -> bool {
        (super::place::is_descriptor_schema(at) && matches!(ty, Ty::Named(_)))
            || self.descriptor_ref(at)
    }

    /// Whether the schema at `at` is a component content descriptor's schema that is only
    /// a `$ref` (`{"$ref": "#/components/schemas/PetId"}`): its type is the target's, not
    /// an alias named after the descriptor (which would twin the target, `PetId2`).
    fn descriptor_ref(&self, at: &Location) -> bool {
        at.pointer.ends_with("/schema")
            && at.pointer.contains("/contentDescriptors/")
            && self
                .resolver
                .get(at)
                .and_then(Value::as_object)
                .is_some_and(|o| {
                    o.get("$ref").is_some_and(Value::is_string)
                        && o.keys()
                            .all(|k| k == "$ref" || ANNOTATIONS.contains(&k.as_str()))
                })
    }

    /// Whether the component at `at` is only a `$ref` to a component of the same name in
    /// another file (Starknet's trace API's `BLOCK_ID`, a `$ref` to the main API's
    /// `BLOCK_ID`): it is that type, since an alias would have to be named `BlockId2`.
    fn refers_to_namesake(&self, ty: &Ty, at: &Location) -> bool {
        let Ty::Named(id) = ty else { return false };
        let only_ref = self
            .resolver
            .get(at)
            .and_then(Value::as_object)
            .is_some_and(|o| {
                o.get("$ref").is_some_and(Value::is_string)
                    && o.keys()
                        .all(|k| k == "$ref" || ANNOTATIONS.contains(&k.as_str()))
            });
        let schema = self.resolver.get(at).cloned_shallow();
        let own = super::place::candidates(self.resolver, self.root, at, &schema);
        only_ref
            && self.defs.get(id.0).is_some_and(|d| {
                own.first()
                    .is_some_and(|mine| d.candidates.iter().any(|c| c.0 == mine.0 && c.1 == mine.1))
            })
    }

    /// Whether `ty` is (an `Option` of) the named type made for the schema at `at` itself
    /// (or for its `type` list): the component needs no alias then.
    fn names_itself(&self, ty: &Ty, at: &Location) -> bool {
        match ty {
            Ty::Option(inner) => self.names_itself(inner, at),
            Ty::Named(id) => self.origins.get(id.0).is_some_and(|o| {
                o == at
                    || *o == at.key("type")
                    || *o == at.key("schema")
                    || is_branch_of(&o.pointer, &at.pointer)
            }),
            _ => false,
        }
    }

    /// Starts a named type for the schema at `owner`, unless an identical schema already
    /// has one (then `Err` with its type).
    pub(super) fn start_named(&mut self, owner: &Location) -> Result<TypeId, Ty> {
        // A `type` list names a sum of the whole schema's readings: key it by the schema.
        let (keyed, tag) = match owner.parent().filter(|_| owner.pointer.ends_with("/type")) {
            Some(parent) => (parent, "type:"),
            None => (owner.clone(), ""),
        };
        let key = self
            .resolver
            .get(&keyed)
            .filter(|_| !super::place::is_component(&keyed))
            .and_then(|v| serde_json::to_string(v).ok())
            .map(|text| {
                let anchor = meaning_anchor(self.resolver.get(&keyed), &keyed);
                (owner.file, format!("{anchor}{tag}{text}"))
            });
        if let Some(ty) = key.as_ref().and_then(|k| self.shapes.get(k)).cloned() {
            self.also_used_at(&ty, owner);
            return Err(ty);
        }
        let id = self.reserve(owner);
        self.slots.insert(owner.clone(), Slot::Busy(Some(id)));
        if let Some(key) = key {
            self.shapes.insert(key, Ty::Named(id));
        }
        Ok(id)
    }

    /// Records that the schema of the named type `ty` is also written at `owner`: its
    /// place there is one more name candidate (the best place wins, not the first).
    fn also_used_at(&mut self, ty: &Ty, owner: &Location) {
        let Ty::Named(id) = ty else { return };
        let schema = self.resolver.get(owner).cloned_shallow();
        let more = super::place::candidates(self.resolver, self.root, owner, &schema);
        let site = self.origin(owner);
        self.record_position(owner);
        if let Some(def) = self.defs.get_mut(id.0) {
            def.candidates.extend(more);
            def.sites.push(site);
        }
    }

    fn convert_fresh(&mut self, at: &Location) -> Ty {
        match self.resolver.get(at) {
            Some(Value::Bool(true)) => Ty::Value,
            Some(Value::Bool(false)) => match self.start_named(at) {
                Ok(id) => Ty::Named(id),
                Err(ty) => ty,
            },
            Some(Value::Object(_)) => {
                let s = self.resolver.get(at).cloned_shallow();
                let nullable = s.get("nullable") == Some(&Value::Bool(true));
                let ty = self.convert_object_schema(at, &s);
                if nullable { ty.optional() } else { ty }
            }
            Some(_) => {
                self.error(at, "a schema must be an object or a boolean");
                Ty::Value
            }
            None => {
                self.error(at, "no schema at this location");
                Ty::Value
            }
        }
    }

    fn convert_object_schema(&mut self, at: &Location, s: &Value) -> Ty {
        let has = |k: &str| s.get(k).is_some();
        self.note_unenforced(at, s);
        if s.get("$ref").is_some_and(Value::is_string) {
            if STRUCTURAL.iter().any(|k| has(k)) {
                return self.convert_all_of(at, s);
            }
            return match self.deref(at) {
                Some(end) => {
                    let first = self.named_hop(at, s).filter(|hop| *hop != end);
                    self.convert(&first.unwrap_or(end))
                }
                None => Ty::Value,
            };
        }
        if has("allOf") {
            return self.convert_all_of(at, s);
        }
        if has("oneOf") || has("anyOf") {
            if has("properties") {
                return self.convert_all_of(at, s);
            }
            let key = if has("oneOf") { "oneOf" } else { "anyOf" };
            return self.convert_branches(at, at, key);
        }
        if has("enum") {
            return self.convert_enum_values(at, s);
        }
        if let Some(value) = s.get("const") {
            return self.convert_const(at, value);
        }
        self.convert_by_type(at, s)
    }

    /// The component the `$ref` of the schema at `at` points to, when it points to one:
    /// a chain of `$ref`s stops at the first component it meets, so a component that is
    /// only a `$ref` (`BlockHash` → `Hex`) keeps its own name where it is used.
    fn named_hop(&mut self, at: &Location, s: &Value) -> Option<Location> {
        let reference = s.get("$ref").and_then(Value::as_str)?;
        let next = self.resolver.resolve_ref(at, reference).ok()?;
        super::place::is_component(&next).then_some(next)
    }

    /// Warns about keywords that restrict values in ways the type cannot express (a
    /// schema made only of one of them is a fallback, with its own warning).
    fn note_unenforced(&mut self, at: &Location, s: &Value) {
        for keyword in ["not", "if"] {
            if s.get(keyword).is_some() && !self.only_keyword(s, keyword) {
                self.unenforced(at, &format!("`{keyword}`"));
            }
        }
    }

    /// Records that `what`, written in the schema at `at`, is not enforced.
    pub(super) fn unenforced(&mut self, at: &Location, what: &str) {
        self.warn(
            at,
            format!("{what} is not expressed in the type (not enforced)"),
        );
    }

    /// Whether `keyword` (with `then`/`else` for `if`) is the only non-annotation keyword.
    fn only_keyword(&self, s: &Value, keyword: &str) -> bool {
        s.as_object().is_some_and(|o| {
            o.keys().all(|k| {
                k == keyword
                    || (keyword == "if" && (k == "then" || k == "else"))
                    || ANNOTATIONS.contains(&k.as_str())
                    || k == "nullable"
                    || k.starts_with("x-")
            })
        })
    }

    fn convert_by_type(&mut self, at: &Location, s: &Value) -> Ty {
        let (types, nullable) = type_list(s);
        let ty = match types.as_slice() {
            [] if nullable => Ty::Unit,
            [] => self.untyped(at, s),
            [one] => self.convert_typed(at, s, one),
            _ => self.convert_multi_type(at, s, &types),
        };
        if nullable { ty.optional() } else { ty }
    }

    /// A schema with no `type`: inferred from its keywords, else any value.
    fn untyped(&mut self, at: &Location, s: &Value) -> Ty {
        let has = |k: &str| s.get(k).is_some();
        if has("properties") || has("additionalProperties") || has("patternProperties") {
            self.convert_typed(at, s, "object")
        } else if has("items") || has("prefixItems") {
            self.convert_typed(at, s, "array")
        } else if has("not") && self.only_keyword(s, "not") {
            self.fallback(at, "a schema made only of `not` cannot be expressed")
        } else if has("if") && self.only_keyword(s, "if") {
            self.fallback(at, "`if`/`then`/`else` cannot be expressed")
        } else if has("schema") && self.only_descriptor_words(s) {
            self.descriptor_in_place(at, s)
        } else {
            self.unknown_words(at, s);
            Ty::Value
        }
    }

    /// Whether every member of `s` is one a content descriptor has (`schema`, `name`,
    /// `summary`, `required` …) or an annotation: a content descriptor written where a
    /// schema belongs (Starknet's `SUBSCRIPTION_BLOCK_ID` in `components/schemas`).
    fn only_descriptor_words(&self, s: &Value) -> bool {
        s.as_object().is_some_and(|o| {
            o.keys().all(|k| {
                matches!(k.as_str(), "schema" | "required")
                    || ANNOTATIONS.contains(&k.as_str())
                    || k.starts_with("x-")
            })
        })
    }

    /// A content descriptor where a schema belongs: its `schema` is the type (named from
    /// this place), with a warning, since read as a schema it would accept any value.
    fn descriptor_in_place(&mut self, at: &Location, s: &Value) -> Ty {
        let what = if s.get("name").is_some_and(Value::is_string) {
            "a content descriptor (`name` and `schema`)"
        } else {
            "a content descriptor without `name` (a `schema` member)"
        };
        self.warn(
            at,
            format!(
                "{what} where a schema belongs: typed by its `schema`; \
                 refer to its `schema` instead"
            ),
        );
        self.convert(&at.key("schema"))
    }

    /// Warns of the members of a schema with no `type` that are neither keywords the
    /// type reads nor annotations: the schema accepts any value, which may not be what
    /// its author meant (a silent `serde_json::Value` otherwise).
    fn unknown_words(&mut self, at: &Location, s: &Value) {
        let Some(object) = s.as_object() else { return };
        let unknown: Vec<&str> = object
            .keys()
            .map(String::as_str)
            .filter(|k| !ANNOTATIONS.contains(k) && !ANY_VALUE_WORDS.contains(k))
            .filter(|k| !k.starts_with("x-"))
            .collect();
        if !unknown.is_empty() {
            let message = format!(
                "a schema with no `type` whose members {} are not JSON Schema keywords the \
                 generator reads: it accepts any value (generated as serde_json::Value)",
                unknown.join(", ")
            );
            self.warn(at, message);
        }
    }

    /// The type of the schema at `at` read as being of JSON type `ty` only.
    pub(super) fn convert_typed(&mut self, at: &Location, s: &Value, ty: &str) -> Ty {
        match ty {
            "string" => Ty::String,
            "integer" => Ty::Int(super::ints::int_width(s)),
            "number" => self.number(),
            "boolean" => Ty::Bool,
            "null" => Ty::Unit,
            "array" => self.convert_array(at, s),
            "object" => self.convert_object(at),
            other => {
                self.error(at, format!("unknown type \"{other}\""));
                Ty::Value
            }
        }
    }

    /// The type of `type: number`: `f64`, or `serde_json::Number` when asked.
    pub(super) fn number(&self) -> Ty {
        if self.shape.exact_numbers {
            Ty::Number
        } else {
            Ty::Float
        }
    }

    fn convert_array(&mut self, at: &Location, s: &Value) -> Ty {
        let key = if s.get("prefixItems").is_some() {
            "prefixItems"
        } else {
            "items"
        };
        let items_at = at.key(key);
        let count = match self.resolver.get(&items_at) {
            None => {
                if s.get("properties").is_some() {
                    // execution-apis' `blockStateCalls`: an array described as an object.
                    self.warn(
                        at,
                        "an array with `properties` and no `items`: the properties describe \
                         no item, whose type is serde_json::Value; move them under `items`",
                    );
                }
                return Ty::Vec(Box::new(Ty::Value));
            }
            Some(Value::Array(a)) => a.len(),
            Some(_) => return Ty::Vec(Box::new(self.convert(&items_at))),
        };
        let min = s.get("minItems").and_then(Value::as_u64);
        let max = s.get("maxItems").and_then(Value::as_u64);
        let fixed = min.filter(|m| Some(*m) == max);
        let tys: Vec<Ty> = (0..count)
            .map(|i| self.convert(&items_at.index(i)))
            .collect();
        match (tys.as_slice(), fixed) {
            ([], _) => Ty::Vec(Box::new(Ty::Value)),
            ([one], Some(n)) if n > 1 && n <= 32 => Ty::Array(Box::new(one.clone()), n as usize),
            ([one], Some(1)) => Ty::Tuple(vec![one.clone()]),
            ([one], _) => Ty::Vec(Box::new(one.clone())),
            (many, _) if many.len() <= 16 => Ty::Tuple(many.to_vec()),
            _ => self.fallback(at, "a tuple of more than 16 elements"),
        }
    }

    /// Records the `examples` and `default` of the schema at `at` as values of `ty`.
    fn collect_examples(&mut self, at: &Location, ty: &Ty) {
        let Some(schema) = self.resolver.get(at).and_then(Value::as_object) else {
            return;
        };
        let mut found = Vec::new();
        if let Some(Value::Array(examples)) = schema.get("examples") {
            for (i, v) in examples.iter().enumerate() {
                found.push((v.clone(), at.key("examples").index(i)));
            }
        }
        if let Some(v) = schema.get("default") {
            found.push((v.clone(), at.key("default")));
        }
        for (value, place) in found {
            let origin = self.origin(&place);
            self.examples.push(Example {
                ty: ty.clone(),
                value,
                origin,
            });
        }
    }
}

/// What identical inline schemas must also share to be one type: nothing when the schema
/// has a `title` (it says what it is), else the component it is written in. Copies of one
/// schema that a bundler wrote under each method merge; an untitled shape that two
/// components happen to share (a state change's `change` and an error's
/// `TriesToUnstake` payload) does not, since it means a different thing in each.
fn meaning_anchor(schema: Option<&Value>, at: &Location) -> String {
    if schema.and_then(|s| s.get("title")).is_some() {
        return String::new();
    }
    let Some(tokens) = crate::pointer::tokens(&at.pointer) else {
        return String::new();
    };
    match tokens.iter().position(|t| t == "components") {
        Some(c) if tokens.len() > c + 2 => format!("{}/{}|", tokens[c + 1], tokens[c + 2]),
        _ => String::new(),
    }
}

/// Whether `branch` is a branch of the union written at `union` (`…/oneOf/0`): the type
/// of a union's lone branch (beside `null`) is the union's own.
fn is_branch_of(branch: &str, union: &str) -> bool {
    let Some(rest) = branch.strip_prefix(union) else {
        return false;
    };
    let index = rest
        .strip_prefix("/oneOf/")
        .or_else(|| rest.strip_prefix("/anyOf/"));
    index.is_some_and(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()))
}

/// The JSON types a schema allows, without `null`, and whether `null` is allowed.
pub(super) fn type_list(s: &Value) -> (Vec<String>, bool) {
    let mut types: Vec<String> = match s.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    let nullable = types.iter().any(|t| t == "null");
    types.retain(|t| t != "null");
    types.dedup();
    (types, nullable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_lists() {
        let s = serde_json::json!({"type": ["string", "null"]});
        assert_eq!(type_list(&s), (vec!["string".to_owned()], true));
        let s = serde_json::json!({"type": ["object"]});
        assert_eq!(type_list(&s), (vec!["object".to_owned()], false));
    }
}
