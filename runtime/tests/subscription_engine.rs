//! The server engine's side of subscriptions without a transport: the push port
//! (`Outlet`, `Pushes`) and the hold that keeps items behind their answer, as a
//! transport of one's own would use them; pull streams expiring when no one asks, with
//! paused time; and a subscription's reply used outside an engine.

mod subscription_support;

use bytes::Bytes;
use rpcsmith::protocol::{ErrorObject, Feed};
use rpcsmith::server::{
    BoxFuture, Closed, Context, Dispatch, Failure, Items, Metadata, Outlet, Pushes, Reply, Server,
    Shared, Sink, hold, shared_channel, subscribe,
};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::time::Duration;
use subscription_support::{call, closed, feeds, next_sink};
use tokio::sync::mpsc;

/// Pushes into a channel the test reads.
struct Recorder(mpsc::UnboundedSender<Bytes>);

impl Outlet for Recorder {
    fn push(&self, message: Bytes) -> BoxFuture<'_, Result<(), Closed>> {
        Box::pin(async move { self.0.send(message).map_err(|_| Closed) })
    }

    fn closed(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.0.closed())
    }
}

fn json_of(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("JSON")
}

#[tokio::test]
async fn items_wait_for_the_release_of_their_answer() {
    let (feeds, mut sinks) = feeds(8);
    let server = Server::new(feeds);
    let (pushed, mut outlet) = mpsc::unbounded_channel();
    let pushes = Pushes::new(Recorder(pushed));
    let mut metadata = Metadata::default();
    metadata.extensions.insert(pushes.clone());
    let connection = server.connection(metadata);

    let message = call(1, "subscribeTicks", &json!({"items": ["a", "b"]}));
    let (answer, held) = hold(connection.handle(message.as_bytes())).await;
    assert_eq!(
        json_of(&answer.unwrap()),
        json!({"jsonrpc": "2.0", "result": 1, "id": 1})
    );
    assert!(!held.is_empty());
    assert_eq!(pushes.len(), 1);
    held.release();
    for item in ["a", "b"] {
        let message = tokio::time::timeout(subscription_support::PATIENCE, outlet.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            json_of(&message),
            json!({"jsonrpc": "2.0", "method": "tick", "params": [1, item]})
        );
    }
    let sink = next_sink(&mut sinks).await;

    // A hold dropped unreleased (the answer never went out): the subscription ends
    // before it pushed anything.
    let message = call(2, "subscribeTicks", &json!({"items": ["c"]}));
    let (_, held) = hold(connection.handle(message.as_bytes())).await;
    let unanswered = next_sink(&mut sinks).await;
    drop(held);
    closed(&unanswered).await;
    assert!(outlet.try_recv().is_err(), "nothing was pushed");

    // A subscribe sent as a notification has no id anyone could learn: not run.
    let notification = r#"{"jsonrpc":"2.0","method":"subscribeTicks","params":{}}"#;
    let (answer, held) = hold(connection.handle(notification.as_bytes())).await;
    assert!(answer.is_none() && held.is_empty());
    assert!(sinks.try_recv().is_err(), "its handler did not run");
    assert_eq!(pushes.len(), 1, "only the first is live");
    assert!(!sink.is_closed());
}

#[tokio::test(start_paused = true)]
async fn pull_streams_expire_when_no_one_asks() {
    let (feeds, mut sinks) = feeds(8);
    let server = Server::new(feeds);
    let ask = |id: u64, method: &str, params: Value| {
        let server = server.clone();
        let message = call(id, method, &params);
        async move {
            json_of(
                &server
                    .handle(message.as_bytes(), Metadata::default())
                    .await
                    .unwrap(),
            )
        }
    };
    // No push port: a pull stream.
    let id = ask(1, "subscribeNewHeads", json!({})).await["result"].clone();
    let sink = next_sink(&mut sinks).await;
    assert_eq!(server.pull_streams(), 1);

    // 50 s on, a `next` (idle after the 20 s pull wait) makes it live again…
    tokio::time::advance(Duration::from_secs(50)).await;
    let answer = ask(2, "rpc.stream.next", json!({"stream": id})).await;
    assert_eq!(answer["result"], json!({"idle": true}));
    // …so 59 s after that answer it still is.
    tokio::time::advance(Duration::from_secs(59)).await;
    tokio::task::yield_now().await;
    assert!(!sink.is_closed());
    assert_eq!(server.pull_streams(), 1);

    // Past the idle timeout (60 s) it is dropped, its sink with it.
    tokio::time::advance(Duration::from_secs(2)).await;
    closed(&sink).await;
    assert_eq!(server.pull_streams(), 0);
    let answer = ask(3, "rpc.stream.next", json!({"stream": id})).await;
    assert_eq!(answer["error"]["code"], -32602);
}

#[tokio::test]
async fn a_subscription_reply_outside_an_engine_is_an_internal_error() {
    static FEED: Feed = Feed::pull();
    let cx = rpcsmith::server::Context::new("s", None, Metadata::default());
    let reply = subscribe(cx, &FEED, async {
        Ok::<_, Failure>(Items::new(futures_util::stream::iter([1u8])))
    });
    let error = reply.into_future().await.unwrap_err();
    assert_eq!(
        error,
        ErrorObject::new(
            -32603,
            "Internal error: a subscription must be answered by a server engine"
        )
    );
}

/// One subscribe method whose items are serialized once for all subscriptions.
struct Heads(mpsc::UnboundedSender<Sink<Shared<Value>>>);

impl Dispatch for Heads {
    fn call(&self, _: &str, _: Option<&RawValue>, cx: Context) -> Reply {
        let sinks = self.0.clone();
        subscribe(cx, &subscription_support::NAMED, async move {
            let (sink, items) = shared_channel::<Value>(4);
            let _ = sinks.send(sink);
            Ok::<_, Failure>(items)
        })
    }
}

#[tokio::test]
async fn an_item_serialized_once_reaches_every_subscription() {
    let (sinks, mut handed) = mpsc::unbounded_channel();
    let server = Server::new(Heads(sinks));
    let (pushed, mut outlet) = mpsc::unbounded_channel();
    let mut metadata = Metadata::default();
    metadata.extensions.insert(Pushes::new(Recorder(pushed)));
    let connection = server.connection(metadata);
    let mut ids = Vec::new();
    for n in 1..=2 {
        let (answer, held) = hold(connection.handle(call(n, "heads", &json!([])).as_bytes())).await;
        held.release();
        ids.push(json_of(&answer.unwrap())["result"].clone());
    }
    let (a, b) = (handed.recv().await.unwrap(), handed.recv().await.unwrap());
    let head = Shared::new(&json!({"number": 7, "hash": "0x\"q\""})).unwrap();
    a.send(head.clone()).await.unwrap();
    b.send(head).await.unwrap();
    let mut seen = Vec::new();
    for _ in 0..2 {
        let message = json_of(&outlet.recv().await.unwrap());
        assert_eq!(message["method"], "starknet_subscriptionNewHeads");
        assert_eq!(
            message["params"]["result"],
            json!({"number": 7, "hash": "0x\"q\""})
        );
        seen.push(message["params"]["subscription_id"].clone());
    }
    seen.sort_by_key(Value::to_string);
    ids.sort_by_key(Value::to_string);
    assert_eq!(seen, ids);

    // Pulled, the same text is the item.
    let id = json_of(
        &server
            .handle(call(3, "heads", &json!([])).as_bytes(), Metadata::default())
            .await
            .unwrap(),
    )["result"]
        .clone();
    let sink = handed.recv().await.unwrap();
    sink.send(Shared::new(&json!([1, 2])).unwrap())
        .await
        .unwrap();
    let next = call(4, "rpc.stream.next", &json!({"stream": id}));
    let answer = json_of(
        &server
            .handle(next.as_bytes(), Metadata::default())
            .await
            .unwrap(),
    );
    assert_eq!(answer["result"], json!({"item": [1, 2]}));
}

/// Items that end without the protocol saying so: the subscription stays registered.
static SILENT: Feed = Feed::push("count", "subscription", "result")
    .unsubscribe("uncount", "subscription", true)
    .unknown_id(66);
/// Items whose end is declared: `counted [id]` is sent, and the subscription forgotten.
static DECLARED: Feed = Feed::push("count", "subscription", "result")
    .by_position(true)
    .end("counted")
    .unsubscribe("uncount", "subscription", true);

/// `count [n]` (SILENT) and `countEnding [n]` (DECLARED): the items `0..n`; the test is
/// told through `ended` in the very poll in which they end, and through `dropped` when
/// the runtime drops them (it has forgotten the subscription). `uncount` answers an
/// unknown id with `66`.
struct Counting {
    ended: mpsc::UnboundedSender<()>,
    dropped: mpsc::UnboundedSender<()>,
}

/// Tells its channel when dropped.
struct Tell(mpsc::UnboundedSender<()>);

impl Drop for Tell {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

impl Counting {
    fn items(&self, n: u64) -> Items<u64> {
        let ended = self.ended.clone();
        let dropped = Tell(self.dropped.clone());
        let end = futures_util::stream::poll_fn(move |_| {
            let _ = ended.send(());
            std::task::Poll::Ready(None)
        });
        Items::new(futures_util::StreamExt::map(
            futures_util::StreamExt::chain(futures_util::stream::iter(0..n), end),
            move |n| {
                let _ = &dropped;
                n
            },
        ))
    }
}

impl Dispatch for Counting {
    fn call(&self, method: &str, params: Option<&RawValue>, cx: Context) -> Reply {
        let n: u64 = params
            .and_then(|p| serde_json::from_str::<[u64; 1]>(p.get()).ok())
            .map_or(0, |[n]| n);
        match method {
            "count" => {
                let items = self.items(n);
                subscribe(cx, &SILENT, async move { Ok::<_, Failure>(items) })
            }
            "countEnding" => {
                let items = self.items(n);
                subscribe(cx, &DECLARED, async move { Ok::<_, Failure>(items) })
            }
            "uncount" => rpcsmith::server::unsubscribe_or(
                cx,
                &SILENT,
                params,
                ErrorObject::new(66, "Invalid subscription id"),
            ),
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

/// A connection of a `Counting` server pushing into a `Recorder`, and how to call it.
struct Counted {
    connection: rpcsmith::server::Connection,
    pushes: Pushes,
    outlet: mpsc::UnboundedReceiver<Bytes>,
    ended: mpsc::UnboundedReceiver<()>,
    dropped: mpsc::UnboundedReceiver<()>,
}

impl Counted {
    fn new() -> Self {
        let (ended, ended_rx) = mpsc::unbounded_channel();
        let (dropped, dropped_rx) = mpsc::unbounded_channel();
        let server = Server::new(Counting { ended, dropped });
        let (pushed, outlet) = mpsc::unbounded_channel();
        let pushes = Pushes::new(Recorder(pushed));
        let mut metadata = Metadata::default();
        metadata.extensions.insert(pushes.clone());
        Counted {
            connection: server.connection(metadata),
            pushes,
            outlet,
            ended: ended_rx,
            dropped: dropped_rx,
        }
    }

    /// Calls `method(params)`, releasing what it started once answered.
    async fn call(&self, id: u64, method: &str, params: Value) -> Value {
        let message = call(id, method, &params);
        let (answer, held) = hold(self.connection.handle(message.as_bytes())).await;
        held.release();
        json_of(&answer.expect("an answer"))
    }

    async fn pushed(&mut self) -> Value {
        let message = tokio::time::timeout(subscription_support::PATIENCE, self.outlet.recv());
        json_of(&message.await.expect("pushed in time").expect("open"))
    }
}

async fn told(channel: &mut mpsc::UnboundedReceiver<()>) {
    tokio::time::timeout(subscription_support::PATIENCE, channel.recv())
        .await
        .expect("told in time")
        .expect("open");
}

/// Design decision 14, on one thread so that nothing runs between the end of the
/// items (told from inside the poll that ends them) and the checks: the subscription
/// outlives its items until it is unsubscribed (`true`, then the declared `66`), or
/// until its connection closes; a declared end is sent, and forgets it.
#[tokio::test]
async fn a_subscription_outlives_its_items_until_someone_ends_it() {
    let mut c = Counted::new();
    let id = c.call(1, "count", json!([2])).await["result"].clone();
    for n in 0..2 {
        assert_eq!(
            c.pushed().await["params"],
            json!({"subscription": id, "result": n})
        );
    }
    told(&mut c.ended).await;
    assert_eq!(c.pushes.len(), 1, "still registered after its items ended");
    assert!(c.dropped.try_recv().is_err(), "its items are held");
    assert!(c.outlet.try_recv().is_err(), "silent");
    let answer = c.call(2, "uncount", json!([id])).await;
    assert_eq!(answer["result"], true);
    told(&mut c.dropped).await;
    assert_eq!(c.pushes.len(), 0);
    let again = c.call(3, "uncount", json!([id])).await;
    assert_eq!(again["error"]["code"], 66, "unknown now");

    // A declared end: sent after the items, and the subscription is forgotten.
    let id = c.call(4, "countEnding", json!([1])).await["result"].clone();
    assert_eq!(c.pushed().await["params"], json!([id, 0]));
    assert_eq!(
        c.pushed().await,
        json!({"jsonrpc": "2.0", "method": "counted", "params": [id]})
    );
    told(&mut c.dropped).await;
    assert_eq!(c.pushes.len(), 0);

    // A closed connection cleans up a silent one.
    let id = c.call(5, "count", json!([1])).await["result"].clone();
    assert_eq!(c.pushed().await["params"]["subscription"], id);
    told(&mut c.ended).await;
    assert_eq!(c.pushes.len(), 1);
    drop(c.outlet);
    told(&mut c.dropped).await;
    assert_eq!(c.pushes.len(), 0);
}
