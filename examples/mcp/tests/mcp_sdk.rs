//! The official MCP TypeScript SDK's client (`@modelcontextprotocol/sdk`, pinned in
//! `tests/interop/package-lock.json`) against this example, run by Node as a real
//! process: `tests/interop/mcp_client.mjs` initialises, pings, lists and calls the
//! tools, receives `notifications/progress`, cancels a `slow` call with an
//! `AbortSignal` (the server drops it and says so on stderr), and calls again; over
//! stdio (the SDK spawns the example) and over Streamable HTTP (the example serves on
//! a free loopback port).
//!
//! Where Node or the installed packages are missing, the build script leaves
//! `cfg(node_peers)` unset and these tests are marked ignored (cargo's summary counts
//! them, with the reason); under `RPCSMITH_REQUIRE_INTEROP=1` (as `.ci/run` sets after
//! `npm ci`) the build fails instead.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::ChildStderr;

/// The Node script's whole run is bounded by this.
const PATIENCE: Duration = Duration::from_secs(30);

fn interop_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/interop");
    let sdk = dir.join("node_modules/@modelcontextprotocol/sdk/package.json");
    assert!(
        sdk.is_file(),
        "Node peers missing: run `npm ci` in tests/interop"
    );
    dir
}

/// Runs `mcp_client.mjs` with `args`; its output once it has passed every check.
async fn mcp_client(args: &[&str]) -> String {
    let dir = interop_dir();
    let mut node = tokio::process::Command::new("node");
    node.arg(dir.join("mcp_client.mjs"))
        .args(args)
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let output = tokio::time::timeout(PATIENCE, node.output())
        .await
        .expect("the MCP client finishes in time")
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "the MCP SDK client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// What both transports check.
const CHECKS: &[&str] = &[
    "initialize: server",
    "tools/list",
    "tools/call add",
    "tools/call unknown tool",
    "progress notifications, before the answer",
    "cancelled call rejected after progress",
    "tools/call after cancel",
    "done",
];

fn assert_checked(stdout: &str, extra: &[&str]) {
    for check in CHECKS.iter().chain(extra) {
        assert!(
            stdout
                .lines()
                .any(|line| line.starts_with(&format!("ok {check}"))),
            "missing {check:?} in\n{stdout}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(node_peers),
    ignore = "Node peers missing: run `npm ci` in tests/interop"
)]
async fn the_mcp_sdk_spawns_the_example_and_uses_its_tools_over_stdio() {
    let stdout = mcp_client(&["stdio", env!("CARGO_BIN_EXE_mcp-example")]).await;
    // The SDK read the example's stderr: the cancelled call was stopped there.
    assert_checked(
        &stdout,
        &["server dropped the call: mcp-example: slow cancelled after"],
    );
}

/// The next line of the example's stderr that contains `text`, within [`PATIENCE`].
async fn logged(lines: &mut Lines<BufReader<ChildStderr>>, text: &str) -> String {
    let wait = async {
        while let Some(line) = lines.next_line().await.expect("stderr is readable") {
            if line.contains(text) {
                return line;
            }
        }
        panic!("the example ended without logging {text:?}");
    };
    tokio::time::timeout(PATIENCE, wait)
        .await
        .unwrap_or_else(|_| panic!("no {text:?} logged in time"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(node_peers),
    ignore = "Node peers missing: run `npm ci` in tests/interop"
)]
async fn the_mcp_sdk_uses_the_examples_tools_over_streamable_http() {
    let mut example = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-example"))
        .args(["--http", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the example starts");
    let mut lines = BufReader::new(example.stderr.take().unwrap()).lines();
    let listening = logged(&mut lines, "listening on ").await;
    let url = listening.rsplit(' ').next().unwrap().to_owned();

    let stdout = mcp_client(&["http", &url]).await;
    assert_checked(&stdout, &[]);
    // The cancelled call was stopped on the server, not only given up by the client.
    logged(&mut lines, "slow cancelled after").await;
}
