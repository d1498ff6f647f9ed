//! Rate limits over real sockets on loopback, on a paused clock: a bucket emptied is
//! refused with a retry hint, and admits again once the clock has moved on by the hint.
//!
//! The clock is paused and only moved by the tests (`tokio::time::advance`): the server
//! runs with no timer of its own (no header, body or handler timeout), so the runtime
//! never jumps the clock forward by itself while it waits for the sockets.

mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use rpcsmith::http::{Serve, Service};
use rpcsmith::protocol::code;
use rpcsmith::server::{Limits, Rate, RateLimit, Server};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::ws::Settings;
use serde_json::Value;
use support::{TestMethods, request};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::Message;

/// A server limited by `limit`, answering HTTP and WebSocket on 127.0.0.1.
async fn start(limit: RateLimit) -> SocketAddr {
    let mut limits = Limits::default();
    limits.handler_timeout = None;
    let server = Server::builder(TestMethods::default())
        .limits(limits)
        .middleware(limit)
        .build();
    let service = Service::new(server)
        .body_timeout(None)
        .websocket(Peer::builder(), Settings::default());
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    let serve = Serve::new(listener, service).header_timeout(None);
    tokio::spawn(serve.run(std::future::pending()));
    address
}

/// One HTTP/1.1 keep-alive connection: one connection of the server's.
struct HttpConnection(hyper::client::conn::http1::SendRequest<Full<Bytes>>);

impl HttpConnection {
    async fn open(address: SocketAddr) -> Self {
        let socket = TcpStream::connect(address).await.expect("connect");
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(socket))
            .await
            .expect("handshake");
        tokio::spawn(connection);
        HttpConnection(sender)
    }

    /// Posts `body`; the status and the answer as JSON.
    async fn post(&mut self, body: String) -> (u16, Value) {
        let request = hyper::Request::post("/")
            .header("host", "localhost")
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body)))
            .expect("a request");
        let response = self.0.send_request(request).await.expect("an answer");
        let status = response.status().as_u16();
        let body = response.into_body().collect().await.expect("a body");
        (
            status,
            serde_json::from_slice(&body.to_bytes()).expect("JSON"),
        )
    }

    async fn add(&mut self, id: u64) -> Value {
        let (status, answer) = self.post(request("add", "[1,2]", id)).await;
        // Refusals are per-call errors: 200 like any other answer.
        assert_eq!(status, 200, "{answer}");
        answer
    }
}

/// A WebSocket connection (tungstenite, no timers of its own).
struct WsConnection(
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>,
);

impl WsConnection {
    async fn open(address: SocketAddr) -> Self {
        let (stream, _) = tokio_tungstenite::connect_async(format!("ws://{address}/"))
            .await
            .expect("a WebSocket");
        WsConnection(stream)
    }

    async fn add(&mut self, id: u64) -> Value {
        self.0
            .send(Message::text(request("add", "[1,2]", id)))
            .await
            .expect("send");
        loop {
            match self.0.next().await.expect("an answer").expect("a message") {
                Message::Text(text) => return serde_json::from_str(&text).expect("JSON"),
                Message::Ping(_) | Message::Pong(_) => {}
                other => panic!("unexpected {other:?}"),
            }
        }
    }
}

fn admitted(answer: &Value) {
    assert_eq!(answer["result"], 3, "{answer}");
}

/// Asserts a refusal for `which` limit; its retry hint in milliseconds.
fn refused(answer: &Value, which: &str) -> u64 {
    assert_eq!(answer["error"]["code"], code::RATE_LIMITED, "{answer}");
    assert_eq!(
        answer["error"]["message"],
        format!("Rate limit exceeded for this {which}"),
        "{answer}"
    );
    answer["error"]["data"]["retryAfterMs"]
        .as_u64()
        .unwrap_or_else(|| panic!("a retry hint: {answer}"))
}

#[tokio::test(start_paused = true)]
async fn http_connection_refused_then_admitted_after_the_hint() {
    // 2 calls at once, then one every 500 ms.
    let address = start(
        RateLimit::new().per_connection(Rate::new(1, Duration::from_millis(500)).capacity(2)),
    )
    .await;
    let mut first = HttpConnection::open(address).await;
    admitted(&first.add(1).await);
    admitted(&first.add(2).await);
    let wait = refused(&first.add(3).await, "connection");
    assert_eq!(wait, 500);
    // Another socket is another connection, with a bucket of its own.
    let mut second = HttpConnection::open(address).await;
    admitted(&second.add(1).await);

    tokio::time::advance(Duration::from_millis(wait - 1)).await;
    assert_eq!(refused(&first.add(4).await, "connection"), 1);
    tokio::time::advance(Duration::from_millis(1)).await;
    admitted(&first.add(5).await);
    refused(&first.add(6).await, "connection");
}

#[tokio::test(start_paused = true)]
async fn each_batch_member_takes_a_token() {
    let address = start(RateLimit::new().per_connection(Rate::per_second(3))).await;
    let mut connection = HttpConnection::open(address).await;
    let batch = format!(
        r#"[{},{},{{"jsonrpc":"2.0","method":"add","params":[1,2]}},{}]"#,
        request("add", "[1,2]", 1),
        request("add", "[1,2]", 2),
        request("add", "[1,2]", 3),
    );
    // Two requests and a notification take the three tokens; the last is refused.
    let (status, answer) = connection.post(batch).await;
    assert_eq!(status, 200);
    let answers = answer.as_array().expect("a batch answer");
    assert_eq!(answers.len(), 3, "{answer}");
    admitted(&answers[0]);
    admitted(&answers[1]);
    assert_eq!(answers[2]["id"], 3);
    assert_eq!(refused(&answers[2], "connection"), 334);
}

#[tokio::test(start_paused = true)]
async fn websocket_connection_refused_then_admitted_after_the_hint() {
    let address = start(RateLimit::new().per_connection(Rate::per_second(2))).await;
    let mut first = WsConnection::open(address).await;
    admitted(&first.add(1).await);
    admitted(&first.add(2).await);
    let wait = refused(&first.add(3).await, "connection");
    assert_eq!(wait, 500);
    let mut second = WsConnection::open(address).await;
    admitted(&second.add(1).await);

    tokio::time::advance(Duration::from_millis(wait)).await;
    admitted(&first.add(4).await);
    refused(&first.add(5).await, "connection");
}

#[tokio::test(start_paused = true)]
async fn connections_from_one_address_share_its_bucket() {
    let limit = RateLimit::new()
        .per_connection(Rate::per_second(10))
        .per_peer(Rate::per_second(3));
    let address = start(limit).await;
    // Three connections from 127.0.0.1, over both transports: three calls in all.
    let mut http_one = HttpConnection::open(address).await;
    let mut http_two = HttpConnection::open(address).await;
    let mut ws = WsConnection::open(address).await;
    admitted(&http_one.add(1).await);
    admitted(&http_two.add(1).await);
    admitted(&ws.add(1).await);
    let wait = refused(&ws.add(2).await, "address");
    refused(&http_two.add(2).await, "address");
    refused(&http_one.add(2).await, "address");
    assert_eq!(wait, 334);

    tokio::time::advance(Duration::from_millis(wait)).await;
    admitted(&http_two.add(3).await);
    refused(&ws.add(3).await, "address");
}

#[tokio::test(start_paused = true)]
async fn a_refusal_by_the_address_costs_the_connection_nothing() {
    // Connections refill slowly (2 calls per 10 s), the address fast (2 a second).
    let limit = RateLimit::new()
        .per_connection(Rate::new(2, Duration::from_secs(10)))
        .per_peer(Rate::per_second(2));
    let address = start(limit).await;
    let mut hog = HttpConnection::open(address).await;
    admitted(&hog.add(1).await);
    admitted(&hog.add(2).await);
    let mut other = HttpConnection::open(address).await;
    // Refused by the address, three times: had they taken the connection's tokens, the
    // third would be refused by the connection.
    for id in 1..=3 {
        refused(&other.add(id).await, "address");
    }
    // The address is full again a second on; the other connection still has both of
    // its tokens (a tenth of one would have come back by now).
    tokio::time::advance(Duration::from_secs(1)).await;
    admitted(&other.add(4).await);
    admitted(&other.add(5).await);
    refused(&other.add(6).await, "connection");
}

#[tokio::test(start_paused = true)]
async fn the_address_table_stays_within_its_size() {
    // Calls from many addresses, as a hostile client with many would make: the table
    // keeps at most `max_peers` buckets, yet limits the address calling now.
    let limit = Arc::new(
        RateLimit::new()
            .per_peer(Rate::per_second(1))
            .max_peers(100)
            .peer_address(|cx| {
                cx.headers()
                    .and_then(|h| h.get("x-test-peer"))
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse().ok())
            }),
    );
    let server = Server::builder(TestMethods::default())
        .middleware(Shared(limit.clone()))
        .build();
    for n in 0..5_000_u32 {
        let peer = std::net::Ipv4Addr::from(0x0a00_0000 + n);
        let mut metadata = rpcsmith::server::Metadata::default();
        let mut headers = ::http::HeaderMap::new();
        headers.insert("x-test-peer", peer.to_string().parse().unwrap());
        metadata.headers = Some(headers);
        let answer = server
            .handle(request("add", "[1,2]", 1).as_bytes(), metadata.clone())
            .await
            .expect("an answer");
        let answer: Value = serde_json::from_slice(&answer).unwrap();
        admitted(&answer);
        let again = server
            .handle(request("add", "[1,2]", 2).as_bytes(), metadata)
            .await
            .expect("an answer");
        refused(&serde_json::from_slice(&again).unwrap(), "address");
        assert!(
            limit.tracked_peers() <= 100,
            "{} at {n}",
            limit.tracked_peers()
        );
    }
    assert!(limit.tracked_peers() >= 50, "{}", limit.tracked_peers());
}

/// A rate limit shared with the test, to read its table.
struct Shared(Arc<RateLimit>);

impl rpcsmith::server::Middleware for Shared {
    fn call<'a>(
        &'a self,
        call: rpcsmith::server::Call<'a>,
        next: rpcsmith::server::Next<'a>,
    ) -> rpcsmith::server::BoxFuture<'a, rpcsmith::server::CallResult> {
        self.0.call(call, next)
    }
}
