//! Interop with real non-Rust peers: the JavaScript `json-rpc-2.0` package (pinned in
//! `tests/interop/package-lock.json`), run by Node as real processes on 127.0.0.1.
//!
//! Skips with a message where Node or the installed package is missing; fails instead
//! under `RPCSMITH_REQUIRE_INTEROP=1` (as `.ci/run` sets after `npm ci`).

mod peer_support;

use peer_support::{PATIENCE, ServerSide, client_side};
use rpcsmith::client::{Client, DeclaredError, Error};
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::Server;
use rpcsmith::transport::http;
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith::transport::ws::Settings;
use std::path::PathBuf;
use std::process::Stdio;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

/// The interop package's directory, when Node and its dependencies are there.
fn interop_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/interop");
    let node = std::process::Command::new("node").arg("--version").output();
    let missing = match node {
        Ok(output) if output.status.success() => {
            let installed = dir.join("node_modules/json-rpc-2.0/package.json").exists()
                && dir.join("node_modules/ws/package.json").exists();
            (!installed).then_some("run `npm ci` in tests/interop")
        }
        _ => Some("node is not installed"),
    };
    match missing {
        None => Some(dir),
        Some(why) if std::env::var_os("RPCSMITH_REQUIRE_INTEROP").is_some() => {
            panic!("RPCSMITH_REQUIRE_INTEROP is set but {why}")
        }
        Some(why) => {
            eprintln!("skipping the Node interop test: {why}");
            None
        }
    }
}

fn node(dir: &std::path::Path, script: &str) -> Command {
    let mut command = Command::new("node");
    command
        .arg(dir.join(script))
        .current_dir(dir)
        .kill_on_drop(true);
    command
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_javascript_client_calls_an_rpcsmith_server_over_http_and_websocket() {
    let Some(dir) = interop_dir() else { return };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let service = http::Service::new(Server::new(ServerSide::default()))
        .websocket(Peer::builder(), Settings::default());
    tokio::spawn(http::serve(listener, service, std::future::pending()));

    let mut client = node(&dir, "client.mjs");
    client
        .arg(port.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let output = tokio::time::timeout(PATIENCE * 2, client.output())
        .await
        .unwrap()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the JS client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for check in [
        "http batch",
        "ws push arrived",
        "ws server calls the js client",
        "done",
    ] {
        assert!(
            stdout.lines().any(|line| line.ends_with(check)),
            "missing {check:?} in\n{stdout}"
        );
    }
}

/// The error the JS server's `fail` method declares.
#[derive(Debug, serde::Deserialize, PartialEq)]
struct Why {
    why: String,
}

impl DeclaredError for Why {
    fn from_object(error: ErrorObject) -> Result<Self, ErrorObject> {
        let data = error.data.as_ref().filter(|_| error.code == 42);
        match data.and_then(|data| serde_json::from_str(data.get()).ok()) {
            Some(why) => Ok(why),
            None => Err(error),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_rpcsmith_client_calls_a_javascript_server_over_http() {
    let Some(dir) = interop_dir() else { return };
    let mut server = node(&dir, "server.mjs");
    server.stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = server.spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = tokio::time::timeout(PATIENCE, lines.next_line())
        .await
        .unwrap()
        .unwrap();
    let port: serde_json::Value = serde_json::from_str(&first.unwrap()).unwrap();
    let url = format!("http://127.0.0.1:{}/", port["port"]);

    let client = Client::new(http::Client::new(&url).unwrap());
    let sum: i64 = client.request("add", &[40, 2]).await.unwrap();
    assert_eq!(sum, 42);
    let echoed: serde_json::Value = client
        .request("echo", &serde_json::json!({"k": [1]}))
        .await
        .unwrap();
    assert_eq!(echoed, serde_json::json!({"k": [1]}));
    client.notify("note", &["hi"]).await.unwrap();
    let mut batch = client.batch();
    let a = batch.request::<i64, _>("add", &[1, 1]);
    let b = batch.request::<i64, _>("missing", &());
    let mut replies = batch.send().await.unwrap();
    assert_eq!(replies.take(a).unwrap(), 2);
    assert!(matches!(replies.take(b), Err(Error::Undeclared(e)) if e.code == -32601));
    let failed = client.request_declared::<(), Why, _>("fail", &()).await;
    assert!(
        matches!(failed, Err(Error::Declared(Why { ref why })) if why == "asked to"),
        "{failed:?}"
    );
    drop(child.stdin.take());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_rpcsmith_client_talks_to_a_javascript_child_over_stdio() {
    let Some(dir) = interop_dir() else { return };
    let (handlers, _pushed) = client_side();
    let builder = Peer::builder().serve(handlers).timeout(PATIENCE);
    let (peer, _child) =
        stream::spawn(builder, Codec::Newline, node(&dir, "stdio_server.mjs")).unwrap();
    let sum: i64 = peer.client().request("add", &[1, 2]).await.unwrap();
    assert_eq!(sum, 3);
    // The JS child calls the rpcsmith client's `double` back before answering.
    let doubled: i64 = peer.client().request("ask", &[8]).await.unwrap();
    assert_eq!(doubled, 16);
    let missing = peer.client().request::<(), _>("nope", &()).await;
    assert!(
        matches!(missing, Err(Error::Undeclared(ref e)) if e.code == -32601),
        "{missing:?}"
    );
}
