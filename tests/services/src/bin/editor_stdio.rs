//! The `Editor` server on this process's own stdin and stdout, `Content-Length` framed as
//! a language server's: what the stdio transport tests spawn.

use rpcsmith::transport::stream::Codec;
use rpcsmith_services::{editor_server, serve_stdio};

fn main() {
    serve_stdio(editor_server::builder(), Codec::ContentLength);
}
