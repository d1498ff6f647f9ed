//! Pull streams over plain HTTP, which cannot push: a push subscription becomes a pull
//! stream read with `rpc.stream.next` (item, idle, done) and ended with
//! `rpc.stream.cancel` or the feed's unsubscribe method; unknown ids and the server's
//! limit are refused precisely.

mod subscription_support;

use rpcsmith::client::{Client, Error};
use rpcsmith::http::{self, Service};
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Limits, Server};
use serde_json::{Value, json};
use std::time::Duration;
use subscription_support::{closed, feeds, next_sink};
use tokio::sync::mpsc;

/// Serves the test feeds over HTTP with `limits`; a client of it, and the handlers' sinks.
async fn start(
    limits: Limits,
) -> (
    Client,
    mpsc::UnboundedReceiver<rpcsmith::server::Sink<Value>>,
) {
    let (feeds, sinks) = feeds(8);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = Service::new(Server::builder(feeds).limits(limits).build());
    tokio::spawn(http::serve(listener, service, std::future::pending()));
    let client = Client::new(http::Client::new(&format!("http://{address}/")).unwrap());
    (client, sinks)
}

async fn next(client: &Client, id: &Value) -> Result<Value, Error> {
    client
        .request("rpc.stream.next", &json!({"stream": id}))
        .await
}

fn refusal(result: Result<Value, Error>) -> ErrorObject {
    match result {
        Err(Error::Undeclared(error)) => error,
        other => panic!("expected an error object, got {other:?}"),
    }
}

fn unknown(id: &Value) -> ErrorObject {
    ErrorObject::invalid_params(format!(
        "unknown stream: {id} is not a live stream (it ended, was cancelled, expired, or never existed)"
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_subscription_over_http_is_pulled_to_its_end() {
    let (client, _sinks) = start(Limits::default()).await;
    let id: Value = client.request("subscribeCount", &[2]).await.unwrap();
    assert!(
        id.as_str()
            .is_some_and(|id| id.len() == 34 && id.starts_with("0x"))
    );
    assert_eq!(next(&client, &id).await.unwrap(), json!({"item": 0}));
    assert_eq!(next(&client, &id).await.unwrap(), json!({"item": 1}));
    assert_eq!(next(&client, &id).await.unwrap(), json!({"done": true}));
    // Once done, the id is forgotten.
    assert_eq!(refusal(next(&client, &id).await), unknown(&id));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn next_answers_idle_when_no_item_comes_within_the_wait() {
    let mut limits = Limits::default();
    // Short, so that the test is: no item is ever sent before the first `next` below
    // answers, so its answer is `idle` whatever the machine's speed.
    limits.pull_wait = Duration::from_millis(50);
    let (client, mut sinks) = start(limits).await;
    let id: Value = client
        .request("subscribeNewHeads", &json!({}))
        .await
        .unwrap();
    let sink = next_sink(&mut sinks).await;
    assert_eq!(next(&client, &id).await.unwrap(), json!({"idle": true}));
    sink.send(json!({"n": 1})).await.unwrap();
    assert_eq!(next(&client, &id).await.unwrap(), json!({"item": {"n": 1}}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_ends_the_stream_and_its_sink() {
    let (client, mut sinks) = start(Limits::default()).await;
    let id: Value = client
        .request("subscribeNewHeads", &json!({"items": [1]}))
        .await
        .unwrap();
    let sink = next_sink(&mut sinks).await;
    let cancelled: bool = client
        .request("rpc.stream.cancel", &json!({"stream": id}))
        .await
        .unwrap();
    assert!(cancelled);
    closed(&sink).await;
    let again: bool = client
        .request("rpc.stream.cancel", &json!([id]))
        .await
        .unwrap();
    assert!(!again, "an unknown id is `false`");
    assert_eq!(refusal(next(&client, &id).await), unknown(&id));

    // The feed's own unsubscribe method ends a pull stream too.
    let id: Value = client
        .request("subscribeNewHeads", &json!({}))
        .await
        .unwrap();
    let sink = next_sink(&mut sinks).await;
    let ended: bool = client
        .request("starknet_unsubscribe", &json!({"subscription_id": id}))
        .await
        .unwrap();
    assert!(ended);
    closed(&sink).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_ids_and_bad_params_are_refused_precisely() {
    let (client, _sinks) = start(Limits::default()).await;
    let id = json!("0x0123456789abcdef0123456789abcdef");
    assert_eq!(refusal(next(&client, &id).await), unknown(&id));
    let bad: Result<Value, Error> = client.request("rpc.stream.next", &json!({"id": 1})).await;
    assert_eq!(
        refusal(bad),
        ErrorObject::invalid_params(
            "invalid params: expected the stream id, as {\"stream\": <id>} or [<id>]"
        )
    );
    let other: Result<Value, Error> = client.request("rpc.stream.other", &json!([])).await;
    assert_eq!(refusal(other), ErrorObject::method_not_found());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_wide_limit_refuses_with_a_precise_error() {
    let mut limits = Limits::default();
    limits.max_pull_streams = 2;
    let (client, _sinks) = start(limits).await;
    let first: Value = client
        .request("subscribeNewHeads", &json!({}))
        .await
        .unwrap();
    let _second: Value = client
        .request("subscribeNewHeads", &json!({}))
        .await
        .unwrap();
    let third: Result<Value, Error> = client.request("subscribeNewHeads", &json!({})).await;
    assert_eq!(
        refusal(third),
        ErrorObject::too_many_subscriptions("too many pull streams on this server (limit: 2)")
    );
    let cancelled: bool = client
        .request("rpc.stream.cancel", &json!({"stream": first}))
        .await
        .unwrap();
    assert!(cancelled);
    let _third: Value = client
        .request("subscribeNewHeads", &json!({}))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kotlinx_rpc_proposals_own_methods_pull_the_same_streams() {
    let (client, mut sinks) = start(Limits::default()).await;
    let id: Value = client.request("subscribeCount", &[1]).await.unwrap();
    let next = "kotlinx.rpc.jsonrpc.internal.nextFlowValue";
    let item: Value = client.request(next, &[&id]).await.unwrap();
    assert_eq!(item, json!(0), "the item itself is the result");
    let end: Result<Value, Error> = client.request(next, &[&id]).await;
    assert_eq!(refusal(end), ErrorObject::new(-32001, "Flow completed"));
    assert_eq!(refusal(client.request(next, &[&id]).await), unknown(&id));

    let id: Value = client
        .request("subscribeNewHeads", &json!({}))
        .await
        .unwrap();
    let sink = next_sink(&mut sinks).await;
    let cancelled: bool = client
        .request("kotlinx.rpc.jsonrpc.internal.cancelFlow", &[&id])
        .await
        .unwrap();
    assert!(cancelled);
    closed(&sink).await;
    // Other names under the proposal's prefix are the dispatcher's (here: unknown).
    let other: Result<Value, Error> = client
        .request("kotlinx.rpc.jsonrpc.internal.other", &[&id])
        .await;
    assert_eq!(refusal(other), ErrorObject::method_not_found());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pull_ids_are_random_whatever_the_feed_and_a_declared_error_may_answer_unknown_ids() {
    let (client, mut sinks) = start(Limits::default()).await;
    // An integer-id feed: pulled, its id is still the server's random one.
    let id: Value = client.request("subscribeTicks", &json!({})).await.unwrap();
    assert!(id.as_str().is_some_and(|id| id.len() == 34), "{id}");
    let sink = next_sink(&mut sinks).await;
    let ended: bool = client.request("unsubscribeOr", &[&id]).await.unwrap();
    assert!(ended);
    closed(&sink).await;
    let unknown: Result<Value, Error> = client.request("unsubscribeOr", &[&id]).await;
    assert_eq!(
        refusal(unknown),
        ErrorObject::new(66, "Invalid subscription id")
    );
}
