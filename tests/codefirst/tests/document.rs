//! `openrpc.json` is what `rpcsmith::describe` writes from the original types today, and
//! `defs.json` what `schemars::schema_for!` writes of each param and result.
//! `RPCSMITH_BLESS=1 cargo test -p rpcsmith-codefirst --test document` rewrites them.

fn check(file: &str, document: serde_json::Value) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let written = serde_json::to_string_pretty(&document).unwrap() + "\n";
    if std::env::var_os("RPCSMITH_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &written).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == written,
        "{file} is not what the types describe (rerun with RPCSMITH_BLESS=1 and review the diff)"
    );
}

#[test]
fn the_document_is_written_from_the_types() {
    check(
        "openrpc.json",
        rpcsmith_codefirst::original::document().to_json().unwrap(),
    );
}

#[test]
fn the_schema_for_document_is_written_from_the_types() {
    check(
        "defs.json",
        rpcsmith_codefirst::original::document_with_defs(),
    );
}
