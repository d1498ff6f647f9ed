//! Generated modules, compiled under `#![deny(warnings)]` and included the user's way
//! (`rpcsmith::include_api!`): the project's documents always, the corpus documents when
//! the corpus is present. [`editor_server`] is the `Editor` server every transport test
//! runs, in process and in the `editor-stdio` child; [`editor_listener`] its client's
//! side. [`lsp_server`] is what the `lsp-stdio` child serves to `vscode-jsonrpc`.
#![deny(warnings)]

pub mod editor_listener;
pub mod editor_server;
pub mod lsp_server;

use rpcsmith::transport::peer;
use rpcsmith::transport::stream::{self, Codec};

/// A child's `main`: serves one connection made by `builder` on this process's own
/// stdin and stdout, framed by `codec`, then exits (Tokio's stdin reader is a blocking
/// thread that cannot be cancelled, so returning could hang).
pub fn serve_stdio(builder: peer::Builder, codec: Codec) -> ! {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    runtime.block_on(async {
        let peer = stream::stdio(builder, codec);
        peer.closed().await;
    });
    std::process::exit(0);
}

rpcsmith::include_api!(
    /// `codegen/tests/fixtures/services/features.json`.
    pub features
);
rpcsmith::include_api!(
    /// `documents/editor.json`: a language-server-like API.
    pub editor
);
rpcsmith::include_api!(
    /// `documents/orders.json`: params nested a few levels deep.
    pub orders
);
rpcsmith::include_api!(
    /// `documents/editor-client.json`: what the client of `editor` serves, every method
    /// sent by the server (`server_to_client("*")`).
    pub editor_client
);
rpcsmith::include_api!(
    /// `documents/interop.json`: what the Node peers of `tests/interop` speak.
    pub interop
);
rpcsmith::include_api!(
    /// `documents/lsp.json`: LSP-shaped, for `vscode-jsonrpc`; `window/*` sent by the
    /// server (`server_to_client("window/*")`).
    pub lsp
);
rpcsmith::include_api!(
    /// `schemas/eth-newheads.json`: Ethereum's `eth_subscribe("newHeads")`, recognised.
    pub eth_newheads
);
rpcsmith::include_api!(
    /// `documents/ticks.json`: a pull-only stream.
    pub ticks
);
rpcsmith::include_api!(
    /// `documents/jobs.json`: a subscription whose end the document declares.
    pub jobs
);
rpcsmith::include_api!(
    /// `documents/sui-events.json`: a subscription as jsonrpsee-based servers describe it.
    pub sui_events
);
rpcsmith::include_api!(
    /// `documents/constraints.json`: params whose schemas constrain them, checked.
    pub constraints
);
rpcsmith::include_api!(
    /// `documents/constraints.json` generated with `validation(false)`: no checks.
    pub constraints_unchecked
);

macro_rules! corpus_modules {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        $(
            rpcsmith::include_api!($(#[$doc])* #[cfg(corpus)] pub $name);
        )*
    };
}

corpus_modules! {
    /// `open-rpc-examples/petstore-openrpc.json`.
    petstore,
    /// `open-rpc-examples/params-by-name-petstore-openrpc.json`.
    petstore_by_name,
    /// `open-rpc-examples/simple-math-openrpc.json`.
    simple_math,
    /// `open-rpc-examples/link-example-openrpc.json`.
    link_example,
    /// `metamask-api-specs/multichain-openrpc.json`, `wallet_notify` and
    /// `wallet_sessionChanged` sent by the wallet.
    multichain,
    /// `starknet-specs/api/starknet_api_openrpc.json`, partial.
    starknet,
    /// `starknet-specs/api/starknet_write_api.json`, partial.
    starknet_write,
    /// `starknet-specs/api/starknet_trace_api_openrpc.json`, partial.
    starknet_trace,
    /// `starknet-specs/api/starknet_ws_api.json`, `starknet_subscription*` sent by the node.
    starknet_ws,
    /// `starknet-specs/api/starknet_ws_api.json` with its subscriptions recognised.
    starknet_subs,
    /// `ethereum-execution-apis/refs-openrpc.json`, partial: a server implements only
    /// the methods it serves.
    ethereum,
}
