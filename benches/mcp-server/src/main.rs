//! `rpcsmith-bench-mcp --impl rpcsmith|rmcp (--http ADDRESS | --stdio) [--workers N]`:
//! an MCP server of one tool, `add(a, b)` answering the sum as a text block, for the
//! bench's `mcp_http` and `mcp_stdio` scenarios. Two implementations of the same server:
//!
//! - `rpcsmith`: the server generated from `schemas/mcp.json` (the generated
//!   dispatcher behind `McpServer`), over `http::Service` with `Streaming::mcp()` under
//!   `http::serve`, or over `stream::stdio` with newline framing, as `examples/mcp`
//!   serves it;
//! - `rmcp`: the MCP SDK for Rust (rmcp 3.x), its `#[tool_router]` and `ServerHandler`,
//!   over its `StreamableHttpService` (sessions kept, its default settings) under
//!   hyper-util's server, as axum would serve it, or over its `stdio()` transport.
//!
//! Over HTTP it prints `serving mcp with <impl> on <url>` once bound (the bench reads
//! the URL, its last word). Either way it exits when its standard input closes (over
//! stdio that is the client closing the transport): a profiler running it (callgrind)
//! then writes its figures on a clean exit.
//!
//! The bench (`cargo run --release -p rpcsmith-bench`) builds and starts it itself.

mod rmcp_side;
mod rpcsmith_side;

use std::net::SocketAddr;

/// Which server.
#[derive(Debug, Clone, Copy)]
enum Impl {
    Rpcsmith,
    Rmcp,
}

/// What the command line asks for.
#[derive(Debug)]
struct Arguments {
    implementation: Impl,
    /// `None`: stdio.
    http: Option<SocketAddr>,
    workers: usize,
}

const USAGE: &str =
    "usage: rpcsmith-bench-mcp --impl rpcsmith|rmcp (--http ADDRESS | --stdio) [--workers N]";

fn arguments() -> Result<Arguments, String> {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|arg| arg == flag)
            .and_then(|i| args.get(i + 1))
    };
    let implementation = match value("--impl").map(String::as_str) {
        Some("rpcsmith") => Impl::Rpcsmith,
        Some("rmcp") => Impl::Rmcp,
        _ => return Err(USAGE.to_owned()),
    };
    let http = match (value("--http"), args.iter().any(|arg| arg == "--stdio")) {
        (Some(address), false) => Some(address.parse().map_err(|e| format!("--http: {e}"))?),
        (None, true) => None,
        _ => return Err(USAGE.to_owned()),
    };
    let workers = match value("--workers") {
        Some(n) => n.parse().map_err(|e| format!("--workers: {e}"))?,
        None => 2,
    };
    Ok(Arguments {
        implementation,
        http,
        workers,
    })
}

fn main() {
    let arguments = arguments().unwrap_or_else(|e| {
        eprintln!("rpcsmith-bench-mcp: {e}");
        std::process::exit(2);
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(arguments.workers.max(1))
        .enable_all()
        .build()
        .unwrap_or_else(|e| {
            eprintln!("rpcsmith-bench-mcp: starting a Tokio runtime: {e}");
            std::process::exit(1);
        });
    let served = runtime.block_on(async {
        match (arguments.implementation, arguments.http) {
            (Impl::Rpcsmith, Some(address)) => {
                rpcsmith_side::http(address, until_stdin_closes()).await
            }
            (Impl::Rpcsmith, None) => rpcsmith_side::stdio().await,
            (Impl::Rmcp, Some(address)) => rmcp_side::http(address, until_stdin_closes()).await,
            (Impl::Rmcp, None) => rmcp_side::stdio().await,
        }
    });
    if let Err(e) = served {
        eprintln!("rpcsmith-bench-mcp: {e}");
        std::process::exit(1);
    }
    // Not `return`: stdin's reader thread may still be blocked in a read.
    std::process::exit(0);
}

/// Ends when standard input is closed (or fails).
async fn until_stdin_closes() {
    use tokio::io::AsyncReadExt as _;
    let mut stdin = tokio::io::stdin();
    let mut buffer = [0_u8; 64];
    while matches!(stdin.read(&mut buffer).await, Ok(n) if n > 0) {}
}

/// Says where it serves, on one line of its own.
fn announce(implementation: &str, address: SocketAddr) {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(
        stdout,
        "serving mcp with {implementation} on http://{address}/mcp"
    );
    let _ = stdout.flush();
}
