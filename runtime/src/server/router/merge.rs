//! One OpenRPC document out of the documents of a router's mounts: what the router
//! answers on `rpc.discover`.
//!
//! The merge, mount by mount in the order mounted:
//!
//! - `openrpc`: the first document's.
//! - `info`: the one given to [`Builder::info`](super::Builder::info); otherwise
//!   `title` is the documents' titles joined by `" + "`, and `version` their version
//!   when they all have the same one, else their versions joined by `" + "`.
//! - `methods`: every document's methods in order, each `name` with its mount's prefix.
//! - `components`: the union, kind by kind (`schemas`, `errors`, …). A component that
//!   an earlier document has under the same kind and name is kept once when the two are
//!   equal (the same JSON once the renames below are applied); when they differ, the
//!   later one is namespaced: renamed `<mount>.<name>` (`<mount>.<name>.2`, … if taken),
//!   and every `$ref` of its document to it (`#/components/<kind>/<name>`, or a pointer
//!   into it) rewritten to match. So no clash refuses a router, and every reference
//!   still reaches what its own document meant.
//! - Other top-level members (`servers`, `externalDocs`, `x-…`) describe one document
//!   each, and are left out.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::Error;

/// One mount's document, as the merge reads it.
pub(super) struct Part<'a> {
    /// The mount's name.
    pub(super) mount: &'a str,
    /// What the mount's wire names start with.
    pub(super) prefix: &'a str,
    /// The document (JSON text).
    pub(super) document: &'a str,
}

/// Renames of one document's components: kind → old name → new name.
type Renames = BTreeMap<String, BTreeMap<String, String>>;

/// The merged document of `parts` (at least one), as JSON text.
///
/// # Errors
///
/// [`Error::Document`] naming the mount whose document is not a JSON object with a
/// `methods` array.
pub(super) fn merge(parts: &[Part<'_>], info: Option<&Value>) -> Result<String, Error> {
    let mut openrpc = None;
    let mut infos = Vec::new();
    let mut methods = Vec::new();
    let mut components: Map<String, Value> = Map::new();
    for part in parts {
        let mut document: Map<String, Value> = serde_json::from_str(part.document)
            .map_err(|e| Error::document(part.mount, &e.to_string()))?;
        let Some(Value::Array(own_methods)) = document.remove("methods") else {
            return Err(Error::document(part.mount, "it has no `methods` array"));
        };
        openrpc = openrpc.or_else(|| document.remove("openrpc"));
        infos.extend(document.remove("info"));
        let own = match document.remove("components") {
            Some(Value::Object(own)) => own,
            _ => Map::new(),
        };
        let renames = renames(&components, &own, part.mount);
        for (kind, entries) in own {
            let Value::Object(entries) = entries else {
                continue;
            };
            let merged = components
                .entry(kind.clone())
                .or_insert_with(|| Value::Object(Map::new()));
            let Value::Object(merged) = merged else {
                continue;
            };
            for (name, mut value) in entries {
                rewrite(&mut value, &renames);
                let name = renamed(&renames, &kind, &name).unwrap_or(name);
                merged.entry(name).or_insert(value);
            }
        }
        for mut method in own_methods {
            rewrite(&mut method, &renames);
            if let Some(Value::String(name)) = method.get_mut("name") {
                name.insert_str(0, part.prefix);
            }
            methods.push(method);
        }
    }
    let mut merged = Map::new();
    merged.insert("openrpc".into(), openrpc.unwrap_or_else(|| "1.3.2".into()));
    let info = info.cloned().unwrap_or_else(|| merged_info(&infos));
    merged.insert("info".into(), info);
    merged.insert("methods".into(), Value::Array(methods));
    if !components.is_empty() {
        merged.insert("components".into(), Value::Object(components));
    }
    Ok(Value::Object(merged).to_string())
}

/// Titles joined by `" + "`; the common version, or the versions joined.
fn merged_info(infos: &[Value]) -> Value {
    let field = |name: &str| -> Vec<&str> {
        infos
            .iter()
            .filter_map(|info| info.get(name)?.as_str())
            .collect()
    };
    let titles = field("title");
    let mut versions = field("version");
    let version = if versions.windows(2).all(|w| w[0] == w[1]) {
        versions.truncate(1);
        versions.concat()
    } else {
        versions.join(" + ")
    };
    serde_json::json!({ "title": titles.join(" + "), "version": version })
}

/// Which of `own`'s components must be renamed beside `merged`: those whose name is
/// taken by a different value. Renaming one can make another differ (it refers to the
/// renamed one), so the comparison runs until nothing changes.
fn renames(merged: &Map<String, Value>, own: &Map<String, Value>, mount: &str) -> Renames {
    let mut renames = Renames::new();
    loop {
        let mut changed = false;
        for (kind, entries) in own {
            let (Value::Object(entries), Some(Value::Object(taken))) = (entries, merged.get(kind))
            else {
                continue;
            };
            for (name, value) in entries {
                let Some(existing) = taken.get(name) else {
                    continue;
                };
                if renamed(&renames, kind, name).is_some() {
                    continue;
                }
                let mut value = value.clone();
                rewrite(&mut value, &renames);
                if value != *existing {
                    let new = free_name(taken, entries, &format!("{}.{name}", namespace(mount)));
                    renames
                        .entry(kind.clone())
                        .or_default()
                        .insert(name.clone(), new);
                    changed = true;
                }
            }
        }
        if !changed {
            return renames;
        }
    }
}

/// `wanted`, or `wanted.2`, `wanted.3`, … : the first that neither map has.
fn free_name(taken: &Map<String, Value>, own: &Map<String, Value>, wanted: &str) -> String {
    let free = |name: &str| !taken.contains_key(name) && !own.contains_key(name);
    if free(wanted) {
        return wanted.to_owned();
    }
    (2..)
        .map(|n| format!("{wanted}.{n}"))
        .find(|name| free(name))
        .unwrap_or_default()
}

/// A mount name as a component-name prefix: what OpenRPC allows in a component's name
/// (letters, digits, `.`, `-`, `_`), anything else as `_`.
fn namespace(mount: &str) -> String {
    mount
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn renamed(renames: &Renames, kind: &str, name: &str) -> Option<String> {
    renames.get(kind)?.get(name).cloned()
}

/// Rewrites every `$ref` in `value` that points at a renamed component.
fn rewrite(value: &mut Value, renames: &Renames) {
    if renames.is_empty() {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, member) in map.iter_mut() {
                match member {
                    Value::String(target) if key == "$ref" => {
                        if let Some(new) = retarget(target, renames) {
                            *target = new;
                        }
                    }
                    _ => rewrite(member, renames),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| rewrite(item, renames)),
        _ => {}
    }
}

/// `#/components/<kind>/<name>[/rest]` with `name` renamed, if it is.
fn retarget(target: &str, renames: &Renames) -> Option<String> {
    let rest = target.strip_prefix("#/components/")?;
    let (kind, rest) = rest.split_once('/')?;
    let (name, tail) = match rest.split_once('/') {
        Some((name, tail)) => (name, Some(tail)),
        None => (rest, None),
    };
    let new = renames.get(kind)?.get(name)?;
    Some(match tail {
        Some(tail) => format!("#/components/{kind}/{new}/{tail}"),
        None => format!("#/components/{kind}/{new}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part<'a>(mount: &'a str, prefix: &'a str, document: &'a str) -> Part<'a> {
        Part {
            mount,
            prefix,
            document,
        }
    }

    #[test]
    fn equal_components_are_kept_once_and_different_ones_namespaced() {
        let a = r##"{"openrpc":"1.2.6","info":{"title":"A","version":"1"},
            "methods":[{"name":"get","params":[],"result":{"name":"r","schema":{"$ref":"#/components/schemas/Id"}}}],
            "components":{"schemas":{"Id":{"type":"string"},"Same":{"type":"integer"}}}}"##;
        let b = r##"{"openrpc":"1.3.2","info":{"title":"B","version":"1"},
            "methods":[{"name":"get","params":[],"result":{"name":"r","schema":{"$ref":"#/components/schemas/Wrap/properties/id"}}}],
            "components":{"schemas":{"Id":{"type":"integer"},"Same":{"type":"integer"},
              "Wrap":{"type":"object","properties":{"id":{"$ref":"#/components/schemas/Id"}}}}}}"##;
        let merged = merge(&[part("a", "", a), part("b b", "b_", b)], None).unwrap();
        let merged: Value = serde_json::from_str(&merged).unwrap();
        assert_eq!(
            merged,
            serde_json::json!({
                "openrpc": "1.2.6",
                "info": {"title": "A + B", "version": "1"},
                "methods": [
                    {"name":"get","params":[],"result":{"name":"r","schema":{"$ref":"#/components/schemas/Id"}}},
                    {"name":"b_get","params":[],"result":{"name":"r","schema":{"$ref":"#/components/schemas/Wrap/properties/id"}}}
                ],
                "components": {"schemas": {
                    "Id": {"type":"string"},
                    "Same": {"type":"integer"},
                    "b_b.Id": {"type":"integer"},
                    "Wrap": {"type":"object","properties":{"id":{"$ref":"#/components/schemas/b_b.Id"}}}
                }}
            })
        );
    }

    #[test]
    fn a_component_referring_to_a_renamed_one_is_renamed_too() {
        let a = r##"{"info":{"title":"A","version":"1"},"methods":[],
            "components":{"schemas":{"Id":{"type":"string"},"Box":{"$ref":"#/components/schemas/Id"}}}}"##;
        let b = r##"{"info":{"title":"B","version":"2"},"methods":[],
            "components":{"schemas":{"Id":{"type":"integer"},"Box":{"$ref":"#/components/schemas/Id"}}}}"##;
        let merged: Value =
            serde_json::from_str(&merge(&[part("a", "", a), part("b", "", b)], None).unwrap())
                .unwrap();
        assert_eq!(merged["info"]["version"], "1 + 2");
        assert_eq!(
            merged["components"]["schemas"]["b.Box"],
            serde_json::json!({"$ref": "#/components/schemas/b.Id"})
        );
        assert_eq!(
            merged["components"]["schemas"]["Box"],
            serde_json::json!({"$ref": "#/components/schemas/Id"})
        );
    }

    #[test]
    fn a_document_without_methods_is_refused() {
        let error = merge(&[part("x", "", r#"{"info":{}}"#)], None).unwrap_err();
        assert_eq!(
            error.to_string(),
            "mount `x`: its document cannot be merged: it has no `methods` array"
        );
    }
}
