//! Runs the generator on every corpus document, read in place, into `OUT_DIR`, and writes
//! `corpus.rs`: a module per document and a table of its examples with their types.

use std::fmt::Write as _;
use std::path::Path;

use rpcsmith_build::{Options, corpus, generate_types};

fn main() {
    println!("cargo:rerun-if-env-changed=RPCSMITH_CORPUS_DIR");
    println!("cargo:rerun-if-env-changed=RPCSMITH_REQUIRE_CORPUS");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let out_dir = Path::new(&out_dir);
    let mut table = String::new();
    let mut modules = String::new();
    let present = match corpus::dir() {
        Some(dir) => {
            for (id, doc) in corpus::DOCUMENTS {
                generate_one(&dir, id, doc, out_dir, &mut modules, &mut table);
            }
            true
        }
        None => {
            println!("cargo:warning=OpenRPC corpus not found: the corpus-types crate is empty");
            false
        }
    };
    let text = format!(
        "/// Whether the corpus was found when this crate was built.\npub const CORPUS_PRESENT: bool = {present};\n{modules}\n/// Every document, with its examples.\npub static DOCUMENTS: &[Document] = &[\n{table}];\n"
    );
    std::fs::write(out_dir.join("corpus.rs"), text).expect("write corpus.rs");
}

fn generate_one(
    dir: &Path,
    id: &str,
    doc: &str,
    out_dir: &Path,
    modules: &mut String,
    table: &mut String,
) {
    let mut options = Options::new();
    for inc in corpus::include_dirs(doc) {
        options = options.include_dir(dir.join(inc));
    }
    let module = id.to_lowercase();
    let file = format!("{module}.rs");
    let report = generate_types(dir.join(doc), out_dir.join(&file), &options)
        .unwrap_or_else(|e| panic!("{id} {doc}:\n{e}"));
    for f in &report.files_read {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    let _ = writeln!(
        modules,
        "#[doc = \"Types of `{doc}`.\"]\npub mod {module} {{\n    include!(concat!(env!(\"OUT_DIR\"), \"/{file}\"));\n}}"
    );
    let mut examples = String::new();
    for e in &report.examples {
        let ty = e
            .rust_type
            .replace("types::", &format!("{module}::types::"));
        let json = serde_json::to_string(&e.value).expect("a JSON value serializes");
        let _ = writeln!(
            examples,
            "        Example {{ origin: {:?}, json: {json:?}, round_trip: round_trip::<{ty}> }},",
            e.origin
        );
    }
    let _ = writeln!(
        table,
        "    Document {{ id: {id:?}, path: {doc:?}, types: {}, fallbacks: {}, warnings: {}, examples: &[\n{examples}    ] }},",
        report.types,
        report.fallbacks,
        report.warnings.len()
    );
}
