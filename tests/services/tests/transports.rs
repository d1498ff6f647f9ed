//! Generated code on every byte-stream transport: the `Editor` document's generated client
//! against its generated server ([`editor_server`]), whose handlers push to the client and
//! call it back through the generated `EditorClientPush`; the client handles those through
//! its generated `EditorClientListener` (`editor-client.json`, every method sent by the
//! server).
//!
//! Table-driven: each scenario runs on each [`Wire`] (a test per pair, named
//! `<wire>::<scenario>`): a child process speaking `Content-Length` on its stdio (the
//! `editor-stdio` bin), a Unix socket and TCP with newlines, TCP with `Content-Length`.
//! Nothing waits on a clock to synchronise: the server reports through `$/progress`
//! pushes, and every wait is bounded by [`PATIENCE`] (calls themselves time out after a
//! minute, so a prompt `Closed` is not a timeout in disguise).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use rpcsmith::client::Error;

use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::{self, Codec, FrameReader, write_frame};
use rpcsmith_services::editor::EditorClient;
use rpcsmith_services::editor::types::EditOutcome;
use rpcsmith_services::editor_listener::{self, Event, progress};
use rpcsmith_services::editor_server::{MAX_IN_FLIGHT, MAX_MESSAGE, builder};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot};

/// The longest any step may take.
const PATIENCE: Duration = Duration::from_secs(10);

/// The stdio server.
const EDITOR_STDIO: &str = env!("CARGO_BIN_EXE_editor-stdio");

/// A transport, with its framing.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Wire {
    /// A child process's stdin/stdout, `Content-Length` framed (a language server).
    Stdio,
    /// A Unix socket, newline framed.
    Unix,
    /// TCP, newline framed.
    TcpNewline,
    /// TCP, `Content-Length` framed.
    TcpContentLength,
}

impl Wire {
    fn codec(self) -> Codec {
        match self {
            Wire::Stdio | Wire::TcpContentLength => Codec::ContentLength,
            Wire::Unix | Wire::TcpNewline => Codec::Newline,
        }
    }
}

/// Where a socket server listens.
enum Address {
    Tcp(SocketAddr),
    Unix(PathBuf),
}

/// A server on one wire: listening on a socket, or (stdio) a child per connection.
struct Served {
    wire: Wire,
    address: Option<Address>,
    /// Shuts the socket server down, closing its connections.
    stop: Option<oneshot::Sender<()>>,
    _dir: Option<tempfile::TempDir>,
}

/// A client's connection: the generated client, what its listener received, and the
/// child process it talks to (stdio).
struct Connection {
    client: EditorClient,
    events: mpsc::UnboundedReceiver<Event>,
    child: Option<Child>,
    _peer: Peer,
}

/// A raw connection, for writing frames by hand.
struct Raw {
    reader: Box<dyn AsyncRead + Unpin + Send>,
    writer: Box<dyn AsyncWrite + Unpin + Send>,
    child: Option<Child>,
}

impl Raw {
    fn new(
        reader: impl AsyncRead + Unpin + Send + 'static,
        writer: impl AsyncWrite + Unpin + Send + 'static,
        child: Option<Child>,
    ) -> Raw {
        Raw {
            reader: Box::new(reader),
            writer: Box::new(writer),
            child,
        }
    }
}

impl Served {
    async fn start(wire: Wire) -> Served {
        let (stop, stopped) = oneshot::channel::<()>();
        let shutdown = async {
            let _ = stopped.await;
        };
        let (address, dir) = match wire {
            Wire::Stdio => return Served::children(),
            Wire::Unix => {
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join("editor.sock");
                let listener = tokio::net::UnixListener::bind(&path).unwrap();
                let codec = wire.codec();
                tokio::spawn(stream::serve_unix(listener, builder(), codec, shutdown));
                (Address::Unix(path), Some(dir))
            }
            Wire::TcpNewline | Wire::TcpContentLength => {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let address = listener.local_addr().unwrap();
                let codec = wire.codec();
                tokio::spawn(stream::serve_tcp(listener, builder(), codec, shutdown));
                (Address::Tcp(address), None)
            }
        };
        Served {
            wire,
            address: Some(address),
            stop: Some(stop),
            _dir: dir,
        }
    }

    fn children() -> Served {
        Served {
            wire: Wire::Stdio,
            address: None,
            stop: None,
            _dir: None,
        }
    }

    /// A client with the generated listener, cancellation on, calls waiting a minute.
    async fn connect(&self) -> Connection {
        let (listener, received) = editor_listener::server();
        let peer = Peer::builder()
            .serve(listener)
            .cancel(true)
            .timeout(Duration::from_secs(60));
        let codec = self.wire.codec();
        let (peer, child) = match &self.address {
            None => {
                let (peer, child) = stream::spawn(peer, codec, Command::new(EDITOR_STDIO)).unwrap();
                (peer, Some(child))
            }
            Some(Address::Tcp(address)) => (
                stream::connect_tcp(peer, codec, address).await.unwrap(),
                None,
            ),
            Some(Address::Unix(path)) => {
                (stream::connect_unix(peer, codec, path).await.unwrap(), None)
            }
        };
        Connection {
            client: EditorClient::new(peer.client().clone()),
            events: received,
            child,
            _peer: peer,
        }
    }

    async fn raw(&self) -> Raw {
        match &self.address {
            None => {
                let mut child = Command::new(EDITOR_STDIO)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .kill_on_drop(true)
                    .spawn()
                    .unwrap();
                let (reader, writer) = (child.stdout.take(), child.stdin.take());
                Raw::new(reader.unwrap(), writer.unwrap(), Some(child))
            }
            Some(Address::Tcp(address)) => {
                let stream = tokio::net::TcpStream::connect(address).await.unwrap();
                let (reader, writer) = stream.into_split();
                Raw::new(reader, writer, None)
            }
            Some(Address::Unix(path)) => {
                let stream = tokio::net::UnixStream::connect(path).await.unwrap();
                let (reader, writer) = stream.into_split();
                Raw::new(reader, writer, None)
            }
        }
    }

    /// The server goes away under `connection`: its child is killed, or the socket
    /// server shuts down (closing every connection).
    fn disconnect(&mut self, connection: &mut Connection) {
        match (&mut connection.child, self.stop.take()) {
            (Some(child), _) => child.start_kill().unwrap(),
            (None, Some(stop)) => stop.send(()).unwrap(),
            (None, None) => panic!("already disconnected"),
        }
    }
}

impl Connection {
    async fn next_event(&mut self) -> Event {
        tokio::time::timeout(PATIENCE, self.events.recv())
            .await
            .expect("an event in time")
            .expect("the listener is alive")
    }

    /// The next `n` events, sorted (the listener handles each in a task of its own).
    async fn next_events(&mut self, n: usize) -> Vec<Event> {
        let mut events = Vec::with_capacity(n);
        for _ in 0..n {
            events.push(self.next_event().await);
        }
        events.sort();
        events
    }

    /// Starts `wait(label)` in a task and waits until its handler runs.
    async fn start_wait(&mut self, label: &str) -> tokio::task::JoinHandle<Result<bool, Error>> {
        let client = self.client.clone();
        let owned = label.to_owned();
        let call = tokio::spawn(async move { client.wait(owned).await });
        assert_eq!(self.next_event().await, progress(label, "started"));
        call
    }
}

async fn single_call(wire: Wire) {
    let served = Served::start(wire).await;
    let c = served.connect().await;
    assert_eq!(c.client.add(2, 3).await.unwrap(), 5);
    match c.client.add(i64::MAX, 1).await {
        Err(Error::Undeclared(e)) => assert_eq!((e.code, &*e.message), (-32602, "overflow")),
        other => panic!("expected the handler's error, got {other:?}"),
    }
}

async fn batch(wire: Wire) {
    let served = Served::start(wire).await;
    let mut c = served.connect().await;
    let mut batch = c.client.batch();
    let sum = batch.add(1, 2);
    let counted = batch.count(2);
    batch.log("batched".into()).unwrap();
    let mut replies = batch.send().await.unwrap();
    assert_eq!(replies.take(sum).unwrap(), 3);
    assert_eq!(replies.take(counted).unwrap(), 2);
    let expected = [
        Event::Log("batched".into()),
        progress("count", "1"),
        progress("count", "2"),
    ];
    assert_eq!(c.next_events(3).await, expected);
}

async fn notification(wire: Wire) {
    let served = Served::start(wire).await;
    let mut c = served.connect().await;
    c.client.log("hello".into()).await.unwrap();
    // The server got it: it shows it back.
    assert_eq!(c.next_event().await, Event::Log("hello".into()));
}

async fn push(wire: Wire) {
    let served = Served::start(wire).await;
    let mut c = served.connect().await;
    assert_eq!(c.client.count(3).await.unwrap(), 3);
    let expected = [
        progress("count", "1"),
        progress("count", "2"),
        progress("count", "3"),
    ];
    assert_eq!(c.next_events(3).await, expected);
}

async fn server_to_client_request(wire: Wire) {
    let served = Served::start(wire).await;
    let c = served.connect().await;
    // The handler asks the client (`workspace/applyEdit`), typed both ways.
    let applied = c.client.edit("fn main() {}".into()).await.unwrap();
    assert_eq!(
        applied,
        EditOutcome {
            applied: true,
            reason: None
        }
    );
    // The client's declared error reaches the server typed.
    let refused = c.client.edit(String::new()).await.unwrap();
    assert_eq!(
        refused,
        EditOutcome {
            applied: false,
            reason: Some("empty edit".into())
        }
    );
}

async fn cancellation(wire: Wire) {
    let served = Served::start(wire).await;
    let mut c = served.connect().await;
    let call = c.start_wait("w").await;
    // Dropping the call's future sends `$/cancelRequest`; the server drops its handler.
    call.abort();
    assert_eq!(c.next_event().await, progress("w", "aborted"));
    assert_eq!(c.client.add(1, 1).await.unwrap(), 2);
}

async fn limit_refusal(wire: Wire) {
    let served = Served::start(wire).await;
    let mut c = served.connect().await;
    let mut running = Vec::new();
    for i in 0..MAX_IN_FLIGHT {
        running.push(c.start_wait(&format!("w{i}")).await);
    }
    match c.client.add(1, 2).await {
        Err(Error::Undeclared(e)) => assert_eq!(e.code, -32009, "{e:?}"),
        other => panic!("expected server busy, got {other:?}"),
    }
    drop(running);
}

async fn peer_disconnect_mid_call(wire: Wire) {
    let mut served = Served::start(wire).await;
    let mut c = served.connect().await;
    let call = c.start_wait("d").await;
    served.disconnect(&mut c);
    let outcome = tokio::time::timeout(PATIENCE, call)
        .await
        .expect("the call ends promptly")
        .unwrap();
    assert!(matches!(outcome, Err(Error::Closed)), "{outcome:?}");
    let later = c.client.add(1, 1).await;
    assert!(matches!(later, Err(Error::Closed)), "{later:?}");
}

/// Reads the next frame as JSON.
async fn read_json<R: AsyncRead + Unpin>(frames: &mut FrameReader<BufReader<R>>) -> Value {
    let frame = tokio::time::timeout(PATIENCE, frames.read())
        .await
        .expect("a frame in time")
        .expect("a well-formed frame")
        .expect("the connection is open");
    serde_json::from_slice(&frame).unwrap()
}

async fn malformed_frames(wire: Wire) {
    let served = Served::start(wire).await;
    let codec = wire.codec();
    let Raw {
        reader,
        mut writer,
        child,
    } = served.raw().await;
    let mut frames = FrameReader::new(BufReader::new(reader), codec, 1 << 20);
    let error = |code: i64| json!({"jsonrpc": "2.0", "error": {"code": code}, "id": null});
    let code_only = |mut v: Value| {
        v["error"]
            .as_object_mut()
            .unwrap()
            .retain(|k, _| k == "code");
        v
    };
    // Not JSON: -32700, and the connection goes on.
    write_frame(&mut writer, codec, br#"{"jsonrpc":"2.0",oops"#)
        .await
        .unwrap();
    assert_eq!(code_only(read_json(&mut frames).await), error(-32700));
    // Too large: -32007, skipped unread, and the connection goes on.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"add","params":["{}"]}}"#,
        "x".repeat(MAX_MESSAGE)
    );
    write_frame(&mut writer, codec, big.as_bytes())
        .await
        .unwrap();
    assert_eq!(code_only(read_json(&mut frames).await), error(-32007));
    let call = br#"{"jsonrpc":"2.0","id":7,"method":"add","params":[2,3]}"#;
    write_frame(&mut writer, codec, call).await.unwrap();
    assert_eq!(
        read_json(&mut frames).await,
        json!({"jsonrpc": "2.0", "result": 5, "id": 7})
    );
    if codec == Codec::ContentLength {
        // A broken header cannot be resynchronised: the connection closes, cleanly.
        writer
            .write_all(b"Content-Length: x\r\n\r\n{}")
            .await
            .unwrap();
        writer.flush().await.unwrap();
        let end = tokio::time::timeout(PATIENCE, frames.read()).await.unwrap();
        assert!(matches!(end, Ok(None)), "{end:?}");
        if let Some(mut child) = child {
            let status = tokio::time::timeout(PATIENCE, child.wait()).await.unwrap();
            assert!(status.unwrap().success());
        }
    }
    // The server serves another connection.
    let c = served.connect().await;
    assert_eq!(c.client.add(20, 22).await.unwrap(), 42);
}

/// A test per wire and scenario: `<wire>::<scenario>`.
macro_rules! matrix {
    ([$(($module:ident, $wire:ident)),* $(,)?], $scenarios:tt) => {
        $(matrix!(@wire $module, $wire, $scenarios);)*
    };
    (@wire $module:ident, $wire:ident, [$($scenario:ident),* $(,)?]) => {
        mod $module {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    super::$scenario(super::Wire::$wire).await;
                }
            )*
        }
    };
}

matrix!(
    [
        (stdio, Stdio),
        (unix, Unix),
        (tcp_newline, TcpNewline),
        (tcp_content_length, TcpContentLength),
    ],
    [
        single_call,
        batch,
        notification,
        push,
        server_to_client_request,
        cancellation,
        limit_refusal,
        peer_disconnect_mid_call,
        malformed_frames,
    ]
);
