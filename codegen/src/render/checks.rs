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
use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use super::rust::string_literal;
use crate::pattern::translate;
use crate::typespace::{Enum, Field, Int, Kind, Payload, Struct, Tagging, Ty, TypeDef, Validation};

/// The runtime's checked `format`s, by document name, and their `Format` variants.
const FORMATS: &[(&str, &str)] = &[
    ("date-time", "DateTime"),
    ("date", "Date"),
    ("time", "Time"),
    ("uuid", "Uuid"),
    ("ipv4", "Ipv4"),
    ("ipv6", "Ipv6"),
    ("email", "Email"),
    ("uri", "Uri"),
];

/// The runtime's module, as generated code names it (`use ::rpcsmith::__private as __rt`).
const RT: &str = "__rt";

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

/// One `static` of a check: a `Rules` or a `Pattern`.
#[derive(Debug, Serialize)]
pub(crate) struct StaticView {
    pub(crate) name: String,
    pub(crate) ty: String,
    pub(crate) value: String,
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

/// The document's statics, written once at the root of the generated module and named
/// `R0`, `P1`, … in order; a static equal to one already written is that one (a pattern
/// or `Rules` used by many fields is built once, not per impl).
#[derive(Default)]
struct Pool {
    list: Vec<StaticView>,
    /// By `(type, value)`: the name of the static written for it.
    names: HashMap<(String, String), String>,
}

/// The pool as one function names it: through `super::` from the types module, as it is
/// from the root.
struct Statics<'p> {
    pool: &'p RefCell<Pool>,
    prefix: &'static str,
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
        std::mem::take(&mut self.pool.borrow_mut().list)
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

impl Statics<'_> {
    /// A `Rules` static for `v`; its name as this function writes it.
    fn rules(&mut self, v: &Validation) -> String {
        let name = self.pool.borrow_mut().rules(v);
        format!("{}{name}", self.prefix)
    }
}

impl Pool {
    /// The static `letter`N of type `ty` and value `value`, or the one written before
    /// with both; its name.
    fn add(&mut self, letter: char, ty: String, value: String) -> String {
        let key = (ty, value);
        if let Some(name) = self.names.get(&key) {
            return name.clone();
        }
        let name = format!("{letter}{}", self.list.len());
        self.names.insert(key.clone(), name.clone());
        let (ty, value) = key;
        self.list.push(StaticView {
            name: name.clone(),
            ty,
            value,
        });
        name
    }

    /// A `Rules` static for `v` (and its nested ones first); its name.
    fn rules(&mut self, v: &Validation) -> String {
        let value = self.rules_expr(v);
        self.add('R', format!("{RT}::Rules<'static>"), value)
    }

    /// A `Pattern` static for `pattern` (none when it is outside the supported subset);
    /// its name.
    fn pattern(&mut self, pattern: &str) -> Option<String> {
        let regex = translate(pattern).ok()?;
        let value = format!(
            "{RT}::Pattern::new({}, {})",
            string_literal(pattern),
            string_literal(&regex)
        );
        Some(self.add('P', format!("{RT}::Pattern"), value))
    }

    /// The constant expression of the `Rules` of `v`; its patterns and nested rules
    /// become statics first.
    fn rules_expr(&mut self, v: &Validation) -> String {
        let mut text = format!("{RT}::Rules::NONE");
        let mut add = |method: &str, arg: String| text.push_str(&format!(".{method}({arg})"));
        let counts = [
            ("min_length", v.min_length),
            ("max_length", v.max_length),
            ("min_items", v.min_items),
            ("max_items", v.max_items),
            ("min_properties", v.min_properties),
            ("max_properties", v.max_properties),
        ];
        for (method, n) in counts {
            if let Some(n) = n {
                add(method, n.to_string());
            }
        }
        let bounds = [
            ("minimum", v.minimum),
            ("exclusive_minimum", v.exclusive_minimum),
            ("maximum", v.maximum),
            ("exclusive_maximum", v.exclusive_maximum),
            ("multiple_of", v.multiple_of.filter(|m| *m > 0.0)),
        ];
        for (method, x) in bounds {
            if let Some(x) = x.filter(|x| x.is_finite()) {
                add(method, format!("{x:?}"));
            }
        }
        if v.unique_items {
            add("unique_items", String::new());
        }
        if let Some(format) = &v.format
            && let Some((_, variant)) = FORMATS.iter().find(|(name, _)| name == format)
        {
            add("format", format!("{RT}::Format::{variant}"));
        }
        if let Some(constant) = &v.constant {
            add("constant", string_literal(&constant.to_string()));
        }
        for (method, pattern) in [("pattern", &v.pattern), ("keys", &v.keys)] {
            if let Some(name) = pattern.as_deref().and_then(|p| self.pattern(p)) {
                add(method, format!("&{name}"));
            }
        }
        if let Some(items) = &v.items {
            let inner = self.rules(items);
            add("items", format!("&{inner}"));
        }
        if let Some(values) = &v.values {
            let inner = self.rules(values);
            add("values", format!("&{inner}"));
        }
        if !v.prefix_items.is_empty() {
            let elements: Vec<String> = v.prefix_items.iter().map(|e| self.rules_expr(e)).collect();
            let name = self.add(
                'T',
                format!("[{RT}::Rules<'static>; {}]", elements.len()),
                format!("[{}]", elements.join(", ")),
            );
            add("prefix_items", format!("&{name}"));
        }
        text
    }
}
