//! The document answered on `rpc.discover`, made self-contained: every `$ref` into
//! another file is replaced by a reference to a copy of its target placed under the
//! root's `components` (`components/<kind>/<name>` for a component of the other file,
//! `components/schemas/<name>` for anything else), and the copies' own references are
//! rewritten the same way. References inside the root document are kept as written.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::pointer;
use crate::resolve::{FileId, Location, Resolver};

/// The root document as compact JSON, with every other file's targets bundled in.
pub(crate) fn bundle(resolver: &mut Resolver, root: FileId) -> String {
    let Some(mut document) = resolver.get(&Location::root(root)).cloned() else {
        return "{}".to_owned();
    };
    let mut bundler = Bundler {
        resolver,
        root,
        placed: HashMap::new(),
        taken: HashSet::new(),
        queue: Vec::new(),
    };
    bundler.claim_existing(&document);
    bundler.rewrite(&mut document, &Location::root(root));
    let mut copies: Vec<(String, String, Value)> = Vec::new();
    while let Some((target, kind, name)) = bundler.queue.pop() {
        let Some(mut value) = bundler.resolver.get(&target).cloned() else {
            continue;
        };
        bundler.rewrite(&mut value, &target);
        copies.push((kind, name, value));
    }
    copies.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    place(&mut document, copies);
    serde_json::to_string(&document).unwrap_or_else(|_| "{}".to_owned())
}

struct Bundler<'r> {
    resolver: &'r mut Resolver,
    root: FileId,
    /// Targets in other files already given a place: target → local `$ref`.
    placed: HashMap<Location, String>,
    /// `kind/name` pairs in use under the root's `components`.
    taken: HashSet<(String, String)>,
    /// Targets placed but not copied yet: (target, kind, name).
    queue: Vec<(Location, String, String)>,
}

impl Bundler<'_> {
    fn claim_existing(&mut self, document: &Value) {
        let Some(components) = document.get("components").and_then(Value::as_object) else {
            return;
        };
        for (kind, members) in components {
            for name in members.as_object().into_iter().flat_map(Map::keys) {
                self.taken.insert((kind.clone(), name.clone()));
            }
        }
    }

    /// Rewrites every `$ref` inside `value`, which sits at `at`.
    fn rewrite(&mut self, value: &mut Value, at: &Location) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(reference)) = map.get("$ref") {
                    let reference = reference.clone();
                    if let Some(local) = self.local_ref(at, &reference) {
                        map.insert("$ref".to_owned(), Value::String(local));
                    }
                }
                for (key, child) in map.iter_mut() {
                    if key != "$ref" {
                        self.rewrite(child, &at.key(key));
                    }
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter_mut().enumerate() {
                    self.rewrite(child, &at.index(i));
                }
            }
            _ => {}
        }
    }

    /// The reference to use for `reference` written at `at`; `None` to keep it.
    fn local_ref(&mut self, at: &Location, reference: &str) -> Option<String> {
        if at.file == self.root && reference.starts_with('#') {
            return None;
        }
        let target = self.resolver.resolve_ref(at, reference).ok()?;
        if target.file == self.root {
            return Some(fragment(&target.pointer));
        }
        if let Some(local) = self.placed.get(&target) {
            return Some(local.clone());
        }
        let (kind, base) = kind_and_name(&target);
        let mut name = base.clone();
        let mut n = 2;
        while !self.taken.insert((kind.clone(), name.clone())) {
            name = format!("{base}_{n}");
            n += 1;
        }
        let local = fragment(&format!(
            "/components/{}/{}",
            pointer::escape(&kind),
            pointer::escape(&name)
        ));
        self.placed.insert(target.clone(), local.clone());
        self.queue.push((target, kind, name));
        Some(local)
    }
}

/// Where a target goes: `components/<kind>/<name>` for another file's component, else a
/// schema named after the last token of its pointer.
fn kind_and_name(target: &Location) -> (String, String) {
    let tokens = pointer::tokens(&target.pointer).unwrap_or_default();
    match tokens.as_slice() {
        [c, kind, name] if c == "components" => (kind.to_string(), name.to_string()),
        [.., last] => ("schemas".to_owned(), last.to_string()),
        [] => ("schemas".to_owned(), "document".to_owned()),
    }
}

/// Puts the copies under the document's `components`.
fn place(document: &mut Value, copies: Vec<(String, String, Value)>) {
    if copies.is_empty() {
        return;
    }
    let Value::Object(root) = document else {
        return;
    };
    let components = root
        .entry("components")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(components) = components else {
        return;
    };
    for (kind, name, value) in copies {
        let members = components
            .entry(kind)
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(members) = members {
            members.insert(name, value);
        }
    }
}

/// A `$ref` to `pointer` in the same document, percent-encoding what a URI fragment
/// cannot hold.
fn fragment(pointer: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + 1);
    out.push('#');
    for c in pointer.chars() {
        if c.is_ascii_alphanumeric() || "/-._~!$&'()*+,;=:@".contains(c) {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}
