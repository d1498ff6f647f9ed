//! Generates the `mcp` module (types, server trait and dispatcher, the client, and the
//! typed sender of `notifications/progress`) into `OUT_DIR`.

fn main() {
    rpcsmith_build::configure()
        .client(true)
        .server(true)
        // The one notification the server sends.
        .server_to_client("notifications/progress")
        .compile("../../schemas/mcp.json")
        .unwrap_or_else(|e| panic!("{e}"));
}
