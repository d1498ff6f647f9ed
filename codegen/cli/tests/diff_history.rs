//! The diff on real history: Starknet's specifications at tag `v0.10.0` (kept under
//! `tests/fixtures/diff/starknet-specs-v0.10.0`) against the corpus's (tag
//! `v0.10.4-rc.1`, read in place). Each report is compared whole with
//! `tests/golden/diff/<document>.txt`, whose every finding was checked by hand against
//! `git diff v0.10.0 v0.10.4-rc.1` of starkware-libs/starknet-specs (see the README there).
//!
//! `RPCSMITH_BLESS=1 cargo test -p rpcsmith-build --test diff_history` rewrites the
//! goldens; review the diff, finding by finding.

#[path = "../../tests/support/mod.rs"]
mod support;

use std::path::Path;

use rpcsmith_cli::diff::{self, Options};

const OLD: &str = "tests/fixtures/diff/starknet-specs-v0.10.0";

/// (document, golden name): the Starknet documents that changed between the two tags.
const PAIRS: &[(&str, &str)] = &[
    ("api/starknet_api_openrpc.json", "starknet_api"),
    ("api/starknet_ws_api.json", "starknet_ws_api"),
    ("api/starknet_write_api.json", "starknet_write_api"),
    ("api/starknet_trace_api_openrpc.json", "starknet_trace_api"),
    ("wallet-api/wallet_rpc.json", "starknet_wallet_api"),
];

#[test]
fn starknet_v0_10_0_to_v0_10_4_rc_1() {
    let Some(corpus) = rpcsmith_corpus::dir() else {
        return;
    };
    let new_root = corpus.join("starknet-specs");
    let bless = std::env::var_os("RPCSMITH_BLESS").is_some_and(|v| v == "1");
    let goldens = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/diff");
    let mut mismatches = Vec::new();
    for (document, name) in PAIRS {
        // Starknet's cross-file `$ref`s are relative to the repository's root.
        let options = Options::new()
            .old_include_dir(OLD)
            .new_include_dir(&new_root)
            .server_to_client("starknet_subscription*");
        let old = Path::new(OLD).join(document);
        let report = diff::diff(&old, new_root.join(document), &options)
            .unwrap_or_else(|e| panic!("{document}: {e}"));
        let text = format!("{report}\n");
        let golden = goldens.join(format!("{name}.txt"));
        if bless {
            rpcsmith_build::write_if_changed(&golden, &text).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        if expected != text {
            mismatches.push(format!("{name}:\n{}", support::diff(&expected, &text)));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{}\n(rerun with RPCSMITH_BLESS=1 and review the diff)",
        mismatches.join("\n")
    );
}

#[test]
fn every_starknet_v0_10_0_document_breaks_someone_and_the_summary_counts_them() {
    let Some(corpus) = rpcsmith_corpus::dir() else {
        return;
    };
    let new_root = corpus.join("starknet-specs");
    let options = Options::new()
        .old_include_dir(OLD)
        .new_include_dir(&new_root);
    let old = Path::new(OLD).join("api/starknet_api_openrpc.json");
    let report = diff::diff(
        old,
        new_root.join("api/starknet_api_openrpc.json"),
        &options,
    )
    .unwrap();
    assert!(report.is_breaking());
    // getStorageAt may now answer an object: old clients expect a field element.
    assert_eq!(report.counts(), (1, 7, 2));
    let breaks_clients: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.breaks.clients)
        .map(|f| f.uses[0].as_str())
        .collect();
    assert_eq!(breaks_clients, ["starknet_getStorageAt result"]);
}
