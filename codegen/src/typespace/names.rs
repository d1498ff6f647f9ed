//! Settling names: each type takes the best of its name candidates that no other type
//! wants as much.
//!
//! A type's candidates are ranked (component key, then `title`, then the places its
//! schema is written, the least nested first; see `place`). When several types want the
//! same name, the one with the better rank keeps it and the others move on to their next
//! candidate; when they rank the same (two schemas titled `Declare`), none keeps it: each
//! takes the name of its place (`DeclareTxnV0Type`, `DeclareTxnV1Type`), which says
//! which one it is. Two exceptions: a schema written in more places than the others
//! keeps the name, and types that can say whose they are (a component of another file,
//! a schema inside a component's `definitions`) give way to those that cannot. Only when
//! a type has no candidate left does it get a number, so `…2` names are a last resort
//! rather than what the second schema to arrive gets.

use std::collections::HashMap;

use super::model::{Ty, TypeDef};
use super::place::{RANK_PLACE, RANK_QUALIFIED};
use super::{MethodTypes, method_base};
use crate::naming::Namer;

/// How many rounds of moving on are tried (each round moves at least one type one
/// candidate on; real documents settle in a few).
const MAX_ROUNDS: usize = 64;

/// Gives every def of `defs` its final name (see the module docs).
pub(super) fn settle(defs: &mut [TypeDef], methods: &[MethodTypes]) {
    let beside = names_beside(methods);
    let options: Vec<Vec<(u8, String)>> = defs
        .iter()
        .enumerate()
        .map(|(i, d)| with_last_resort(options(d), &beside, i))
        .collect();
    let mut choice = vec![0usize; defs.len()];
    let uses: Vec<usize> = defs.iter().map(|d| 1 + d.sites.len()).collect();
    for _ in 0..MAX_ROUNDS {
        if !move_on(&options, &uses, &beside, &mut choice) {
            break;
        }
    }
    let chosen = |i: usize| options[i].get(choice[i]);
    let mut order: Vec<usize> = (0..defs.len()).collect();
    order.sort_by_key(|&i| (chosen(i).map_or(u8::MAX, |c| c.0), i));
    let mut namer = Namer::default();
    let mut beside = beside;
    for name in beside.keys() {
        namer.claim(name);
    }
    for i in order {
        let base = chosen(i).map_or("Type", |c| c.1.as_str());
        defs[i].name = match beside.get(base) {
            Some(Some(own)) if *own == i => {
                beside.remove(base);
                base.to_owned()
            }
            _ => namer.claim(base),
        };
    }
}

/// One round: every type whose name another wants as much (or that the module keeps for
/// a method's item) moves on to its next candidate, if it has one. Whether one moved.
fn move_on(
    options: &[Vec<(u8, String)>],
    uses: &[usize],
    beside: &HashMap<String, Option<usize>>,
    choice: &mut [usize],
) -> bool {
    let mut wanted: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, opts) in options.iter().enumerate() {
        if let Some((_, name)) = opts.get(choice[i]) {
            wanted.entry(name.as_str()).or_default().push(i);
        }
    }
    let rank = |i: usize| options[i][choice[i]].0;
    let mut moving = Vec::new();
    for (name, ids) in &wanted {
        let kept_for_method = beside
            .get(*name)
            .is_some_and(|own| own.is_none_or(|o| ids != &[o]));
        if ids.len() < 2 && !kept_for_method {
            continue;
        }
        let best = ids.iter().map(|&i| rank(i)).min().unwrap_or(u8::MAX);
        let holders: Vec<usize> = ids.iter().copied().filter(|&i| rank(i) == best).collect();
        // Of types that rank the same, those that can say whose they are (a file, a
        // component holding `definitions`) give way to those that cannot.
        let qualified = |i: usize| {
            options[i][choice[i]..]
                .iter()
                .any(|o| o.0 == RANK_QUALIFIED)
        };
        let giving_way = holders.iter().filter(|&&i| qualified(i)).count();
        let all_move = giving_way == 0 || giving_way == holders.len();
        // A schema written in more places than any other of the name keeps it (execution-
        // apis' `Block tag` of every block param, beside a filter's own `Block tag`).
        let most = holders.iter().map(|&i| uses[i]).max().unwrap_or(0);
        let widest = holders.iter().filter(|&&i| uses[i] == most).count() == 1;
        for &i in ids {
            let keeps = all_move && widest && uses[i] == most;
            let tie = holders.len() > 1 && !keeps && (all_move || qualified(i));
            if kept_for_method || rank(i) > best || tie {
                moving.push(i);
            }
        }
    }
    let mut moved = false;
    for i in moving {
        if choice[i] + 1 < options[i].len() {
            choice[i] += 1;
            moved = true;
        }
    }
    moved
}

/// The distinct names a def may take, best first: by rank, then (among places) the
/// shortest, then in the order found.
fn options(def: &TypeDef) -> Vec<(u8, String)> {
    let mut all: Vec<(usize, &(u8, String))> = def.candidates.iter().enumerate().collect();
    all.sort_by_key(|(i, (rank, name))| {
        let len = if *rank >= RANK_PLACE { name.len() } else { 0 };
        (*rank, len, *i)
    });
    let mut out: Vec<(u8, String)> = Vec::with_capacity(all.len());
    for (_, (rank, name)) in all {
        if !out.iter().any(|(_, n)| n == name) {
            out.push((*rank, name.clone()));
        }
    }
    out
}

/// `options`, and when the last of them is a name the module keeps for a method's item
/// (a param's schema titled `getTransactionParams`, beside the method's
/// `GetTransactionParams`), that name with `Object` after it: the object the params
/// hold, rather than a number.
fn with_last_resort(
    mut options: Vec<(u8, String)>,
    beside: &HashMap<String, Option<usize>>,
    own: usize,
) -> Vec<(u8, String)> {
    let last = options.last().map(|(_, n)| n.clone());
    if let Some(last) = last.filter(|n| beside.get(n).is_some_and(|o| *o != Some(own))) {
        options.push((RANK_QUALIFIED, format!("{last}Object")));
    }
    options
}

/// The names the module gives its own items beside `types` (`<Method>Params`,
/// `<Method>Result`, `<Method>Error`), which a type must not take, or `use api::*;
/// use api::types::*;` would name two items; each with the type that may take it
/// all the same (a result that is a named type is re-exported under its name).
fn names_beside(methods: &[MethodTypes]) -> HashMap<String, Option<usize>> {
    let mut out = HashMap::new();
    for m in methods {
        let base = method_base(&m.name);
        if !m.params.is_empty() {
            out.insert(format!("{base}Params"), None);
        }
        let Some(result) = &m.result else {
            continue; // a notification has neither result nor errors
        };
        if !m.errors.is_empty() {
            out.insert(format!("{base}Error"), None);
        }
        let own = match result {
            Ty::Named(id) => Some(id.0),
            _ => None,
        };
        out.insert(format!("{base}Result"), own);
    }
    out
}
