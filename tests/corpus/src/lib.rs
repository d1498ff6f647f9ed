//! Test support: where the shared OpenRPC corpus lives, for the tests, build scripts and
//! benches that read it (never a dependency of a library).
//!
//! The corpus is read in place, never copied: `<workspace root>/../shared/openrpc-corpus`,
//! or the directory in `RPCSMITH_CORPUS_DIR`. Where it is absent, [`dir`] prints why and
//! returns `None` so the caller can skip, unless `RPCSMITH_REQUIRE_CORPUS=1`, when it
//! panics (CI sets it).

use std::path::{Path, PathBuf};

/// The corpus directory, or `None` (after printing a message) when it is absent.
///
/// # Panics
///
/// When it is absent and `RPCSMITH_REQUIRE_CORPUS=1`.
pub fn dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("RPCSMITH_CORPUS_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/openrpc-corpus"),
    };
    if dir.join("MANIFEST.md").is_file() {
        return Some(dir);
    }
    let message = format!("OpenRPC corpus not found at {}", dir.display());
    if std::env::var_os("RPCSMITH_REQUIRE_CORPUS").is_some_and(|v| v == "1") {
        panic!("{message} (RPCSMITH_REQUIRE_CORPUS=1)");
    }
    eprintln!("{message}: skipping (set RPCSMITH_CORPUS_DIR to run)");
    None
}

/// The corpus documents, as `(id, path relative to the corpus directory)`, in
/// MANIFEST order (D25 was withdrawn).
pub const DOCUMENTS: &[(&str, &str)] = &[
    ("D01", "open-rpc-examples/api-with-examples-openrpc.json"),
    ("D02", "open-rpc-examples/link-example-openrpc.json"),
    (
        "D03",
        "open-rpc-examples/params-by-name-petstore-openrpc.json",
    ),
    ("D04", "open-rpc-examples/petstore-expanded-openrpc.json"),
    ("D05", "open-rpc-examples/petstore-openrpc.json"),
    ("D06", "open-rpc-examples/simple-math-openrpc.json"),
    ("D07", "metamask-api-specs/multichain-openrpc.json"),
    ("D08", "metamask-api-specs/openrpc.json"),
    ("D09", "ethereum-execution-apis/openrpc.json"),
    ("D10", "ethereum-execution-apis/refs-openrpc.json"),
    ("D11", "starknet-specs/api/starknet_api_openrpc.json"),
    ("D12", "starknet-specs/api/starknet_executables.json"),
    ("D13", "starknet-specs/api/starknet_metadata.json"),
    ("D14", "starknet-specs/api/starknet_trace_api_openrpc.json"),
    ("D15", "starknet-specs/api/starknet_write_api.json"),
    ("D16", "starknet-specs/api/starknet_ws_api.json"),
    (
        "D17",
        "starknet-specs/proving-api/starknet_proving_api_openrpc.json",
    ),
    ("D18", "starknet-specs/wallet-api/wallet_rpc.json"),
    ("D19", "filecoin-lotus/full.json"),
    ("D20", "filecoin-lotus/miner.json"),
    ("D21", "filecoin-lotus/v2/full.json"),
    ("D22", "filecoin-lotus/worker.json"),
    ("D23", "stellar-docs/anchor-platform.openrpc.json"),
    ("D24", "stellar-docs/stellar-rpc.openrpc.json"),
    ("D26", "casper-sidecar/rpc_schema.json"),
    ("D27", "casper-sidecar/speculative_rpc_schema.json"),
    (
        "D28",
        "canton-splice-wallet-kernel/api-specs/openrpc-dapp-api.json",
    ),
    (
        "D29",
        "canton-splice-wallet-kernel/api-specs/openrpc-dapp-remote-api.json",
    ),
    (
        "D30",
        "canton-splice-wallet-kernel/api-specs/openrpc-signing-api.json",
    ),
    (
        "D31",
        "canton-splice-wallet-kernel/api-specs/openrpc-user-api.json",
    ),
    ("D32", "midnight-node/openrpc.json"),
];

/// The include directories a corpus document needs (Starknet and Canton write cross-file
/// refs relative to their repository root), relative to the corpus directory.
pub fn include_dirs(document: &str) -> Vec<&'static str> {
    if document.starts_with("starknet-specs/") {
        vec!["starknet-specs"]
    } else if document.starts_with("canton-splice-wallet-kernel/") {
        vec!["canton-splice-wallet-kernel"]
    } else {
        Vec::new()
    }
}
