//! Comparing unions (`oneOf`/`anyOf`): each alternative is paired with the one that is
//! the same alternative in the other version, by what identifies it, never by position:
//!
//! 1. a name: a `$ref` name along its chain first, then also its `title`; or the very
//!    same text (each step pairs what the one before left: two alternatives that share a
//!    title, as Starknet v0.6.0's receipt and pending receipt unions do, are told apart
//!    by their `$ref` names, or else by their text);
//! 2. its values, when it is a `const` or an `enum` (any shared); else a discriminator:
//!    the members whose value is one constant (`"type": {"enum": ["INVOKE"]}`,
//!    `"version": {"const": "0x3"}`), all equal;
//! 3. its structure: the same JSON types and, for objects, most of the same member names
//!    (at least half of all named on either side), the best such partner on both sides;
//!    else the only alternative of the same JSON types left on both sides.
//!
//! Alternatives are compared as a value meets them: with the keywords beside the union
//! merged in (an object that is `allOf` common members and a `oneOf`). A schema that is
//! not a union against a union is compared with the alternatives the first rule that
//! matches names: a union that becomes one of its branches is compared as that branch
//! and loses the others; an object that becomes "legacy or EIP-1559" (each the old object
//! with members of its own) is compared with each, so neither is called added.

use std::collections::BTreeSet;

use serde_json::Value;

use super::finding::Kind;
use super::schema::{Change, Places, Walk, list};
use crate::shape::{self, Shape};
use rpcsmith_build::Resolver;

/// One alternative of a union, read for pairing.
pub(super) struct Member {
    /// What names it (see [`shape::identities`]); the first is shown.
    names: Vec<String>,
    /// The `$ref` names among `names` (a title may name two alternatives, these never).
    references: Vec<String>,
    /// Members with one constant value, sorted by name.
    discriminator: Vec<(String, Value)>,
    /// The schema's text, `$ref`s followed (the same text is the same alternative).
    text: Option<Value>,
    /// Its member names (objects).
    properties: BTreeSet<String>,
    /// The alternative as a value meets it.
    shape: Shape,
    /// The schema is not a union: this is the whole schema.
    whole: bool,
}

impl Member {
    fn read(resolver: &mut Resolver, shape: Shape, whole: bool) -> Member {
        let names = match whole {
            true => shape
                .key
                .iter()
                .cloned()
                .chain(shape::identities(resolver, &shape.site))
                .collect(),
            false => shape::identities(resolver, &shape.site),
        };
        let references = shape::reference_names(resolver, &shape.site);
        let mut discriminator = Vec::new();
        for (name, at) in &shape.properties {
            let member = Shape::read(resolver, at);
            if let Some([value]) = member.values.as_deref() {
                discriminator.push((name.clone(), value.clone()));
            }
        }
        discriminator.sort_by(|a, b| a.0.cmp(&b.0));
        let properties = shape.properties.keys().cloned().collect();
        let text = resolver
            .deref(&shape.site)
            .ok()
            .and_then(|at| resolver.get(&at).cloned());
        Member {
            names,
            references,
            discriminator,
            text,
            properties,
            shape,
            whole,
        }
    }

    fn label(&self) -> String {
        match (self.names.first(), &self.shape.types) {
            (Some(name), _) => format!("`{name}`"),
            (None, _) if !self.discriminator.is_empty() => {
                let (k, v) = &self.discriminator[0];
                format!("`{k}: {v}`")
            }
            (None, Some(types)) => format!("(untitled {})", list(types)),
            (None, None) => "(untitled)".to_owned(),
        }
    }
}

/// The alternatives of `shape`; a schema without any is its own single one.
fn members(resolver: &mut Resolver, shape: &Shape) -> Vec<Member> {
    match &shape.alternatives {
        Some(alternatives) => alternatives
            .clone()
            .iter()
            .map(|at| {
                let branch = shape.branch(resolver, at);
                Member::read(resolver, branch, false)
            })
            .collect(),
        None => vec![Member::read(resolver, shape.clone(), true)],
    }
}

impl Walk<'_, '_> {
    /// `oneOf`/`anyOf` on either side: alternatives paired (see the module), those left
    /// alone reported, each pair compared.
    pub(super) fn alternatives(&mut self, o: &Shape, n: &Shape, path: &str) {
        let old = members(self.diff.old, o);
        let new = members(self.diff.new, n);
        let pairs = pair(&old, &new);
        let place = |s: &Shape| match s.alternatives {
            Some(_) => s.place("alternatives"),
            None => s.site.clone(),
        };
        self.unpaired(&old, &new, &pairs, (place(o), place(n)), path);
        for (i, j) in pairs {
            let (a, b) = (&old[i], &new[j]);
            let here = match a.whole || b.whole {
                true => path.to_owned(),
                false => {
                    let label = a.names.first().or(b.names.first()).cloned();
                    format!("{path}|{}", label.unwrap_or_else(|| i.to_string()))
                }
            };
            if a.whole && b.whole {
                // Both lone: the same schema (no union anywhere below).
                self.own(&a.shape, &b.shape, &here);
            } else {
                self.shapes(&a.shape, &b.shape, &here);
            }
        }
    }

    /// Reports the alternatives left without a partner: removed ones narrow, added ones
    /// widen, both at once change.
    fn unpaired(
        &mut self,
        old: &[Member],
        new: &[Member],
        pairs: &[(usize, usize)],
        places: Places,
        path: &str,
    ) {
        let gone: Vec<&Member> = (0..old.len())
            .filter(|i| !pairs.iter().any(|p| p.0 == *i))
            .map(|i| &old[i])
            .collect();
        let added: Vec<&Member> = (0..new.len())
            .filter(|j| !pairs.iter().any(|p| p.1 == *j))
            .map(|j| &new[j])
            .collect();
        let both = !gone.is_empty() && !added.is_empty();
        for (listed, verb, change) in [
            (gone, "removed", Change::Narrowed),
            (added, "added", Change::Widened),
        ] {
            let Some(first) = listed.first().map(|m| m.shape.site.clone()) else {
                continue;
            };
            let names: Vec<String> = listed.iter().map(|m| m.label()).collect();
            let message = format!("alternatives {verb}: {}", names.join(", "));
            let places = match change {
                Change::Narrowed => (first, places.1.clone()),
                _ => (places.0.clone(), first),
            };
            let change = if both { Change::Changed } else { change };
            self.change(Kind::AlternativesChanged, change, message, places, path);
        }
    }
}

/// A rule saying two alternatives are the same alternative.
type Rule<'a> = dyn Fn(&Member, &Member) -> bool + 'a;

/// Pairs (old index, new index), rule by rule (see the module); each rule pairs an old
/// alternative only with a partner no other left alternative also matches.
fn pair(old: &[Member], new: &[Member]) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let same_reference =
        |o: &Member, n: &Member| o.references.iter().any(|a| n.references.contains(a));
    let same_text = |o: &Member, n: &Member| o.text.is_some() && o.text == n.text;
    let same_name = |o: &Member, n: &Member| {
        o.names.iter().any(|a| n.names.iter().any(|b| a == b)) || same_text(o, n)
    };
    let same_discriminator = |o: &Member, n: &Member| match (&o.shape.values, &n.shape.values) {
        (Some(a), Some(b)) => a.iter().any(|v| b.contains(v)),
        _ => !o.discriminator.is_empty() && o.discriminator == n.discriminator,
    };
    let same_types =
        |o: &Member, n: &Member| o.shape.types.is_some() && o.shape.types == n.shape.types;
    let close = |o: &Member, n: &Member| same_types(o, n) && overlap(o, n) >= 0.5;
    let rules: [&Rule<'_>; 4] = [&same_name, &same_discriminator, &close, &same_types];
    if let Some(lone) = lone_pairs(old, new, &rules) {
        return lone;
    }
    // A shared title alone may match two partners (no pair); a `$ref` name before it and
    // the text after it tell them apart.
    let rules: [&Rule<'_>; 6] = [
        &same_reference,
        &same_name,
        &same_text,
        &same_discriminator,
        &close,
        &same_types,
    ];
    for (rule, matches) in rules.into_iter().enumerate() {
        loop {
            let found = unique_match(old, new, &pairs, matches, rule == 4);
            if found.is_empty() {
                break;
            }
            pairs.extend(found);
        }
    }
    pairs.sort_unstable();
    pairs
}

/// A schema that is not a union against a union (either way): it is paired with every
/// alternative the first rule that matches any pairs it with (by name: the one it names;
/// by structure: each alike, as a transaction that becomes legacy-or-1559 is each of them
/// with new members), so an alternative narrower than the old schema is not called
/// added. `None` when neither side is a lone schema.
fn lone_pairs(old: &[Member], new: &[Member], rules: &[&Rule<'_>]) -> Option<Vec<(usize, usize)>> {
    let (lone, many, lone_is_old) = match (old, new) {
        ([o], _) if o.whole => (o, new, true),
        (_, [n]) if n.whole => (n, old, false),
        _ => return None,
    };
    for matches in rules {
        let found: Vec<usize> = (0..many.len())
            .filter(|&k| match lone_is_old {
                true => matches(lone, &many[k]),
                false => matches(&many[k], lone),
            })
            .collect();
        if !found.is_empty() {
            let pairs = found.into_iter().map(|k| match lone_is_old {
                true => (0, k),
                false => (k, 0),
            });
            return Some(pairs.collect());
        }
    }
    Some(Vec::new())
}

/// The pairs `matches` makes among the alternatives left: an old one with the only new
/// one it matches, which matches no other old one (or, `best`, with the new one of the
/// largest member overlap when that is mutual).
fn unique_match(
    old: &[Member],
    new: &[Member],
    pairs: &[(usize, usize)],
    matches: &Rule<'_>,
    best: bool,
) -> Vec<(usize, usize)> {
    let old_left: Vec<usize> = (0..old.len())
        .filter(|i| !pairs.iter().any(|p| p.0 == *i))
        .collect();
    let new_left: Vec<usize> = (0..new.len())
        .filter(|j| !pairs.iter().any(|p| p.1 == *j))
        .collect();
    let partners = |i: usize| -> Vec<usize> {
        new_left
            .iter()
            .copied()
            .filter(|&j| matches(&old[i], &new[j]))
            .collect()
    };
    let mut found = Vec::new();
    for &i in &old_left {
        let candidates = partners(i);
        let choice = match (&candidates[..], best) {
            ([j], _) => Some(*j),
            ([], _) | (_, false) => None,
            (many, true) => top(many.iter().map(|&j| (j, overlap(&old[i], &new[j])))),
        };
        let Some(j) = choice else { continue };
        let rivals: Vec<usize> = old_left
            .iter()
            .copied()
            .filter(|&k| matches(&old[k], &new[j]))
            .collect();
        let mutual = match (&rivals[..], best) {
            ([k], _) => *k == i,
            (_, false) => false,
            (many, true) => top(many.iter().map(|&k| (k, overlap(&old[k], &new[j])))) == Some(i),
        };
        if mutual && !found.iter().any(|p: &(usize, usize)| p.1 == j) {
            found.push((i, j));
        }
    }
    found
}

/// The index of the one highest score; `None` when two share it.
fn top(scores: impl Iterator<Item = (usize, f64)>) -> Option<usize> {
    let mut scores: Vec<(usize, f64)> = scores.collect();
    scores.sort_by(|a, b| b.1.total_cmp(&a.1));
    match scores[..] {
        [(i, _)] => Some(i),
        [(i, a), (_, b), ..] if a > b => Some(i),
        _ => None,
    }
}

/// The share of member names both alternatives have, among all either has (1 when
/// neither has members).
fn overlap(o: &Member, n: &Member) -> f64 {
    let union = o.properties.union(&n.properties).count();
    if union == 0 {
        return 1.0;
    }
    o.properties.intersection(&n.properties).count() as f64 / union as f64
}
