//! Comparing the methods of two documents: which exist, how their params are sent and
//! named, their results and their declared errors.

use std::collections::{BTreeMap, HashMap};

use super::Diff;
use super::finding::{Breaks, Kind};
use super::schema::{Change, Flow, Walk};
use rpcsmith_build::Location;
use rpcsmith_build::document::{ResolvedError, ResolvedMethod, ResolvedParam};
use rpcsmith_build::openrpc::{ErrorObject, ParamStructure};

impl Diff<'_> {
    /// Compares every method, matched by wire name.
    pub(crate) fn methods(&mut self, old: &[ResolvedMethod], new: &[ResolvedMethod]) {
        let new_by_name: HashMap<&str, &ResolvedMethod> =
            new.iter().map(|m| (m.name.as_str(), m)).collect();
        let old_names: HashMap<&str, &ResolvedMethod> =
            old.iter().map(|m| (m.name.as_str(), m)).collect();
        let (old_list, new_list) = (self.old_root.key("methods"), self.new_root.key("methods"));
        for method in old {
            self.direction_of(&method.name);
            match new_by_name.get(method.name.as_str()) {
                Some(n) => self.method(method, n),
                None => {
                    let message = format!("method `{}` removed", method.name);
                    let places = (method.location.clone(), new_list.clone());
                    self.push(
                        Kind::MethodRemoved,
                        Breaks::CLIENTS,
                        message,
                        &method.name,
                        places.0,
                        places.1,
                    );
                }
            }
        }
        for method in new
            .iter()
            .filter(|m| !old_names.contains_key(m.name.as_str()))
        {
            self.direction_of(&method.name);
            let message = format!("method `{}` added", method.name);
            let (o, n) = (old_list.clone(), method.location.clone());
            self.push(
                Kind::MethodAdded,
                Breaks::SERVERS,
                message,
                &method.name,
                o,
                n,
            );
        }
    }

    fn method(&mut self, o: &ResolvedMethod, n: &ResolvedMethod) {
        let name = o.name.as_str();
        let (ol, nl) = (o.location.clone(), n.location.clone());
        if o.deprecated != n.deprecated {
            let message = match n.deprecated {
                true => format!("method `{name}` deprecated"),
                false => format!("method `{name}` no longer deprecated"),
            };
            self.push(
                Kind::DeprecationChanged,
                Breaks::COMPATIBLE,
                message,
                name,
                ol.clone(),
                nl.clone(),
            );
        }
        self.param_structure(o, n);
        self.params(o, n);
        match (&o.result, &n.result) {
            (Some(or), Some(nr)) => {
                let mut walk = Walk::new(self, Flow::Result);
                walk.schema(&or.schema, &nr.schema, &format!("{name} result"));
            }
            (None, Some(nr)) => {
                let message =
                    format!("notification `{name}` became a request (it now has a result)");
                self.push(
                    Kind::NotificationBecameRequest,
                    Breaks::SERVERS,
                    message,
                    name,
                    ol,
                    nr.site.clone(),
                );
            }
            (Some(or), None) => {
                let message =
                    format!("request `{name}` became a notification (it no longer has a result)");
                self.push(
                    Kind::RequestBecameNotification,
                    Breaks::CLIENTS,
                    message,
                    name,
                    or.site.clone(),
                    nl,
                );
            }
            (None, None) => {}
        }
        self.errors(o, n);
    }

    fn param_structure(&mut self, o: &ResolvedMethod, n: &ResolvedMethod) {
        let (was, is) = (shapes(o.param_structure), shapes(n.param_structure));
        if was == is {
            return;
        }
        let change = match (
            is.0 <= was.0 && is.1 <= was.1,
            was.0 <= is.0 && was.1 <= is.1,
        ) {
            (true, _) => Change::Narrowed,
            (_, true) => Change::Widened,
            _ => Change::Changed,
        };
        let message = format!(
            "paramStructure {} → {}",
            structure_name(o.param_structure),
            structure_name(n.param_structure)
        );
        let places = (structure_place(o), structure_place(n));
        let breaks = change.breaks(Flow::Params);
        self.push(
            Kind::ParamStructureChanged,
            breaks,
            message,
            &o.name,
            places.0,
            places.1,
        );
    }

    fn params(&mut self, o: &ResolvedMethod, n: &ResolvedMethod) {
        let by_name = shapes(o.param_structure).1 || shapes(n.param_structure).1;
        let by_position = shapes(o.param_structure).0 || shapes(n.param_structure).0;
        let pairs = pair_params(&o.params, &n.params);
        let mut moved = Vec::new();
        for &(i, j) in &pairs {
            let (op, np) = (&o.params[i], &n.params[j]);
            if op.name != np.name {
                self.renamed(o, op, np, by_name);
            }
            if i != j && by_position {
                moved.push(format!("`{}` {} → {}", np.name, i + 1, j + 1));
            }
            self.param(&o.name, op, np);
        }
        if !moved.is_empty() {
            let message = format!("params sent by position moved: {}", moved.join(", "));
            let places = (o.location.key("params"), n.location.key("params"));
            self.push(
                Kind::ParamOrderChanged,
                Breaks::BOTH,
                message,
                &o.name,
                places.0,
                places.1,
            );
        }
        let lone = |list: &[ResolvedParam], side: usize| -> Vec<usize> {
            (0..list.len())
                .filter(|k| {
                    !pairs
                        .iter()
                        .any(|p| if side == 0 { p.0 == *k } else { p.1 == *k })
                })
                .collect()
        };
        for i in lone(&o.params, 0) {
            self.param_removed(o, n, &o.params[i]);
        }
        for j in lone(&n.params, 1) {
            self.param_added(o, &n.params[j]);
        }
    }

    fn renamed(
        &mut self,
        m: &ResolvedMethod,
        op: &ResolvedParam,
        np: &ResolvedParam,
        by_name: bool,
    ) {
        let breaks = if by_name {
            Breaks::BOTH
        } else {
            Breaks::COMPATIBLE
        };
        let how = if by_name {
            "sent by name"
        } else {
            "sent by position only: the name is not on the wire"
        };
        let message = format!("param `{}` renamed `{}` ({how})", op.name, np.name);
        self.push(
            Kind::ParamRenamed,
            breaks,
            message,
            &m.name,
            op.site.clone(),
            np.site.clone(),
        );
    }

    fn param(&mut self, method: &str, op: &ResolvedParam, np: &ResolvedParam) {
        let path = format!("{method} params.{}", np.name);
        let places = (op.site.clone(), np.site.clone());
        if op.required != np.required {
            let (kind, message, change) = match np.required {
                true => (
                    Kind::ParamNowRequired,
                    format!("param `{}` now required", np.name),
                    Change::Narrowed,
                ),
                false => (
                    Kind::ParamNowOptional,
                    format!("param `{}` now optional", np.name),
                    Change::Widened,
                ),
            };
            let breaks = change.breaks(Flow::Params);
            self.push(
                kind,
                breaks,
                message,
                &path,
                places.0.clone(),
                places.1.clone(),
            );
        }
        if op.deprecated != np.deprecated {
            let message = match np.deprecated {
                true => format!("param `{}` deprecated", np.name),
                false => format!("param `{}` no longer deprecated", np.name),
            };
            self.push(
                Kind::DeprecationChanged,
                Breaks::COMPATIBLE,
                message,
                &path,
                places.0,
                places.1,
            );
        }
        let mut walk = Walk::new(self, Flow::Params);
        walk.schema(&op.schema, &np.schema, &path);
    }

    fn param_removed(&mut self, o: &ResolvedMethod, n: &ResolvedMethod, p: &ResolvedParam) {
        // Old clients still send it (an extra element, or an unknown member); new clients
        // no longer do, which old servers refuse when it was required.
        let breaks = Breaks {
            clients: true,
            servers: p.required,
        };
        let what = if p.required { "required" } else { "optional" };
        let message = format!("{what} param `{}` removed", p.name);
        let places = (p.site.clone(), n.location.key("params"));
        self.push(
            Kind::ParamRemoved,
            breaks,
            message,
            &o.name,
            places.0,
            places.1,
        );
    }

    fn param_added(&mut self, o: &ResolvedMethod, p: &ResolvedParam) {
        // Old servers do not take it (an extra element, or an unknown member); old clients
        // do not send it, which new servers refuse when it is required.
        let breaks = Breaks {
            clients: p.required,
            servers: true,
        };
        let what = if p.required { "required" } else { "optional" };
        let message = format!("{what} param `{}` added", p.name);
        let places = (o.location.key("params"), p.site.clone());
        self.push(
            Kind::ParamAdded,
            breaks,
            message,
            &o.name,
            places.0,
            places.1,
        );
    }

    /// Compares declared errors, paired by code and message, then data (see [`pair_errors`]).
    fn errors(&mut self, o: &ResolvedMethod, n: &ResolvedMethod) {
        let name = o.name.as_str();
        let pairs = pair_errors(&o.errors, &n.errors);
        let old_codes = codes(&o.errors);
        let new_codes = codes(&n.errors);
        for (i, oe) in o.errors.iter().enumerate() {
            match pairs.iter().find(|p| p.0 == i) {
                Some(&(_, j)) => self.error_pair(name, oe, &n.errors[j]),
                None => {
                    let remains = new_codes.contains_key(&oe.error.code);
                    self.error_alone(name, oe, errors_place(n), remains, true);
                }
            }
        }
        for (code, was, is) in old_codes
            .iter()
            .filter_map(|(c, was)| new_codes.get(c).map(|is| (c, *was, *is)))
            .filter(|(_, was, is)| was != is)
        {
            let message = format!("errors with code {code}: {was} declared → {is}");
            let (ol, nl) = (errors_place(o), errors_place(n));
            self.push(
                Kind::ErrorCountChanged,
                Breaks::COMPATIBLE,
                message,
                name,
                ol,
                nl,
            );
        }
        let paired_new = |j: usize| pairs.iter().any(|p| p.1 == j);
        for (_, ne) in n.errors.iter().enumerate().filter(|(j, _)| !paired_new(*j)) {
            self.error_alone(
                name,
                ne,
                errors_place(o),
                old_codes.contains_key(&ne.error.code),
                false,
            );
        }
    }

    fn error_pair(&mut self, name: &str, oe: &ResolvedError, ne: &ResolvedError) {
        let code = oe.error.code;
        if ne.error.message != oe.error.message {
            let message = format!(
                "error {code} message {:?} → {:?}",
                oe.error.message, ne.error.message
            );
            let places = (oe.location.key("message"), ne.location.key("message"));
            self.push(
                Kind::ErrorMessageChanged,
                Breaks::COMPATIBLE,
                message,
                name,
                places.0,
                places.1,
            );
        }
        if ne.error.data != oe.error.data {
            let message = format!("error {code} ({:?}) data changed", ne.error.message);
            let places = (oe.location.key("data"), ne.location.key("data"));
            self.push(
                Kind::ErrorDataChanged,
                Breaks::COMPATIBLE,
                message,
                name,
                places.0,
                places.1,
            );
        }
    }

    /// An error without a partner: it breaks only when its code is gone (or new) on the
    /// other side; another error of the same code is counted by [`Kind::ErrorCountChanged`].
    fn error_alone(
        &mut self,
        name: &str,
        e: &ResolvedError,
        other: Location,
        code_remains: bool,
        removed: bool,
    ) {
        let code = e.error.code;
        let (kind, verb, change) = match removed {
            true => (Kind::ErrorRemoved, "no longer declared", Change::Narrowed),
            false => (Kind::ErrorAdded, "newly declared", Change::Widened),
        };
        let breaks = match code_remains {
            true => Breaks::COMPATIBLE,
            false => change.breaks(Flow::Result),
        };
        let message = match code_remains {
            true => format!(
                "error {code} ({:?}) {verb}; other errors with code {code} remain",
                e.error.message
            ),
            false => format!("error {code} ({:?}) {verb}", e.error.message),
        };
        let places = match removed {
            true => (e.site.clone(), other),
            false => (other, e.site.clone()),
        };
        self.push(kind, breaks, message, name, places.0, places.1);
    }
}

/// A rule saying two declared errors are the same.
type SameError = dyn Fn(&ErrorObject, &ErrorObject) -> bool;

/// How many errors declare each code.
fn codes(errors: &[ResolvedError]) -> BTreeMap<i64, usize> {
    let mut counts = BTreeMap::new();
    for e in errors {
        *counts.entry(e.error.code).or_insert(0) += 1;
    }
    counts
}

/// Pairs (old index, new index) of the same declared error: equal code, message and data
/// first; then equal code and message; then, of a code left with one error on each side,
/// those two (a message reworded). Never by code alone among several.
fn pair_errors(old: &[ResolvedError], new: &[ResolvedError]) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let rules: [&SameError; 2] = [
        &|a, b| a.code == b.code && a.message == b.message && a.data == b.data,
        &|a, b| a.code == b.code && a.message == b.message,
    ];
    for same in rules {
        for (i, oe) in old.iter().enumerate() {
            if pairs.iter().any(|p| p.0 == i) {
                continue;
            }
            let free = |j: &usize| !pairs.iter().any(|p| p.1 == *j);
            if let Some(j) = (0..new.len())
                .filter(free)
                .find(|&j| same(&oe.error, &new[j].error))
            {
                pairs.push((i, j));
            }
        }
    }
    let left = |list: &[ResolvedError], side: usize, code: i64| -> Vec<usize> {
        (0..list.len())
            .filter(|&k| list[k].error.code == code)
            .filter(|&k| {
                !pairs
                    .iter()
                    .any(|p| if side == 0 { p.0 == k } else { p.1 == k })
            })
            .collect()
    };
    let mut reworded = Vec::new();
    for code in codes(old).keys() {
        if let ([i], [j]) = (&left(old, 0, *code)[..], &left(new, 1, *code)[..]) {
            reworded.push((*i, *j));
        }
    }
    pairs.extend(reworded);
    pairs.sort_unstable();
    pairs
}

/// (by position, by name): the shapes of params a method takes.
fn shapes(structure: ParamStructure) -> (bool, bool) {
    match structure {
        ParamStructure::ByPosition => (true, false),
        ParamStructure::ByName => (false, true),
        ParamStructure::Either => (true, true),
    }
}

fn structure_name(structure: ParamStructure) -> &'static str {
    match structure {
        ParamStructure::ByPosition => "by-position",
        ParamStructure::ByName => "by-name",
        ParamStructure::Either => "either",
    }
}

fn structure_place(m: &ResolvedMethod) -> Location {
    m.location.key("paramStructure")
}

fn errors_place(m: &ResolvedMethod) -> Location {
    m.location.key("errors")
}

/// Pairs (old index, new index) of the same param: the same name first; then a param
/// left alone on both sides at the same position is the same param renamed.
fn pair_params(old: &[ResolvedParam], new: &[ResolvedParam]) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(usize, usize)> = old
        .iter()
        .enumerate()
        .filter_map(|(i, o)| new.iter().position(|n| n.name == o.name).map(|j| (i, j)))
        .collect();
    let renamed: Vec<(usize, usize)> = (0..old.len().min(new.len()))
        .filter(|&k| !pairs.iter().any(|p| p.0 == k || p.1 == k))
        .map(|k| (k, k))
        .collect();
    pairs.extend(renamed);
    pairs.sort_unstable();
    pairs
}
