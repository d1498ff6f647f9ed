//! A hand-written dispatcher with subscriptions, as a generated one would be, and raw
//! clients (newline-framed TCP, WebSocket) that see exactly what the server writes.

#![allow(dead_code, unreachable_pub)]

use futures_util::{SinkExt, StreamExt};
use rpcsmith::protocol::{ErrorObject, Feed};
use rpcsmith::server::Server;
use rpcsmith::server::{
    Context, Dispatch, Failure, Items, Reply, Sink, channel, subscribe, unsubscribe, unsubscribe_or,
};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::Codec;
use serde_json::Value;
use serde_json::value::RawValue;
use std::time::Duration;
use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream, Lines,
    ReadHalf, WriteHalf,
};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::mpsc;

/// Every test waits at most this long for anything.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// Starknet-shaped: by name, string ids.
pub static NAMED: Feed = Feed::push("starknet_subscriptionNewHeads", "subscription_id", "result")
    .unsubscribe("starknet_unsubscribe", "subscription_id", false);

/// By position, integer ids.
pub static POSITIONAL: Feed = Feed::push("tick", "subscription", "result")
    .by_position(true)
    .unsubscribe("untick", "subscription", true)
    .integer_ids();

/// Pulled everywhere.
pub static PULLED: Feed = Feed::pull();

/// The methods:
///
/// - `subscribeNewHeads` (NAMED), `subscribeTicks` (POSITIONAL), `subscribePulled`
///   (PULLED): a channel of `capacity` items; the handler first puts the params' `items`
///   (an array) in it, then hands its sink to the test through `sinks`. It yields
///   once first, so that it does not finish on its first poll.
/// - `subscribeCount` (NAMED): the items `0..n` of a plain stream, `n` the only param.
/// - `subscribeRefused`: the handler fails with `-32000 "no heads"`.
/// - `starknet_unsubscribe`, `untick`: the runtime's unsubscribe; `unsubscribeOr`: the
///   same, answering the declared error `66 "Invalid subscription id"` for an unknown id.
/// - `ping`: `"pong"`.
pub struct Feeds {
    pub sinks: mpsc::UnboundedSender<Sink<Value>>,
    pub capacity: usize,
}

/// The dispatcher and the receiver of its sinks.
pub fn feeds(capacity: usize) -> (Feeds, mpsc::UnboundedReceiver<Sink<Value>>) {
    let (sinks, receiver) = mpsc::unbounded_channel();
    (Feeds { sinks, capacity }, receiver)
}

impl Feeds {
    fn channel_feed(&self, cx: Context, feed: &'static Feed, params: Option<&RawValue>) -> Reply {
        let first: Vec<Value> = params
            .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
            .and_then(|p| p.get("items").cloned())
            .and_then(|items| serde_json::from_value(items).ok())
            .unwrap_or_default();
        let (sinks, capacity) = (self.sinks.clone(), self.capacity);
        subscribe(cx, feed, async move {
            // Not answered on the first poll: the call moves to a task of its own, whose
            // answer goes through the connection's queue like the items.
            tokio::task::yield_now().await;
            let (sink, items) = channel(capacity.max(first.len()));
            for item in first {
                sink.try_send(item).expect("room for the first items");
            }
            let _ = sinks.send(sink);
            Ok::<_, Failure>(items)
        })
    }
}

impl Dispatch for Feeds {
    fn call(&self, method: &str, params: Option<&RawValue>, cx: Context) -> Reply {
        match method {
            "subscribeNewHeads" => self.channel_feed(cx, &NAMED, params),
            "subscribeTicks" => self.channel_feed(cx, &POSITIONAL, params),
            "subscribePulled" => self.channel_feed(cx, &PULLED, params),
            "subscribeCount" => {
                let n: u64 = params
                    .and_then(|p| serde_json::from_str::<(u64,)>(p.get()).ok())
                    .map_or(0, |(n,)| n);
                subscribe(cx, &NAMED, async move {
                    Ok::<_, Failure>(Items::new(futures_util::stream::iter(0..n)))
                })
            }
            "subscribeRefused" => subscribe(cx, &NAMED, async {
                Err::<Items<u8>, Failure>(ErrorObject::new(-32000, "no heads").into())
            }),
            "starknet_unsubscribe" => unsubscribe(cx, &NAMED, params),
            "untick" => unsubscribe(cx, &POSITIONAL, params),
            "unsubscribeOr" => unsubscribe_or(
                cx,
                &NAMED,
                params,
                ErrorObject::new(66, "Invalid subscription id"),
            ),
            "ping" => Reply::ok("pong"),
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

/// The next sink a subscribe handler handed over.
pub async fn next_sink(sinks: &mut mpsc::UnboundedReceiver<Sink<Value>>) -> Sink<Value> {
    tokio::time::timeout(PATIENCE, sinks.recv())
        .await
        .expect("a subscription in time")
        .expect("the dispatcher is alive")
}

/// Waits until the subscription of `sink` has ended.
pub async fn closed(sink: &Sink<Value>) {
    tokio::time::timeout(PATIENCE, sink.closed())
        .await
        .expect("the subscription ends in time");
}

/// A client speaking newline-framed JSON, seeing every message: over TCP
/// ([`Lined::connect`]) or a pipe ([`Lined::piped`]).
pub struct Lined<R = OwnedReadHalf, W = OwnedWriteHalf> {
    lines: Lines<BufReader<R>>,
    writer: W,
}

impl Lined {
    pub async fn connect(address: std::net::SocketAddr) -> Self {
        let stream = TcpStream::connect(address).await.expect("connect");
        let (reader, writer) = stream.into_split();
        Lined {
            lines: BufReader::new(reader).lines(),
            writer,
        }
    }
}

/// The client end of a pipe.
pub type Piped = Lined<ReadHalf<DuplexStream>, WriteHalf<DuplexStream>>;

impl Piped {
    /// A pipe holding at most `buffer` bytes each way, its far end served by `server`
    /// as a peer (returned, to watch what it holds).
    pub fn piped(server: Server, buffer: usize) -> (Peer, Self) {
        let (near, far) = tokio::io::duplex(buffer);
        let (far_reader, far_writer) = tokio::io::split(far);
        let served = Peer::builder()
            .serve(server)
            .framed(Codec::Newline, far_reader, far_writer);
        let (reader, writer) = tokio::io::split(near);
        let lines = BufReader::new(reader).lines();
        (served, Lined { lines, writer })
    }
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Lined<R, W> {
    pub async fn send(&mut self, message: &str) {
        self.writer
            .write_all(message.as_bytes())
            .await
            .expect("write");
        self.writer.write_all(b"\n").await.expect("write");
    }

    /// The next message, as JSON.
    pub async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(PATIENCE, self.lines.next_line())
            .await
            .expect("a message in time")
            .expect("read")
            .expect("the connection is open");
        serde_json::from_str(&line).expect("JSON")
    }
}

/// A WebSocket client seeing every message.
pub struct Socket(tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>);

impl Socket {
    pub async fn connect(url: &str) -> Self {
        let (socket, _) = tokio_tungstenite::connect_async(url)
            .await
            .expect("connect");
        Socket(socket)
    }

    pub async fn send(&mut self, message: &str) {
        self.0
            .send(tokio_tungstenite::tungstenite::Message::text(message))
            .await
            .expect("send");
    }

    /// The next text message, as JSON.
    pub async fn recv(&mut self) -> Value {
        loop {
            let message = tokio::time::timeout(PATIENCE, self.0.next())
                .await
                .expect("a message in time")
                .expect("the connection is open")
                .expect("read");
            if let tokio_tungstenite::tungstenite::Message::Text(text) = message {
                return serde_json::from_str(text.as_str()).expect("JSON");
            }
        }
    }
}

/// A call's JSON text.
pub fn call(id: u64, method: &str, params: &Value) -> String {
    serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params, "id": id}).to_string()
}

/// Waits until `condition` holds, looking every few milliseconds, up to [`PATIENCE`]:
/// for a state the runtime gives no event for (what a connection holds).
pub async fn until(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !condition() {
        assert!(tokio::time::Instant::now() < deadline, "{what}");
        // Polling a state, not guessing a duration.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}
