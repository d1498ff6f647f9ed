//! Comparing two versions of one schema, keyword by keyword: each difference is judged
//! narrowed (fewer values pass), widened (more pass) or changed (neither contains the
//! other), then turned into who it breaks by the direction the value travels ([`Flow`]).

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::Value;

use super::Diff;
use super::finding::{Breaks, Kind};
use super::regular::{self, Inclusion};
use crate::shape::{Additional, LOWER_BOUNDS, Shape, TEXT_KEYWORDS, UPPER_BOUNDS, covers};
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
    /// Pairs whose comparison is over: the path it was met at, and what it found (the
    /// finding and its use), so that meeting the pair again elsewhere adds uses.
    done: HashMap<Places, Compared>,
    /// Inside a `not`: what narrows the inner schema widens the whole, and the reverse.
    pub(super) negated: bool,
    /// The nearest named schema (its `$ref` name or title) and the length of the wire
    /// path where it was met: findings below it are named from it.
    named: Option<(String, usize)>,
}

impl<'d, 'r> Walk<'d, 'r> {
    /// A walk in direction `flow`.
    pub(crate) fn new(diff: &'d mut Diff<'r>, flow: Flow) -> Self {
        Walk {
            diff,
            flow,
            visited: HashSet::new(),
            done: HashMap::new(),
            negated: false,
            named: None,
        }
    }

    /// Compares the schemas at `old` and `new`, met on the wire at `path`.
    pub(crate) fn schema(&mut self, old: &Location, new: &Location, path: &str) {
        let o = Shape::read(self.diff.old, old);
        let n = Shape::read(self.diff.new, new);
        self.shapes(&o, &n, path);
    }

    pub(super) fn shapes(&mut self, o: &Shape, n: &Shape, path: &str) {
        let pair = (o.at.clone(), n.at.clone());
        if let Some((base, found)) = self.done.get(&pair).cloned() {
            for (i, used) in found {
                if let Some(below) = used.strip_prefix(base.as_str()) {
                    self.diff.add_use(i, &format!("{path}{below}"));
                }
            }
            return;
        }
        if !self.visited.insert(pair.clone()) {
            return;
        }
        let mark = self.diff.touched.len();
        let outer = self.named.clone();
        // A union against a lone schema is named by the union (the lone schema is one
        // of its alternatives, named in the finding).
        let keys = match (o.alternatives.is_some(), n.alternatives.is_some()) {
            (true, false) if o.key.is_some() => (&o.key, &None),
            (false, true) if n.key.is_some() => (&None, &n.key),
            _ => (&o.key, &n.key),
        };
        let name = match keys {
            (Some(a), Some(b)) if a != b => Some(format!("{a}` (now `{b}`)")),
            (Some(a), _) | (None, Some(a)) => Some(format!("{a}`")),
            (None, None) => None,
        };
        if let Some(name) = name {
            self.named = Some((name, path.len()));
        }
        if o.alternatives.is_some() || n.alternatives.is_some() {
            self.alternatives(o, n, path);
        } else {
            self.own(o, n, path);
        }
        self.named = outer;
        let found = self.diff.touched[mark..].to_vec();
        self.done.insert(pair, (path.to_owned(), found));
    }

    /// The schema a finding at `path` is in: `` `NAME` `` and the members from there.
    fn schema_name(&self, path: &str) -> Option<String> {
        let (name, at) = self.named.as_ref()?;
        let below = path.get(*at..).unwrap_or_default();
        Some(format!("`{name}{below}"))
    }

    /// Compares two schemas neither of which is a union.
    pub(super) fn own(&mut self, o: &Shape, n: &Shape, path: &str) {
        self.types(o, n, path);
        if disjoint(o, n) {
            // No value of the old type is of the new one (`null` → `integer`, an array
            // → an object): that is the difference; bounds or members of one type
            // against the other would only repeat it.
            return;
        }
        self.values(o, n, path);
        self.bounds(o, n, path);
        self.texts(o, n, path);
        self.multiple_of(o, n, path);
        self.applicators(o, n, path);
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

    pub(super) fn change(
        &mut self,
        kind: Kind,
        change: Change,
        message: String,
        places: Places,
        path: &str,
    ) {
        let change = match (self.negated, change) {
            (true, Change::Narrowed) => Change::Widened,
            (true, Change::Widened) => Change::Narrowed,
            (_, change) => change,
        };
        let breaks = change.breaks(self.flow);
        self.diff.schema = self.schema_name(path);
        self.diff
            .push(kind, breaks, message, path, places.0, places.1);
    }

    /// A change whose direction is not worked out: reported, breaking nobody for sure.
    pub(super) fn undecided(&mut self, message: String, places: Places, path: &str) {
        self.diff.schema = self.schema_name(path);
        let breaks = Breaks::COMPATIBLE;
        self.diff.push(
            Kind::DirectionUnknown,
            breaks,
            message,
            path,
            places.0,
            places.1,
        );
    }

    pub(super) fn compatible(&mut self, kind: Kind, message: String, places: Places, path: &str) {
        self.diff.schema = self.schema_name(path);
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
            let text = |t: Option<&String>| t.map_or("(none)".to_owned(), |t| format!("`{t}`"));
            let message = format!("{keyword} {} → {}", text(ot), text(nt));
            let places = (o.place(keyword), n.place(keyword));
            let change = match (ot, nt) {
                (None, None) => continue,
                (Some(a), Some(b)) if a == b => continue,
                (None, Some(_)) => Change::Narrowed,
                (Some(_), None) => Change::Widened,
                (Some(a), Some(b)) if keyword == "pattern" => match regular::compare(a, b) {
                    Ok(Inclusion::Same) => continue,
                    Ok(Inclusion::Narrower) => Change::Narrowed,
                    Ok(Inclusion::Wider) => Change::Widened,
                    Ok(Inclusion::Neither) => Change::Changed,
                    Err(why) => {
                        let message = format!("{message}: which allows more is unknown ({why})");
                        self.undecided(message, places, path);
                        continue;
                    }
                },
                _ => Change::Changed,
            };
            self.change(Kind::FormatChanged, change, message, places, path);
        }
    }
}

/// The two ends of a finding: old, new.
pub(super) type Places = (Location, Location);

/// A pair's comparison: the path it was met at, and each finding it recorded or met
/// again, with that use.
type Compared = (String, Vec<(usize, String)>);

/// Whether both schemas restrict the JSON type and share none (`integer` is a `number`).
fn disjoint(o: &Shape, n: &Shape) -> bool {
    match (&o.types, &n.types) {
        (Some(a), Some(b)) => !a
            .iter()
            .any(|t| covers(b, t) || b.iter().any(|u| covers(a, u))),
        _ => false,
    }
}

/// Whether the schema lets values of type `t` through (any type, without `type`).
fn allows(shape: &Shape, t: &str) -> bool {
    shape.types.as_ref().is_none_or(|types| types.contains(t))
}

pub(super) fn list(types: &BTreeSet<String>) -> String {
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
        self.required_only(o, n, path);
        self.additional(o, n, path);
    }

    /// Names in `required` that neither side defines in `properties` (`{"required":
    /// ["b"]}` alone, as in `then`): required now or no longer.
    fn required_only(&mut self, o: &Shape, n: &Shape, path: &str) {
        let defined =
            |name: &String| o.properties.contains_key(name) || n.properties.contains_key(name);
        for name in n.required.difference(&o.required).filter(|m| !defined(m)) {
            let message = format!("new required member `{name}`");
            let places = (o.place("required"), n.place("required"));
            let member = format!("{path}.{name}");
            self.change(
                Kind::MemberNowRequired,
                Change::Narrowed,
                message,
                places,
                &member,
            );
        }
        for name in o.required.difference(&n.required).filter(|m| !defined(m)) {
            let message = format!("member `{name}` no longer required");
            let places = (o.place("required"), n.place("required"));
            let member = format!("{path}.{name}");
            self.change(
                Kind::MemberNowOptional,
                Change::Widened,
                message,
                places,
                &member,
            );
        }
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
}
