//! The client's `Subscription` against the runtime's own server side
//! (`server::subscribe`, `Items`, `Sink`), on real loopback sockets: pushed over
//! WebSocket (string ids, by name) and TCP (integer ids, by position), and pulled over
//! plain HTTP; unsubscribing and dropping end the server's sink.

mod client_subscription_support;
mod subscription_support;

use client_subscription_support::{loopback, serve_http, serve_lines, tcp_peer, ws_peer};
use futures_util::StreamExt;
use rpcsmith::client::{Client, Error, Subscription, SubscriptionError};
use rpcsmith::http;
use rpcsmith::server::Server;
use rpcsmith::transport::peer::Peer;
use serde_json::json;
use std::net::SocketAddr;
use subscription_support::{Feeds, NAMED, PATIENCE, POSITIONAL, closed, feeds, next_sink};

async fn next(subscription: &mut Subscription<u64>) -> Option<Result<u64, SubscriptionError>> {
    tokio::time::timeout(PATIENCE, subscription.next())
        .await
        .expect("the subscription yields in time")
}

/// `feeds` over HTTP and WebSocket on one port of 127.0.0.1.
async fn http_and_ws(feeds: Feeds) -> SocketAddr {
    let (listener, address) = loopback().await;
    serve_http(Server::new(feeds), listener, std::future::pending());
    address
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pushed_over_websocket_and_dropped() {
    let (feeds, mut sinks) = feeds(8);
    let address = http_and_ws(feeds).await;
    let peer = ws_peer(address, Peer::builder()).await;
    let params = json!({ "items": [1, 2, 3] });
    let mut heads: Subscription<u64> = peer
        .client()
        .subscribe("subscribeNewHeads", &params, &NAMED)
        .await
        .unwrap();
    let sink = next_sink(&mut sinks).await;
    for n in 1..=3 {
        assert_eq!(next(&mut heads).await, Some(Ok(n)));
    }
    sink.send(json!(4)).await.unwrap();
    assert_eq!(next(&mut heads).await, Some(Ok(4)));
    // Dropping it sends `starknet_unsubscribe`: the server's sink learns it.
    drop(heads);
    closed(&sink).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pushed_over_tcp_by_position_with_integer_ids_and_unsubscribed() {
    let (feeds, mut sinks) = feeds(8);
    let (listener, address) = loopback().await;
    serve_lines(Server::new(feeds), listener, std::future::pending());
    let peer = tcp_peer(address, Peer::builder()).await;
    let client = peer.client();
    let params = json!({ "items": [7] });
    let mut first: Subscription<u64> = client
        .subscribe("subscribeTicks", &params, &POSITIONAL)
        .await
        .unwrap();
    let first_sink = next_sink(&mut sinks).await;
    let mut second: Subscription<u64> = client
        .subscribe("subscribeTicks", &json!({ "items": [] }), &POSITIONAL)
        .await
        .unwrap();
    let second_sink = next_sink(&mut sinks).await;
    assert_eq!(first.id().to_string(), "1");
    assert_eq!(second.id().to_string(), "2");
    assert_eq!(next(&mut first).await, Some(Ok(7)));
    second_sink.send(json!(8)).await.unwrap();
    assert_eq!(next(&mut second).await, Some(Ok(8)));
    assert!(first.unsubscribe().await.unwrap(), "the server knew it");
    closed(&first_sink).await;
    assert!(!second_sink.is_closed(), "the other subscription goes on");
    second_sink.send(json!(9)).await.unwrap();
    assert_eq!(next(&mut second).await, Some(Ok(9)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pulled_over_plain_http_to_its_end_and_cancelled() {
    let (feeds, mut sinks) = feeds(8);
    let address = http_and_ws(feeds).await;
    let client = Client::new(http::Client::new(&format!("http://{address}/")).unwrap());
    // A push feed, pulled because HTTP cannot push: the items of a finite stream.
    let mut count: Subscription<u64> = client
        .subscribe("subscribeCount", &[3], &NAMED)
        .await
        .unwrap();
    for n in 0..3 {
        assert_eq!(next(&mut count).await, Some(Ok(n)));
    }
    assert_eq!(next(&mut count).await, None);
    // A channel's items, then the end when the server drops its sink.
    let params = json!({ "items": [5] });
    let mut heads: Subscription<u64> = client
        .subscribe("subscribeNewHeads", &params, &NAMED)
        .await
        .unwrap();
    let sink = next_sink(&mut sinks).await;
    assert_eq!(next(&mut heads).await, Some(Ok(5)));
    sink.send(json!(6)).await.unwrap();
    assert_eq!(next(&mut heads).await, Some(Ok(6)));
    drop(sink);
    assert_eq!(next(&mut heads).await, None);
    // Dropped while the server still has items: `rpc.stream.cancel` ends its sink.
    let dropped: Subscription<u64> = client
        .subscribe("subscribeNewHeads", &json!({ "items": [1] }), &NAMED)
        .await
        .unwrap();
    let sink = next_sink(&mut sinks).await;
    drop(dropped);
    closed(&sink).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_subscription_is_the_call_error() {
    let (feeds, _sinks) = feeds(8);
    let address = http_and_ws(feeds).await;
    let peer = ws_peer(address, Peer::builder()).await;
    let refused = peer
        .client()
        .subscribe::<u64, _>("subscribeRefused", &(), &NAMED)
        .await;
    assert!(
        matches!(&refused, Err(Error::Undeclared(e)) if e.code == -32000 && e.message == "no heads"),
        "{refused:?}"
    );
}
