//! Recursive types: `Box` where by-value containment would make a type infinitely large,
//! and an error for a type that contains itself through required fields only (no finite
//! JSON value can satisfy it).

use std::collections::HashSet;

use super::model::{Kind, Payload, Ty, TypeDef, TypeId};
use crate::error::Diagnostic;
use crate::resolve::{Location, Resolver};

/// Boxes by-value edges inside cycles; returns an error per type with no finite value.
pub(super) fn break_cycles(
    defs: &mut [TypeDef],
    origins: &[Location],
    resolver: &Resolver,
) -> Vec<Diagnostic> {
    let errors = infinite_types(defs)
        .into_iter()
        .map(|(id, chain)| {
            let names: Vec<&str> = chain.iter().map(|c| defs[c.0].name.as_str()).collect();
            let message = format!(
                "type `{}` has no finite value: required fields refer back to it ({})",
                defs[id.0].name,
                names.join(" → ")
            );
            resolver.error_at(&origins[id.0], message)
        })
        .collect();
    let graph: Vec<Vec<usize>> = defs.iter().map(|d| by_value_edges(&d.kind)).collect();
    let component = strongly_connected(&graph);
    for i in 0..defs.len() {
        let in_cycle =
            |t: usize| component[t] == component[i] && !matches!(defs[t].kind, Kind::Alias(_));
        let boxed: HashSet<usize> = graph[i].iter().copied().filter(|&t| in_cycle(t)).collect();
        if !boxed.is_empty() {
            for_each_ty(&mut defs[i].kind, &mut |ty| box_edges(ty, &boxed));
        }
    }
    errors
}

/// Named types reached without indirection (not through `Vec`, map or `Box`).
fn by_value(ty: &Ty, out: &mut Vec<usize>) {
    match ty {
        Ty::Named(id) => out.push(id.0),
        Ty::Option(t) => by_value(t, out),
        Ty::Array(t, _) => by_value(t, out),
        Ty::Tuple(ts) => ts.iter().for_each(|t| by_value(t, out)),
        _ => {}
    }
}

/// Named types that must be built to build a value (required, non-empty containers).
fn required_by(ty: &Ty, out: &mut Vec<usize>) {
    match ty {
        Ty::Named(id) => out.push(id.0),
        Ty::Box(t) => required_by(t, out),
        Ty::Array(t, n) if *n > 0 => required_by(t, out),
        Ty::Tuple(ts) => ts.iter().for_each(|t| required_by(t, out)),
        _ => {}
    }
}

fn by_value_edges(kind: &Kind) -> Vec<usize> {
    let mut out = Vec::new();
    visit_tys(kind, &mut |ty| by_value(ty, &mut out));
    out.sort_unstable();
    out.dedup();
    out
}

fn visit_tys(kind: &Kind, f: &mut dyn FnMut(&Ty)) {
    match kind {
        Kind::Struct(s) => {
            s.fields.iter().for_each(|x| f(&x.ty));
            s.flattened.iter().for_each(&mut *f);
        }
        Kind::Enum(e) => e.variants.iter().for_each(|v| match &v.payload {
            Payload::Newtype(t) => f(t),
            Payload::Struct(s) => s.fields.iter().for_each(|x| f(&x.ty)),
            Payload::Unit => {}
        }),
        Kind::Alias(t) | Kind::Newtype(t) => f(t),
        Kind::IntEnum(_) | Kind::Never => {}
    }
}

fn for_each_ty(kind: &mut Kind, f: &mut dyn FnMut(&mut Ty)) {
    match kind {
        Kind::Struct(s) => {
            s.fields.iter_mut().for_each(|x| f(&mut x.ty));
            s.flattened.iter_mut().for_each(&mut *f);
        }
        Kind::Enum(e) => e.variants.iter_mut().for_each(|v| match &mut v.payload {
            Payload::Newtype(t) => f(t),
            Payload::Struct(s) => s.fields.iter_mut().for_each(|x| f(&mut x.ty)),
            Payload::Unit => {}
        }),
        Kind::Alias(t) | Kind::Newtype(t) => f(t),
        Kind::IntEnum(_) | Kind::Never => {}
    }
}

fn box_edges(ty: &mut Ty, boxed: &HashSet<usize>) {
    match ty {
        Ty::Named(id) if boxed.contains(&id.0) => {
            *ty = Ty::Box(Box::new(Ty::Named(*id)));
        }
        Ty::Option(t) | Ty::Array(t, _) => box_edges(t, boxed),
        Ty::Tuple(ts) => ts.iter_mut().for_each(|t| box_edges(t, boxed)),
        _ => {}
    }
}

/// What must be built to build one value of a kind; for an enum, per variant.
fn requirements(kind: &Kind) -> Vec<Vec<usize>> {
    let of_struct = |s: &super::Struct| {
        let mut out = Vec::new();
        s.fields
            .iter()
            .filter(|x| x.required)
            .for_each(|x| required_by(&x.ty, &mut out));
        s.flattened.iter().for_each(|t| required_by(t, &mut out));
        out
    };
    match kind {
        Kind::Struct(s) => vec![of_struct(s)],
        Kind::Enum(e) => e
            .variants
            .iter()
            .map(|v| match &v.payload {
                Payload::Newtype(t) => {
                    let mut out = Vec::new();
                    required_by(t, &mut out);
                    out
                }
                Payload::Struct(s) => of_struct(s),
                Payload::Unit => Vec::new(),
            })
            .collect(),
        Kind::Alias(t) | Kind::Newtype(t) => {
            let mut out = Vec::new();
            required_by(t, &mut out);
            vec![out]
        }
        Kind::IntEnum(_) | Kind::Never => vec![Vec::new()],
    }
}

/// Types with no finite value, each with the cycle of types that prevents one.
///
/// A type is finite once every type one of its alternatives requires is: propagated from
/// the types that require nothing, each requirement counted down once (linear, however
/// long the chains of types requiring each other).
fn infinite_types(defs: &[TypeDef]) -> Vec<(TypeId, Vec<TypeId>)> {
    let reqs: Vec<Vec<Vec<usize>>> = defs.iter().map(|d| requirements(&d.kind)).collect();
    let mut finite = vec![false; defs.len()];
    let mut unmet: Vec<Vec<usize>> = Vec::with_capacity(defs.len());
    let mut waiting: Vec<Vec<(usize, usize)>> = vec![Vec::new(); defs.len()];
    let mut ready = Vec::new();
    for (i, alternatives) in reqs.iter().enumerate() {
        let mut counts = Vec::with_capacity(alternatives.len());
        for (a, alternative) in alternatives.iter().enumerate() {
            let distinct: HashSet<usize> = alternative.iter().copied().collect();
            distinct.iter().for_each(|&t| waiting[t].push((i, a)));
            counts.push(distinct.len());
        }
        unmet.push(counts);
        if alternatives.iter().any(Vec::is_empty) {
            finite[i] = true;
            ready.push(i);
        }
    }
    while let Some(t) = ready.pop() {
        for &(i, a) in &waiting[t] {
            unmet[i][a] -= 1;
            if unmet[i][a] == 0 && !finite[i] {
                finite[i] = true;
                ready.push(i);
            }
        }
    }
    (0..defs.len())
        .filter(|&i| !finite[i])
        .map(|i| {
            let mut chain = vec![TypeId(i)];
            let mut at = i;
            while let Some(&next) = reqs[at]
                .first()
                .and_then(|r| r.iter().find(|&&t| !finite[t]))
            {
                chain.push(TypeId(next));
                if chain[..chain.len() - 1].contains(&TypeId(next)) || chain.len() > defs.len() {
                    break;
                }
                at = next;
            }
            (TypeId(i), chain)
        })
        .collect()
}

/// Tarjan's strongly connected components (iterative); returns the component of each node.
fn strongly_connected(graph: &[Vec<usize>]) -> Vec<usize> {
    let n = graph.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut component = vec![usize::MAX; n];
    let mut next_index = 0;
    let mut next_component = 0;
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(start, 0)];
        while let Some((v, edge)) = work.pop() {
            if edge == 0 {
                index[v] = next_index;
                low[v] = next_index;
                next_index += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = graph[v].get(edge) {
                work.push((v, edge + 1));
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component[w] = next_component;
                    if w == v {
                        break;
                    }
                }
                next_component += 1;
            }
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_of_a_small_graph() {
        let c = strongly_connected(&[vec![1], vec![0], vec![2], vec![]]);
        assert_eq!(c[0], c[1]);
        assert_ne!(c[0], c[2]);
        assert_ne!(c[2], c[3]);
    }
}
