//! rpcsmith's MCP example: a Model Context Protocol tools server generated from
//! `schemas/mcp.json`, with three tools (`add`, `echo`, and `slow`, which reports
//! progress and stops when cancelled).
//!
//! ```text
//! cargo run -p mcp-example -- --stdio      # MCP's stdio transport: one message per line
//! ```
//!
//! An MCP client starts it as a child process (Claude Desktop, the MCP inspector, or
//! the official TypeScript SDK's `StdioClientTransport`, as `tests/interop/mcp_client.mjs`
//! does). It logs to stderr only: stdout carries the protocol.

mod tools;

rpcsmith::include_api!("mcp");

use mcp::McpDispatcher;
use rpcsmith::server::Server;
use rpcsmith::transport::peer::{Cancellation, Peer};
use rpcsmith::transport::stream::{self, Codec};

const USAGE: &str = "usage: mcp-example --stdio";

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["--stdio"] => serve_stdio().await,
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    }
}

/// The server of every connection: the generated dispatcher over [`tools::Tools`].
fn server() -> Server {
    Server::new(McpDispatcher::new(tools::Tools))
}

/// Serves one client on stdin and stdout until it closes them.
async fn serve_stdio() {
    // MCP cancels with `notifications/cancelled` and never answers a cancelled call.
    let builder = Peer::builder()
        .serve(server())
        .cancellation(Cancellation::MCP);
    let peer = stream::stdio(builder, Codec::Newline);
    peer.closed().await;
    // Not `return`: stdin's reader thread may still be blocked in a read.
    std::process::exit(0);
}
