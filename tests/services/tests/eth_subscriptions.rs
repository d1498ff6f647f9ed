//! Ethereum's pub-sub end to end (`schemas/eth-newheads.json`, recognised by the
//! generator without `x-subscription`): the generated client's
//! `eth_subscribe(NewHeads)` against the generated server's, over a real WebSocket on a
//! loopback port, then the same subscription pulled over plain HTTP, a slow consumer,
//! and a server restarted under a reconnecting client (WebSocket and TCP).

mod streams_support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{FutureExt, StreamExt};
use rpcsmith::client::{Client, Subscription, SubscriptionError};
use rpcsmith::http;
use rpcsmith::transport::peer::{ConnectionState, Peer};
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith::transport::ws::{self, Reconnect, Reconnecting};
use rpcsmith_services::eth_newheads::{EthNewheadsClient, types};
use streams_support::{
    Node, PATIENCE, Serving, ended, header, next_subscription, number, serve, serve_anywhere,
    serve_tcp,
};
use tokio::net::TcpListener;
use tokio::sync::watch;

type Heads = Subscription<types::Header>;

/// The next thing `sub` yields, waiting at most [`PATIENCE`].
async fn next(sub: &mut Heads) -> Option<Result<types::Header, SubscriptionError>> {
    tokio::time::timeout(PATIENCE, sub.next())
        .await
        .expect("the subscription yields in time")
}

async fn next_head(sub: &mut Heads) -> types::Header {
    match next(sub).await {
        Some(Ok(head)) => head,
        other => panic!("expected a head, got {other:?}"),
    }
}

/// Subscribes to new heads.
async fn new_heads(client: &EthNewheadsClient) -> Heads {
    client
        .eth_subscribe(types::SubscriptionType::NewHeads)
        .await
        .unwrap()
}

async fn ws_client(
    url: &str,
    builder: rpcsmith::transport::peer::Builder,
) -> (Peer, EthNewheadsClient) {
    let peer = ws::connect(url, builder, ws::Settings::default())
        .await
        .unwrap();
    let client = EthNewheadsClient::new(peer.client().clone());
    (peer, client)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_heads_over_a_websocket_typed_until_dropped_or_unsubscribed() {
    let (node, mut subscribed) = Node::new();
    let server = serve_anywhere(node.clone()).await;
    let (peer, client) = ws_client(&server.ws_url(), Peer::builder()).await;

    let mut heads = new_heads(&client).await;
    // A random 128-bit id, as a 0x-hex string (the document's SubscriptionId).
    let id = heads.id().to_string();
    assert!(id.starts_with("\"0x") && id.len() > 20, "{id}");
    let first = next_subscription(&mut subscribed).await;
    for n in 1..=3 {
        assert_eq!(node.publish(n).await, 1);
    }
    for n in 1..=3 {
        assert_eq!(next_head(&mut heads).await, header(n));
    }
    // Ordinary calls go on beside the subscription, on the same connection.
    assert_eq!(client.eth_block_number().await.unwrap(), "0x3");

    // Dropped: the unsubscribe is sent, and the server ends its side.
    drop(heads);
    ended(&first).await;

    // Explicitly: the server confirms, and ends its side.
    let heads = new_heads(&client).await;
    let second = next_subscription(&mut subscribed).await;
    assert!(heads.unsubscribe().await.unwrap());
    ended(&second).await;
    // Unknown to the server now: `eth_unsubscribe` answers false.
    let stale: types::SubscriptionId = serde_json::from_str(&id).unwrap();
    assert!(!client.eth_unsubscribe(stale).await.unwrap());

    // The connection closing ends the server's sink, and the client's stream.
    let mut heads = new_heads(&client).await;
    let third = next_subscription(&mut subscribed).await;
    peer.close();
    ended(&third).await;
    assert_eq!(next(&mut heads).await, Some(Err(SubscriptionError::Closed)));
    assert_eq!(next(&mut heads).await, None);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_consumer_lags_alone_within_its_buffer() {
    const BUFFERED: usize = 4;
    const PUBLISHED: u64 = 200;
    let (node, mut subscribed) = Node::new();
    let server = serve_anywhere(node.clone()).await;
    // Each subscription of this client buffers at most 4 items (and 64 KiB).
    let builder = Peer::builder().subscription_buffer(BUFFERED, 64 * 1024);
    let (_peer, client) = ws_client(&server.ws_url(), builder).await;
    let mut slow = new_heads(&client).await;
    let keeping_up = new_heads(&client).await;
    // And a subscriber on a connection of its own.
    let (_other_peer, other_client) = ws_client(&server.ws_url(), Peer::builder()).await;
    let other = new_heads(&other_client).await;
    for _ in 0..3 {
        next_subscription(&mut subscribed).await;
    }

    // The two others read as the heads come, each in a task of its own, and the node
    // publishes the next head once both have this one: they see every head, in order,
    // never lagging, however far behind the slow one is.
    let reading = |mut heads: Heads| {
        let (seen, receipts) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some(head) = heads.next().await {
                let _ = seen.send(head.map(|head| number(&head)));
            }
        });
        receipts
    };
    let mut receipts = [reading(keeping_up), reading(other)];
    for n in 1..=PUBLISHED {
        assert_eq!(node.publish(n).await, 3);
        for receipt in &mut receipts {
            let seen = tokio::time::timeout(PATIENCE, receipt.recv())
                .await
                .unwrap();
            assert_eq!(seen, Some(Ok(n)));
        }
    }

    // The slow one, read only now: it was told how many heads it missed (the oldest
    // dropped: its buffer holds 4), and every head is accounted for, in order.
    let (mut accounted, mut lags) = (0, 0);
    while accounted < PUBLISHED {
        match next(&mut slow).await {
            Some(Ok(head)) => {
                assert_eq!(number(&head), accounted + 1, "after {lags} lags");
                accounted += 1;
            }
            Some(Err(SubscriptionError::Lagged { missed })) => {
                lags += 1;
                accounted += missed;
            }
            other => panic!("expected heads or a lag, got {other:?}"),
        }
    }
    assert!(
        lags >= 1,
        "a consumer {PUBLISHED} heads behind was never told it lagged"
    );
    assert_eq!(accounted, PUBLISHED);
    drop(slow);
    server.stop().await;
}

/// The transports a reconnecting client re-issues subscriptions on.
#[derive(Clone, Copy)]
enum Over {
    WebSocket,
    Tcp,
}

impl Over {
    fn serve(self, node: Arc<Node>, listener: TcpListener) -> Serving {
        match self {
            Over::WebSocket => serve(node, listener),
            Over::Tcp => serve_tcp(node, listener),
        }
    }

    /// A reconnecting client of the server at `address`, and its connection's states.
    fn reconnecting(self, address: SocketAddr) -> (Client, watch::Receiver<ConnectionState>) {
        // Real delays between attempts, short: each wait of the test is for a state.
        let policy = Reconnect::Fixed(Duration::from_millis(20)).max_retries(500);
        let builder = Peer::builder().timeout(PATIENCE);
        match self {
            Over::WebSocket => {
                let url = format!("ws://{address}/");
                Reconnecting::connect_watched(url, builder, ws::Settings::default(), policy)
                    .unwrap()
            }
            Over::Tcp => stream::Reconnecting::tcp_watched(
                builder,
                Codec::Newline,
                address.to_string(),
                policy,
            ),
        }
    }
}

/// A server restarted under a reconnecting client: the subscription is made again on the
/// new connection, says heads may have been missed, and goes on; nothing hangs.
async fn resumes_on_a_restarted_server(over: Over) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (node, mut subscribed) = Node::new();
    let server = over.serve(node.clone(), listener);
    let (client, mut states) = over.reconnecting(address);
    let client = EthNewheadsClient::new(client);
    let mut heads = new_heads(&client).await;
    let before = heads.id().clone();
    let first = next_subscription(&mut subscribed).await;
    node.publish(1).await;
    assert_eq!(next_head(&mut heads).await, header(1));

    // The server goes away, its subscription with it; block 2 is published to no one.
    server.stop().await;
    ended(&first).await;
    let lost = |state: &ConnectionState| *state != ConnectionState::Connected;
    tokio::time::timeout(PATIENCE, states.wait_for(lost))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(node.publish(2).await, 0);

    // A new server on the same address: the client reconnects and subscribes again.
    let (node, mut subscribed) = Node::new();
    let listener = TcpListener::bind(address).await.unwrap();
    let server = over.serve(node.clone(), listener);
    next_subscription(&mut subscribed).await;
    node.publish(3).await;
    assert_eq!(
        next(&mut heads).await,
        Some(Err(SubscriptionError::Resubscribed))
    );
    assert_eq!(next_head(&mut heads).await, header(3));
    assert_ne!(heads.id(), &before, "a new connection, a new id");
    assert!(heads.unsubscribe().await.unwrap());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscription_resumes_on_a_restarted_server_under_ws_reconnecting() {
    resumes_on_a_restarted_server(Over::WebSocket).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscription_resumes_on_a_restarted_server_under_tcp_reconnecting() {
    resumes_on_a_restarted_server(Over::Tcp).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_plain_http_the_same_subscription_is_pulled_until_it_ends_or_is_cancelled() {
    let (node, mut subscribed) = Node::new();
    let server = serve_anywhere(node.clone()).await;
    let transport = http::Client::new(&server.http_url()).unwrap();
    let client = EthNewheadsClient::new(Client::new(transport));

    // Pulled (HTTP cannot push): each head is asked for with `rpc.stream.next`.
    let mut heads = new_heads(&client).await;
    let first = next_subscription(&mut subscribed).await;
    node.publish(1).await;
    node.publish(2).await;
    assert_eq!(next_head(&mut heads).await, header(1));
    assert_eq!(next_head(&mut heads).await, header(2));
    // The server ends the stream: the client's ends too, no error.
    node.end_all();
    drop(first);
    assert_eq!(next(&mut heads).await, None);

    // Cancelled by the client (`rpc.stream.cancel`): the server ends its side.
    let heads = new_heads(&client).await;
    let second = next_subscription(&mut subscribed).await;
    assert!(heads.unsubscribe().await.unwrap());
    ended(&second).await;

    // Dropped while a pull is waiting for an item: cancelled as well.
    let mut heads = new_heads(&client).await;
    let third = next_subscription(&mut subscribed).await;
    // Polled once: the pull is under way, and nothing is there to answer it.
    assert!(heads.next().now_or_never().is_none());
    drop(heads);
    ended(&third).await;
    server.stop().await;
}

/// The guide's client side of a subscription (`rpcsmith::guide::getting_started`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_subscription() -> Result<(), Box<dyn std::error::Error>> {
    let (node, mut subscribed) = Node::new();
    let server = serve_anywhere(node.clone()).await;
    let publisher = tokio::spawn(async move {
        next_subscription(&mut subscribed).await;
        for n in 1..=3 {
            node.publish(n).await;
        }
    });
    let url = server.ws_url();
    let mut numbers = Vec::new();

    let peer = ws::connect(url, Peer::builder(), ws::Settings::default()).await?;
    let client = EthNewheadsClient::new(peer.into_client());
    let mut heads = client
        .eth_subscribe(types::SubscriptionType::NewHeads)
        .await?;
    while let Some(head) = heads.next().await {
        let head = head?; // Lagged, Resubscribed, Closed: see SubscriptionError
        numbers.push(head.number.clone());
        if head.number == "0x3" {
            break;
        }
    }

    assert_eq!(numbers, ["0x1", "0x2", "0x3"]);
    publisher.await?;
    server.stop().await;
    Ok(())
}
