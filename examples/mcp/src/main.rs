//! rpcsmith's MCP example: a Model Context Protocol server generated from
//! `schemas/mcp.json`. It serves three tools of its own (`add`, `echo`, and `slow`,
//! which reports progress and stops when cancelled) and the fixture set of the official
//! conformance suite (`test_*` tools, among them sampling and elicitation round trips
//! to the client; `test://` resources and a resource template, with subscriptions;
//! prompts; logging; completion), which it passes (`tests/conformance.rs`).
//!
//! ```text
//! cargo run -p mcp-example -- --stdio                 # MCP's stdio transport: one message per line
//! cargo run -p mcp-example -- --http 127.0.0.1:8080   # Streamable HTTP on http://127.0.0.1:8080/mcp
//! ```
//!
//! On stdio an MCP client starts it as a child process (Claude Desktop, the MCP
//! inspector, or the official TypeScript SDK's `StdioClientTransport`, as
//! `tests/interop/mcp_client.mjs` does). Over HTTP it serves MCP's Streamable HTTP
//! (sessions in `Mcp-Session-Id`, a call that reports progress answered as an event
//! stream, a `GET` stream per session, loopback origins only) until Ctrl-C; port 0
//! picks a free port. It logs to stderr only (on stdio, stdout carries the protocol),
//! starting over HTTP with `listening on <url>`.

mod fixtures;
mod server;
mod tools;

rpcsmith::include_api!("mcp");

use mcp::McpDispatcher;
use rpcsmith::http::{self, Streaming};
use rpcsmith::server::Server;
use rpcsmith::transport::peer::{Cancellation, Peer};
use rpcsmith::transport::stream::{self, Codec};

const USAGE: &str = "usage: mcp-example --stdio | --http <address:port>";

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["--stdio"] => serve_stdio().await,
        ["--http", address] => {
            if let Err(e) = serve_http(address).await {
                eprintln!("mcp-example: {e}");
                std::process::exit(1);
            }
        }
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    }
}

/// The server of every connection: the generated dispatcher over [`server::Example`].
fn server() -> Server {
    Server::new(McpDispatcher::new(server::Example::default()))
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

/// Serves MCP's Streamable HTTP on `address` until Ctrl-C.
async fn serve_http(address: &str) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(address).await?;
    eprintln!(
        "mcp-example: listening on http://{}/mcp",
        listener.local_addr()?
    );
    // The default origins: requests without `Origin`, and loopback pages from loopback.
    // And the default hosts: on a loopback listener, `localhost` and loopback addresses.
    let service = http::Service::new(server())
        .path("/mcp")
        .streaming(Streaming::mcp());
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    http::serve(listener, service, shutdown).await;
    Ok(())
}
