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

/// A legacy transaction as a widely used Ethereum dev node answers
/// `eth_getTransactionByHash`: every member execution-apis requires but
/// `blockTimestamp`, which such nodes leave out (issue 13). JSON text.
pub const DEV_NODE_TRANSACTION: &str = r#"{
    "blockHash": "0x6b8d6bbe3ba2ae4df5e6e31ee39ab1e1b2e3ba7b4b0c6ea7e2d1a8cc1f1e2a3b",
    "blockNumber": "0x1",
    "from": "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
    "gas": "0x5208",
    "gasPrice": "0x3b9aca00",
    "hash": "0x9fc76417374aa880d4449a1f7f31ec597f00b1f6f3dd2d66f4c9c6c445836d8b",
    "input": "0x",
    "nonce": "0x0",
    "to": "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
    "transactionIndex": "0x0",
    "value": "0xde0b6b3a7640000",
    "type": "0x0",
    "chainId": "0x7a69",
    "v": "0xf4f5",
    "r": "0x3c3bd3e9a5f1e3f2c0c9e8e45d4f7c4f2b1f1f0f3e2d1c0b0a09080706050403",
    "s": "0x1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a"
}"#;
