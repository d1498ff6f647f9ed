//! Generates the `mcp` module (types, server trait and dispatcher, the client, and the
//! typed sender of `notifications/progress`) into `OUT_DIR`.

use std::path::Path;

fn main() {
    rpcsmith_build::configure()
        .client(true)
        .server(true)
        // The one notification the server sends.
        .server_to_client("notifications/progress")
        .compile("../../schemas/mcp.json")
        .unwrap_or_else(|e| panic!("{e}"));
    // Only for this crate's tests, which run the official MCP SDK against the example.
    node_peers(
        Path::new("../../tests/interop"),
        &["@modelcontextprotocol/sdk"],
    );
}

// `node_peers(interop, packages)`: sets `cfg(node_peers)` when the Node peers are there.
include!("../../tests/interop/node_peers.rs");
