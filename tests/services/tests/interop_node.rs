//! Interop of generated code with real non-Rust peers: the JavaScript `json-rpc-2.0`
//! package (pinned in `tests/interop/package-lock.json`), run by Node as real processes on
//! 127.0.0.1, speaking `documents/interop.json` (`double` and `pushed` sent by the
//! server).
//!
//! - A JavaScript client calls the GENERATED server over HTTP and WebSocket; over
//!   WebSocket the server pushes to it and calls it back through the generated
//!   `InteropPush`.
//! - The GENERATED client calls a Node server over HTTP, and a Node child process over
//!   stdio, whose calls back reach the generated `InteropListener`.
//! - A JavaScript subscriber (`ws`, raw JSON-RPC as a dapp writes it) subscribes to the
//!   GENERATED server of `schemas/eth-newheads.json` and receives its `eth_subscription`
//!   notifications.
//! - `vscode-jsonrpc` (the JSON-RPC layer of VS Code's language clients) spawns the
//!   GENERATED server of `documents/lsp.json` (the `lsp-stdio` binary) and speaks to it
//!   with `Content-Length` framing: 300 ordered `textDocument/didChange`, a
//!   server→client `window/showMessageRequest`, a call cancelled with `$/cancelRequest`.
//!
//! Where Node or the installed packages are missing, the build script leaves
//! `cfg(node_peers)` unset and these tests are marked ignored (cargo's summary counts
//! them, with the reason); under `RPCSMITH_REQUIRE_INTEROP=1` (as `.ci/run` sets after
//! `npm ci`) the build fails instead.

mod streams_support;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use rpcsmith::client::{Client, Error};
use rpcsmith::http;
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Failure, Server};
use rpcsmith::transport::peer::{self, Peer};
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith::transport::ws;
use rpcsmith_services::interop::{
    FailError, InteropClient, InteropDispatcher, InteropListener, InteropListenerDispatcher,
    InteropPush, InteropServer, types,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;
use tokio::sync::mpsc;

/// Every step waits at most this long.
const PATIENCE: Duration = Duration::from_secs(10);

/// The interop package's directory. A test run with `--ignored` where the peers are
/// missing fails here, saying what is missing, rather than passing without them.
fn interop_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../interop");
    let installed = ["json-rpc-2.0", "ws", "vscode-jsonrpc"]
        .iter()
        .all(|package| {
            dir.join("node_modules")
                .join(package)
                .join("package.json")
                .is_file()
        });
    assert!(
        installed,
        "Node peers missing: run `npm ci` in tests/interop"
    );
    dir
}

fn node(dir: &Path, script: &str) -> Command {
    let mut command = Command::new("node");
    command
        .arg(dir.join(script))
        .current_dir(dir)
        .kill_on_drop(true);
    command
}

fn failed(e: Error<impl std::fmt::Display>) -> Failure {
    ErrorObject::new(-32000, format!("calling back failed: {e}")).into()
}

/// The generated server's implementation.
struct Served;

impl InteropServer for Served {
    async fn add(&self, _cx: Context, a: i64, b: i64) -> Result<i64, Failure> {
        Ok(a + b)
    }

    async fn echo(&self, _cx: Context, value: Value) -> Result<Value, Failure> {
        Ok(value)
    }

    async fn note(&self, _cx: Context, _text: String) {}

    async fn fail(&self, _cx: Context) -> Result<bool, Failure<FailError>> {
        let why = "asked to".to_owned();
        Err(FailError::DeclaredFailure(types::FailError42Data { why }).into())
    }

    async fn push(&self, cx: Context, text: String) -> Result<String, Failure> {
        let client = peer::remote(&cx).ok_or_else(|| ErrorObject::new(-32000, "no push"))?;
        InteropPush::new(client)
            .pushed(text)
            .await
            .map_err(failed)?;
        Ok("pushed".into())
    }

    async fn ask(&self, cx: Context, n: i64) -> Result<i64, Failure> {
        let client = peer::remote(&cx).ok_or_else(|| ErrorObject::new(-32000, "no callback"))?;
        InteropPush::new(client).double(n).await.map_err(failed)
    }
}

/// The generated client's listener: doubles, reports what is pushed.
struct Listening(mpsc::UnboundedSender<String>);

impl InteropListener for Listening {
    async fn double(&self, _cx: Context, n: i64) -> Result<i64, Failure> {
        Ok(2 * n)
    }

    async fn pushed(&self, _cx: Context, text: String) {
        let _ = self.0.send(text);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(node_peers),
    ignore = "Node peers missing: run `npm ci` in tests/interop"
)]
async fn a_javascript_client_calls_the_generated_server_over_http_and_websocket() {
    let dir = interop_dir();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let service = http::Service::new(Server::new(InteropDispatcher::new(Served)))
        .websocket(Peer::builder(), ws::Settings::default());
    tokio::spawn(http::serve(listener, service, std::future::pending()));

    let checks = [
        "http batch",
        "http declared error",
        "http invalid params",
        "http rpc.discover",
        "ws push arrived",
        "ws server calls the js client",
        "done",
    ];
    passes(&dir, "client.mjs", &port.to_string(), PATIENCE * 2, &checks).await;
}

/// Runs the Node script `script` with `arg`, within `patience`, and asserts that it
/// succeeded with every check of `checks` reported.
async fn passes(dir: &Path, script: &str, arg: &str, patience: Duration, checks: &[&str]) {
    let mut client = node(dir, script);
    client
        .arg(arg)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let output = tokio::time::timeout(patience, client.output())
        .await
        .unwrap()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{script} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for check in checks {
        assert!(
            stdout.lines().any(|line| line.ends_with(check)),
            "missing {check:?} in\n{stdout}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(node_peers),
    ignore = "Node peers missing: run `npm ci` in tests/interop"
)]
async fn the_generated_client_calls_a_javascript_server_over_http() {
    let dir = interop_dir();
    let mut server = node(&dir, "server.mjs");
    server.stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = server.spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = tokio::time::timeout(PATIENCE, lines.next_line())
        .await
        .unwrap()
        .unwrap();
    let port: Value = serde_json::from_str(&first.unwrap()).unwrap();
    let url = format!("http://127.0.0.1:{}/", port["port"]);

    let client = InteropClient::new(Client::new(http::Client::new(&url).unwrap()));
    assert_eq!(client.add(40, 2).await.unwrap(), 42);
    let value = json!({"k": [1]});
    assert_eq!(client.echo(value.clone()).await.unwrap(), value);
    client.note("hi".into()).await.unwrap();
    let declared = |result| match result {
        Err(Error::Declared(FailError::DeclaredFailure(data))) => data.why,
        other => panic!("expected the declared error, got {other:?}"),
    };
    assert_eq!(declared(client.fail().await), "asked to");
    let mut batch = client.batch();
    let sum = batch.add(1, 1);
    let failure = batch.fail();
    let mut replies = batch.send().await.unwrap();
    assert_eq!(replies.take(sum).unwrap(), 2);
    assert_eq!(declared(replies.take(failure)), "asked to");
    drop(child.stdin.take());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(node_peers),
    ignore = "Node peers missing: run `npm ci` in tests/interop"
)]
async fn the_generated_client_talks_to_a_javascript_child_over_stdio() {
    let dir = interop_dir();
    let (pushed, mut received) = mpsc::unbounded_channel();
    let listener = InteropListenerDispatcher::new(Listening(pushed));
    let builder = Peer::builder()
        .serve(Server::new(listener))
        .timeout(PATIENCE);
    let (peer, _child) =
        stream::spawn(builder, Codec::Newline, node(&dir, "stdio_server.mjs")).unwrap();
    let client = InteropClient::new(peer.client().clone());
    assert_eq!(client.add(1, 2).await.unwrap(), 3);
    // The JS child calls the generated listener's `double` back before answering.
    assert_eq!(client.ask(8).await.unwrap(), 16);
    assert_eq!(client.push("hi".into()).await.unwrap(), "pushed");
    let got = tokio::time::timeout(PATIENCE, received.recv())
        .await
        .unwrap();
    assert_eq!(got.as_deref(), Some("hi"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(node_peers),
    ignore = "Node peers missing: run `npm ci` in tests/interop"
)]
async fn a_javascript_subscriber_receives_the_generated_servers_notifications() {
    const HEADS: u64 = 3;
    let dir = interop_dir();
    let (eth, mut subscribed) = streams_support::Node::new();
    let server = streams_support::serve_anywhere(eth.clone()).await;
    let mut subscriber = node(&dir, "subscriber.mjs");
    subscriber
        .arg(server.address.port().to_string())
        .arg(HEADS.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = subscriber.spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut printed = Vec::new();
    // It prints `subscribed <id>` once subscribed; the server has the subscription.
    while !printed
        .last()
        .is_some_and(|line: &String| line.starts_with("subscribed "))
    {
        let line = tokio::time::timeout(PATIENCE, lines.next_line())
            .await
            .unwrap();
        printed.push(
            line.unwrap()
                .expect("the subscriber prints until it is done"),
        );
    }
    let sink = streams_support::next_subscription(&mut subscribed).await;
    for n in 1..=HEADS {
        assert_eq!(eth.publish(n).await, 1);
    }
    while let Some(line) = tokio::time::timeout(PATIENCE, lines.next_line())
        .await
        .unwrap()
        .unwrap()
    {
        printed.push(line);
    }
    let status = tokio::time::timeout(PATIENCE, child.wait())
        .await
        .unwrap()
        .unwrap();
    let mut stderr = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr)
        .await
        .unwrap();
    let printed = printed.join("\n");
    assert!(
        status.success(),
        "the JS subscriber failed:\n{printed}\n{stderr}"
    );
    for check in [
        "heads in order",
        "unknown subscription type refused",
        "eth_unsubscribe",
        "eth_unsubscribe again",
        "done",
    ] {
        assert!(
            printed.lines().any(|line| line.ends_with(check)),
            "missing {check:?} in\n{printed}"
        );
    }
    // Its `eth_unsubscribe` ended the subscription on the server's side.
    streams_support::ended(&sink).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(node_peers),
    ignore = "Node peers missing: run `npm ci` in tests/interop"
)]
async fn vscode_jsonrpc_drives_a_generated_language_server_over_stdio() {
    let checks = [
        "300 ordered changes: none out of order",
        "300 ordered changes: text",
        "server got the client's answer",
        "cancelled with $/cancelRequest",
        "the server dropped the handler",
        "done",
    ];
    let server = env!("CARGO_BIN_EXE_lsp-stdio");
    passes(
        &interop_dir(),
        "lsp_client.mjs",
        server,
        PATIENCE * 3,
        &checks,
    )
    .await;
}
