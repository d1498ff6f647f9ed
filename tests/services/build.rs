//! Generates every module the user's way: `rpcsmith_build::configure()…compile()` writes
//! `OUT_DIR/<module>.rs` (and prints `rerun-if-changed` and the warnings), and
//! `src/lib.rs` includes it with `rpcsmith::include_api!`.

use std::path::Path;

use rpcsmith_build::{Builder, configure};

use rpcsmith_corpus as corpus;

/// What a document needs beyond its module name.
type Configure = fn(Builder) -> Builder;

/// The project's own documents: module name, path, how it is configured.
const OURS: &[(&str, &str, Configure)] = &[
    (
        "features",
        "../../codegen/tests/fixtures/services/features.json",
        |b| b,
    ),
    ("editor", "documents/editor.json", |b| b),
    ("orders", "documents/orders.json", |b| b),
    // What the client of `editor` serves: every method is sent by the server.
    ("editor_client", "documents/editor-client.json", |b| {
        b.server_to_client("*")
    }),
    ("interop", "documents/interop.json", |b| {
        b.server_to_client("double").server_to_client("pushed")
    }),
    // LSP-shaped, for `vscode-jsonrpc`: `window/*` are sent by the server.
    ("lsp", "documents/lsp.json", |b| {
        b.server_to_client("window/*")
    }),
    // Ethereum's pub-sub shape, recognised by the generator without help.
    ("eth_newheads", "../../schemas/eth-newheads.json", |b| b),
    // A pull-only stream (`x-subscription` with `pull: true`).
    ("ticks", "documents/ticks.json", |b| b),
    // A declared end (`x-subscription` with `end`).
    ("jobs", "documents/jobs.json", |b| b),
    // jsonrpsee's shape (the subscribe method's result is the item), recognised.
    ("sui_events", "documents/sui-events.json", |b| b),
    // Constraint checks, generated (the default) and not.
    ("constraints", "documents/constraints.json", |b| b),
    ("constraints_unchecked", "documents/constraints.json", |b| {
        b.validation(false)
    }),
];

/// Corpus documents: module name, path in the corpus, include directory (relative to the
/// corpus) for root-relative `$ref`s, how it is configured.
type CorpusEntry = (
    &'static str,
    &'static str,
    Option<&'static str>,
    fn(Builder) -> Builder,
);

const CORPUS: &[CorpusEntry] = &[
    (
        "petstore",
        "open-rpc-examples/petstore-openrpc.json",
        None,
        |b| b,
    ),
    (
        "petstore_by_name",
        "open-rpc-examples/params-by-name-petstore-openrpc.json",
        None,
        |b| b,
    ),
    (
        "simple_math",
        "open-rpc-examples/simple-math-openrpc.json",
        None,
        |b| b,
    ),
    (
        "link_example",
        "open-rpc-examples/link-example-openrpc.json",
        None,
        |b| b,
    ),
    // The wallet sends these two to the dapp.
    (
        "multichain",
        "metamask-api-specs/multichain-openrpc.json",
        None,
        |b| {
            b.server_to_client("wallet_notify")
                .server_to_client("wallet_sessionChanged")
        },
    ),
    // Partial servers: a test node writes only the methods it serves.
    (
        "starknet",
        "starknet-specs/api/starknet_api_openrpc.json",
        Some("starknet-specs"),
        |b| b.partial(true),
    ),
    // Mounted beside `starknet` on one server by the router test.
    (
        "starknet_write",
        "starknet-specs/api/starknet_write_api.json",
        Some("starknet-specs"),
        |b| b.partial(true),
    ),
    (
        "starknet_trace",
        "starknet-specs/api/starknet_trace_api_openrpc.json",
        Some("starknet-specs"),
        |b| b.partial(true),
    ),
    // The node sends the subscriptions' notifications, generated as listener methods:
    // the Starknet convention, which would make them subscriptions, is off here.
    (
        "starknet_ws",
        "starknet-specs/api/starknet_ws_api.json",
        Some("starknet-specs"),
        |b| {
            b.conventions(false)
                .server_to_client("starknet_subscription*")
        },
    ),
    // The same document as the generator reads it by default: the Starknet convention
    // makes `starknet_subscribe*` typed subscriptions.
    (
        "starknet_subs",
        "starknet-specs/api/starknet_ws_api.json",
        Some("starknet-specs"),
        |b| b,
    ),
    (
        "ethereum",
        "ethereum-execution-apis/refs-openrpc.json",
        None,
        |b| b.partial(true),
    ),
];

fn main() {
    node_peers(
        Path::new("../interop"),
        &["json-rpc-2.0", "ws", "vscode-jsonrpc"],
    );
    println!("cargo::rustc-check-cfg=cfg(corpus)");
    println!("cargo:rerun-if-env-changed=RPCSMITH_CORPUS_DIR");
    println!("cargo:rerun-if-env-changed=RPCSMITH_REQUIRE_CORPUS");
    for (module, doc, configure_more) in OURS {
        compile(configure_more(configure().module(*module)), Path::new(doc));
    }
    match corpus::dir() {
        Some(dir) => {
            println!("cargo:rustc-cfg=corpus");
            for (module, doc, include, configure_more) in CORPUS {
                let mut builder = configure().module(*module);
                if let Some(include) = include {
                    builder = builder.include_dir(dir.join(include));
                }
                compile(configure_more(builder), &dir.join(doc));
            }
        }
        None => println!("cargo:warning=OpenRPC corpus not found: corpus tests are left out"),
    }
}

// `node_peers(interop, packages)`: sets `cfg(node_peers)` when the Node peers are there.
include!("../interop/node_peers.rs");

fn compile(builder: Builder, doc: &Path) {
    builder
        .compile(doc)
        .unwrap_or_else(|e| panic!("{}:\n{e}", doc.display()));
}
