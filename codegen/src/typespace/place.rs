//! Names from where a schema sits: `#/components/schemas/BLOCK_HEADER` → `BlockHeader`,
//! the result of method `eth_getBlockByHash` → `EthGetBlockByHashResult`, property
//! `parentHash` of `BlockHeader` → `BlockHeaderParentHash`.

use std::borrow::Cow;

use serde_json::Value;

use crate::naming::{title_is_identifier, type_name};
use crate::pointer;
use crate::resolve::{Location, Resolver};

/// Rank of a name taken from a component key (best).
const RANK_COMPONENT: u8 = 0;
/// Rank of a name taken from a `title`.
const RANK_TITLE: u8 = 1;
/// Rank of a name taken from the schema's place.
const RANK_PLACE: u8 = 2;
/// Rank of a place name that only numbers a variant (last resort).
const RANK_VARIANT: u8 = 3;

/// Whether the schema at `at` is a named component (`components/schemas/X`,
/// `components/contentDescriptors/X/schema`, `definitions/X`, `$defs/X`).
pub(super) fn is_component(at: &Location) -> bool {
    let Some(tokens) = pointer::tokens(&at.pointer) else {
        return false;
    };
    match tokens.as_slice() {
        [.., c, s, _] if c == "components" && s == "schemas" => true,
        [.., c, s, _, last]
            if c == "components" && s == "contentDescriptors" && last == "schema" =>
        {
            true
        }
        [.., d, _] if d == "definitions" || d == "$defs" => true,
        _ => false,
    }
}

/// Name candidates for the schema at `at`, best first, as `(rank, name)`.
pub(super) fn candidates(resolver: &Resolver, at: &Location, schema: &Value) -> Vec<(u8, String)> {
    let mut out = Vec::with_capacity(2);
    if let Some(parent) = at
        .parent()
        .filter(|p| at.pointer.ends_with("/type") && is_component(p))
    {
        let (place, _) = place_name(resolver, &parent);
        out.push((RANK_COMPONENT, place));
    }
    let (place, numbered) = place_name(resolver, at);
    if is_component(at) {
        out.push((RANK_COMPONENT, place.clone()));
    }
    let title = schema.get("title").and_then(Value::as_str);
    if let Some(title) = title.filter(|t| title_is_identifier(t)) {
        out.push((RANK_TITLE, type_name(title, "T", "Type")));
    }
    out.push((if numbered { RANK_VARIANT } else { RANK_PLACE }, place));
    out
}

/// The name of a place, and whether it had to number a variant.
fn place_name(resolver: &Resolver, at: &Location) -> (String, bool) {
    let tokens: Vec<Cow<'_, str>> = pointer::tokens(&at.pointer).unwrap_or_default();
    let mut parts: Vec<String> = Vec::new();
    let mut numbered = false;
    let mut i = 0;
    let root = Location::root(at.file);
    while i < tokens.len() {
        let t = tokens[i].as_ref();
        let next = tokens.get(i + 1).map(AsRef::as_ref);
        let step = match (t, next) {
            ("components", Some(_)) if i + 2 < tokens.len() => {
                parts = vec![tokens[i + 2].to_string()];
                3
            }
            ("definitions" | "$defs", Some(key)) => {
                parts = vec![key.to_owned()];
                2
            }
            ("methods", Some(_)) => {
                parts = vec![
                    name_at(resolver, &root, &tokens[..i + 2]).unwrap_or_else(|| "Method".into()),
                ];
                2
            }
            ("params", Some(_)) => {
                parts.push(
                    name_at(resolver, &root, &tokens[..i + 2]).unwrap_or_else(|| "Param".into()),
                );
                2
            }
            ("errors", Some(n)) => {
                let code =
                    code_at(resolver, &root, &tokens[..i + 2]).unwrap_or_else(|| n.to_owned());
                parts.push(format!("Error {code}"));
                2
            }
            ("properties", Some(key)) => {
                parts.push(key.to_owned());
                2
            }
            ("oneOf" | "anyOf", Some(_))
                if tokens.get(i + 2).is_some_and(|t| t == "properties") =>
            {
                2
            }
            ("oneOf" | "anyOf", Some(n)) => {
                let n: usize = n.parse().unwrap_or(0);
                parts.push(format!("Variant{}", n + 1));
                numbered = true;
                2
            }
            ("oneOf" | "anyOf", None) => {
                parts.push("Kind".into());
                1
            }
            ("allOf", Some(_)) if i + 2 == tokens.len() => {
                parts.push("Kind".into());
                2
            }
            ("allOf", Some(_)) => 2,
            ("items" | "prefixItems", Some(n)) if n.parse::<usize>().is_ok() => {
                parts.push(format!("Item{n}"));
                2
            }
            ("items", _) => push(&mut parts, "Item"),
            ("additionalProperties", _) => push(&mut parts, "Value"),
            ("patternProperties", Some(_)) => {
                parts.push("Value".into());
                2
            }
            ("result", _) => push(&mut parts, "Result"),
            ("data", _) => push(&mut parts, "Data"),
            ("type", _) => push(&mut parts, "Kind"),
            ("schema", _) => 1,
            (other, _) => push(&mut parts, other),
        };
        i += step;
    }
    let joined: String = parts.iter().map(|p| type_name(p, "T", "")).collect();
    (type_name(&joined, "T", "Type"), numbered)
}

fn push(parts: &mut Vec<String>, word: &str) -> usize {
    parts.push(word.to_owned());
    1
}

/// The `name` member of the object at the pointer made of `tokens` (a method, a param).
fn name_at(resolver: &Resolver, root: &Location, tokens: &[Cow<'_, str>]) -> Option<String> {
    let at = tokens.iter().fold(root.clone(), |l, t| l.key(t));
    let value = resolver.get(&at)?;
    if let Some(name) = value.get("name").and_then(Value::as_str) {
        return Some(name.to_owned());
    }
    let reference = value.get("$ref")?.as_str()?;
    reference.rsplit('/').next().map(str::to_owned)
}

/// The `code` of the error object at the pointer made of `tokens`.
fn code_at(resolver: &Resolver, root: &Location, tokens: &[Cow<'_, str>]) -> Option<String> {
    let at = tokens.iter().fold(root.clone(), |l, t| l.key(t));
    let value = resolver.get(&at)?;
    if let Some(code) = value.get("code").and_then(Value::as_i64) {
        return Some(if code < 0 {
            format!("minus {}", -code)
        } else {
            code.to_string()
        });
    }
    let reference = value.get("$ref")?.as_str()?;
    reference.rsplit('/').next().map(str::to_owned)
}
