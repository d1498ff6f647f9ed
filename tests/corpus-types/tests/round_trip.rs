//! Every example and default of every corpus document decodes into its generated type
//! and encodes back to the same JSON.
//!
//! Normalisation allowed when comparing the value written in the document with the
//! value re-encoded:
//! - member order of objects (maps are sorted on output);
//! - numbers compare by value (`1.0` and `1` are equal);
//! - a member whose value is `null` may be absent after re-encoding (an optional,
//!   nullable field: `Option<T>` cannot tell absent from `null`).

use rpcsmith_corpus_types::{CORPUS_PRESENT, DOCUMENTS};
use serde_json::Value;

/// Equal up to the normalisation above.
fn same(written: &Value, encoded: &Value) -> bool {
    match (written, encoded) {
        (Value::Number(a), Value::Number(b)) => {
            a == b || (a.as_f64().is_some() && a.as_f64() == b.as_f64())
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.iter().all(|(k, v)| match b.get(k) {
                Some(w) => same(v, w),
                None => v.is_null(),
            }) && b.keys().all(|k| a.contains_key(k))
        }
        (a, b) => a == b,
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
                Ok(encoded) if same(&written, &encoded) => ok += 1,
                Ok(encoded) => failures.push(format!(
                    "{} {}: re-encoded differently:\n  written: {}\n  encoded: {}",
                    doc.id,
                    example.origin,
                    cut(example.json),
                    cut(&encoded.to_string())
                )),
                Err(e) => failures.push(format!(
                    "{} {}: {e}\n  value: {}",
                    doc.id,
                    example.origin,
                    cut(example.json)
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
    for f in &failures {
        println!("{f}");
    }
    assert!(
        failures.is_empty(),
        "{} examples do not round-trip",
        failures.len()
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
