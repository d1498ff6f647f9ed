//! The client side of subscriptions, pushed, over real sockets on 127.0.0.1 (WebSocket
//! and TCP), against a hand-written server ([`Feeder`]): routing by id, an item right
//! behind the subscribe answer, a slow consumer, unsubscribing, a closed connection,
//! and a server restarted under a reconnecting client.

mod client_subscription_support;

use client_subscription_support::{
    FEED, Feeder, Item, Listener, PATIENCE, loopback, next_event, serve_http, serve_lines,
    tcp_peer, ws_peer,
};
use futures_util::StreamExt;
use rpcsmith::client::{Client, Subscription, SubscriptionError};
use rpcsmith::server::Server;
use rpcsmith::transport::peer::{ConnectionState, Peer, Reconnect};
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith::transport::ws::{self, Settings};
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

type Next = Option<Result<Item, SubscriptionError>>;

/// The subscription's next item, waiting at most [`PATIENCE`].
async fn next(subscription: &mut Subscription<Item>) -> Next {
    tokio::time::timeout(PATIENCE, subscription.next())
        .await
        .expect("the subscription yields in time")
}

/// Subscribes to `topic` of a [`Feeder`].
async fn subscribe<T: serde::de::DeserializeOwned>(
    client: &Client,
    topic: &str,
) -> Subscription<T> {
    client
        .subscribe("subscribe", &[topic], &FEED)
        .await
        .unwrap()
}

fn item(n: u32) -> Next {
    Some(Ok(Item { n }))
}

/// A WebSocket server of `feeder` on `listener`, until `shutdown`.
fn ws_server(
    feeder: Feeder,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> JoinHandle<()> {
    serve_http(Server::new(feeder), listener, shutdown)
}

/// A WebSocket connection to a fresh feeder, whose other notifications go to the
/// returned receiver; and the feeder with its events.
async fn connected(
    peer: rpcsmith::transport::peer::Builder,
) -> (
    Peer,
    Feeder,
    mpsc::UnboundedReceiver<String>,
    mpsc::UnboundedReceiver<String>,
) {
    let (feeder, events) = Feeder::new("0x");
    let (listener, address) = loopback().await;
    ws_server(feeder.clone(), listener, std::future::pending());
    let (others, unmatched) = mpsc::unbounded_channel();
    let peer = ws_peer(address, peer.serve(Server::new(Listener(others)))).await;
    (peer, feeder, events, unmatched)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn items_go_to_their_own_subscription_typed() {
    let (peer, feeder, _events, mut unmatched) = connected(Peer::builder()).await;
    let client = peer.client();
    let mut a: Subscription<Item> = subscribe(client, "a").await;
    let mut b: Subscription<Item> = subscribe(client, "b").await;
    assert_ne!(a.id(), b.id());
    assert_eq!(a.id().to_string(), "\"0x1\"");
    for n in 0..3 {
        assert_eq!(feeder.publish("a", Item { n }).await, 1);
        assert_eq!(feeder.publish("b", Item { n: 10 + n }).await, 1);
    }
    for n in 0..3 {
        assert_eq!(next(&mut a).await, item(n));
        assert_eq!(next(&mut b).await, item(10 + n));
    }
    // An item that does not fit is an error in place; the stream goes on.
    feeder.publish("a", "not an item").await;
    feeder.publish("a", Item { n: 7 }).await;
    assert!(matches!(
        next(&mut a).await,
        Some(Err(SubscriptionError::Decode(_)))
    ));
    assert_eq!(next(&mut a).await, item(7));
    // A notification for no subscription goes to the peer's own handler, as before.
    assert!(feeder.push_as("\"0xdead\"", Item { n: 1 }).await);
    let other = tokio::time::timeout(PATIENCE, unmatched.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(
        other.starts_with("note ") && other.contains(r#""subscription":"0xdead""#),
        "{other}"
    );
}

/// A server on 127.0.0.1 that answers the first request it reads with `"0xfeed"` and,
/// in the same write, sends an item for it: both reach the client's reader together.
async fn eager_server() -> SocketAddr {
    let (listener, address) = loopback().await;
    tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        let (reader, mut writer) = socket.into_split();
        let mut lines = BufReader::new(reader).lines();
        let request = lines.next_line().await.unwrap().unwrap();
        let request: serde_json::Value = serde_json::from_str(&request).unwrap();
        let answer =
            serde_json::json!({ "jsonrpc": "2.0", "result": "0xfeed", "id": request["id"] });
        let item = r#"{"jsonrpc":"2.0","method":"note","params":{"subscription":"0xfeed","result":{"n":42}}}"#;
        writer
            .write_all(format!("{answer}\n{item}\n").as_bytes())
            .await
            .unwrap();
        // Keep the connection open until the client is done.
        while let Ok(Some(_)) = lines.next_line().await {}
    });
    address
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_item_right_behind_the_answer_is_not_lost() {
    for _ in 0..20 {
        let address = eager_server().await;
        let peer = tcp_peer(address, Peer::builder()).await;
        let mut feed: Subscription<Item> = subscribe(peer.client(), "a").await;
        assert_eq!(next(&mut feed).await, item(42));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_consumer_lags_by_a_count_and_others_go_on() {
    let (peer, feeder, _events, _) =
        connected(Peer::builder().subscription_buffer(4, 1 << 20)).await;
    let client = peer.client();
    let mut slow: Subscription<Item> = subscribe(client, "slow").await;
    let mut other: Subscription<Item> = subscribe(client, "other").await;
    for n in 0..100 {
        feeder.publish("slow", Item { n }).await;
    }
    feeder.publish("other", Item { n: 1000 }).await;
    // Items are routed in order: when `other` has its item, `slow` has had all of its.
    assert_eq!(next(&mut other).await, item(1000));
    assert_eq!(
        next(&mut slow).await,
        Some(Err(SubscriptionError::Lagged { missed: 96 }))
    );
    for n in 96..100 {
        assert_eq!(next(&mut slow).await, item(n));
    }
    // Caught up, it gets every item again.
    feeder.publish("slow", Item { n: 100 }).await;
    assert_eq!(next(&mut slow).await, item(100));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_buffer_is_bounded_in_bytes_too() {
    // Room for about two messages of a few hundred bytes, whatever the count.
    let (peer, feeder, _events, _) =
        connected(Peer::builder().subscription_buffer(1000, 700)).await;
    let client = peer.client();
    let mut big: Subscription<serde_json::Value> = subscribe(client, "big").await;
    let mut other: Subscription<Item> = subscribe(client, "other").await;
    let text = "x".repeat(250);
    for n in 0..50 {
        feeder
            .publish("big", serde_json::json!({ "n": n, "text": text }))
            .await;
    }
    feeder.publish("other", Item { n: 1 }).await;
    assert_eq!(next(&mut other).await, item(1));
    let lagged = tokio::time::timeout(PATIENCE, big.next()).await.unwrap();
    assert_eq!(lagged, Some(Err(SubscriptionError::Lagged { missed: 48 })));
    let last = tokio::time::timeout(PATIENCE, big.next()).await.unwrap();
    assert_eq!(last.unwrap().unwrap()["n"], 48);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsubscribing_reaches_the_server() {
    let (peer, feeder, mut events, mut unmatched) = connected(Peer::builder()).await;
    let client = peer.client();
    let dropped: Subscription<Item> = subscribe(client, "a").await;
    assert_eq!(next_event(&mut events).await, "subscribed a \"0x1\"");
    drop(dropped);
    assert_eq!(next_event(&mut events).await, "unsubscribed \"0x1\"");
    let explicit: Subscription<Item> = subscribe(client, "a").await;
    assert_eq!(next_event(&mut events).await, "subscribed a \"0x2\"");
    assert!(explicit.unsubscribe().await.unwrap());
    assert_eq!(next_event(&mut events).await, "unsubscribed \"0x2\"");
    // Nothing is routed to them any more: what comes goes to the handler.
    assert!(feeder.push_as("\"0x2\"", Item { n: 1 }).await);
    let other = tokio::time::timeout(PATIENCE, unmatched.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(other.contains("0x2"), "{other}");
}

#[test]
fn dropping_without_a_runtime_does_not_panic() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (peer, subscription) = runtime.block_on(async {
        let (peer, _feeder, _events, _) = connected(Peer::builder()).await;
        let subscription: Subscription<Item> = subscribe(peer.client(), "a").await;
        (peer, subscription)
    });
    drop(runtime);
    drop(subscription);
    drop(peer);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_connection_ends_the_stream_with_closed() {
    let (feeder, _events) = Feeder::new("0x");
    let (listener, address) = loopback().await;
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = ws_server(feeder.clone(), listener, async {
        let _ = stopped.await;
    });
    let peer = ws_peer(address, Peer::builder()).await;
    let mut feed: Subscription<Item> = subscribe(peer.client(), "a").await;
    feeder.publish("a", Item { n: 1 }).await;
    drop(stop);
    serving.await.unwrap();
    // What came before the end is still given, then the end, then nothing.
    assert_eq!(next(&mut feed).await, item(1));
    assert_eq!(next(&mut feed).await, Some(Err(SubscriptionError::Closed)));
    assert_eq!(next(&mut feed).await, None);
    assert_eq!(next(&mut feed).await, None);
}

/// Waits up to [`PATIENCE`] for `states` to reach `wanted`.
async fn reach(states: &mut watch::Receiver<ConnectionState>, wanted: ConnectionState) {
    let reached = matches!(
        tokio::time::timeout(PATIENCE, states.wait_for(|state| *state == wanted)).await,
        Ok(Ok(_))
    );
    assert!(reached, "still {:?}", *states.borrow());
}

/// How a test starts a server of a feeder on a listener, until a shutdown.
/// Starts a server of a feeder at the test's fixed place (a port, a socket path), until
/// a shutdown; the task ends once the place is free again.
type Start = Box<dyn Fn(Feeder, oneshot::Receiver<()>) -> JoinHandle<()>>;

/// A subscription lives through a server restarted at the same place: the reconnecting
/// `client` re-issues it, and it says so before the new server's items.
async fn survives_a_restart(start: Start, (client, mut states): Reconnected) {
    let (first, _first_events) = Feeder::new("0xa");
    let (stop, stopped) = oneshot::channel();
    let serving = start(first.clone(), stopped);
    let mut feed: Subscription<Item> = subscribe(&client, "t").await;
    let mut quiet: Subscription<Item> = subscribe(&client, "q").await;
    assert_eq!(feed.id().to_string(), "\"0xa1\"");
    first.publish("t", Item { n: 1 }).await;
    assert_eq!(next(&mut feed).await, item(1));

    drop(stop);
    serving.await.unwrap();
    let waiting = ConnectionState::Waiting {
        delay: Duration::from_millis(20),
    };
    reach(&mut states, waiting).await;
    let (second, mut second_events) = Feeder::new("0xb");
    let (_keep, stopped) = oneshot::channel();
    let _serving = start(second.clone(), stopped);
    // Both subscriptions come back, with their topics (their original params).
    let mut topics = Vec::new();
    for _ in 0..2 {
        let event = next_event(&mut second_events).await;
        topics.push(event.split(' ').nth(1).unwrap().to_owned());
    }
    topics.sort();
    assert_eq!(topics, ["q", "t"]);
    let resubscribed = Some(Err(SubscriptionError::Resubscribed));
    assert_eq!(next(&mut feed).await, resubscribed);
    assert!(feed.id().to_string().starts_with("\"0xb"), "{}", feed.id());
    second.publish("t", Item { n: 2 }).await;
    assert_eq!(next(&mut feed).await, item(2));
    assert_eq!(next(&mut quiet).await, resubscribed);
    // Dropping it now unsubscribes on the new connection, by its new id.
    let id = quiet.id().to_string();
    drop(quiet);
    let unsubscribed = next_event(&mut second_events).await;
    assert_eq!(unsubscribed, format!("unsubscribed {id}"));
}

/// A reconnecting client and its connection's states.
type Reconnected = (Client, watch::Receiver<ConnectionState>);

/// An address of 127.0.0.1 where nothing listens, and how to start a server there with
/// `serve` (WebSocket or TCP).
async fn on_a_port(
    serve: fn(Server, tokio::net::TcpListener, Shutdown) -> JoinHandle<()>,
) -> (SocketAddr, Start) {
    let (listener, address) = loopback().await;
    drop(listener);
    let start: Start = Box::new(move |feeder, stop| {
        let listener = std::net::TcpListener::bind(address).unwrap();
        listener.set_nonblocking(true).unwrap();
        let listener = tokio::net::TcpListener::from_std(listener).unwrap();
        serve(
            Server::new(feeder),
            listener,
            Box::pin(async {
                let _ = stop.await;
            }),
        )
    });
    (address, start)
}

/// A server's shutdown signal.
type Shutdown = std::pin::Pin<Box<dyn Future<Output = ()> + Send>>;

/// Real delays between attempts, short and fixed, so that the state waited for is known.
fn policy() -> Reconnect {
    Reconnect::Fixed(Duration::from_millis(20))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_survive_a_restart_under_ws_reconnecting() {
    let (address, start) = on_a_port(serve_http).await;
    let builder = Peer::builder().timeout(PATIENCE);
    let url = format!("ws://{address}/");
    let client = ws::Reconnecting::connect_watched(url, builder, Settings::default(), policy());
    survives_a_restart(start, client.unwrap()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_survive_a_restart_under_stream_reconnecting_over_tcp() {
    let (address, start) = on_a_port(serve_lines).await;
    let builder = Peer::builder().timeout(PATIENCE);
    let client =
        stream::Reconnecting::tcp_watched(builder, Codec::Newline, address.to_string(), policy());
    survives_a_restart(start, client).await;
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_survive_a_restart_under_stream_reconnecting_over_a_unix_socket() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("feeder.sock");
    let place = path.clone();
    let start: Start = Box::new(move |feeder, stop| {
        let _ = std::fs::remove_file(&place);
        let listener = std::os::unix::net::UnixListener::bind(&place).unwrap();
        listener.set_nonblocking(true).unwrap();
        let listener = tokio::net::UnixListener::from_std(listener).unwrap();
        let builder = Peer::builder().serve(Server::new(feeder));
        tokio::spawn(stream::serve_unix(
            listener,
            builder,
            Codec::Newline,
            async {
                let _ = stop.await;
            },
        ))
    });
    let builder = Peer::builder().timeout(PATIENCE);
    let client = stream::Reconnecting::unix_watched(builder, Codec::Newline, path, policy());
    survives_a_restart(start, client).await;
}

/// An item that does not fit cites its schema at its place under the notification that
/// carries the items, with its position, from the client's table of places (what a
/// generated client gives its `Client`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_item_that_does_not_fit_cites_its_schema_with_its_position() {
    #[derive(Debug, PartialEq, serde::Deserialize)]
    #[serde(rename = "Tick @ #/methods/0/result/schema")]
    struct Tick {
        n: u32,
    }
    // The item's type was converted at the subscribe method's result; the same schema
    // is written under the notification `note` too.
    static PLACES: rpcsmith::protocol::mismatch::Places = rpcsmith::protocol::mismatch::Places::new(
        "ticks.json",
        "note\t#/methods/1\nsubscribe\t#/methods/0\n",
        "#/methods/0/result/schema\t12\t9\n\
         #/methods/1/params/1/schema\t30\t11\t#/methods/0/result/schema\n",
    );
    let (peer, feeder, _events, _unmatched) = connected(Peer::builder()).await;
    let client = peer.client().clone().places(&PLACES);
    let mut ticks: Subscription<Tick> = subscribe(&client, "a").await;
    feeder.publish("a", "not an item").await;
    let next = tokio::time::timeout(PATIENCE, ticks.next())
        .await
        .expect("the subscription yields in time");
    let Some(Err(error)) = next else {
        panic!("a decode error, not {next:?}");
    };
    assert_eq!(
        error.to_string(),
        "could not decode item: expected an object, found a string \"not an item\" \
         (schema #/methods/1/params/1/schema at ticks.json:30:11)"
    );
}
