//! The client side of subscriptions, pushed, over real sockets on 127.0.0.1 (WebSocket
//! and TCP), against a hand-written server ([`Feeder`]): routing by id, an item right
//! behind the subscribe answer, a slow consumer, unsubscribing, a closed connection,
//! and a server restarted under a reconnecting client.

mod subscription_support;

use futures_util::StreamExt;
use rpcsmith::client::{Client, Subscription, SubscriptionError};
use rpcsmith::server::Server;
use rpcsmith::transport::http;
use rpcsmith::transport::peer::{ConnectionState, Peer, Reconnect};
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith::transport::ws::{self, Settings};
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;
use subscription_support::{FEED, Feeder, Item, Listener, PATIENCE, next_event};
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

fn item(n: u32) -> Next {
    Some(Ok(Item { n }))
}

/// A WebSocket server of `feeder` on `listener`, until `shutdown`; the task ends once
/// the port is free again.
fn ws_server(
    feeder: Feeder,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> JoinHandle<()> {
    let service =
        http::Service::new(Server::new(feeder)).websocket(Peer::builder(), Settings::default());
    tokio::spawn(http::serve(listener, service, shutdown))
}

/// A newline-framed TCP server of `feeder` on `listener`, until `shutdown`.
fn tcp_server(
    feeder: Feeder,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> JoinHandle<()> {
    let builder = Peer::builder().serve(Server::new(feeder));
    tokio::spawn(stream::serve_tcp(
        listener,
        builder,
        Codec::Newline,
        shutdown,
    ))
}

async fn listener() -> (tokio::net::TcpListener, SocketAddr) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    (listener, address)
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
    let (listener, address) = listener().await;
    ws_server(feeder.clone(), listener, std::future::pending());
    let (others, unmatched) = mpsc::unbounded_channel();
    let peer = peer.serve(Server::new(Listener(others)));
    let peer = ws::connect(format!("ws://{address}/"), peer, Settings::default())
        .await
        .unwrap();
    (peer, feeder, events, unmatched)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn items_go_to_their_own_subscription_typed() {
    let (peer, feeder, _events, mut unmatched) = connected(Peer::builder()).await;
    let client = peer.client();
    let mut a: Subscription<Item> = client.subscribe("subscribe", &["a"], &FEED).await.unwrap();
    let mut b: Subscription<Item> = client.subscribe("subscribe", &["b"], &FEED).await.unwrap();
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
    let (listener, address) = listener().await;
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
        let peer = stream::connect_tcp(Peer::builder(), Codec::Newline, address)
            .await
            .unwrap();
        let mut feed: Subscription<Item> = peer
            .client()
            .subscribe("subscribe", &["a"], &FEED)
            .await
            .unwrap();
        assert_eq!(next(&mut feed).await, item(42));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_consumer_lags_by_a_count_and_others_go_on() {
    let (peer, feeder, _events, _) =
        connected(Peer::builder().subscription_buffer(4, 1 << 20)).await;
    let client = peer.client();
    let mut slow: Subscription<Item> = client
        .subscribe("subscribe", &["slow"], &FEED)
        .await
        .unwrap();
    let mut other: Subscription<Item> = client
        .subscribe("subscribe", &["other"], &FEED)
        .await
        .unwrap();
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
    let mut big: Subscription<serde_json::Value> = client
        .subscribe("subscribe", &["big"], &FEED)
        .await
        .unwrap();
    let mut other: Subscription<Item> = client
        .subscribe("subscribe", &["other"], &FEED)
        .await
        .unwrap();
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
    let dropped: Subscription<Item> = client.subscribe("subscribe", &["a"], &FEED).await.unwrap();
    assert_eq!(next_event(&mut events).await, "subscribed a \"0x1\"");
    drop(dropped);
    assert_eq!(next_event(&mut events).await, "unsubscribed \"0x1\"");
    let explicit: Subscription<Item> = client.subscribe("subscribe", &["a"], &FEED).await.unwrap();
    assert_eq!(next_event(&mut events).await, "subscribed a \"0x2\"");
    assert_eq!(explicit.unsubscribe().await.unwrap(), true);
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
        let subscription: Subscription<Item> = peer
            .client()
            .subscribe("subscribe", &["a"], &FEED)
            .await
            .unwrap();
        (peer, subscription)
    });
    drop(runtime);
    drop(subscription);
    drop(peer);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_connection_ends_the_stream_with_closed() {
    let (feeder, _events) = Feeder::new("0x");
    let (listener, address) = listener().await;
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = ws_server(feeder.clone(), listener, async {
        let _ = stopped.await;
    });
    let peer = ws::connect(
        format!("ws://{address}/"),
        Peer::builder(),
        Settings::default(),
    )
    .await
    .unwrap();
    let mut feed: Subscription<Item> = peer
        .client()
        .subscribe("subscribe", &["a"], &FEED)
        .await
        .unwrap();
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
type Start = fn(Feeder, tokio::net::TcpListener, oneshot::Receiver<()>) -> JoinHandle<()>;

/// A subscription lives through a server restarted on the same port: the reconnecting
/// `client` re-issues it, and it says so before the new server's items.
async fn survives_a_restart(
    start: Start,
    connect: impl FnOnce(SocketAddr) -> (Client, watch::Receiver<ConnectionState>),
) {
    let (listener, address) = listener().await;
    let (first, _first_events) = Feeder::new("0xa");
    let (stop, stopped) = oneshot::channel();
    let serving = start(first.clone(), listener, stopped);
    let (client, mut states) = connect(address);
    let mut feed: Subscription<Item> = client.subscribe("subscribe", &["t"], &FEED).await.unwrap();
    let mut quiet: Subscription<Item> = client.subscribe("subscribe", &["q"], &FEED).await.unwrap();
    assert_eq!(feed.id().to_string(), "\"0xa1\"");
    first.publish("t", Item { n: 1 }).await;
    assert_eq!(next(&mut feed).await, item(1));

    drop(stop);
    serving.await.unwrap();
    reach(
        &mut states,
        ConnectionState::Waiting {
            delay: Duration::from_millis(20),
        },
    )
    .await;
    let (second, mut second_events) = Feeder::new("0xb");
    let listener = tokio::net::TcpListener::bind(address).await.unwrap();
    let (_keep, stopped) = oneshot::channel();
    let _serving = start(second.clone(), listener, stopped);
    // Both subscriptions come back, with their topics (their original params).
    let mut topics = Vec::new();
    for _ in 0..2 {
        let event = next_event(&mut second_events).await;
        topics.push(event.split(' ').nth(1).unwrap().to_owned());
    }
    topics.sort();
    assert_eq!(topics, ["q", "t"]);
    assert_eq!(
        next(&mut feed).await,
        Some(Err(SubscriptionError::Resubscribed))
    );
    assert!(feed.id().to_string().starts_with("\"0xb"), "{}", feed.id());
    second.publish("t", Item { n: 2 }).await;
    assert_eq!(next(&mut feed).await, item(2));
    assert_eq!(
        next(&mut quiet).await,
        Some(Err(SubscriptionError::Resubscribed))
    );
    // Dropping it now unsubscribes on the new connection, by its new id.
    let id = quiet.id().to_string();
    drop(quiet);
    assert_eq!(
        next_event(&mut second_events).await,
        format!("unsubscribed {id}")
    );
}

fn start_ws(
    feeder: Feeder,
    listener: tokio::net::TcpListener,
    stop: oneshot::Receiver<()>,
) -> JoinHandle<()> {
    ws_server(feeder, listener, async {
        let _ = stop.await;
    })
}

fn start_tcp(
    feeder: Feeder,
    listener: tokio::net::TcpListener,
    stop: oneshot::Receiver<()>,
) -> JoinHandle<()> {
    tcp_server(feeder, listener, async {
        let _ = stop.await;
    })
}

/// Real delays between attempts, short and fixed, so that the state waited for is known.
fn policy() -> Reconnect {
    Reconnect::Fixed(Duration::from_millis(20))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_survive_a_restart_under_ws_reconnecting() {
    survives_a_restart(start_ws, |address| {
        let builder = Peer::builder().timeout(PATIENCE);
        ws::Reconnecting::connect_watched(
            format!("ws://{address}/"),
            builder,
            Settings::default(),
            policy(),
        )
        .unwrap()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_survive_a_restart_under_stream_reconnecting() {
    survives_a_restart(start_tcp, |address| {
        let builder = Peer::builder().timeout(PATIENCE);
        stream::Reconnecting::tcp_watched(builder, Codec::Newline, address.to_string(), policy())
    })
    .await;
}
