//! Hand-written server sides for the client's subscription tests, on today's push API
//! ([`remote`]): a [`Feeder`] that pushes items as notifications (push), and a
//! [`Puller`] that answers `rpc.stream.next` (pull).

#![allow(dead_code, unreachable_pub)]

use rpcsmith::client::WeakClient;
use rpcsmith::http;
use rpcsmith::protocol::{ErrorObject, Feed};
use rpcsmith::server::{
    BoxFuture, Call, CallResult, Context, Dispatch, Middleware, Next, Reply, Server,
};
use rpcsmith::transport::peer::{self, Peer, remote};
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith::transport::ws::{self, Settings};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::VecDeque;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Every test waits at most this long for anything.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// The feed of the [`Feeder`]'s subscriptions: items on `note`, by name.
pub static FEED: Feed =
    Feed::push("note", "subscription", "result").unsubscribe("unsubscribe", "subscription", false);

/// The items of the tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    pub n: u32,
}

/// One subscription the feeder serves.
struct Sub {
    /// Its id, as JSON text.
    id: String,
    topic: String,
    client: WeakClient,
}

/// A server with `subscribe(topic)` (ids `"<prefix><n>"`) and `unsubscribe`
/// (`{"subscription": id}`), which reports `subscribed <topic> <id>` and
/// `unsubscribed <id>` to its events; [`Feeder::publish`] pushes an item to a topic's
/// subscribers.
#[derive(Clone)]
pub struct Feeder {
    prefix: &'static str,
    subs: Arc<Mutex<(u64, Vec<Sub>)>>,
    /// The connection of the latest subscribe call.
    last: Arc<Mutex<Option<WeakClient>>>,
    events: mpsc::UnboundedSender<String>,
}

impl Feeder {
    pub fn new(prefix: &'static str) -> (Self, mpsc::UnboundedReceiver<String>) {
        let (events, receiver) = mpsc::unbounded_channel();
        let feeder = Self {
            prefix,
            subs: Arc::default(),
            last: Arc::default(),
            events,
        };
        (feeder, receiver)
    }

    /// Pushes `item` to every subscriber of `topic`, in order; how many it reached.
    pub async fn publish(&self, topic: &str, item: impl Serialize) -> usize {
        let targets: Vec<(String, WeakClient)> = {
            let subs = self.subs.lock().unwrap();
            let of_topic = subs.1.iter().filter(|sub| sub.topic == topic);
            of_topic
                .map(|sub| (sub.id.clone(), sub.client.clone()))
                .collect()
        };
        let item = serde_json::to_value(item).unwrap();
        let mut reached = 0;
        for (id, client) in targets {
            reached += usize::from(self.push(&client, &id, &item).await);
        }
        reached
    }

    /// Pushes `note` for `id`, whatever it is, through the connection of the latest
    /// subscribe call.
    pub async fn push_as(&self, id: &str, item: impl Serialize) -> bool {
        let client = self.last.lock().unwrap().clone();
        let item = serde_json::to_value(item).unwrap();
        match client {
            Some(client) => self.push(&client, id, &item).await,
            None => false,
        }
    }

    async fn push(&self, client: &WeakClient, id: &str, item: &serde_json::Value) -> bool {
        let Some(client) = client.upgrade() else {
            return false;
        };
        let id: &RawValue = serde_json::from_str(id).unwrap();
        let params = serde_json::json!({ "subscription": id, "result": item });
        client.notify("note", &params).await.is_ok()
    }

    fn subscribe(&self, params: Option<&RawValue>, cx: &Context) -> Reply {
        let Ok((topic,)) = serde_json::from_str::<(String,)>(params.map_or("", RawValue::get))
        else {
            return Reply::err(ErrorObject::invalid_params("expected [topic]"));
        };
        let Some(client) = remote(cx) else {
            return Reply::err(ErrorObject::internal_error());
        };
        *self.last.lock().unwrap() = Some(client.downgrade());
        let mut subs = self.subs.lock().unwrap();
        subs.0 += 1;
        let id = format!("\"{}{}\"", self.prefix, subs.0);
        let _ = self.events.send(format!("subscribed {topic} {id}"));
        subs.1.push(Sub {
            id: id.clone(),
            topic,
            client: client.downgrade(),
        });
        Reply::ok(&RawValue::from_string(id).unwrap())
    }

    fn unsubscribe(&self, params: Option<&RawValue>) -> Reply {
        #[derive(Deserialize)]
        struct Params<'a> {
            #[serde(borrow)]
            subscription: &'a RawValue,
        }
        let Ok(params) = serde_json::from_str::<Params<'_>>(params.map_or("", RawValue::get))
        else {
            return Reply::err(ErrorObject::invalid_params("expected {subscription}"));
        };
        let id = params.subscription.get();
        let mut subs = self.subs.lock().unwrap();
        let before = subs.1.len();
        subs.1.retain(|sub| sub.id != id);
        let _ = self.events.send(format!("unsubscribed {id}"));
        Reply::ok(&(subs.1.len() < before))
    }
}

impl Dispatch for Feeder {
    fn call(&self, method: &str, params: Option<&RawValue>, cx: Context) -> Reply {
        match method {
            "subscribe" => self.subscribe(params, &cx),
            "unsubscribe" => self.unsubscribe(params),
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

/// What a test's client side receives besides its subscriptions' items: every
/// notification, as `method params`.
pub struct Listener(pub mpsc::UnboundedSender<String>);

impl Dispatch for Listener {
    fn call(&self, method: &str, params: Option<&RawValue>, _: Context) -> Reply {
        let _ = self
            .0
            .send(format!("{method} {}", params.map_or("", RawValue::get)));
        Reply::ok(&())
    }
}

/// A stream of the [`Puller`]: its id (JSON text) and the answers it has left.
type Stream = (String, VecDeque<serde_json::Value>);

/// A pull server: `subscribe` answers `"s1"`, `"s2"`…; `rpc.stream.next` for a stream
/// answers `{"idle":true}` once, then its items in order, then `{"done":true}` (and
/// forgets it), and `-32602` "unknown stream" for an id it does not know;
/// `rpc.stream.cancel` forgets the stream and reports `cancelled <id>`.
#[derive(Clone)]
pub struct Puller {
    streams: Arc<Mutex<Vec<Stream>>>,
    made: Arc<std::sync::atomic::AtomicU64>,
    items: Vec<serde_json::Value>,
    events: mpsc::UnboundedSender<String>,
}

impl Puller {
    pub fn new(items: Vec<serde_json::Value>) -> (Self, mpsc::UnboundedReceiver<String>) {
        let (events, receiver) = mpsc::unbounded_channel();
        let puller = Self {
            streams: Arc::default(),
            made: Arc::default(),
            items,
            events,
        };
        (puller, receiver)
    }

    fn stream_id(params: Option<&RawValue>) -> Option<String> {
        #[derive(Deserialize)]
        struct Params<'a> {
            #[serde(borrow)]
            stream: &'a RawValue,
        }
        let params = serde_json::from_str::<Params<'_>>(params?.get()).ok()?;
        Some(params.stream.get().to_owned())
    }

    fn next(&self, params: Option<&RawValue>) -> Reply {
        let id = Self::stream_id(params).unwrap_or_default();
        let mut streams = self.streams.lock().unwrap();
        let Some(at) = streams.iter().position(|(known, _)| *known == id) else {
            return Reply::err(ErrorObject::invalid_params("unknown stream"));
        };
        let answer = match streams[at].1.pop_front() {
            Some(item) => item,
            None => {
                streams.remove(at);
                serde_json::json!({ "done": true })
            }
        };
        Reply::ok(&answer)
    }
}

impl Dispatch for Puller {
    fn call(&self, method: &str, params: Option<&RawValue>, _: Context) -> Reply {
        match method {
            "subscribe" => {
                let mut streams = self.streams.lock().unwrap();
                let made = self.made.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let id = format!("\"s{}\"", made + 1);
                let mut answers = VecDeque::from([serde_json::json!({ "idle": true })]);
                answers.extend(
                    self.items
                        .iter()
                        .map(|item| serde_json::json!({ "item": item })),
                );
                streams.push((id.clone(), answers));
                Reply::ok(&RawValue::from_string(id).unwrap())
            }
            "rpc.stream.next" => self.next(params),
            "rpc.stream.cancel" => {
                let id = Self::stream_id(params).unwrap_or_default();
                let mut streams = self.streams.lock().unwrap();
                let before = streams.len();
                streams.retain(|(known, _)| *known != id);
                let _ = self.events.send(format!("cancelled {id}"));
                Reply::ok(&(streams.len() < before))
            }
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

/// Hands the `rpc.stream.*` calls, which the engine keeps from any dispatcher, to a
/// [`Puller`]: the hand-written server side of the pull protocol.
pub struct PullProtocol(pub Puller);

impl Middleware for PullProtocol {
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, CallResult> {
        if call.method.starts_with("rpc.stream.") {
            return self
                .0
                .call(call.method, call.params, call.context)
                .into_future();
        }
        next.run(call)
    }
}

/// A server of `puller`, `rpc.stream.*` included.
pub fn pull_server(puller: Puller) -> Server {
    Server::builder(puller.clone())
        .middleware(PullProtocol(puller))
        .build()
}

/// The next event, waiting at most [`PATIENCE`].
pub async fn next_event(events: &mut mpsc::UnboundedReceiver<String>) -> String {
    tokio::time::timeout(PATIENCE, events.recv())
        .await
        .expect("an event in time")
        .expect("the server side is alive")
}

/// A listener on a free port of 127.0.0.1, and its address.
pub async fn loopback() -> (TcpListener, SocketAddr) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    (listener, address)
}

/// `server` over HTTP, WebSocket upgrades included, on `listener` until `shutdown`; the
/// task ends once the port is free again.
pub fn serve_http(
    server: Server,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> JoinHandle<()> {
    let service = http::Service::new(server).websocket(Peer::builder(), Settings::default());
    tokio::spawn(http::serve(listener, service, shutdown))
}

/// `server` over newline-framed TCP on `listener` until `shutdown`.
pub fn serve_lines(
    server: Server,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> JoinHandle<()> {
    let builder = Peer::builder().serve(server);
    tokio::spawn(stream::serve_tcp(
        listener,
        builder,
        Codec::Newline,
        shutdown,
    ))
}

/// A WebSocket connection, made by `builder`, to the server at `address`.
pub async fn ws_peer(address: SocketAddr, builder: peer::Builder) -> Peer {
    let url = format!("ws://{address}/");
    ws::connect(url, builder, Settings::default())
        .await
        .unwrap()
}

/// A newline-framed TCP connection, made by `builder`, to the server at `address`.
pub async fn tcp_peer(address: SocketAddr, builder: peer::Builder) -> Peer {
    stream::connect_tcp(builder, Codec::Newline, address)
        .await
        .unwrap()
}
