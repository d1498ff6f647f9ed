//! Every corpus document generates types with no error (the compile and round-trip of
//! the output are in the `tests/corpus-types` crate).

use rpcsmith_build::{Settings, generate};

use rpcsmith_corpus as corpus;

#[test]
fn every_corpus_document_generates() {
    let Some(dir) = corpus::dir() else { return };
    let mut failures = Vec::new();
    println!(
        "{:<5} {:<62} {:>6} {:>9} {:>8}",
        "id", "document", "types", "fallback", "warnings"
    );
    for (id, doc) in corpus::DOCUMENTS {
        let mut settings = Settings::types_only();
        for inc in corpus::include_dirs(doc) {
            settings.load = settings.load.include_dir(dir.join(inc));
        }
        match generate(dir.join(doc), &settings) {
            Ok(r) => {
                println!(
                    "{id:<5} {doc:<62} {:>6} {:>9} {:>8}",
                    r.types,
                    r.fallbacks,
                    r.warnings.len()
                );
                for w in &r.warnings {
                    println!("      {w}");
                }
            }
            Err(e) => failures.push(format!("{id} {doc}:\n{e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
