//! Runs the generator on every corpus document, read in place, into `OUT_DIR`, and writes
//! `corpus.rs`: a module per document (types, client and server) and a table of its
//! examples with their types.

use std::fmt::Write as _;
use std::path::Path;

use rpcsmith_build::{Settings, generate};
use rpcsmith_corpus as corpus;

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
    let mut settings = Settings::default();
    for inc in corpus::include_dirs(doc) {
        settings.load = settings.load.include_dir(dir.join(inc));
    }
    // D09's server is partial, so that a test serves it without writing its 80 handlers
    // (tests/decode_errors.rs: a param's error cites the place under the method called).
    settings.partial = *id == *"D09";
    let module = id.to_lowercase();
    let file = format!("{module}.rs");
    // Two documents may have modules of the same name: the document each answers on
    // `rpc.discover` is named after its id.
    settings.document_file = Some(format!("{module}.discover.json"));
    let started = std::time::Instant::now();
    let report = generate(dir.join(doc), &settings).unwrap_or_else(|e| panic!("{id} {doc}:\n{e}"));
    let generation_ms = started.elapsed().as_millis();
    let path = out_dir.join(&file);
    let beside = report
        .beside
        .iter()
        .map(|b| (out_dir.join(&b.name), &b.contents));
    for (path, contents) in std::iter::once((path, &report.source)).chain(beside) {
        if std::fs::read_to_string(&path).ok().as_deref() != Some(contents.as_str()) {
            std::fs::write(&path, contents).expect("write the generated module");
        }
    }
    for f in &report.files_read {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    let _ = writeln!(
        modules,
        "rpcsmith::include_api!(\n    #[doc = \"Types, client and server of `{doc}`.\"]\n    pub {module}\n);"
    );
    // Both globs at once name each item once: a result alias that shared a name with a
    // type would be an ambiguous glob re-export (denied with the other warnings).
    let _ = writeln!(
        modules,
        "#[doc = \"The module and its types through two globs.\"]\n#[allow(unused_imports, unreachable_pub)]\npub mod {module}_globs {{\n    pub use super::{module}::*;\n    pub use super::{module}::types::*;\n}}"
    );
    let mut examples = String::new();
    for e in &report.examples {
        let may_drop = &e.undescribed;
        let ty = e
            .rust_type
            .replace("types::", &format!("{module}::types::"));
        let json = serde_json::to_string(&e.value).expect("a JSON value serializes");
        let _ = writeln!(
            examples,
            "        Example {{ origin: {:?}, json: {json:?}, round_trip: round_trip::<{ty}>, undescribed: &{may_drop:?} }},",
            e.origin
        );
    }
    let _ = writeln!(
        table,
        "    Document {{ id: {id:?}, path: {doc:?}, methods: {}, types: {}, fallbacks: {}, warnings: {}, generation_ms: {generation_ms}, source_bytes: {}, examples: &[\n{examples}    ] }},",
        report.methods,
        report.types,
        report.fallbacks,
        report.warnings.len(),
        report.source.len()
    );
}
