//! Streams both ways, end to end: the generated client passes a stream as a param
//! (`"x-stream": true` in `uploads.json`), the generated server's handler pulls its items
//! from the caller with `rpc.stream.next`, over WebSocket on loopback and over a byte
//! stream (an in-process duplex pipe, as stdio is). And the bounds: a caller's stream
//! that never yields, a server that never pulls, cancellation from either side.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::{Stream, StreamExt, stream};
use rpcsmith::client::{Error, TransportErrorKind};
use rpcsmith::protocol::code;
use rpcsmith::server::{Limits, Server};
use rpcsmith::transport::Streamed;
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::Codec;
use rpcsmith::transport::ws::{self, Settings};
use rpcsmith_bothways::{Total, Uploads, UploadsClient, UploadsDispatcher};
use tokio::sync::oneshot;

fn server(limits: Limits) -> Server {
    Server::builder(UploadsDispatcher::new(Uploads))
        .limits(limits)
        .build()
}

/// A client of the uploads server over WebSocket on a loopback port.
async fn over_websocket() -> (UploadsClient, Peer) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = rpcsmith::http::Service::new(server(Limits::default()))
        .websocket(Peer::builder(), Settings::default());
    tokio::spawn(rpcsmith::http::serve(
        listener,
        service,
        std::future::pending(),
    ));
    let peer = ws::connect(
        format!("ws://{address}/"),
        Peer::builder(),
        Settings::default(),
    )
    .await
    .unwrap();
    (UploadsClient::new(peer.client().clone()), peer)
}

/// A client of the uploads server over a byte stream (newline-framed, as stdio is);
/// the server's end is kept in the returned pair.
fn over_bytes(
    limits: Limits,
    client: rpcsmith::transport::peer::Builder,
) -> (UploadsClient, [Peer; 2]) {
    let (near, far) = tokio::io::duplex(64 * 1024);
    let (far_read, far_write) = tokio::io::split(far);
    let server_end =
        Peer::builder()
            .serve(server(limits))
            .framed(Codec::Newline, far_read, far_write);
    let (read, write) = tokio::io::split(near);
    let peer = client.framed(Codec::Newline, read, write);
    (
        UploadsClient::new(peer.client().clone()),
        [peer, server_end],
    )
}

/// `items`, and a receiver that resolves once the stream has been dropped.
fn watched<S: Stream + Send + 'static>(
    items: S,
) -> (impl Stream<Item = S::Item> + Send, oneshot::Receiver<()>) {
    let (alive, dropped) = oneshot::channel::<()>();
    let items = items.map(move |item| {
        let _alive = &alive;
        item
    });
    (items, dropped)
}

/// Words `w0`, `w1`, … without end, counting how many were made.
fn counted_words(made: &Arc<AtomicUsize>) -> impl Stream<Item = String> + Send + 'static {
    let made = Arc::clone(made);
    stream::iter(0..).map(move |n| {
        made.fetch_add(1, Ordering::SeqCst);
        format!("w{n}")
    })
}

async fn sums_and_cancels(client: &UploadsClient) {
    let total = client
        .sum(
            "one to a hundred".into(),
            Streamed::new(stream::iter(1..=100_i64)),
        )
        .await
        .unwrap();
    assert_eq!(
        total,
        Total {
            label: "one to a hundred".into(),
            total: 5050,
            count: 100
        }
    );
    let empty = client
        .sum("none".into(), Streamed::new(stream::empty::<i64>()))
        .await
        .unwrap();
    assert_eq!((empty.total, empty.count), (0, 0));
    // The server lets go after two: only what it asked for was made, and the
    // caller's stream is dropped.
    let made = Arc::new(AtomicUsize::new(0));
    let (words, dropped) = watched(counted_words(&made));
    let two = client.take_two(Streamed::new(words)).await.unwrap();
    assert_eq!(two, ["w0", "w1"]);
    dropped.await.unwrap_err();
    assert_eq!(made.load(Ordering::SeqCst), 2, "pulled, never pushed ahead");
}

#[tokio::test]
async fn a_stream_param_over_websocket() {
    let (client, _peer) = over_websocket().await;
    sums_and_cancels(&client).await;
}

#[tokio::test]
async fn a_stream_param_over_a_byte_stream() {
    let (client, _peers) = over_bytes(Limits::default(), Peer::builder());
    sums_and_cancels(&client).await;
}

#[tokio::test]
async fn plain_http_cannot_carry_a_stream_param() {
    let transport = rpcsmith::http::Client::new("http://127.0.0.1:9/").unwrap();
    let client = UploadsClient::new(rpcsmith::client::Client::new(transport));
    let (numbers, dropped) = watched(stream::iter([1_i64]));
    match client.sum("x".into(), Streamed::new(numbers)).await {
        Err(Error::Transport(error)) => assert_eq!(error.kind(), TransportErrorKind::Config),
        other => panic!("{other:?}"),
    }
    dropped.await.unwrap_err();
    // And a server reached without a way back refuses the id it cannot pull.
    let answer = rpcsmith::transport::memory::connect(server(Limits::default()))
        .request::<serde_json::Value, _>(
            "sum",
            &serde_json::json!({"label": "x", "numbers": "0x1"}),
        )
        .await;
    match answer {
        Err(Error::Undeclared(error)) => {
            assert_eq!(error.code, code::INVALID_PARAMS);
            assert!(
                error.message.contains("call the caller"),
                "{}",
                error.message
            );
        }
        other => panic!("{other:?}"),
    }
}

// Paused time from here: a wait passes as soon as nothing else can run.

#[tokio::test(start_paused = true)]
async fn a_caller_stream_that_never_yields_ends_with_the_handler_time_limit() {
    let mut limits = Limits::default();
    limits.handler_timeout = Some(Duration::from_secs(45));
    let (client, _peers) = over_bytes(limits, Peer::builder().timeout(Duration::from_secs(3_600)));
    let (numbers, dropped) = watched(stream::pending::<i64>());
    let started = tokio::time::Instant::now();
    match client.sum("never".into(), Streamed::new(numbers)).await {
        Err(Error::Undeclared(error)) => assert_eq!(error.code, code::TIMEOUT),
        other => panic!("{other:?}"),
    }
    assert_eq!(started.elapsed(), Duration::from_secs(45));
    dropped.await.unwrap_err();
}

#[tokio::test(start_paused = true)]
async fn a_server_that_never_pulls_lets_the_stream_go() {
    // With the call: its answer (here, the client's timeout) drops the stream.
    let (client, _peers) = over_bytes(Limits::default(), Peer::builder());
    let (numbers, dropped) = watched(stream::iter([1_i64, 2]));
    let timed = UploadsClient::new(client.inner().with_timeout(Duration::from_secs(10)));
    assert!(matches!(
        timed.ignore(Streamed::new(numbers)).await,
        Err(Error::Timeout)
    ));
    dropped.await.unwrap_err();
    // Without: nobody asking for the connection's idle time drops it, call or no call.
    let patient = UploadsClient::new(client.inner().with_timeout(Duration::from_secs(3_600)));
    let (numbers, dropped) = watched(stream::iter([1_i64, 2]));
    let started = tokio::time::Instant::now();
    let call = tokio::spawn(async move { patient.ignore(Streamed::new(numbers)).await });
    dropped.await.unwrap_err();
    let idle = Limits::default().pull_idle_timeout;
    assert!(started.elapsed() >= idle, "{:?}", started.elapsed());
    assert!(started.elapsed() < idle * 2, "{:?}", started.elapsed());
    call.abort();
}

#[tokio::test(start_paused = true)]
async fn a_caller_that_gives_up_ends_its_stream() {
    let (client, _peers) = over_bytes(Limits::default(), Peer::builder());
    let (gate, opened) = tokio::sync::mpsc::channel::<i64>(1);
    let items = stream::unfold(opened, |mut opened| async move {
        opened.recv().await.map(|n| (n, opened))
    });
    let (numbers, dropped) = watched(items);
    let call = client.sum("given up".into(), Streamed::new(numbers));
    let mut call = Box::pin(call);
    gate.send(1).await.unwrap();
    // The call runs until the server has pulled the first item and waits on the next.
    tokio::select! {
        outcome = &mut call => panic!("the stream has not ended: {outcome:?}"),
        permit = gate.reserve() => drop(permit),
    }
    drop(call);
    dropped.await.unwrap_err();
}
