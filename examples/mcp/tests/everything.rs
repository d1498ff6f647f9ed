//! The generated MCP client (`mcp-client --everything`) against the official reference
//! server `@modelcontextprotocol/server-everything` (pinned in
//! `tests/interop/package-lock.json`), run by Node as a real process, over stdio (the
//! client spawns it) and over Streamable HTTP (it serves on a free loopback port):
//! tools, progress, sampling and elicitation answered by the client, resources with a
//! subscription and its update, prompts, ping, and a call given up mid-way.
//!
//! Where Node or the packages are missing, `cfg(node_peers)` is unset and the tests are
//! marked ignored; under `RPCSMITH_REQUIRE_INTEROP=1` the build fails instead.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

/// The tour's whole run is bounded by this (its subscription update comes within 5 s).
const PATIENCE: Duration = Duration::from_secs(90);

/// Every check of the tour, in order.
const CHECKS: &[&str] = &[
    "initialize: mcp-servers/everything (revision 2025-11-25)",
    "ping",
    "tools/list",
    "tools/call echo: Echo: héllo",
    "tools/call get-sum: The sum of 2 and 3 is 5.",
    "progress notifications: 3 before",
    "sampling answered by the client",
    "elicitation answered by the client",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "subscription: notifications/resources/updated",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "cancelled call dropped after progress",
    "tools/call after cancel: The sum of 1 and 2 is 3.",
    "done",
];

fn interop_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/interop")
}

fn everything() -> PathBuf {
    interop_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

/// Runs `mcp-client --everything` with `args`; asserts every check, in order.
/// `extra`: the checks after `CHECKS` (over HTTP, the session's end).
async fn tour(args: &[&str], extra: &[&str]) {
    let run = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-client"))
        .arg("--everything")
        .args(args)
        .current_dir(interop_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(PATIENCE, run)
        .await
        .expect("the tour finishes in time")
        .expect("the client runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the tour failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let passed: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("ok "))
        .collect();
    assert_eq!(passed.len(), CHECKS.len() + extra.len(), "{stdout}");
    for (line, check) in passed.iter().zip(CHECKS.iter().chain(extra)) {
        assert!(
            line.starts_with(check),
            "want {check:?}, got {line:?}\n{stdout}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(node_peers),
    ignore = "Node peers missing: run `npm ci` in tests/interop"
)]
async fn the_generated_client_tours_the_reference_server_over_stdio() {
    let server = everything();
    tour(&["--stdio", "node", server.to_str().unwrap(), "stdio"], &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(node_peers),
    ignore = "Node peers missing: run `npm ci` in tests/interop"
)]
async fn the_generated_client_tours_the_reference_server_over_streamable_http() {
    // A free port: bind one, let it go, hand it to the server (it takes `PORT` only).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let mut server = tokio::process::Command::new("node")
        .arg(everything())
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the reference server starts");
    let mut lines = BufReader::new(server.stderr.take().unwrap()).lines();
    tokio::time::timeout(PATIENCE, async {
        while let Some(line) = lines.next_line().await.expect("stderr is readable") {
            if line.contains("listening on port") {
                return;
            }
        }
        panic!("the reference server ended before listening");
    })
    .await
    .expect("the reference server listens in time");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    // The reference server ends the session on `DELETE`: `true`.
    tour(
        &[&format!("http://127.0.0.1:{port}/mcp")],
        &["session ended (DELETE): true"],
    )
    .await;
}
