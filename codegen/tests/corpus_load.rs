//! Every corpus document loads, validates and has every `$ref` resolved.

use rpcsmith_build::{Options, corpus, load_document};

#[test]
fn every_corpus_document_loads_and_resolves() {
    let Some(dir) = corpus::dir() else { return };
    let mut failures = Vec::new();
    println!("| doc | file | methods | warnings | refs resolved | files read |");
    println!("|---|---|---|---|---|---|");
    for (id, path) in corpus::DOCUMENTS {
        let mut options = Options::new();
        for include in corpus::include_dirs(path) {
            options = options.include_dir(dir.join(include));
        }
        match load_document(dir.join(path), &options) {
            Ok(doc) => {
                println!(
                    "| {id} | {path} | {} | {} | {} | {} |",
                    doc.methods.len(),
                    doc.warnings.len(),
                    doc.ref_count,
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
