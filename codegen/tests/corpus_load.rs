//! Every corpus document loads, validates and has every `$ref` resolved.
//!
//! Two counts per document: the refs `load_document` resolved (in every file reached,
//! where the specification puts refs), and every object with a string `$ref` in the
//! root file found by a blind walk, each of which must resolve too. They differ where a
//! `$ref` sits in a literal value (D10 writes schemas as error `data`) and where other
//! files hold refs.

use rpcsmith_build::{ErrorKind, Location, Options, Resolver, load_document};

use rpcsmith_corpus as corpus;
use serde_json::Value;

/// Every object holding a string `$ref`, anywhere in the value at `at` (a blind walk,
/// independent of the validator's knowledge of where refs may be).
fn ref_sites(resolver: &Resolver, at: &Location, out: &mut Vec<Location>) {
    match resolver.get(at) {
        Some(Value::Object(members)) => {
            if members.get("$ref").is_some_and(Value::is_string) {
                out.push(at.clone());
            }
            for k in members.keys() {
                ref_sites(resolver, &at.key(k), out);
            }
        }
        Some(Value::Array(items)) => {
            for i in 0..items.len() {
                ref_sites(resolver, &at.index(i), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_corpus_document_loads_and_resolves() {
    let Some(dir) = corpus::dir() else { return };
    let mut failures = Vec::new();
    println!(
        "| doc | file | methods | warnings | refs resolved | `$ref` objects in the file | files read |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (id, path) in corpus::DOCUMENTS {
        let mut options = Options::new();
        for include in corpus::include_dirs(path) {
            options = options.include_dir(dir.join(include));
        }
        match load_document(dir.join(path), &options) {
            Ok(mut doc) => {
                let mut sites = Vec::new();
                ref_sites(&doc.resolver, &Location::root(doc.root), &mut sites);
                for site in &sites {
                    if let Err(d) = doc.resolver.deref(site) {
                        failures.push(format!("{id}: {d}"));
                    }
                }
                println!(
                    "| {id} | {path} | {} | {} | {} | {} | {} |",
                    doc.methods.len(),
                    doc.warnings.len(),
                    doc.ref_count,
                    sites.len(),
                    doc.resolver.files_read().len()
                );
                for w in &doc.warnings {
                    println!("    {w}");
                }
            }
            Err(e) => failures.push(format!("{id} {path}:\n{e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Under `strict`, exactly the documents with warnings fail, each with its warnings now
/// errors.
#[test]
fn strict_fails_exactly_the_documents_with_warnings() {
    let Some(dir) = corpus::dir() else { return };
    let mut failed = Vec::new();
    for (id, path) in corpus::DOCUMENTS {
        let mut options = Options::new();
        for include in corpus::include_dirs(path) {
            options = options.include_dir(dir.join(include));
        }
        let lenient = load_document(dir.join(path), &options).unwrap();
        match load_document(dir.join(path), &options.strict(true)) {
            Ok(_) => assert!(lenient.warnings.is_empty(), "{id}"),
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::Invalid);
                assert_eq!(e.diagnostics().len(), lenient.warnings.len(), "{id}");
                assert!(e.diagnostics().iter().all(|d| d.is_error()));
                failed.push(*id);
            }
        }
    }
    assert_eq!(failed, ["D02", "D18", "D23"]);
}
