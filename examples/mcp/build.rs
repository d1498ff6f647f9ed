//! Generates the `mcp` module (types, the server trait and dispatcher, the client, the
//! server's typed sender `McpPush` and the client's `McpListener`) into `OUT_DIR`.

use std::path::Path;

/// What the server sends the client (MCP's "server features" and notifications).
const SERVER_TO_CLIENT: &[&str] = &[
    "sampling/*",
    "elicitation/*",
    "roots/list",
    "notifications/message",
    "notifications/resources/*",
    "notifications/tools/*",
    "notifications/prompts/*",
    "notifications/elicitation/*",
];

/// What either side sends.
const BOTH_WAYS: &[&str] = &[
    "ping",
    "notifications/progress",
    "notifications/cancelled",
    "tasks/*",
    "notifications/tasks/*",
];

fn main() {
    let builder = rpcsmith_build::configure()
        .client(true)
        .server(true)
        // Every handler has a default (`-32601`, or nothing for a notification): the
        // example serves what the conformance suite calls, and no tasks.
        .partial(true);
    let builder = SERVER_TO_CLIENT
        .iter()
        .fold(builder, |b, pattern| b.server_to_client(*pattern));
    BOTH_WAYS
        .iter()
        .fold(builder, |b, pattern| b.both_ways(*pattern))
        .compile("../../schemas/mcp.json")
        .unwrap_or_else(|e| panic!("{e}"));
    // Only for this crate's tests, which run the official MCP SDK, its conformance
    // suite and its reference server against the example.
    node_peers(
        Path::new("../../tests/interop"),
        &[
            "@modelcontextprotocol/sdk",
            "@modelcontextprotocol/conformance",
            "@modelcontextprotocol/server-everything",
        ],
    );
}

// `node_peers(interop, packages)`: sets `cfg(node_peers)` when the Node peers are there.
include!("../../tests/interop/node_peers.rs");
