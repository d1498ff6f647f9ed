//! Deep schemas: conversion never nests deeper than [`MAX_DEPTH`] schemas.
//!
//! Converting a schema converts the schemas it holds or refers to first, so a long chain
//! of `$ref`s (each object's property referring to the next object) used to recurse once
//! per link and overflow the stack. Past [`MAX_DEPTH`], a schema is deferred instead: it
//! gets a placeholder type at once and waits on a worklist, converted later from the top.
//! Once the worklist is empty, every use of a placeholder is replaced by the type its
//! schema turned out to be, and the placeholder is removed, so the output is the same as
//! with unbounded recursion. A placeholder whose schema turns out to contain itself
//! through other placeholders only is kept as a wrapper type (what a cycle found during
//! conversion becomes).

use std::collections::{BTreeSet, HashMap, HashSet};

use super::model::{Kind, Payload, Struct, Ty, TypeId, VariantHint};
use super::{Converter, Slot, TypeSpace};
use crate::resolve::Location;

/// How many schemas deep conversion goes before deferring (real documents nest about a
/// dozen; each level costs a few stack frames).
pub(super) const MAX_DEPTH: usize = 64;

impl Converter<'_> {
    /// A placeholder for the schema at `at`, converted later by
    /// [`convert_deferred`](Self::convert_deferred).
    pub(super) fn defer(&mut self, at: &Location) -> Ty {
        let id = self.reserve(at);
        self.slots.insert(at.clone(), Slot::Busy(Some(id)));
        self.deferred.push((at.clone(), id));
        Ty::Named(id)
    }

    /// Converts every deferred schema, and whatever those defer in turn; returns each
    /// placeholder with the type its schema turned out to be.
    pub(super) fn convert_deferred(&mut self) -> Vec<(TypeId, Ty)> {
        let mut settled = Vec::new();
        while let Some((at, id)) = self.deferred.pop() {
            self.slots.remove(&at);
            let ty = self.convert(&at);
            settled.push((id, ty));
        }
        settled
    }
}

/// Replaces every placeholder of `space` by its type (see the module docs) and removes
/// the placeholders that are no longer used.
pub(super) fn settle(space: &mut TypeSpace, settled: Vec<(TypeId, Ty)>) {
    if settled.is_empty() {
        return;
    }
    let mut plan = Plan {
        forward: settled.into_iter().map(|(id, ty)| (id.0, ty)).collect(),
        done: HashMap::new(),
        visiting: HashSet::new(),
        kept: BTreeSet::new(),
        bodies: HashMap::new(),
    };
    let mut placeholders: Vec<usize> = plan.forward.keys().copied().collect();
    placeholders.sort_unstable();
    for &p in &placeholders {
        plan.resolve(p);
    }
    for (p, body) in std::mem::take(&mut plan.bodies) {
        if body != Ty::Named(TypeId(p)) {
            space.defs[p].kind = Kind::Newtype(body);
        }
    }
    let removed: HashSet<usize> = placeholders
        .into_iter()
        .filter(|p| !plan.kept.contains(p))
        .collect();
    let remap = renumbering(space.defs.len(), &removed);
    rewrite_uses(space, &mut plan, &remap);
    let mut index = 0;
    space.defs.retain(|_| {
        index += 1;
        !removed.contains(&(index - 1))
    });
    let mut index = 0;
    space.origins.retain(|_| {
        index += 1;
        !removed.contains(&(index - 1))
    });
}

/// Each def's index once the `removed` ones are gone (`usize::MAX` for those).
fn renumbering(len: usize, removed: &HashSet<usize>) -> Vec<usize> {
    let mut remap = vec![usize::MAX; len];
    let mut next = 0;
    for (old, slot) in remap.iter_mut().enumerate() {
        if !removed.contains(&old) {
            *slot = next;
            next += 1;
        }
    }
    remap
}

/// Replaces the placeholders in every use of a type in `space` (defs, methods, examples)
/// by what they stand for, renumbered by `remap`.
fn rewrite_uses(space: &mut TypeSpace, plan: &mut Plan, remap: &[usize]) {
    let mut rewrite = |site: Site<'_>| match site {
        Site::Ty(ty) => {
            plan.substitute(ty);
            renumber(ty, remap);
        }
        Site::Hint(hint) => {
            if let VariantHint::Type(id) = hint {
                let mut ty = Ty::Named(*id);
                plan.substitute(&mut ty);
                *hint = match ty {
                    Ty::Named(id) => VariantHint::Type(TypeId(remap[id.0])),
                    other => VariantHint::Word(other.word().to_owned()),
                };
            }
        }
    };
    for def in &mut space.defs {
        visit_kind(&mut def.kind, &mut rewrite);
    }
    for method in &mut space.methods {
        let params = method.params.iter_mut().map(|p| &mut p.ty);
        let errors = method.errors.iter_mut().filter_map(|(_, d)| d.as_mut());
        for ty in params.chain(method.result.as_mut()).chain(errors) {
            rewrite(Site::Ty(ty));
        }
    }
    for example in &mut space.examples {
        rewrite(Site::Ty(&mut example.ty));
    }
}

/// A place in the model that may name a type.
enum Site<'a> {
    Ty(&'a mut Ty),
    Hint(&'a mut VariantHint),
}

/// What each placeholder stands for.
struct Plan {
    /// The type each placeholder's schema converted to (may name other placeholders).
    forward: HashMap<usize, Ty>,
    /// The type each placeholder stands for, free of removed placeholders.
    done: HashMap<usize, Ty>,
    /// Placeholders being resolved (to find those that contain themselves).
    visiting: HashSet<usize>,
    /// Placeholders kept as wrapper types.
    kept: BTreeSet<usize>,
    /// The wrapped type of each kept placeholder.
    bodies: HashMap<usize, Ty>,
}

impl Plan {
    fn resolve(&mut self, p: usize) -> Ty {
        if let Some(ty) = self.done.get(&p) {
            return ty.clone();
        }
        if !self.visiting.insert(p) {
            self.kept.insert(p);
            return Ty::Named(TypeId(p));
        }
        let mut ty = self.forward.get(&p).cloned().unwrap_or(Ty::Value);
        self.substitute(&mut ty);
        self.visiting.remove(&p);
        let stands_for = if self.kept.contains(&p) {
            self.bodies.insert(p, ty);
            Ty::Named(TypeId(p))
        } else {
            ty
        };
        self.done.insert(p, stands_for.clone());
        stands_for
    }

    /// Replaces the placeholders in `ty` by what they stand for.
    fn substitute(&mut self, ty: &mut Ty) {
        match ty {
            Ty::Named(id) if self.forward.contains_key(&id.0) => *ty = self.resolve(id.0),
            Ty::Option(inner) => {
                self.substitute(inner);
                if let Ty::Option(_) = **inner {
                    *ty = std::mem::replace(&mut **inner, Ty::Value);
                }
            }
            Ty::Vec(t) | Ty::Array(t, _) | Ty::Map(t) | Ty::Box(t) => self.substitute(t),
            Ty::Tuple(ts) => ts.iter_mut().for_each(|t| self.substitute(t)),
            _ => {}
        }
    }
}

/// Gives every named type in `ty` its index after removal.
fn renumber(ty: &mut Ty, remap: &[usize]) {
    match ty {
        Ty::Named(id) => id.0 = remap[id.0],
        Ty::Option(t) | Ty::Vec(t) | Ty::Array(t, _) | Ty::Map(t) | Ty::Box(t) => {
            renumber(t, remap);
        }
        Ty::Tuple(ts) => ts.iter_mut().for_each(|t| renumber(t, remap)),
        _ => {}
    }
}

/// Calls `f` on every type `kind` holds and on every variant hint.
fn visit_kind(kind: &mut Kind, f: &mut dyn FnMut(Site<'_>)) {
    let in_struct = |s: &mut Struct, f: &mut dyn FnMut(Site<'_>)| {
        let fields = s.fields.iter_mut().map(|x| &mut x.ty);
        for ty in fields.chain(&mut s.flattened).chain(s.extra.as_mut()) {
            f(Site::Ty(ty));
        }
    };
    match kind {
        Kind::Struct(s) => in_struct(s, f),
        Kind::Enum(e) => {
            for v in &mut e.variants {
                f(Site::Hint(&mut v.hint));
                match &mut v.payload {
                    Payload::Newtype(t) => f(Site::Ty(t)),
                    Payload::Struct(s) => in_struct(s, f),
                    Payload::Unit => {}
                }
            }
        }
        Kind::Alias(t) | Kind::Newtype(t) => f(Site::Ty(t)),
        Kind::IntEnum(_) | Kind::Never => {}
    }
}
