//! The members of an example that the generated types do not keep: decoding the example
//! drops them, so a round trip gives the example back without them.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{Enum, Field, Kind, Payload, Struct, Tagging, Ty, TypeSpace};

/// The places (JSON pointers into `value`) of the members of `value`, an example of
/// `ty`, that no generated type keeps: members of an object whose struct does not list
/// them and keeps no others (`additionalProperties` unspecified), and members `null`
/// where an optional field's schema does not allow `null` (decoded as absent). Under a
/// sum, a member is such only when no variant lists it.
pub(crate) fn undescribed(space: &TypeSpace, ty: &Ty, value: &Value) -> Vec<String> {
    let mut found = BTreeSet::new();
    walk(space, ty, value, String::new(), &mut found, 0);
    found.into_iter().collect()
}

fn walk(
    space: &TypeSpace,
    ty: &Ty,
    value: &Value,
    at: String,
    out: &mut BTreeSet<String>,
    depth: usize,
) {
    if depth > 64 {
        return;
    }
    match (ty, value) {
        (Ty::Option(t) | Ty::Box(t), _) => walk(space, t, value, at, out, depth + 1),
        (Ty::Vec(t) | Ty::Array(t, _), Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                walk(space, t, item, format!("{at}/{i}"), out, depth + 1);
            }
        }
        (Ty::Tuple(ts), Value::Array(items)) => {
            for (i, (t, item)) in ts.iter().zip(items).enumerate() {
                walk(space, t, item, format!("{at}/{i}"), out, depth + 1);
            }
        }
        (Ty::Map(t), Value::Object(members)) => {
            for (k, v) in members {
                walk(space, t, v, format!("{at}/{k}"), out, depth + 1);
            }
        }
        (Ty::Named(id), _) => match space.def(*id).map(|d| &d.kind) {
            Some(Kind::Alias(t) | Kind::Newtype(t)) => walk(space, t, value, at, out, depth + 1),
            Some(Kind::Struct(s)) => members(space, &[s], value, &at, out, depth),
            Some(Kind::Enum(e)) => variants(space, e, value, &at, out, depth),
            _ => {}
        },
        _ => {}
    }
}

/// The members of `value`, an example of the sum `e`, that none of its variants keeps:
/// those no struct variant lists, and those inside its newtype variants (the externally
/// tagged one named in `value`, every untagged one).
fn variants(
    space: &TypeSpace,
    e: &Enum,
    value: &Value,
    at: &str,
    out: &mut BTreeSet<String>,
    depth: usize,
) {
    let structs: Vec<&Struct> = e
        .variants
        .iter()
        .filter_map(|v| match &v.payload {
            Payload::Struct(s) => Some(s),
            _ => None,
        })
        .collect();
    if !structs.is_empty() {
        members(space, &structs, value, at, out, depth);
    }
    for v in &e.variants {
        match (&v.payload, &v.wire, &e.tagging) {
            (Payload::Newtype(t), Some(key), Tagging::External) => {
                if let Some(inner) = value.get(key) {
                    walk(space, t, inner, format!("{at}/{key}"), out, depth + 1);
                }
            }
            (Payload::Newtype(t), _, Tagging::Untagged) => {
                walk(space, t, value, at.to_owned(), out, depth + 1)
            }
            _ => {}
        }
    }
}

/// The members of the object `value` that none of `structs` lists (when none keeps
/// others), and those inside the members they list.
fn members(
    space: &TypeSpace,
    structs: &[&Struct],
    value: &Value,
    at: &str,
    out: &mut BTreeSet<String>,
    depth: usize,
) {
    let Value::Object(object) = value else { return };
    let keeps_others = structs
        .iter()
        .any(|s| s.extra.is_some() || !s.flattened.is_empty());
    for (k, v) in object {
        let listed: Vec<&Field> = structs
            .iter()
            .flat_map(|s| s.fields.iter().filter(|f| f.wire == *k))
            .collect();
        // A `null` the schema does not allow, given to an optional member, decodes as
        // its absence (serde's `Option` is lenient there).
        let lenient_null = v.is_null() && listed.iter().any(|f| !f.required && !f.keeps_null);
        if (listed.is_empty() && !keeps_others) || lenient_null {
            out.insert(format!("{at}/{k}"));
        }
        let fields: Vec<&Ty> = listed.iter().map(|f| &f.ty).collect();
        for ty in fields {
            walk(space, ty, v, format!("{at}/{k}"), out, depth + 1);
        }
    }
}
