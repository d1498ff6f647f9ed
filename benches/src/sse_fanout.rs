//! The fan-out scenario over Server-Sent Events: rpcsmith's fan-out server (the same
//! `items_subscribe`, handler and publisher as `fanout`) behind its HTTP service with
//! sessions (`Streaming::sessions("items_subscribe")`, MCP's Streamable HTTP shape):
//! each subscriber `POST`s `items_subscribe`, which starts a session whose id comes back
//! in the `Session-Id` header with the subscription id, then opens the session's `GET`
//! event stream on the same keep-alive connection; the subscription's notifications
//! come on it as `data:` events, which the subscriber checks and counts as the
//! WebSocket subscribers do (method, subscription id, heads numbered one after the
//! other). Publishing waits until every stream is open.

use std::net::SocketAddr;

use anyhow::{Context as _, bail, ensure};
use bytes::{Bytes, BytesMut};
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use rpcsmith::http;
use rpcsmith::server::Server;
use tokio::net::{TcpListener, TcpStream};

use crate::api::quote;
use crate::fanout::{Heads, SUBSCRIBE, Subscribers, opened};
use crate::load::{Gauge, Load};

/// Each session's replay window: events, bytes (1,000 sessions hold 32 MiB at most).
const REPLAY_EVENTS: usize = 64;
const REPLAY_BYTES: usize = 32 << 10;

/// The header carrying the session id (`Streaming::new`'s default).
const SESSION: &str = "session-id";

/// Serves `server` over HTTP with sessions started by `items_subscribe`, at most
/// `max_connections` connections (and as many sessions) at once.
///
/// # Errors
///
/// When the address cannot be bound.
pub(crate) async fn serve(
    server: Server,
    address: SocketAddr,
    max_connections: Option<usize>,
) -> anyhow::Result<SocketAddr> {
    let listener = TcpListener::bind(address)
        .await
        .with_context(|| format!("cannot bind {address}"))?;
    let bound = listener.local_addr()?;
    let max = max_connections.unwrap_or(http::DEFAULT_MAX_CONNECTIONS);
    // Every subscriber of the load generator comes from one loopback address: the
    // per-peer cap, a guard against one hostile client, would refuse all but 64.
    // Each session's replay window small enough that every session's together fit in
    // the server's replay budget (64 MiB): a publisher faster than its readers then
    // waits at each session's full window. The default windows (4 MiB each) work too,
    // since a full budget gives up events already read, but hold about twice the memory
    // at the publishing peak (151 against 85 MB, measured 2026-11-29).
    let streaming = http::Streaming::new()
        .sessions(SUBSCRIBE)
        .max_sessions(max)
        .max_sessions_per_peer(max)
        .replay_window(REPLAY_EVENTS, REPLAY_BYTES);
    let service = http::Service::new(server).streaming(streaming);
    let serve = http::Serve::new(listener, service).max_connections(max);
    tokio::spawn(serve.run(std::future::pending()));
    Ok(bound)
}

/// `subscribers.count` sessions on `url`, each subscribed once and its event stream
/// open, as a load counting the heads they receive.
///
/// # Errors
///
/// When a connection cannot be opened, a subscription is refused, or a stream is not
/// opened.
pub(crate) async fn subscribe(url: &str, subscribers: Subscribers) -> anyhow::Result<Load> {
    let address = url
        .strip_prefix("http://")
        .map(|rest| rest.trim_end_matches('/').to_owned())
        .with_context(|| format!("not an http:// URL: {url}"))?;
    let streams = opened(subscribers, move || {
        let address = address.clone();
        async move { subscriber(&address).await }
    })
    .await?;
    let mut load = Load::default();
    for (body, id) in streams {
        load.spawn(move |gauge| receive(body, id, gauge));
    }
    Ok(load)
}

/// One session, subscribed, its event stream open: the stream's body and the
/// subscription id's JSON text.
async fn subscriber(address: &str) -> anyhow::Result<(Incoming, String)> {
    let stream = TcpStream::connect(address)
        .await
        .with_context(|| format!("connecting to {address}"))?;
    stream.set_nodelay(true)?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .context("HTTP/1.1 handshake")?;
    tokio::spawn(connection);
    let request = format!(r#"{{"jsonrpc":"2.0","method":"{SUBSCRIBE}","params":[],"id":1}}"#);
    let post = Request::builder()
        .method(Method::POST)
        .uri("/")
        .header("host", address)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Full::new(Bytes::from(request)))?;
    let answer = sender.send_request(post).await?;
    let session = answer
        .headers()
        .get(SESSION)
        .context("the answer to items_subscribe started no session")?
        .to_str()?
        .to_owned();
    let body = answer.into_body().collect().await?.to_bytes();
    let id = crate::fanout::subscription_id(&body)?;
    sender.ready().await?;
    let get = Request::builder()
        .method(Method::GET)
        .uri("/")
        .header("host", address)
        .header("accept", "text/event-stream")
        .header(SESSION, session)
        .body(Full::new(Bytes::new()))?;
    let stream = sender.send_request(get).await?;
    ensure!(
        stream.status() == 200,
        "the session's GET stream: {}",
        stream.status()
    );
    Ok((stream.into_body(), id))
}

/// Receives, checks and counts heads until the gauge says stop.
async fn receive(mut body: Incoming, id: String, gauge: Gauge) -> anyhow::Result<()> {
    let mut heads = Heads::new(id);
    let mut buffer = BytesMut::new();
    while gauge.running() {
        // A load must stop when told, even while no event comes (a server slowed down
        // by a profiler); a frame not yet read stays in the body.
        let frame = tokio::select! {
            frame = body.frame() => frame,
            () = gauge.stopped() => break,
        };
        let Some(frame) = frame else {
            bail!("the event stream ended");
        };
        let Ok(data) = frame?.into_data() else {
            continue;
        };
        buffer.extend_from_slice(&data);
        while let Some(end) = buffer.windows(2).position(|pair| pair == b"\n\n") {
            let event = buffer.split_to(end + 2);
            for line in event[..].split(|&byte| byte == b'\n') {
                if let Some(data) = line.strip_prefix(b"data: ") {
                    heads
                        .check(data)
                        .with_context(|| format!("an event: {}", quote(&event)))?;
                    gauge.add(1);
                }
            }
        }
    }
    Ok(())
}
