//! Objects: records with named fields, maps, and flattened extra members.

use indexmap::{IndexMap, IndexSet};
use serde_json::Value;

use super::model::{Docs, Field, Kind, Struct, Ty, TypeDef};
use super::{Converter, ShallowClone};
use crate::resolve::Location;

/// What `additionalProperties` says (`None` when absent: members the schema does not
/// describe are accepted and dropped).
enum Extra {
    /// `true` or `{}`: other members are part of the value and kept, as JSON values.
    Kept,
    /// `false`.
    Deny,
    /// A schema for every other member.
    Schema(Location),
    /// Several pattern schemas that differ: any value.
    Any,
}

impl Converter<'_> {
    /// An object schema: a struct when it lists properties, else a map or any object.
    pub(super) fn convert_object(&mut self, at: &Location) -> Ty {
        let has_props = self
            .resolver
            .get(&at.key("properties"))
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        if !has_props {
            match self.extra_of(at) {
                Some(Extra::Schema(loc)) => return Ty::Map(Box::new(self.convert(&loc))),
                Some(Extra::Any) => return Ty::Map(Box::new(Ty::Value)),
                Some(Extra::Deny) => {}
                Some(Extra::Kept) | None => return Ty::Object,
            }
        }
        match self.start_named(at) {
            Ok(id) => {
                let record = self.build_struct(std::slice::from_ref(at), Vec::new(), None);
                self.define(id, Kind::Struct(record));
                super::Ty::Named(id)
            }
            Err(ty) => ty,
        }
    }

    /// Members other than the listed properties: `additionalProperties`, else a single
    /// `patternProperties` schema. `None` when neither is written.
    fn extra_of(&mut self, at: &Location) -> Option<Extra> {
        let ap = at.key("additionalProperties");
        let pp = at.key("patternProperties");
        let has_patterns = self
            .resolver
            .get(&pp)
            .and_then(Value::as_object)
            .is_some_and(|o| !o.is_empty());
        match self.resolver.get(&ap) {
            // Members matching a pattern are still allowed: a map of those (its keys
            // checked against the patterns, see `validation`).
            Some(Value::Bool(false)) if has_patterns => {}
            Some(Value::Bool(false)) => return Some(Extra::Deny),
            Some(Value::Bool(true)) => return Some(Extra::Kept),
            Some(Value::Object(o)) if o.is_empty() => return Some(Extra::Kept),
            Some(Value::Object(_)) => return Some(Extra::Schema(ap)),
            _ => {}
        }
        let patterns: Vec<String> = match self.resolver.get(&pp) {
            Some(Value::Object(o)) => o.keys().cloned().collect(),
            _ => return None,
        };
        match patterns.as_slice() {
            [] => None,
            [one] => Some(Extra::Schema(pp.key(one))),
            many => {
                let first = self.resolver.get(&pp.key(&many[0])).cloned();
                let same = many[1..]
                    .iter()
                    .all(|p| self.resolver.get(&pp.key(p)).cloned() == first);
                if same {
                    Some(Extra::Schema(pp.key(&many[0])))
                } else {
                    self.warn(&pp, "several `patternProperties` with different schemas: their values are generated as serde_json::Value");
                    self.fallbacks += 1;
                    Some(Extra::Any)
                }
            }
        }
    }

    /// A struct from the properties of every object in `parts` (one for a plain object,
    /// several for `allOf`), with `flattened` types merged in whole. The property `skip`
    /// (an internal enum tag) is left out.
    pub(super) fn build_struct(
        &mut self,
        parts: &[Location],
        flattened: Vec<Ty>,
        skip: Option<&str>,
    ) -> Struct {
        let mut props: IndexMap<String, Location> = IndexMap::new();
        let mut required: IndexSet<String> = IndexSet::new();
        let mut deny = !parts.is_empty();
        let mut extra = None;
        for part in parts {
            self.gather_properties(part, skip, &mut props, &mut required);
            self.note_unchecked_keys(part, !props.is_empty());
            match self.extra_of(part) {
                Some(Extra::Deny) => {}
                Some(Extra::Schema(loc)) => {
                    deny = false;
                    extra = extra.or(Some(Some(loc)));
                }
                Some(Extra::Any | Extra::Kept) => {
                    deny = false;
                    extra = extra.or(Some(None));
                }
                None if self.shape.keep_undescribed => {
                    deny = false;
                    extra = extra.or(Some(None));
                }
                None => deny = false,
            }
        }
        let extra = extra.map(|loc| match loc {
            Some(loc) => self.convert(&loc),
            None => Ty::Value,
        });
        // A type merged in whole may describe a required member: it is left to it.
        let undescribed = if flattened.is_empty() {
            undescribed_required(&required, &props, skip, extra.as_ref())
        } else {
            Vec::new()
        };
        let mut fields: Vec<Field> = props
            .into_iter()
            .map(|(wire, loc)| {
                let is_required = required.contains(&wire);
                self.field(wire, &loc, is_required)
            })
            .collect();
        fields.extend(undescribed);
        Struct {
            fields,
            deny_unknown: deny && flattened.is_empty() && extra.is_none(),
            extra,
            flattened,
        }
    }

    /// Adds the properties of the object at `part` to `props` (a property already there,
    /// from an earlier part, is kept; `skip` is left out), and its `required` names to
    /// `required`.
    fn gather_properties(
        &self,
        part: &Location,
        skip: Option<&str>,
        props: &mut IndexMap<String, Location>,
        required: &mut IndexSet<String>,
    ) {
        let raw = self.resolver.get(part).cloned_shallow();
        if let Some(Value::Array(req)) = raw.get("required") {
            required.extend(req.iter().filter_map(Value::as_str).map(str::to_owned));
        }
        let props_at = part.key("properties");
        if let Some(Value::Object(p)) = self.resolver.get(&props_at) {
            for key in p.keys() {
                if Some(key.as_str()) != skip && !props.contains_key(key) {
                    props.insert(key.clone(), props_at.key(key));
                }
            }
        }
    }

    /// Warns that the keys of the extra members of the object at `at` are not checked
    /// against its `patternProperties` (only a map's are: a struct's other members are
    /// flattened into a map of any key).
    fn note_unchecked_keys(&mut self, at: &Location, listed: bool) {
        let closed =
            self.resolver.get(&at.key("additionalProperties")) == Some(&Value::Bool(false));
        let pp = at.key("patternProperties");
        if listed
            && closed
            && self
                .resolver
                .get(&pp)
                .is_some_and(|p| p.as_object().is_some_and(|o| !o.is_empty()))
        {
            self.unenforced(
                &pp,
                "the key patterns of `patternProperties` beside `properties`",
            );
        }
    }

    /// One field: the property schema's type, `Option` unless required (of the type
    /// unchanged when it takes `null`: see [`Field::keeps_null`]).
    fn field(&mut self, wire: String, at: &Location, required: bool) -> Field {
        let ty = self.convert(at);
        let raw = self.resolver.get(at).cloned_shallow();
        let validation = self.validation(at);
        let keeps_null = !required && takes_null(&self.defs, &ty);
        let ty = match (required, keeps_null) {
            (true, _) => ty,
            (false, true) => Ty::Option(Box::new(ty)),
            (false, false) => ty.optional(),
        };
        Field {
            wire,
            ty,
            required,
            keeps_null,
            docs: Docs::of(&raw),
            default: raw.get("default").cloned(),
            validation,
            aliases: Vec::new(),
            origin: self.origin(at),
        }
    }
}

/// The fields of the members `required` lists and no property describes (but `skip`, an
/// internal tag): each is still a member every value has, holding what the other members
/// hold (`extra`, else any value).
fn undescribed_required(
    required: &IndexSet<String>,
    props: &IndexMap<String, Location>,
    skip: Option<&str>,
    extra: Option<&Ty>,
) -> Vec<Field> {
    required
        .iter()
        .filter(|r| !props.contains_key(*r) && Some(r.as_str()) != skip)
        .map(|wire| Field {
            wire: wire.clone(),
            ty: extra.cloned().unwrap_or(Ty::Value),
            required: true,
            keeps_null: false,
            docs: Docs::default(),
            default: None,
            validation: Default::default(),
            aliases: Vec::new(),
            origin: String::new(),
        })
        .collect()
}

/// Whether `ty` decodes from `null`: an `Option`, `()`, any value, or a name for one.
pub(super) fn takes_null(defs: &[TypeDef], ty: &Ty) -> bool {
    let mut ty = ty;
    for _ in 0..=defs.len() {
        match ty {
            Ty::Option(_) | Ty::Unit | Ty::Value => return true,
            Ty::Box(inner) => ty = inner,
            Ty::Named(id) => match defs.get(id.0).map(|d| &d.kind) {
                Some(Kind::Alias(inner) | Kind::Newtype(inner)) => ty = inner,
                _ => return false,
            },
            _ => return false,
        }
    }
    false
}
