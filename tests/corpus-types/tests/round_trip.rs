//! Every example and default of every corpus document decodes into its generated type
//! and encodes back to the same JSON.
//!
//! Normalisation allowed when comparing the value written in the document with the
//! value re-encoded:
//! - member order of objects (maps are sorted on output);
//! - a member its type does not describe may be absent after re-encoding: where a schema
//!   leaves `additionalProperties` unspecified, JSON Schema accepts members it does not
//!   list, and the struct keeps only those it lists (keeping the others would put a
//!   catch-all map in every struct). The build script finds those members by walking each
//!   value along its type (`Example::undescribed`); under a sum, only members no variant
//!   lists, so a value decoded into the wrong variant still shows;
//! - a member `null` may be absent after re-encoding where its field is optional and its
//!   schema does not allow `null` (the value is invalid there, and decodes as absent).
//!
//! Nothing else: a number re-encodes as written (`100` stays `100`, `1.0` stays `1.0`),
//! and a member `null` stays where the schema allows it (an optional nullable field
//! tells `null` from absence).
//!
//! Examples that the documents get wrong (checked with an independent validator) are
//! listed, with the reason, in `known-failures.txt`; the test requires the failures to
//! be exactly that list, so a new failure or a fixed one both show.

use std::collections::BTreeSet;

use rpcsmith_corpus_types::{CORPUS_PRESENT, DOCUMENTS, Example};
use serde_json::Value;

/// Whether the member at `at` may be absent after re-encoding.
fn may_drop(example: &Example, at: &str) -> bool {
    example.undescribed.binary_search(&at).is_ok()
}

/// The first place where `written` and `encoded` differ beyond the normalisation above,
/// or `None` when they are equal up to it; `at` is where `written` sits in the example.
fn first_difference(ex: &Example, written: &Value, encoded: &Value, at: &str) -> Option<String> {
    match (written, encoded) {
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| first_difference(ex, x, y, &format!("{at}/{i}"))),
        (Value::Object(a), Value::Object(b)) => a
            .iter()
            .find_map(|(k, v)| match b.get(k) {
                Some(w) => first_difference(ex, v, w, &format!("{at}/{k}")),
                None if may_drop(ex, &format!("{at}/{k}")) => None,
                None => Some(format!("{at}/{k}: dropped")),
            })
            .or_else(|| {
                b.keys()
                    .find(|k| !a.contains_key(*k))
                    .map(|k| format!("{at}/{k}: added"))
            }),
        (a, b) if a == b => None,
        (a, b) => Some(format!(
            "{at}: {} became {}",
            cut(&a.to_string()),
            cut(&b.to_string())
        )),
    }
}

#[test]
fn corpus_was_built_when_required() {
    let required = std::env::var_os("RPCSMITH_REQUIRE_CORPUS").is_some_and(|v| v == "1");
    assert!(
        CORPUS_PRESENT || !required,
        "the OpenRPC corpus is required but was not found"
    );
}

#[test]
fn every_example_round_trips() {
    println!(
        "{:<5} {:<64} {:>6} {:>9} {:>8} {:>10}",
        "id", "document", "types", "fallback", "warnings", "examples"
    );
    let mut failures = Vec::new();
    let mut totals = [0usize; 5];
    for doc in DOCUMENTS {
        let mut ok = 0;
        for example in doc.examples {
            let written: Value = serde_json::from_str(example.json).expect("stored as JSON");
            match (example.round_trip)(example.json) {
                Ok(encoded) => match first_difference(example, &written, &encoded, "") {
                    None => ok += 1,
                    Some(at) => failures.push((
                        format!("{} {}", doc.id, example.origin),
                        format!(
                            "{} {}: re-encoded differently at {at}",
                            doc.id, example.origin
                        ),
                    )),
                },
                Err(e) => failures.push((
                    format!("{} {}", doc.id, example.origin),
                    format!(
                        "{} {}: {e}\n  value: {}",
                        doc.id,
                        example.origin,
                        cut(example.json)
                    ),
                )),
            }
        }
        let examples = format!("{ok}/{}", doc.examples.len());
        println!(
            "{:<5} {:<64} {:>6} {:>9} {:>8} {:>10}",
            doc.id, doc.path, doc.types, doc.fallbacks, doc.warnings, examples
        );
        for (t, n) in totals.iter_mut().zip([
            doc.types,
            doc.fallbacks,
            doc.warnings,
            ok,
            doc.examples.len(),
        ]) {
            *t += n;
        }
    }
    println!(
        "{:<5} {:<64} {:>6} {:>9} {:>8} {:>10}",
        "all",
        "",
        totals[0],
        totals[1],
        totals[2],
        format!("{}/{}", totals[3], totals[4])
    );
    let known: BTreeSet<&str> = include_str!("../known-failures.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split('\t').next())
        .collect();
    let failed: BTreeSet<&str> = failures.iter().map(|(key, _)| key.as_str()).collect();
    let new: Vec<&String> = failures
        .iter()
        .filter(|(key, _)| !known.contains(key.as_str()))
        .map(|(_, why)| why)
        .collect();
    let fixed: Vec<&&str> = known.iter().filter(|k| !failed.contains(*k)).collect();
    println!(
        "{} examples fail as listed in known-failures.txt",
        failed.len() - new.len()
    );
    for why in &new {
        println!("NEW: {why}");
    }
    assert!(
        new.is_empty(),
        "{} examples newly fail to round-trip (see NEW: above)",
        new.len()
    );
    assert!(
        fixed.is_empty() || !CORPUS_PRESENT,
        "listed failures that now pass (remove them): {fixed:?}"
    );
}

fn cut(s: &str) -> String {
    if s.len() > 300 {
        let mut end = 300;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &s[..end])
    } else {
        s.to_owned()
    }
}
