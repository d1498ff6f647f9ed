//! Generates client and server modules, the user's way: the generator runs here, writes
//! into `OUT_DIR`, and `src/lib.rs` includes what it wrote.

use std::path::{Path, PathBuf};

use rpcsmith_build::{Settings, corpus, generate};

/// The project's own fixture.
const FIXTURE: &str = "../../codegen/tests/fixtures/services/features.json";

/// Corpus documents: module name, path in the corpus, include directory (relative to the
/// corpus) for root-relative `$ref`s.
const CORPUS: &[(&str, &str, Option<&str>)] = &[
    ("petstore", "open-rpc-examples/petstore-openrpc.json", None),
    (
        "petstore_by_name",
        "open-rpc-examples/params-by-name-petstore-openrpc.json",
        None,
    ),
    (
        "simple_math",
        "open-rpc-examples/simple-math-openrpc.json",
        None,
    ),
    (
        "link_example",
        "open-rpc-examples/link-example-openrpc.json",
        None,
    ),
    (
        "multichain",
        "metamask-api-specs/multichain-openrpc.json",
        None,
    ),
    (
        "starknet",
        "starknet-specs/api/starknet_api_openrpc.json",
        Some("starknet-specs"),
    ),
    (
        "starknet_ws",
        "starknet-specs/api/starknet_ws_api.json",
        Some("starknet-specs"),
    ),
    (
        "ethereum",
        "ethereum-execution-apis/refs-openrpc.json",
        None,
    ),
];

fn main() {
    println!("cargo::rustc-check-cfg=cfg(corpus)");
    println!("cargo:rerun-if-env-changed=RPCSMITH_CORPUS_DIR");
    println!("cargo:rerun-if-env-changed=RPCSMITH_REQUIRE_CORPUS");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    one(Path::new(FIXTURE), None, &out.join("features.rs"));
    match corpus::dir() {
        Some(dir) => {
            println!("cargo:rustc-cfg=corpus");
            for (module, doc, include) in CORPUS {
                let include = include.map(|i| dir.join(i));
                one(
                    &dir.join(doc),
                    include.as_deref(),
                    &out.join(format!("{module}.rs")),
                );
            }
        }
        None => println!("cargo:warning=OpenRPC corpus not found: corpus tests are left out"),
    }
}

fn one(doc: &Path, include: Option<&Path>, out: &Path) {
    let mut settings = Settings::default();
    if let Some(dir) = include {
        settings.load = settings.load.include_dir(dir);
    }
    let generated = generate(doc, &settings).unwrap_or_else(|e| panic!("{}:\n{e}", doc.display()));
    for file in &generated.files_read {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    let unchanged = std::fs::read_to_string(out).is_ok_and(|old| old == generated.source);
    if !unchanged {
        std::fs::write(out, &generated.source).expect("write the generated module");
    }
}
