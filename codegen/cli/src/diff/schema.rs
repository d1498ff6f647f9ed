//! Comparing two versions of one schema, keyword by keyword: each difference is judged
//! narrowed (fewer values pass), widened (more pass) or changed (neither contains the
//! other), then turned into who it breaks by the direction the value travels ([`Flow`]).

use std::collections::{BTreeSet, HashSet};

use serde_json::Value;

use super::Diff;
use super::finding::{Breaks, Kind};
use super::shape::{self, Additional, LOWER_BOUNDS, Shape, TEXT_KEYWORDS, UPPER_BOUNDS, covers};
use rpcsmith_build::Location;

/// Which way a value travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// From client to server (params).
    Params,
    /// From server to client (results, errors).
    Result,
}

/// How the set of values a schema lets through changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// Fewer values pass.
    Narrowed,
    /// More values pass.
    Widened,
    /// Some values that passed no longer do, and some that did not now do.
    Changed,
}

impl Change {
    /// Who the change breaks for a value travelling along `flow`: the reader of a value
    /// fails when the writer may send what it does not take.
    pub(crate) fn breaks(self, flow: Flow) -> Breaks {
        match (self, flow) {
            (Change::Narrowed, Flow::Params) | (Change::Widened, Flow::Result) => Breaks::CLIENTS,
            (Change::Widened, Flow::Params) | (Change::Narrowed, Flow::Result) => Breaks::SERVERS,
            (Change::Changed, _) => Breaks::BOTH,
        }
    }
}

/// One walk through a pair of schemas reached from one method, in one direction.
pub(crate) struct Walk<'d, 'r> {
    pub(crate) diff: &'d mut Diff<'r>,
    pub(crate) flow: Flow,
    /// Pairs compared already (recursive schemas end here).
    visited: HashSet<(Location, Location)>,
}

impl<'d, 'r> Walk<'d, 'r> {
    /// A walk in direction `flow`.
    pub(crate) fn new(diff: &'d mut Diff<'r>, flow: Flow) -> Self {
        Walk {
            diff,
            flow,
            visited: HashSet::new(),
        }
    }

    /// Compares the schemas at `old` and `new`, met on the wire at `path`.
    pub(crate) fn schema(&mut self, old: &Location, new: &Location, path: &str) {
        let o = Shape::read(self.diff.old, old);
        let n = Shape::read(self.diff.new, new);
        self.shapes(&o, &n, path);
    }

    fn shapes(&mut self, o: &Shape, n: &Shape, path: &str) {
        if !self.visited.insert((o.at.clone(), n.at.clone())) {
            return;
        }
        if o.alternatives.is_some() || n.alternatives.is_some() {
            self.alternatives(o, n, path);
            return;
        }
        self.types(o, n, path);
        self.values(o, n, path);
        self.bounds(o, n, path);
        self.texts(o, n, path);
        // `properties` and `items` apply only to objects and arrays: under another
        // `type` they are not on the wire (real documents do write them so).
        if allows(o, "object") || allows(n, "object") {
            self.object(o, n, path);
        }
        let arrays = allows(o, "array") || allows(n, "array");
        if let (true, Some(oi), Some(ni)) = (arrays, &o.items, &n.items) {
            let (oi, ni) = (oi.clone(), ni.clone());
            self.schema(&oi, &ni, &format!("{path}[]"));
        }
    }

    fn change(&mut self, kind: Kind, change: Change, message: String, places: Places, path: &str) {
        let breaks = change.breaks(self.flow);
        self.diff
            .push(kind, breaks, message, path, places.0, places.1);
    }

    fn compatible(&mut self, kind: Kind, message: String, places: Places, path: &str) {
        let breaks = Breaks::COMPATIBLE;
        self.diff
            .push(kind, breaks, message, path, places.0, places.1);
    }

    fn types(&mut self, o: &Shape, n: &Shape, path: &str) {
        let places = (o.place("type"), n.place("type"));
        let (ot, nt) = match (&o.types, &n.types) {
            (Some(ot), Some(nt)) => (ot, nt),
            (None, Some(nt)) => {
                let message = format!("type restricted to {}", list(nt));
                return self.change(Kind::TypeChanged, Change::Narrowed, message, places, path);
            }
            (Some(ot), None) => {
                let message = format!("type {} lifted: any JSON value", list(ot));
                return self.change(Kind::TypeChanged, Change::Widened, message, places, path);
            }
            (None, None) => return,
        };
        let gone: BTreeSet<&String> = ot.iter().filter(|t| !covers(nt, t)).collect();
        let added: BTreeSet<&String> = nt.iter().filter(|t| !covers(ot, t)).collect();
        let change = match (gone.is_empty(), added.is_empty()) {
            (true, true) => return,
            (false, true) => Change::Narrowed,
            (true, false) => Change::Widened,
            (false, false) => Change::Changed,
        };
        let message = format!("type {} → {}", list(ot), list(nt));
        self.change(Kind::TypeChanged, change, message, places, path);
    }

    fn values(&mut self, o: &Shape, n: &Shape, path: &str) {
        let places = (o.place("enum"), n.place("enum"));
        let (ov, nv) = match (&o.values, &n.values) {
            (Some(ov), Some(nv)) => (ov, nv),
            (None, Some(nv)) => {
                let message = format!("values restricted to {}", values(nv.iter()));
                return self.change(Kind::ValuesChanged, Change::Narrowed, message, places, path);
            }
            (Some(ov), None) => {
                let message = format!("values {} no longer the only ones", values(ov.iter()));
                return self.change(Kind::ValuesChanged, Change::Widened, message, places, path);
            }
            (None, None) => return,
        };
        let gone: Vec<&Value> = ov.iter().filter(|v| !nv.contains(v)).collect();
        let added: Vec<&Value> = nv.iter().filter(|v| !ov.contains(v)).collect();
        if !gone.is_empty() {
            let message = format!("values removed: {}", values(gone.into_iter()));
            self.change(
                Kind::ValuesChanged,
                Change::Narrowed,
                message,
                places.clone(),
                path,
            );
        }
        if !added.is_empty() {
            let message = format!("values added: {}", values(added.into_iter()));
            self.change(Kind::ValuesChanged, Change::Widened, message, places, path);
        }
    }

    fn bounds(&mut self, o: &Shape, n: &Shape, path: &str) {
        for (keyword, lower) in LOWER_BOUNDS
            .iter()
            .map(|k| (*k, true))
            .chain(UPPER_BOUNDS.iter().map(|k| (*k, false)))
        {
            let (ob, nb) = (o.bounds.get(keyword), n.bounds.get(keyword));
            let change = match (ob, nb) {
                (None, None) => continue,
                (Some(a), Some(b)) if a == b => continue,
                (None, Some(_)) => Change::Narrowed,
                (Some(_), None) => Change::Widened,
                (Some(a), Some(b)) if (b > a) == lower => Change::Narrowed,
                _ => Change::Widened,
            };
            let message = format!("{keyword} {} → {}", bound(ob), bound(nb));
            let places = (o.place(keyword), n.place(keyword));
            self.change(Kind::BoundChanged, change, message, places, path);
        }
    }

    fn texts(&mut self, o: &Shape, n: &Shape, path: &str) {
        for keyword in TEXT_KEYWORDS {
            let (ot, nt) = (o.texts.get(keyword), n.texts.get(keyword));
            let change = match (ot, nt) {
                (None, None) => continue,
                (Some(a), Some(b)) if a == b => continue,
                (None, Some(_)) => Change::Narrowed,
                (Some(_), None) => Change::Widened,
                _ => Change::Changed,
            };
            let text = |t: Option<&String>| t.map_or("(none)".to_owned(), |t| format!("`{t}`"));
            let message = format!("{keyword} {} → {}", text(ot), text(nt));
            let places = (o.place(keyword), n.place(keyword));
            self.change(Kind::FormatChanged, change, message, places, path);
        }
    }
}

/// The two ends of a finding: old, new.
type Places = (Location, Location);

/// Whether the schema lets values of type `t` through (any type, without `type`).
fn allows(shape: &Shape, t: &str) -> bool {
    shape.types.as_ref().is_none_or(|types| types.contains(t))
}

fn list(types: &BTreeSet<String>) -> String {
    let names: Vec<&str> = types.iter().map(String::as_str).collect();
    match names.len() {
        0 => "(none)".to_owned(),
        1 => names[0].to_owned(),
        _ => format!("[{}]", names.join(", ")),
    }
}

fn values<'v>(values: impl Iterator<Item = &'v Value>) -> String {
    values.map(Value::to_string).collect::<Vec<_>>().join(", ")
}

fn bound(bound: Option<&f64>) -> String {
    bound.map_or("(none)".to_owned(), |b| b.to_string())
}

impl Walk<'_, '_> {
    fn object(&mut self, o: &Shape, n: &Shape, path: &str) {
        for (name, ol) in &o.properties {
            let member = format!("{path}.{name}");
            let (was, is) = (o.required.contains(name), n.required.contains(name));
            let Some(nl) = n.properties.get(name) else {
                self.member_removed(n, name, ol, was, &member);
                continue;
            };
            let places = (ol.clone(), nl.clone());
            if was && !is {
                let message = format!("member `{name}` no longer required");
                self.change(
                    Kind::MemberNowOptional,
                    Change::Widened,
                    message,
                    places.clone(),
                    &member,
                );
            } else if !was && is {
                let message = format!("member `{name}` now required");
                self.change(
                    Kind::MemberNowRequired,
                    Change::Narrowed,
                    message,
                    places.clone(),
                    &member,
                );
            }
            self.schema(&places.0, &places.1, &member);
        }
        for (name, nl) in n
            .properties
            .iter()
            .filter(|(k, _)| !o.properties.contains_key(*k))
        {
            let member = format!("{path}.{name}");
            let places = (o.place("properties"), nl.clone());
            if n.required.contains(name) {
                let message = format!("new required member `{name}`");
                self.change(
                    Kind::MemberAdded,
                    Change::Narrowed,
                    message,
                    places,
                    &member,
                );
            } else if o.additional == Additional::Forbidden {
                let message =
                    format!("new optional member `{name}` where other members were refused");
                self.change(Kind::MemberAdded, Change::Widened, message, places, &member);
            } else {
                let message = format!("new optional member `{name}`");
                self.compatible(Kind::MemberAdded, message, places, &member);
            }
        }
        self.additional(o, n, path);
    }

    fn member_removed(&mut self, n: &Shape, name: &str, at: &Location, required: bool, path: &str) {
        let places = (at.clone(), n.place("properties"));
        if required {
            let message = format!("required member `{name}` removed");
            self.change(Kind::MemberRemoved, Change::Widened, message, places, path);
        } else if n.additional == Additional::Forbidden {
            let message =
                format!("optional member `{name}` removed, and other members are refused");
            self.change(Kind::MemberRemoved, Change::Narrowed, message, places, path);
        } else {
            let message = format!("optional member `{name}` removed");
            self.compatible(Kind::MemberRemoved, message, places, path);
        }
    }

    fn additional(&mut self, o: &Shape, n: &Shape, path: &str) {
        let places = (
            o.place("additionalProperties"),
            n.place("additionalProperties"),
        );
        let change = match (&o.additional, &n.additional) {
            (Additional::Schema(a), Additional::Schema(b)) => {
                let (a, b) = (a.clone(), b.clone());
                return self.schema(&a, &b, &format!("{path}.*"));
            }
            (a, b) if a == b => return,
            (Additional::Any, _) | (Additional::Schema(_), Additional::Forbidden) => {
                Change::Narrowed
            }
            _ => Change::Widened,
        };
        let describe = |a: &Additional| match a {
            Additional::Any => "any",
            Additional::Forbidden => "refused",
            Additional::Schema(_) => "a schema",
        };
        let message = format!(
            "other members: {} → {}",
            describe(&o.additional),
            describe(&n.additional)
        );
        self.change(
            Kind::AdditionalMembersChanged,
            change,
            message,
            places,
            path,
        );
    }

    /// `oneOf`/`anyOf` on either side: alternatives matched by name (the `$ref`'s last
    /// token, or the title), then by position among those left; a lone schema facing
    /// alternatives is matched the same way.
    fn alternatives(&mut self, o: &Shape, n: &Shape, path: &str) {
        let old = self.members(o, true);
        let new = self.members(n, false);
        let pairs = pair(&old, &new);
        let place = |s: &Shape| match s.alternatives {
            Some(_) => s.place("alternatives"),
            None => s.site.clone(),
        };
        self.unpaired(&old, &new, &pairs, (place(o), place(n)), path);
        for (i, j) in pairs {
            let label = old[i]
                .name
                .clone()
                .or_else(|| new[j].name.clone())
                .unwrap_or_else(|| i.to_string());
            let (a, b) = (old[i].at.clone(), new[j].at.clone());
            if old[i].whole || new[j].whole {
                // A lone schema against one alternative: compare them as schemas, not
                // as alternatives again.
                let (ao, bn) = (
                    Shape::read(self.diff.old, &a),
                    Shape::read(self.diff.new, &b),
                );
                if ao.alternatives.is_none() && bn.alternatives.is_none() {
                    self.shapes(&ao, &bn, path);
                }
                continue;
            }
            self.schema(&a, &b, &format!("{path}|{label}"));
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
        let alone = |members: &'_ [Member], paired: &dyn Fn(usize) -> bool| -> Vec<Location> {
            (0..members.len())
                .filter(|&i| !paired(i))
                .map(|i| members[i].at.clone())
                .collect()
        };
        let gone_at = alone(old, &|i| pairs.iter().any(|p| p.0 == i));
        let added_at = alone(new, &|j| pairs.iter().any(|p| p.1 == j));
        let both = !gone_at.is_empty() && !added_at.is_empty();
        let sides = [
            (old, gone_at, "removed", Change::Narrowed),
            (new, added_at, "added", Change::Widened),
        ];
        for (members, at, verb, change) in sides {
            let Some(first) = at.first().cloned() else {
                continue;
            };
            let listed: Vec<&Member> = members.iter().filter(|m| at.contains(&m.at)).collect();
            let message = format!("alternatives {verb}: {}", names(&listed));
            let places = match change {
                Change::Narrowed => (first, places.1.clone()),
                _ => (places.0.clone(), first),
            };
            let change = if both { Change::Changed } else { change };
            self.change(Kind::AlternativesChanged, change, message, places, path);
        }
    }

    /// The alternatives of a schema; a schema without any is its own single one.
    fn members(&mut self, shape: &Shape, old: bool) -> Vec<Member> {
        let resolver = if old {
            &mut *self.diff.old
        } else {
            &mut *self.diff.new
        };
        match &shape.alternatives {
            Some(alternatives) => alternatives
                .iter()
                .map(|at| Member {
                    name: shape::alternative_key(resolver, at),
                    types: Shape::read(resolver, at).types,
                    at: at.clone(),
                    whole: false,
                })
                .collect(),
            None => vec![Member {
                name: shape.key.clone(),
                types: shape.types.clone(),
                at: shape.site.clone(),
                whole: true,
            }],
        }
    }
}

/// One alternative of a union.
struct Member {
    name: Option<String>,
    /// The JSON types it allows (matched on when names do not match).
    types: Option<BTreeSet<String>>,
    at: Location,
    /// The schema is not a union: this is the whole schema.
    whole: bool,
}

/// Pairs (old index, new index): equal names first; then, among those left, the one
/// alternative of the same JSON types; then what is left by position when as many are
/// left on both sides (and neither side is a lone schema).
fn pair(old: &[Member], new: &[Member]) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let same_name = |o: &Member, n: &Member| o.name.is_some() && n.name == o.name;
    let same_types = |o: &Member, n: &Member| o.types.is_some() && n.types == o.types;
    for matches in [&same_name as &dyn Fn(&Member, &Member) -> bool, &same_types] {
        for (i, o) in old.iter().enumerate() {
            if pairs.iter().any(|p| p.0 == i) {
                continue;
            }
            let candidates: Vec<usize> = (0..new.len())
                .filter(|j| !pairs.iter().any(|p| p.1 == *j) && matches(o, &new[*j]))
                .collect();
            if let [j] = candidates[..] {
                pairs.push((i, j));
            }
        }
    }
    let left_old: Vec<usize> = (0..old.len())
        .filter(|i| !pairs.iter().any(|p| p.0 == *i))
        .collect();
    let left_new: Vec<usize> = (0..new.len())
        .filter(|j| !pairs.iter().any(|p| p.1 == *j))
        .collect();
    let whole = old.iter().chain(new).any(|m| m.whole);
    if left_old.len() == left_new.len() && !whole {
        pairs.extend(left_old.into_iter().zip(left_new));
    }
    pairs
}

fn names(members: &[&Member]) -> String {
    let name = |m: &Member| match (&m.name, &m.types) {
        (Some(name), _) => format!("`{name}`"),
        (None, Some(types)) => format!("(untitled {})", list(types)),
        (None, None) => "(untitled)".to_owned(),
    };
    members
        .iter()
        .map(|m| name(m))
        .collect::<Vec<_>>()
        .join(", ")
}
