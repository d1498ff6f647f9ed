//! The `Lsp` server on this process's own stdin and stdout, `Content-Length` framed,
//! cancelled by `$/cancelRequest` and handling its messages in arrival order: what
//! `vscode-jsonrpc` talks to in `tests/interop_node.rs`.

use rpcsmith::transport::stream::Codec;
use rpcsmith_services::{lsp_server, serve_stdio};

fn main() {
    serve_stdio(lsp_server::builder(), Codec::ContentLength);
}
