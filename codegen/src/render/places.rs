//! The module's `PLACES` table (`rpcsmith::protocol::mismatch::Places`): where each
//! place a type cites is written, for decode errors only (see `typespace/positions.rs`).
//!
//! It lives in the module, as one static written last among the statics, rather than in a
//! file beside it: the generator writes one file per document, and the table is the only
//! part of that file that changes when the document is only reformatted.
//!
//! The table is text, one entry a line, in the form the runtime's `Places` documents:
//! methods (`wire name \t pointer`), then places (`pointer \t line \t column`, and `\t`
//! the type's own place, for each type whose schema is written again there), each
//! sorted. A string literal costs the compiler next to nothing, where a slice of tuples
//! made it check and evaluate every element (BENCHMARKS.md, "Issue 30: compile cost …
//! (branch `compile`)"). A field holding a tab or a line break cannot be written; its
//! entry is left out, and an error at that place cites its pointer without a position.

use std::collections::BTreeMap;

use super::checks::StaticView;
use super::rust::string_literal;
use crate::typespace::{Positions, TypeDef};

/// The `PLACES` static of a module whose types are `defs`.
pub(crate) fn places_static(positions: &Positions, defs: &[TypeDef]) -> StaticView {
    let methods = positions
        .methods
        .iter()
        .map(|(wire, place)| vec![wire.as_str(), place.as_str()]);
    // Each place where a type's schema is written again, and the type's own place.
    let mut again: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for def in defs {
        for site in &def.sites {
            let owns = again.entry(site.as_str()).or_default();
            owns.push(def.place.as_str());
            owns.sort_unstable();
            owns.dedup();
        }
    }
    let mut places: BTreeMap<&str, Vec<String>> = positions
        .places
        .iter()
        .map(|(place, (line, col))| (place.as_str(), vec![line.to_string(), col.to_string()]))
        .collect();
    for (site, owns) in &again {
        let fields = places.entry(site).or_insert_with(|| vec![String::new(); 2]);
        fields.extend(owns.iter().map(|own| (*own).to_owned()));
    }
    let places = places.iter().map(|(place, fields)| {
        std::iter::once(*place)
            .chain(fields.iter().map(String::as_str))
            .collect()
    });
    StaticView {
        name: "PLACES".to_owned(),
        ty: "__rt::Places".to_owned(),
        value: format!(
            "__rt::Places::new({}, {}, {})",
            string_literal(&positions.file),
            text_literal(methods),
            text_literal(places)
        ),
    }
}

/// A string literal of `lines` (their fields joined by tabs, each line ending in `\n`),
/// one line of the literal each: the first after the opening quote, the others after a
/// `\` that ends the line before (all on one line when the literal is short). A line with
/// a field holding a tab or a line break is left out (it could not be told apart).
fn text_literal<'a>(lines: impl Iterator<Item = Vec<&'a str>>) -> String {
    let mut out = String::from("\"");
    for fields in lines {
        if fields.iter().any(|f| f.contains(['\t', '\n'])) {
            continue;
        }
        if out.len() > 1 {
            out.push_str("\\\n");
        }
        let line = fields.join("\t");
        let quoted = string_literal(&line);
        let inner = &quoted[1..quoted.len() - 1];
        // A continued line's leading whitespace is skipped by the compiler: escape it.
        match inner.chars().next() {
            Some(c) if c.is_whitespace() => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
                out.push_str(&inner[c.len_utf8()..]);
            }
            _ => out.push_str(inner),
        }
        out.push_str("\\n");
    }
    out.push('"');
    // A short table reads on one line, as a short slice would be written.
    let one_line = out.replace("\\\n", "");
    if one_line.len() <= SHORT {
        one_line
    } else {
        out
    }
}

/// The longest literal written on one line (about what is left of a line beside it).
const SHORT: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;

    /// The literal reads back, through the compiler's rules for `\` at a line's end, as
    /// the lines joined: a leading space kept, a field with a tab left out.
    #[test]
    fn the_text_literal_reads_back_as_its_lines() {
        let lines = vec![
            vec!["a b", "#/methods/0"],
            vec![" lead", "#/methods/1"],
            vec!["tab\there", "#/methods/2"],
            vec!["\"q\"", "#/x"],
        ];
        let literal = text_literal(lines.into_iter());
        let parsed: syn::LitStr = syn::parse_str(&literal).expect("a string literal");
        assert_eq!(
            parsed.value(),
            "a b\t#/methods/0\n lead\t#/methods/1\n\"q\"\t#/x\n"
        );
        let empty: syn::LitStr = syn::parse_str(&text_literal(std::iter::empty())).unwrap();
        assert_eq!(empty.value(), "");
        let short =
            text_literal(vec![vec!["a", "#/methods/0"], vec!["b", "#/methods/1"]].into_iter());
        assert_eq!(short, r#""a\t#/methods/0\nb\t#/methods/1\n""#);
    }
}
