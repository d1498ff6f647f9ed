//! The `Lsp` server on this process's own stdin and stdout, `Content-Length` framed,
//! cancelled by `$/cancelRequest` and handling its messages in arrival order: what
//! `vscode-jsonrpc` talks to in `tests/interop_lsp.rs`.

use rpcsmith::transport::stream::{self, Codec};
use rpcsmith_services::lsp_server;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    runtime.block_on(async {
        let peer = stream::stdio(lsp_server::builder(), Codec::ContentLength);
        peer.closed().await;
    });
    // Tokio's stdin reader is a blocking thread that cannot be cancelled: exit now.
    std::process::exit(0);
}
