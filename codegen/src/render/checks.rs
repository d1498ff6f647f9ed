//! Constraint checks: which generated types implement the runtime's `Validate`, and the
//! `Rules` statics and calls their impls and the params' checks are made of.
//!
//! The keywords of a place (a field, a param, an item) are its own, those of the
//! aliases its type goes through, and those nested in its type's containers (an
//! array's items, a map's values); a named type checks its own keywords and its
//! members in its impl. Only what can fail is generated: a field whose rules are empty
//! and whose type holds nothing to check gets no call, a type that nothing calls gets
//! no impl, and a type reached only as a container's item with nothing of its own to
//! check gets the one-line impl (the trait's provided method). A `pattern` outside the
//! supported subset (warned about by the type space) and a `format` not checked by the
//! runtime are left out.

use std::cell::RefCell;
use std::collections::BTreeSet;

use serde::Serialize;

pub(crate) use super::statics::StaticView;

use super::rust::string_literal;
use super::statics::{FORMATS, Pool, RT, Statics};
use crate::pattern::translate;
use crate::typespace::{Enum, Field, Int, Kind, Payload, Struct, Tagging, Ty, TypeDef, Validation};

/// What is decided once per document: which named types hold something to check.
pub(crate) struct Checks<'a> {
    defs: &'a [TypeDef],
    /// By def index: a value of the type has something to check (its own keywords, or
    /// a member's).
    holds: Vec<bool>,
    /// By def index: the type implements `Validate` (something calls it).
    implements: BTreeSet<usize>,
    /// The statics every check of the document names.
    pool: RefCell<Pool>,
}

/// One call of a check: `member(target, key, &rules)`, `param(…)`, or `validate`.
#[derive(Debug, Serialize)]
pub(crate) struct CallView {
    /// `member` or `param`; empty for a plain `Validate::validate` (no path segment).
    pub(crate) func: String,
    /// The value, as an expression of a reference (`&self.amount`, `v`).
    pub(crate) target: String,
    /// The field of `self` the target is (`amount`, `0`), as the runtime's `validate!`
    /// names it; empty in a match arm.
    pub(crate) field: String,
    /// The member or param name, as a string literal.
    pub(crate) key: String,
    /// The rules: a static's name, or `Rules::NONE`.
    pub(crate) rules: String,
}

/// One arm of an enum's check.
#[derive(Debug, Serialize)]
pub(crate) struct ArmView {
    pub(crate) pattern: String,
    pub(crate) calls: Vec<CallView>,
}

/// A `Validate` impl: the one-line impl (`full` false), or the whole method.
#[derive(Debug, Default, Serialize)]
pub(crate) struct ImplView {
    pub(crate) full: bool,
    /// The method is a straight list of calls (no match arms): one invocation of the
    /// runtime's `validate!` writes it (the same impl, without its text).
    pub(crate) straight: bool,
    /// The static of the type's own keywords, checked on the whole value.
    pub(crate) own: Option<String>,
    pub(crate) calls: Vec<CallView>,
    pub(crate) arms: Vec<ArmView>,
    pub(crate) has_arms: bool,
    /// Some variant has no arm: each arm is an `if let` (a `match` with `_ => {}` would
    /// be clippy's `single_match`), else one `match`.
    pub(crate) rest: bool,
}

impl<'a> Checks<'a> {
    /// The checks of `defs`, reached from the params of `params` (each a method's list
    /// of `(type, keywords)`).
    pub(crate) fn new<'p>(
        defs: &'a [TypeDef],
        params: impl Iterator<Item = (&'p Ty, &'p Validation)>,
    ) -> Self {
        let mut checks = Checks {
            defs,
            holds: vec![false; defs.len()],
            implements: BTreeSet::new(),
            pool: RefCell::default(),
        };
        checks.settle_holds();
        let mut pending: Vec<usize> = Vec::new();
        for (ty, v) in params {
            if checks.needs(ty, v) {
                checks.reach(ty, &mut pending);
            }
        }
        while let Some(id) = pending.pop() {
            if checks.holds[id] {
                for (ty, v) in checks.member_sites(id) {
                    if checks.needs(&ty, &v) {
                        checks.reach(&ty, &mut pending);
                    }
                }
            }
        }
        checks
    }

    /// The statics the checks rendered so far name, in order: the module writes them once
    /// at its root (after the types and the params are rendered).
    pub(crate) fn statics(&self) -> Vec<StaticView> {
        self.pool.borrow_mut().take()
    }

    /// `holds` as a least fixpoint (a cycle holds something only if a part of it does).
    fn settle_holds(&mut self) {
        loop {
            let mut changed = false;
            for id in 0..self.defs.len() {
                if !self.holds[id] && self.def_holds(id) {
                    self.holds[id] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    fn def_holds(&self, id: usize) -> bool {
        let def = &self.defs[id];
        if def.replaced_by.is_some() || matches!(def.kind, Kind::Alias(_)) {
            return false;
        }
        if !usable(&def.validation).is_empty() {
            return true;
        }
        self.member_sites(id)
            .iter()
            .any(|(ty, v)| self.needs(ty, v))
    }

    /// Every member place of a named type: fields, flattened parts, variant payloads.
    fn member_sites(&self, id: usize) -> Vec<(Ty, Validation)> {
        let def = &self.defs[id];
        let fields = |s: &Struct, values: Option<&Validation>, out: &mut Vec<(Ty, Validation)>| {
            out.extend(
                s.fields
                    .iter()
                    .map(|f| (f.ty.clone(), f.validation.clone())),
            );
            out.extend(
                s.flattened
                    .iter()
                    .map(|t| (t.clone(), Validation::default())),
            );
            if let Some(t) = &s.extra {
                out.push((Ty::Map(Box::new(t.clone())), extra_rules(values)));
            }
        };
        let mut out = Vec::new();
        match &def.kind {
            Kind::Struct(s) => fields(s, def.validation.values.as_deref(), &mut out),
            Kind::Enum(e) => {
                for variant in &e.variants {
                    match &variant.payload {
                        Payload::Newtype(t) => out.push((t.clone(), variant.validation.clone())),
                        Payload::Struct(s) => fields(s, None, &mut out),
                        Payload::Unit => {}
                    }
                }
            }
            Kind::Newtype(t) => out.push((t.clone(), def.validation.clone())),
            Kind::IntEnum(_) | Kind::Alias(_) | Kind::Never => {}
        }
        out
    }

    /// Whether a place of type `ty` with keywords `v` gets a check.
    fn needs(&self, ty: &Ty, v: &Validation) -> bool {
        self.callable(ty) && (!self.effective(ty, v, 0).is_empty() || self.ty_holds(ty, 0))
    }

    /// Whether `ty` implements `Validate` once its named types do: not when it holds a
    /// type replaced by an override (a type of the user's, which may not).
    fn callable(&self, ty: &Ty) -> bool {
        self.named_inside(ty, 0)
            .iter()
            .all(|&id| self.defs[id].replaced_by.is_none())
    }

    fn ty_holds(&self, ty: &Ty, depth: usize) -> bool {
        self.named_inside(ty, depth)
            .iter()
            .any(|&id| self.holds[id])
    }

    /// The named types a value of `ty` is made of at its level (through containers
    /// and aliases, not into members), aliases left out.
    fn named_inside(&self, ty: &Ty, depth: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![(ty, depth)];
        while let Some((ty, depth)) = stack.pop() {
            match ty {
                Ty::Named(id) => match &self.defs.get(id.0).map(|d| &d.kind) {
                    Some(Kind::Alias(t)) if depth < MAX_ALIASES => stack.push((t, depth + 1)),
                    Some(Kind::Alias(_)) | None => {}
                    Some(_) => out.push(id.0),
                },
                Ty::Option(t) | Ty::Box(t) | Ty::Vec(t) | Ty::Array(t, _) | Ty::Map(t) => {
                    stack.push((t, depth));
                }
                Ty::Tuple(ts) => stack.extend(ts.iter().map(|t| (t, depth))),
                _ => {}
            }
        }
        out
    }

    /// Marks the named types inside `ty` as implementing `Validate`; those new to the
    /// set are pushed on `pending` (their members are reached in turn).
    fn reach(&mut self, ty: &Ty, pending: &mut Vec<usize>) {
        for id in self.named_inside(ty, 0) {
            if self.implements.insert(id) {
                pending.push(id);
            }
        }
    }

    /// The keywords checked at a place: `v`, those of the aliases `ty` goes through,
    /// nested ones for containers; unusable ones left out.
    fn effective(&self, ty: &Ty, v: &Validation, depth: usize) -> Validation {
        let mut v = usable(v);
        match ty {
            Ty::Named(id) => {
                if let Some(def) = self.defs.get(id.0)
                    && let Kind::Alias(target) = &def.kind
                    && depth < MAX_ALIASES
                {
                    v.fill_from(usable(&def.validation));
                    return self.effective(target, &v, depth + 1);
                }
            }
            Ty::Option(t) | Ty::Box(t) => return self.effective(t, &v, depth),
            // An unsigned type holds no negative number: `minimum: 0` checks nothing.
            Ty::Int(Int::U8 | Int::U16 | Int::U32 | Int::U64 | Int::U128) => {
                v.minimum = v.minimum.filter(|m| *m > 0.0);
                v.exclusive_minimum = v.exclusive_minimum.filter(|m| *m >= 0.0);
            }
            Ty::Vec(t) | Ty::Array(t, _) => {
                let items = v.items.take().map(|b| *b).unwrap_or_default();
                let inner = self.effective(t, &items, depth);
                v.items = (!inner.is_empty()).then(|| Box::new(inner));
                v.prefix_items.clear();
            }
            Ty::Map(t) => {
                let values = v.values.take().map(|b| *b).unwrap_or_default();
                let inner = self.effective(t, &values, depth);
                v.values = (!inner.is_empty()).then(|| Box::new(inner));
            }
            Ty::Tuple(ts) => {
                let elements: Vec<Validation> = ts
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        let own = v.prefix_items.get(i).cloned().unwrap_or_default();
                        self.effective(t, &own, depth)
                    })
                    .collect();
                v.prefix_items = if elements.iter().all(Validation::is_empty) {
                    Vec::new()
                } else {
                    elements
                };
                v.items = None;
            }
            _ => {}
        }
        v
    }

    /// The `Validate` impl of the def `id`, or `None` when it has none.
    pub(crate) fn impl_of(&self, id: usize, names: &MemberNames<'_>) -> Option<ImplView> {
        if !self.implements.contains(&id) {
            return None;
        }
        if !self.holds[id] {
            return Some(ImplView::default());
        }
        let def = &self.defs[id];
        let mut statics = Statics {
            pool: &self.pool,
            prefix: "super::",
        };
        let mut view = ImplView {
            full: true,
            ..ImplView::default()
        };
        let own = usable(&def.validation);
        if !own.is_empty() && !matches!(def.kind, Kind::Newtype(_)) {
            view.own = Some(statics.rules(&own));
        }
        match &def.kind {
            Kind::Struct(s) => {
                let values = def.validation.values.as_deref();
                view.calls = self.struct_calls(s, values, names.fields, "self.", &mut statics);
            }
            Kind::Enum(e) => {
                for i in 0..e.variants.len() {
                    match self.arm(e, i, names, &mut statics) {
                        Some(arm) => view.arms.push(arm),
                        None => view.rest = true,
                    }
                }
                view.has_arms = !view.arms.is_empty();
            }
            Kind::Newtype(t) => {
                let rules = self.rules_for(t, &def.validation, &mut statics);
                view.calls = vec![call("&self.0".to_owned(), String::new(), rules)];
            }
            Kind::IntEnum(_) | Kind::Alias(_) | Kind::Never => {}
        }
        view.straight = view.arms.is_empty();
        Some(view)
    }

    /// The match arm checking the variant `i` of `e`; `None` when it has nothing to check.
    fn arm(
        &self,
        e: &Enum,
        i: usize,
        names: &MemberNames<'_>,
        statics: &mut Statics<'_>,
    ) -> Option<ArmView> {
        let variant = &e.variants[i];
        let name = names.variants.get(i).map_or("", |n| n.name.as_str());
        match &variant.payload {
            Payload::Newtype(t) if self.needs(t, &variant.validation) => {
                let rules = self.rules_for(t, &variant.validation, statics);
                // Externally tagged: the payload is inside the member named by the tag.
                let key = match (&e.tagging, &variant.wire) {
                    (Tagging::External, Some(wire)) => string_literal(wire),
                    (Tagging::Adjacent { content, .. }, _) => string_literal(content),
                    _ => String::new(),
                };
                Some(ArmView {
                    pattern: format!("Self::{name}(v)"),
                    calls: vec![call("v".to_owned(), key, rules)],
                })
            }
            Payload::Struct(s) => {
                let fields = names.variants.get(i).map_or(&[][..], |n| &n.fields[..]);
                let calls = self.struct_calls(s, None, fields, "", statics);
                let bound: Vec<String> = calls
                    .iter()
                    .map(|c| {
                        format!(
                            "{}: {}",
                            c.target.trim_start_matches('&'),
                            binding(&c.target)
                        )
                    })
                    .collect();
                let calls: Vec<CallView> = calls
                    .into_iter()
                    .map(|c| CallView {
                        target: binding(&c.target),
                        ..c
                    })
                    .collect();
                (!calls.is_empty()).then(|| ArmView {
                    pattern: format!("Self::{name} {{ {}, .. }}", bound.join(", ")),
                    calls,
                })
            }
            _ => None,
        }
    }

    /// The calls checking the fields of `s`, named `names` (the struct's field names in
    /// order, then the flattened parts', then the extra map's), reached through `prefix`;
    /// `values` are the keywords of the members no property describes
    /// (`additionalProperties`), which the extra map's values are checked against.
    fn struct_calls(
        &self,
        s: &Struct,
        values: Option<&Validation>,
        names: &[String],
        prefix: &str,
        statics: &mut Statics<'_>,
    ) -> Vec<CallView> {
        let mut calls = Vec::new();
        let field_count = s.fields.len();
        for (i, f) in s.fields.iter().enumerate() {
            let Some(name) = names.get(i) else { continue };
            if let Some(c) = self.field_call(f, &format!("&{prefix}{name}"), statics) {
                calls.push(c);
            }
        }
        for (j, t) in s.flattened.iter().enumerate() {
            let Some(name) = names.get(field_count + j) else {
                continue;
            };
            if self.callable(t) && self.ty_holds(t, 0) {
                let none = format!("{RT}::Rules::NONE");
                calls.push(call(format!("&{prefix}{name}"), String::new(), none));
            }
        }
        let extra_name = names.get(field_count + s.flattened.len());
        if let (Some(t), Some(name)) = (&s.extra, extra_name) {
            let ty = Ty::Map(Box::new(t.clone()));
            let rules = extra_rules(values);
            if self.needs(&ty, &rules) {
                let rules = self.rules_for(&ty, &rules, statics);
                calls.push(call(format!("&{prefix}{name}"), String::new(), rules));
            }
        }
        calls
    }

    fn field_call(&self, f: &Field, target: &str, statics: &mut Statics<'_>) -> Option<CallView> {
        if !self.needs(&f.ty, &f.validation) {
            return None;
        }
        let rules = self.rules_for(&f.ty, &f.validation, statics);
        let mut c = call(target.to_owned(), string_literal(&f.wire), rules);
        c.func = "member".to_owned();
        Some(c)
    }

    /// The checks of a method's params (`(Rust field, wire name, type, keywords)`), as
    /// the body of the params struct's impl; `None` when no param has any.
    pub(crate) fn params_impl(
        &self,
        params: &[(&str, &str, &Ty, &Validation)],
    ) -> Option<ImplView> {
        let mut statics = Statics {
            pool: &self.pool,
            prefix: "",
        };
        let mut calls = Vec::new();
        for &(rust, wire, ty, v) in params {
            if !self.needs(ty, v) {
                continue;
            }
            let rules = self.rules_for(ty, v, &mut statics);
            let mut c = call(format!("&self.{rust}"), string_literal(wire), rules);
            c.func = "param".to_owned();
            calls.push(c);
        }
        (!calls.is_empty()).then(|| ImplView {
            full: true,
            straight: true,
            calls,
            ..ImplView::default()
        })
    }

    /// The rules of a place, as a static (or `Rules::NONE`).
    fn rules_for(&self, ty: &Ty, v: &Validation, statics: &mut Statics<'_>) -> String {
        let effective = self.effective(ty, v, 0);
        if effective.is_empty() {
            format!("{RT}::Rules::NONE")
        } else {
            statics.rules(&effective)
        }
    }
}

/// How deep aliases of aliases are followed (a guard; documents nest a few).
const MAX_ALIASES: usize = 16;

/// The Rust names of a named type's members, as the type's view names them.
pub(crate) struct MemberNames<'v> {
    /// A struct's fields, then flattened parts, then the extra map.
    pub(crate) fields: &'v [String],
    /// An enum's variants, in order.
    pub(crate) variants: &'v [VariantNames],
}

/// One variant's Rust name and its fields' names.
pub(crate) struct VariantNames {
    pub(crate) name: String,
    pub(crate) fields: Vec<String>,
}

/// The keywords of a struct's extra map: only its values' (`values`, the
/// `additionalProperties` schema's). The struct's own keywords, `minProperties` among
/// them, count every member and are checked on the whole struct.
fn extra_rules(values: Option<&Validation>) -> Validation {
    Validation {
        values: values.map(|v| Box::new(v.clone())),
        ..Validation::default()
    }
}

fn call(target: String, key: String, rules: String) -> CallView {
    CallView {
        func: if key.is_empty() {
            String::new()
        } else {
            "member".to_owned()
        },
        field: target.strip_prefix("&self.").unwrap_or_default().to_owned(),
        target,
        key,
        rules,
    }
}

/// The binding a struct variant's field gets in a match arm (`&r#type` → `f_type`).
fn binding(target: &str) -> String {
    format!(
        "f_{}",
        target.trim_start_matches('&').trim_start_matches("r#")
    )
}

/// `v` without what the runtime does not check: a `format` it does not know, a
/// `pattern` outside the supported subset (nested ones too).
fn usable(v: &Validation) -> Validation {
    let mut v = v.clone();
    v.format = v
        .format
        .filter(|f| FORMATS.iter().any(|(name, _)| name == f));
    v.pattern = v.pattern.filter(|p| translate(p).is_ok());
    v.keys = v.keys.filter(|p| translate(p).is_ok());
    v.items = v
        .items
        .map(|i| Box::new(usable(&i)))
        .filter(|i| !i.is_empty());
    v.values = v
        .values
        .map(|i| Box::new(usable(&i)))
        .filter(|i| !i.is_empty());
    v.prefix_items = v.prefix_items.iter().map(usable).collect();
    if v.prefix_items.iter().all(Validation::is_empty) {
        v.prefix_items.clear();
    }
    v
}
