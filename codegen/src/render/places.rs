//! The module's `PLACES` table (`rpcsmith::protocol::mismatch::Places`): where each
//! place a type cites is written, for decode errors only (see `typespace/positions.rs`).
//!
//! It lives in the module, as one static written last among the statics, rather than in a
//! file beside it: the generator writes one file per document, and the table is the only
//! part of that file that changes when the document is only reformatted.

use std::collections::BTreeMap;

use super::checks::StaticView;
use super::rust::string_literal;
use crate::typespace::{Positions, TypeDef};

/// The `PLACES` static of a module whose types are `defs`.
pub(crate) fn places_static(positions: &Positions, defs: &[TypeDef]) -> StaticView {
    let methods: Vec<String> = positions
        .methods
        .iter()
        .map(|(wire, place)| format!("({}, {})", string_literal(wire), string_literal(place)))
        .collect();
    let mut shared: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for def in defs.iter().filter(|d| !d.sites.is_empty()) {
        let others = shared.entry(def.place.as_str()).or_default();
        others.extend(def.sites.iter().map(String::as_str));
        others.sort_unstable();
        others.dedup();
    }
    let sites: Vec<String> = shared
        .iter()
        .map(|(own, others)| {
            let others: Vec<String> = others.iter().map(|s| string_literal(s)).collect();
            format!("({}, &[{}])", string_literal(own), others.join(", "))
        })
        .collect();
    let places: Vec<String> = positions
        .places
        .iter()
        .map(|(place, (line, col))| format!("({}, {line}, {col})", string_literal(place)))
        .collect();
    StaticView {
        name: "PLACES".to_owned(),
        ty: "__rt::Places".to_owned(),
        value: format!(
            "__rt::Places::new({}, &[{}], &[{}], &[{}])",
            string_literal(&positions.file),
            methods.join(", "),
            sites.join(", "),
            places.join(", ")
        ),
    }
}
