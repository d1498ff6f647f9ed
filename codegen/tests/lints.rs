//! The lints generated code may trigger are allowed in two places that must agree: the
//! inner attribute of a module file the generator writes (`Settings::module_file`, what
//! the CLI writes for `mod api;`), and the runtime's `__generated_module!`, which declares
//! the module around an `include!`d file (`include_api!`, the builder's `.mod.rs`).

use std::collections::BTreeSet;
use std::path::Path;

use rpcsmith_build::{Settings, generate};

/// The lints of the first `allow(` list after `marker` in `text`.
fn allowed<'a>(text: &'a str, marker: &str) -> BTreeSet<&'a str> {
    let start = text.find(marker).unwrap_or_else(|| panic!("no `{marker}`"));
    let list = &text[start..];
    let open = list.find("allow(").expect("an allow list") + "allow(".len();
    let close = open + list[open..].find(')').expect("a closed list");
    list[open..close]
        .split(',')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn a_module_file_and_the_runtimes_includer_allow_the_same_lints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut settings = Settings::default();
    settings.module_file = true;
    let generated = generate(root.join("schemas/petstore.json"), &settings).expect("generates");
    let own = allowed(&generated.source, "#![allow(");
    let runtime = std::fs::read_to_string(root.join("runtime/src/lib.rs")).expect("runtime");
    let includer = allowed(&runtime, "macro_rules! __generated_module");
    assert!(own.contains("dead_code"), "{own:?}");
    assert_eq!(own, includer);

    // Included (the default), the file sets no lint level of its own: an `include!`d
    // file cannot, and its items sit directly in the module the user declares.
    let included =
        generate(root.join("schemas/petstore.json"), &Settings::default()).expect("generates");
    assert!(!included.source.contains("#![allow("));
    assert!(!included.source.contains("mod generated"));
}
