//! Comparing the methods of two documents: which exist, how their params are sent and
//! named, their results and their declared errors.

use std::collections::HashMap;

use super::Diff;
use super::finding::{Breaks, Kind};
use super::schema::{Change, Flow, Walk};
use rpcsmith_build::Location;
use rpcsmith_build::document::{ResolvedMethod, ResolvedParam};
use rpcsmith_build::openrpc::ParamStructure;

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

    fn errors(&mut self, o: &ResolvedMethod, n: &ResolvedMethod) {
        let name = o.name.as_str();
        for oe in &o.errors {
            let code = oe.error.code;
            match n.errors.iter().find(|ne| ne.error.code == code) {
                Some(ne) if ne.error.message != oe.error.message => {
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
                Some(_) => {}
                None => {
                    let message =
                        format!("error {code} ({:?}) no longer declared", oe.error.message);
                    let places = (oe.site.clone(), errors_place(n));
                    let breaks = Change::Narrowed.breaks(Flow::Result);
                    self.push(
                        Kind::ErrorRemoved,
                        breaks,
                        message,
                        name,
                        places.0,
                        places.1,
                    );
                }
            }
        }
        for ne in n
            .errors
            .iter()
            .filter(|ne| !o.errors.iter().any(|oe| oe.error.code == ne.error.code))
        {
            let code = ne.error.code;
            let message = format!("error {code} ({:?}) newly declared", ne.error.message);
            let places = (errors_place(o), ne.site.clone());
            let breaks = Change::Widened.breaks(Flow::Result);
            self.push(Kind::ErrorAdded, breaks, message, name, places.0, places.1);
        }
    }
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
