//! The client side of pulled subscriptions (`rpc.stream.next` / `rpc.stream.cancel`),
//! against a hand-written server ([`Puller`]): over plain HTTP, where a push feed is
//! pulled because the transport cannot receive pushes, and over a TCP byte stream,
//! where a pull-only feed is pulled although pushes could come.

mod client_subscription_support;

use client_subscription_support::{
    FEED, Item, PATIENCE, Puller, loopback, next_event, pull_server, serve_http, serve_lines,
    tcp_peer,
};
use futures_util::StreamExt;
use rpcsmith::client::{Client, Subscription, SubscriptionError};
use rpcsmith::http;
use rpcsmith::protocol::Feed;
use rpcsmith::transport::peer::Peer;
use serde_json::json;

static PULLED: Feed = Feed::pull();

async fn next(subscription: &mut Subscription<Item>) -> Option<Result<Item, SubscriptionError>> {
    tokio::time::timeout(PATIENCE, subscription.next())
        .await
        .expect("the subscription yields in time")
}

/// A client over plain HTTP of a puller with `items`; the puller's events.
async fn over_http(
    items: Vec<serde_json::Value>,
) -> (Client, tokio::sync::mpsc::UnboundedReceiver<String>) {
    let (puller, events) = Puller::new(items);
    let (listener, address) = loopback().await;
    serve_http(pull_server(puller), listener, std::future::pending());
    let client = Client::new(http::Client::new(&format!("http://{address}/")).unwrap());
    (client, events)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_feed_is_pulled_over_http_to_its_end() {
    let items = vec![json!({ "n": 1 }), json!("not an item"), json!({ "n": 3 })];
    let (client, _events) = over_http(items).await;
    // The push feed: over HTTP, which cannot push, it is pulled.
    let mut stream: Subscription<Item> =
        client.subscribe("subscribe", &["a"], &FEED).await.unwrap();
    assert_eq!(stream.id().to_string(), "\"s1\"");
    // The server's first answer is `idle`: the client asks again by itself.
    assert_eq!(next(&mut stream).await, Some(Ok(Item { n: 1 })));
    assert!(matches!(
        next(&mut stream).await,
        Some(Err(SubscriptionError::Decode(_)))
    ));
    assert_eq!(next(&mut stream).await, Some(Ok(Item { n: 3 })));
    // `done`: the stream ends, with nothing to cancel.
    assert_eq!(next(&mut stream).await, None);
    assert_eq!(next(&mut stream).await, None);
    assert!(
        !stream.unsubscribe().await.unwrap(),
        "nothing left to cancel"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pulled_stream_is_cancelled_when_dropped_or_unsubscribed() {
    let (client, mut events) = over_http(vec![json!({ "n": 1 }); 5]).await;
    let mut dropped: Subscription<Item> =
        client.subscribe("subscribe", &["a"], &FEED).await.unwrap();
    assert_eq!(next(&mut dropped).await, Some(Ok(Item { n: 1 })));
    drop(dropped);
    assert_eq!(next_event(&mut events).await, "cancelled \"s1\"");
    let explicit: Subscription<Item> = client.subscribe("subscribe", &["a"], &FEED).await.unwrap();
    assert!(explicit.unsubscribe().await.unwrap(), "the server knew it");
    assert_eq!(next_event(&mut events).await, "cancelled \"s2\"");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_stream_is_a_server_error_that_ends_it() {
    let (client, _events) = over_http(vec![json!({ "n": 1 })]).await;
    let mut stream: Subscription<Item> =
        client.subscribe("subscribe", &["a"], &FEED).await.unwrap();
    // Cancelled behind its back by another handle: the server forgets it.
    let forgotten: bool = client
        .request("rpc.stream.cancel", &json!({ "stream": "s1" }))
        .await
        .unwrap();
    assert!(forgotten);
    let error = next(&mut stream).await;
    assert!(
        matches!(&error, Some(Err(SubscriptionError::Server(e))) if e.code == -32602 && e.message.contains("unknown stream")),
        "{error:?}"
    );
    assert_eq!(next(&mut stream).await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pull_only_feed_is_pulled_over_a_byte_stream() {
    let (puller, mut events) = Puller::new(vec![json!({ "n": 1 }), json!({ "n": 2 })]);
    let (listener, address) = loopback().await;
    serve_lines(pull_server(puller), listener, std::future::pending());
    let peer = tcp_peer(address, Peer::builder()).await;
    let mut pulled: Subscription<Item> = peer
        .client()
        .subscribe("subscribe", &["a"], &PULLED)
        .await
        .unwrap();
    assert_eq!(next(&mut pulled).await, Some(Ok(Item { n: 1 })));
    drop(pulled);
    assert_eq!(next_event(&mut events).await, "cancelled \"s1\"");
    let mut whole: Subscription<Item> = peer
        .client()
        .subscribe("subscribe", &["a"], &PULLED)
        .await
        .unwrap();
    assert_eq!(next(&mut whole).await, Some(Ok(Item { n: 1 })));
    assert_eq!(next(&mut whole).await, Some(Ok(Item { n: 2 })));
    assert_eq!(next(&mut whole).await, None);
    // Closing the connection ends a pulled stream as it ends a pushed one.
    let mut open: Subscription<Item> = peer
        .client()
        .subscribe("subscribe", &["a"], &PULLED)
        .await
        .unwrap();
    peer.close();
    assert_eq!(next(&mut open).await, Some(Err(SubscriptionError::Closed)));
    assert_eq!(next(&mut open).await, None);
}
