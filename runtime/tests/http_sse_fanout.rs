//! A fan-out over Server-Sent Events, the shape of the bench's `sse_fanout`: sessions
//! started by a subscribe call (`Streaming::new().sessions("items_subscribe")`), each
//! session's `GET` stream open, and one publisher pushing every item to every
//! subscription. Each subscriber must receive every item, in order, on its `GET`
//! stream.

mod sse_support;

use hyper::Method;
use rpcsmith::http::{Service, Streaming};
use rpcsmith::protocol::{ErrorObject, Feed};
use rpcsmith::server::{
    Context, Dispatch, Failure, Reply, Server, Shared, Sink, shared_channel, subscribe,
};
use serde_json::Value;
use serde_json::value::RawValue;
use sse_support::{Raw, start};
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// The notifications carrying the items.
static ITEMS: Feed = Feed::push("items_subscription", "subscription", "result").unsubscribe(
    "items_unsubscribe",
    "subscription",
    false,
);

/// The header carrying the session id (`Streaming::new`'s default).
const SESSION: &str = "session-id";

/// Subscribers at once: many sessions, each with its own stream.
const SUBSCRIBERS: usize = 24;

/// Items published to each.
const PUBLISHED: u64 = 40;

/// The publisher's side: the sending end of every subscription, and a bell rung when
/// one joins.
#[derive(Default)]
struct Publisher {
    sinks: Mutex<Vec<Sink<Shared<u64>>>>,
    joined: Notify,
}

/// `items_subscribe`: a subscription whose items the publisher sends.
struct Items(Arc<Publisher>);

impl Dispatch for Items {
    fn call(&self, method: &str, _: Option<&RawValue>, cx: Context) -> Reply {
        match method {
            "items_subscribe" => {
                let publisher = Arc::clone(&self.0);
                subscribe(cx, &ITEMS, async move {
                    // A small capacity, so that the publisher waits for room too.
                    let (sink, items) = shared_channel(4);
                    publisher.sinks.lock().unwrap().push(sink);
                    publisher.joined.notify_one();
                    Ok::<_, Failure>(items)
                })
            }
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

/// One subscriber: its session started by the subscribe call, its `GET` stream open;
/// the stream and the subscription id.
async fn subscriber(raw: &Raw) -> (sse_support::Events, Value) {
    let call = r#"{"jsonrpc":"2.0","method":"items_subscribe","params":[],"id":1}"#;
    let accept = ("accept", "application/json, text/event-stream");
    let answer = raw.send(Method::POST, &[accept], call).await;
    assert_eq!(answer.status, 200);
    let session = answer
        .header(SESSION)
        .expect("the subscribe call started a session");
    let id = answer.json().await["result"].clone();
    assert!(id.is_string() || id.is_number(), "a subscription id: {id}");
    let headers = [("accept", "text/event-stream"), (SESSION, session.as_str())];
    let get = raw.send(Method::GET, &headers, "").await;
    assert_eq!(get.status, 200);
    (get.into_stream(), id)
}

#[tokio::test]
async fn sessions_started_by_a_subscribe_call_get_every_item_on_their_get_streams() {
    let publisher = Arc::new(Publisher::default());
    let streaming = Streaming::new()
        .sessions("items_subscribe")
        .max_sessions_per_peer(SUBSCRIBERS);
    let server = Server::new(Items(Arc::clone(&publisher)));
    let address = start(Service::new(server).streaming(streaming)).await;
    let raw = Raw::new(address);
    let mut subscribers = Vec::new();
    for _ in 0..SUBSCRIBERS {
        subscribers.push(subscriber(&raw).await);
    }
    // Every subscription has joined the publisher, and every stream is open.
    let sinks = loop {
        let joined = publisher.joined.notified();
        {
            let mut sinks = publisher.sinks.lock().unwrap();
            if sinks.len() == SUBSCRIBERS {
                break std::mem::take(&mut *sinks);
            }
        }
        joined.await;
    };
    let publishing = tokio::spawn(async move {
        for number in 0..PUBLISHED {
            let item = Shared::new(&number).unwrap();
            for (n, sink) in sinks.iter().enumerate() {
                sink.send(item.clone())
                    .await
                    .unwrap_or_else(|_| panic!("subscription {n} ended before item {number}"));
            }
        }
    });
    // Every subscriber reads at once, as real ones do: the publisher waits for room.
    let mut readers = tokio::task::JoinSet::new();
    for (n, (mut events, id)) in subscribers.into_iter().enumerate() {
        readers.spawn(async move {
            for number in 0..PUBLISHED {
                let message = events.next().await.unwrap_or_else(|| {
                    panic!("subscriber {n}'s stream ended before item {number}")
                });
                assert_eq!(message["method"], "items_subscription", "{message}");
                assert_eq!(message["params"]["subscription"], id, "{message}");
                assert_eq!(message["params"]["result"], number, "{message}");
            }
        });
    }
    let reading = async {
        while let Some(read) = readers.join_next().await {
            read?;
        }
        Ok(())
    };
    // Either side's failure ends the test (a subscription that ended leaves its reader
    // waiting for ever).
    tokio::try_join!(publishing, reading).unwrap();
}
