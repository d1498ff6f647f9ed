//! What one HTTP/2 connection may make `serve` hold: the bounds it advertises in its
//! `SETTINGS`, and a client that opens many streams and never reads their answers.

use bytes::Bytes;
use http_body_util::Full;
use hyper::Request;
use hyper_util::rt::{TokioExecutor, TokioIo};
use rpcsmith::http::{Serve, Service};
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Reply, Server};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Every test waits at most this long for anything.
const PATIENCE: Duration = Duration::from_secs(10);

/// The bounds `serve` advertises to HTTP/2 clients (documented on `Serve`).
const MAX_STREAMS: u32 = 100;
const STREAM_WINDOW: u32 = 256 * 1024;
const CONNECTION_WINDOW: u32 = 1024 * 1024;
const MAX_FRAME: u32 = 16 * 1024;
const MAX_HEADER_LIST: u32 = 16 * 1024;

/// Answers `big` with a 64 KiB string, counting the answers it made.
struct Big {
    answers: Arc<AtomicUsize>,
}

impl Dispatch for Big {
    fn call(&self, method: &str, _: Option<&RawValue>, _: Context) -> Reply {
        if method != "big" {
            return Reply::err(ErrorObject::method_not_found());
        }
        self.answers.fetch_add(1, Ordering::SeqCst);
        Reply::ok(&"x".repeat(BIG))
    }
}

/// The size of a [`Big`] answer's string.
const BIG: usize = 64 * 1024;

/// Serves [`Big`] with `header_timeout`; its count of answers made.
async fn start(header_timeout: Duration) -> (SocketAddr, Arc<AtomicUsize>) {
    let budget = rpcsmith::http::DEFAULT_MAX_UNSENT_BYTES;
    start_with(header_timeout, budget, false).await
}

/// Serves [`Big`] with `header_timeout` and `max_unsent_bytes`, directly or behind a
/// layer.
async fn start_with(
    header_timeout: Duration,
    max_unsent_bytes: usize,
    layered: bool,
) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let answers = Arc::new(AtomicUsize::new(0));
    let server = Server::builder(Big {
        answers: Arc::clone(&answers),
    })
    .build();
    let service = Service::new(server);
    if layered {
        let layered = tower::ServiceBuilder::new()
            .map_request(|request: Request<hyper::body::Incoming>| request)
            .service(service);
        let serve = Serve::new(listener, layered)
            .header_timeout(Some(header_timeout))
            .max_unsent_bytes(max_unsent_bytes);
        tokio::spawn(serve.run(std::future::pending()));
    } else {
        let serve = Serve::new(listener, service)
            .header_timeout(Some(header_timeout))
            .max_unsent_bytes(max_unsent_bytes);
        tokio::spawn(serve.run(std::future::pending()));
    }
    (addr, answers)
}

/// One HTTP/2 frame: its type, stream and payload.
async fn frame(socket: &mut TcpStream) -> (u8, u32, Vec<u8>) {
    let mut head = [0_u8; 9];
    socket.read_exact(&mut head).await.expect("a frame head");
    let length = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
    let stream = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff;
    let mut payload = vec![0_u8; length];
    socket
        .read_exact(&mut payload)
        .await
        .expect("a frame payload");
    (head[3], stream, payload)
}

#[tokio::test]
async fn http2_connections_are_told_explicit_bounds() {
    let (addr, _) = start(PATIENCE).await;
    let mut socket = TcpStream::connect(addr).await.expect("connect");
    socket
        .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0")
        .await
        .expect("write the preface and empty settings");
    let read = async {
        let (kind, stream, payload) = frame(&mut socket).await;
        assert_eq!((kind, stream), (0x4, 0), "the server's SETTINGS come first");
        let settings: HashMap<u16, u32> = payload
            .chunks_exact(6)
            .map(|setting| {
                let id = u16::from_be_bytes([setting[0], setting[1]]);
                let value = u32::from_be_bytes([setting[2], setting[3], setting[4], setting[5]]);
                (id, value)
            })
            .collect();
        // The connection's window grows from the protocol's 65,535 by a WINDOW_UPDATE.
        let increment = loop {
            let (kind, stream, payload) = frame(&mut socket).await;
            if (kind, stream) == (0x8, 0) {
                break u32::from_be_bytes(payload[..4].try_into().expect("four bytes"));
            }
        };
        (settings, increment)
    };
    let (settings, increment) = tokio::time::timeout(PATIENCE, read)
        .await
        .expect("the server's settings in time");
    assert_eq!(settings.get(&0x3), Some(&MAX_STREAMS), "{settings:?}");
    assert_eq!(settings.get(&0x4), Some(&STREAM_WINDOW), "{settings:?}");
    assert_eq!(settings.get(&0x5), Some(&MAX_FRAME), "{settings:?}");
    assert_eq!(settings.get(&0x6), Some(&MAX_HEADER_LIST), "{settings:?}");
    assert_eq!(65_535 + increment, CONNECTION_WINDOW);
}

/// An HTTP/2 client on `addr` that reads no answer's body (no stream may receive a
/// byte of data), and its connection's task.
async fn never_reading(
    addr: SocketAddr,
) -> (
    hyper::client::conn::http2::SendRequest<Full<Bytes>>,
    tokio::task::JoinHandle<hyper::Result<()>>,
) {
    let socket = TcpStream::connect(addr).await.expect("connect");
    let (sender, connection) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
        .initial_stream_window_size(0)
        .handshake(TokioIo::new(socket))
        .await
        .expect("an HTTP/2 handshake");
    (sender, tokio::spawn(connection))
}

/// A call of `big`.
fn request() -> Request<Full<Bytes>> {
    Request::post("http://localhost/")
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from_static(
            br#"{"jsonrpc":"2.0","method":"big","id":1}"#,
        )))
        .expect("a request")
}

#[tokio::test]
async fn a_client_that_never_reads_holds_at_most_max_streams_answers_until_idle() {
    // The answers (100 of 64 KiB) stay under the unsent budget: the stream limit and
    // the header timeout bound what is held.
    let header_timeout = Duration::from_millis(500);
    let (addr, answers) = start(header_timeout).await;
    let (sender, connection) = never_reading(addr).await;
    // One answer's head first: the server's settings are known from then on.
    let mut first = sender.clone();
    let head = tokio::time::timeout(PATIENCE, first.send_request(request()))
        .await
        .expect("a head in time")
        .expect("a head");
    let mut held = vec![head];
    // Then half as many again as the server allows at once, never read either.
    let mut calls = tokio::task::JoinSet::new();
    for _ in 1..MAX_STREAMS + MAX_STREAMS / 2 {
        let mut sender = sender.clone();
        let request = request();
        calls.spawn(async move { sender.send_request(request).await });
    }
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while answers.load(Ordering::SeqCst) < MAX_STREAMS as usize {
        assert!(
            tokio::time::Instant::now() < deadline,
            "answers: {answers:?}"
        );
        tokio::task::yield_now().await;
    }
    // The server holds those answers until the connection has had no request in
    // progress for a header timeout; then it closes it, and drops them.
    tokio::time::timeout(PATIENCE, connection)
        .await
        .expect("the server closes the connection of a client that never reads")
        .expect("the connection task ends")
        .ok();
    while let Some(call) = calls.join_next().await {
        if let Ok(head) = call.expect("the call task ends") {
            held.push(head);
        }
    }
    assert_eq!(answers.load(Ordering::SeqCst), MAX_STREAMS as usize);
    assert!(held.len() <= MAX_STREAMS as usize, "{}", held.len());
    assert!(held.iter().all(|head| head.status() == 200));
}

#[tokio::test]
async fn a_client_that_never_reads_is_closed_once_its_unsent_answers_pass_the_budget() {
    for layered in [false, true] {
        client_is_closed_past_the_budget(layered).await;
    }
}

async fn client_is_closed_past_the_budget(layered: bool) {
    let budget = 1024 * 1024;
    // The header timeout is not what closes it.
    let (addr, answers) = start_with(Duration::from_secs(60), budget, layered).await;
    let (mut sender, connection) = never_reading(addr).await;
    // One call at a time, each answer's head awaited, no body read: every answer stays
    // unsent, until the server closes the connection.
    let mut heads = Vec::new();
    let asking = async {
        // Each head is kept: dropping it would reset its stream, which drops its answer.
        while let Ok(head) = sender.send_request(request()).await {
            assert_eq!(head.status(), 200);
            heads.push(head);
        }
    };
    tokio::time::timeout(PATIENCE, asking)
        .await
        .expect("the server closes the connection in time");
    tokio::time::timeout(PATIENCE, connection)
        .await
        .expect("the connection ends")
        .expect("the connection task ends")
        .ok();
    // It closed as the answers made passed the budget: the last one made is the first
    // past it, and every one before was held. (An answer is its string and an
    // envelope of less than 64 bytes.)
    let made = answers.load(Ordering::SeqCst);
    assert!(
        (made - 1) * BIG <= budget,
        "layered {layered}: {made} answers made"
    );
    assert!(
        made * (BIG + 64) > budget,
        "layered {layered}: {made} answers made"
    );
    assert!(
        heads.len() <= made,
        "{} heads of {made} answers",
        heads.len()
    );
}
