//! What `serve` does with the connections it accepts, below the HTTP exchanges: the
//! header timeout that closes connections waiting too long for a request, and telling
//! HTTP/2 from HTTP/1.1 by the first bytes, however they arrive.

mod client_support;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::rt::{TokioExecutor, TokioIo};
use rpcsmith::client::Client;
use rpcsmith::http::{self, Serve, Service};
use serde_json::Value;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// Every test waits at most this long for anything.
const PATIENCE: Duration = Duration::from_secs(10);

/// Serves the test methods with `header_timeout` until the runtime ends.
async fn start(header_timeout: Option<Duration>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let service = Service::new(client_support::server());
    let serve = Serve::new(listener, service).header_timeout(header_timeout);
    tokio::spawn(serve.run(std::future::pending()));
    addr
}

/// The call the raw-socket tests send.
const CALL: &[u8] = br#"{"jsonrpc":"2.0","method":"add","params":[20,22],"id":1}"#;

/// Sends a request head saying that the body is `length` bytes long, then `body`.
async fn post(socket: &mut (impl AsyncWrite + Unpin), length: usize, body: &[u8]) {
    let head = format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    );
    socket.write_all(head.as_bytes()).await.expect("write");
    socket.write_all(body).await.expect("write");
}

/// How long until the server closes `socket`, reading (and discarding) what it sends.
async fn closed_after(mut socket: TcpStream) -> Duration {
    let start = Instant::now();
    let mut rest = Vec::new();
    tokio::time::timeout(PATIENCE, socket.read_to_end(&mut rest))
        .await
        .expect("the server closes the connection")
        .expect("read until closed");
    start.elapsed()
}

#[tokio::test]
async fn connections_waiting_too_long_for_a_request_are_closed() {
    // The real header timeout under test, short so that the test is; each wait below is
    // for the server to close a connection, bounded by PATIENCE.
    let timeout = Duration::from_millis(150);
    let addr = start(Some(timeout)).await;
    // One connects and sends nothing.
    let silent = TcpStream::connect(addr).await.expect("connect");
    // One sends half a request head.
    let mut slow = TcpStream::connect(addr).await.expect("connect");
    slow.write_all(b"POST / HTTP/1.1\r\nHost: localhost\r\n")
        .await
        .expect("write");
    // One makes a call, then stays idle.
    let mut idle = TcpStream::connect(addr).await.expect("connect");
    post(&mut idle, CALL.len(), CALL).await;
    let mut answer = [0_u8; 12];
    idle.read_exact(&mut answer).await.expect("an answer");
    assert_eq!(&answer, b"HTTP/1.1 200");

    for (name, socket) in [("silent", silent), ("slow", slow), ("idle", idle)] {
        let waited = closed_after(socket).await;
        // Between one and two periods after it started waiting, with some slack for a
        // busy machine.
        assert!(waited <= 2 * timeout + PATIENCE / 4, "{name}: {waited:?}");
    }
}

#[tokio::test]
async fn a_call_in_progress_outlasts_the_header_timeout() {
    // Wall-clock time is what is tested: a handler running six header-timeout periods.
    let addr = start(Some(Duration::from_millis(50))).await;
    let client = Client::new(http::Client::new(&format!("http://{addr}")).expect("valid URL"));
    // Its handler takes six periods; the connection stays open for its answer.
    let answer: i64 = client
        .with_timeout(PATIENCE)
        .request("sleep", &(300, 7))
        .await
        .expect("answered");
    assert_eq!(answer, 7);
}

#[tokio::test]
async fn without_a_header_timeout_an_idle_connection_stays_open() {
    let addr = start(None).await;
    let mut socket = TcpStream::connect(addr).await.expect("connect");
    let mut byte = [0_u8; 1];
    // Wall-clock time is what is tested: nothing happens for 300 ms (six of the periods
    // of the test above).
    let read = tokio::time::timeout(Duration::from_millis(300), socket.read(&mut byte)).await;
    assert!(read.is_err(), "still open, nothing sent: {read:?}");
}

/// A socket whose first write leaves out the first `skip` bytes (sent by the test
/// beforehand), so that the HTTP/2 preface reaches the server in two pieces.
struct Skipping {
    socket: TcpStream,
    skip: usize,
}

impl AsyncRead for Skipping {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.socket).poll_read(cx, buf)
    }
}

impl AsyncWrite for Skipping {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let skip = self.skip.min(buf.len());
        if skip > 0 {
            self.skip -= skip;
            return Poll::Ready(Ok(skip));
        }
        Pin::new(&mut self.socket).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.socket).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.socket).poll_shutdown(cx)
    }
}

#[tokio::test]
async fn an_http2_preface_in_pieces_is_still_http2() {
    let addr = start(Some(PATIENCE)).await;
    for split in [1, 3, 16, 23] {
        let mut socket = TcpStream::connect(addr).await.expect("connect");
        socket.set_nodelay(true).expect("nodelay");
        let preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
        socket.write_all(&preface[..split]).await.expect("write");
        // A slow client, in real time: the server may look at the first piece alone (the
        // case this is for) or, if it looks later, at the whole preface. The answer must
        // be HTTP/2 either way: no assertion depends on how long the pause is.
        tokio::time::sleep(Duration::from_millis(30)).await;
        let io = TokioIo::new(Skipping {
            socket,
            skip: split,
        });
        let (mut sender, connection) =
            hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
                .await
                .expect("an HTTP/2 handshake");
        tokio::spawn(connection);
        let request = Request::post("http://localhost/")
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from_static(
                br#"{"jsonrpc":"2.0","method":"add","params":[20,22],"id":1}"#,
            )))
            .expect("a request");
        let response = sender.send_request(request).await.expect("answered");
        assert_eq!(response.version(), hyper::Version::HTTP_2);
        let body = response.into_body().collect().await.expect("a body");
        let answer: Value = serde_json::from_slice(&body.to_bytes()).expect("JSON");
        assert_eq!(answer["result"], 42, "split after {split} bytes");
    }
}

#[tokio::test]
async fn a_body_in_many_chunks_up_to_the_limit_is_read_whole() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let service = Service::new(client_support::server()).max_request_size(CALL.len());
    tokio::spawn(http::serve(listener, service, std::future::pending()));
    let mut socket = TcpStream::connect(addr).await.expect("connect");
    socket.set_nodelay(true).expect("nodelay");
    socket
        .write_all(
            b"POST / HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n\
              transfer-encoding: chunked\r\n\r\n",
        )
        .await
        .expect("write");
    // One chunk of every 8 bytes, each sent on its own: the server reads several frames.
    for piece in CALL.chunks(8) {
        let chunk = format!("{:x}\r\n", piece.len());
        socket.write_all(chunk.as_bytes()).await.expect("write");
        socket.write_all(piece).await.expect("write");
        socket.write_all(b"\r\n").await.expect("write");
        // A slow client, in real time: however the server's reads fall, the body must be
        // read whole; no assertion depends on the pause.
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    socket.write_all(b"0\r\n\r\n").await.expect("write");
    let answer = read_answer(&mut socket).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with(r#""result":42,"id":1}"#), "{answer}");
}

/// Everything the server sends on `socket` until it closes it, within [`PATIENCE`].
async fn read_until_closed(socket: &mut TcpStream) -> String {
    let mut answer = Vec::new();
    tokio::time::timeout(PATIENCE, socket.read_to_end(&mut answer))
        .await
        .expect("the server answers and closes the connection in time")
        .expect("read until closed");
    String::from_utf8_lossy(&answer).into_owned()
}

/// One answer whose body is a JSON object, read from `socket` within [`PATIENCE`].
async fn read_answer(socket: &mut TcpStream) -> String {
    let mut answer = Vec::new();
    let mut buffer = [0_u8; 1024];
    while !answer.ends_with(b"}") {
        let read = tokio::time::timeout(PATIENCE, socket.read(&mut buffer))
            .await
            .expect("an answer in time")
            .expect("read");
        assert!(read > 0, "closed without an answer: {answer:?}");
        answer.extend_from_slice(&buffer[..read]);
    }
    String::from_utf8_lossy(&answer).into_owned()
}

/// Serves the test methods with a body timeout of `body_timeout`, on at most
/// `connections` connections, directly or behind a layer.
async fn start_limited(connections: usize, body_timeout: Duration, layered: bool) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let service = Service::new(client_support::server()).body_timeout(Some(body_timeout));
    if layered {
        let layered = tower::ServiceBuilder::new()
            .map_request(|request: hyper::Request<hyper::body::Incoming>| request)
            .service(service);
        let serve = Serve::new(listener, layered).max_connections(connections);
        tokio::spawn(serve.run(std::future::pending()));
    } else {
        let serve = Serve::new(listener, service).max_connections(connections);
        tokio::spawn(serve.run(std::future::pending()));
    }
    addr
}

#[tokio::test]
async fn a_body_that_stalls_is_answered_and_frees_its_connection_slot() {
    for layered in [false, true] {
        // One connection only: the stalled body holds it until its deadline.
        let addr = start_limited(1, Duration::from_millis(100), layered).await;
        let mut stalled = TcpStream::connect(addr).await.expect("connect");
        // The whole head, a `Content-Length` of the whole call, then half of it only.
        post(&mut stalled, CALL.len(), &CALL[..CALL.len() / 2]).await;
        let answer = read_until_closed(&mut stalled).await;
        assert!(
            answer.starts_with("HTTP/1.1 408"),
            "layered {layered}: {answer}"
        );
        assert!(answer.contains("-32012"), "layered {layered}: {answer}");
        // The slot is free again: another client is served.
        let client = Client::new(http::Client::new(&format!("http://{addr}")).expect("valid URL"));
        let sum: i64 = client
            .with_timeout(PATIENCE)
            .request("add", &[1, 2])
            .await
            .expect("served once the stalled body's slot is free");
        assert_eq!(sum, 3, "layered {layered}");
    }
}

#[tokio::test]
async fn a_body_sent_a_byte_at_a_time_meets_one_deadline_for_the_whole_body() {
    let addr = start_limited(1, Duration::from_millis(200), false).await;
    let length = 10_000;
    let socket = TcpStream::connect(addr).await.expect("connect");
    socket.set_nodelay(true).expect("nodelay");
    let (mut reader, mut writer) = socket.into_split();
    post(&mut writer, length, b"").await;
    // The attacker's pace: a byte every 10 ms, each well within any per-read timeout,
    // 100 s for the whole body. It stops when the server has closed the connection.
    let dripping = tokio::spawn(async move {
        for _ in 0..length {
            if writer.write_all(b" ").await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    let mut answer = Vec::new();
    tokio::time::timeout(PATIENCE, reader.read_to_end(&mut answer))
        .await
        .expect("answered long before the whole body has come")
        .expect("read until closed");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    dripping.abort();
}

#[tokio::test]
async fn a_connection_past_the_limit_is_refused_at_once() {
    let addr = start_limited(1, PATIENCE, false).await;
    // The only slot: a kept-alive connection, answered once, then idle.
    let mut holder = TcpStream::connect(addr).await.expect("connect");
    post(&mut holder, CALL.len(), CALL).await;
    let answer = read_answer(&mut holder).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");

    // HTTP/1.1 past the limit: a 503 that says when to retry, then the connection closes.
    let mut refused = TcpStream::connect(addr).await.expect("connect");
    post(&mut refused, CALL.len(), CALL).await;
    let answer = read_until_closed(&mut refused).await;
    let (refusal, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
    assert!(refusal.starts_with("HTTP/1.1 503"), "{answer}");
    let refusal = refusal.to_ascii_lowercase();
    assert!(refusal.contains("\r\nretry-after: 1\r\n"), "{answer}");
    assert!(
        refusal.contains("\r\ncontent-type: application/json"),
        "{answer}"
    );
    let error: Value = serde_json::from_str(body).expect("a JSON-RPC error body");
    assert_eq!(error["error"]["code"], -32009, "{answer}");
    assert_eq!(error["id"], Value::Null, "{answer}");

    // HTTP/2 past the limit: the same refusal on its stream.
    let socket = TcpStream::connect(addr).await.expect("connect");
    let (mut sender, connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(socket))
            .await
            .expect("an HTTP/2 handshake");
    let connection = tokio::spawn(connection);
    let request = Request::post("http://localhost/")
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from_static(CALL)))
        .expect("a request");
    let response = tokio::time::timeout(PATIENCE, sender.send_request(request))
        .await
        .expect("refused in time")
        .expect("an answer");
    assert_eq!(response.status(), hyper::StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(response.headers()["retry-after"], "1");
    // And the server ends the HTTP/2 connection.
    tokio::time::timeout(PATIENCE, connection)
        .await
        .expect("the server closes the HTTP/2 connection")
        .expect("the connection task ends")
        .expect("a clean close");

    // The holder is still served.
    post(&mut holder, CALL.len(), CALL).await;
    let answer = read_answer(&mut holder).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}
