//! Generates the `mcp` module's server side (types, the server trait and dispatcher)
//! from `schemas/mcp.json`, as `examples/mcp` does: the bench serves rpcsmith's
//! generated MCP server, as a user's crate would.

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
    // Every handler has a default (`-32601`, or nothing for a notification): the bench
    // serves the handshake, `ping` and the tools.
    let builder = rpcsmith_build::configure()
        .client(false)
        .server(true)
        .partial(true);
    let builder = SERVER_TO_CLIENT
        .iter()
        .fold(builder, |b, pattern| b.server_to_client(*pattern));
    BOTH_WAYS
        .iter()
        .fold(builder, |b, pattern| b.both_ways(*pattern))
        .compile("../../schemas/mcp.json")
        .unwrap_or_else(|e| panic!("{e}"));
}
