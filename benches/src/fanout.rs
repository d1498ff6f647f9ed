//! The fan-out scenario: one server, many WebSocket connections each subscribed once to
//! `items_subscribe` (`items.json`), and the server publishing new heads to every
//! subscriber as fast as the slowest one takes them.
//!
//! Both servers publish the same way: one publisher task holds every subscription's
//! outlet and sends each head to each outlet in turn, waiting where an outlet is full
//! (backpressure, so no item is dropped and every subscriber sees every head from the
//! one it joined at). jsonrpsee's outlet is its `SubscriptionSink` fed a message
//! serialized once per head (its documented way to broadcast); rpcsmith's is the
//! `server::Sink` of a `server::shared_channel` whose `Items` its generated handler
//! returned, fed the head serialized once (`Shared`), the same way.
//! Publishing starts when the server reads `publish` on its standard input, so that the
//! benchmark can first read the server's memory with every subscriber idle.
//!
//! The subscribers are raw WebSocket connections (tokio-tungstenite), the same for both
//! servers: each checks every notification it receives (method, subscription id, and
//! heads numbered one after the other) and counts it.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, bail, ensure};
use futures_util::{SinkExt as _, StreamExt as _};
use jsonrpsee::RpcModule;
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Failure, Items, Server, Shared, Sink, shared_channel};
use serde_json::value::RawValue;
use tokio::net::TcpStream;
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinSet;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use crate::api::quote;
use crate::load::{Gauge, Load};

rpcsmith::include_api!("items");

pub(crate) use items::types::Head;

/// The subscribe method, the notification carrying heads, the unsubscribe method.
pub(crate) const SUBSCRIBE: &str = "items_subscribe";
pub(crate) const NOTIFICATION: &str = "items_subscription";
pub(crate) const UNSUBSCRIBE: &str = "items_unsubscribe";

/// Items a subscription may have waiting to be written: the capacity of each rpcsmith
/// subscription's channel, and jsonrpsee's buffer of a connection (one subscription per
/// connection here; jsonrpsee's default is 1,024 messages). The same bound on both, so
/// that memory at the publishing peak compares like with like: a publisher faster than
/// its readers fills every channel to its bound.
pub(crate) const CHANNEL: usize = 64;

/// The head numbered `number`: about 250 bytes on the wire, like an Ethereum new head's
/// leading fields.
pub(crate) fn head(number: u64) -> Head {
    Head {
        number,
        hash: format!("{:#066x}", u128::from(number) << 64 | 0xabcd),
        parent_hash: format!(
            "{:#066x}",
            u128::from(number.saturating_sub(1)) << 64 | 0xabcd
        ),
        timestamp: 1_700_000_000 + number,
        gas_used: format!("{:#x}", 21_000 * (number % 1000)),
    }
}

/// Where a publisher sends heads: one subscription.
pub(crate) trait Outlet: Send + 'static {
    /// What is made once per head and sent to every outlet.
    type Message: Send + Sync;

    /// Makes the message of `head`.
    fn message(head: &Head) -> anyhow::Result<Self::Message>;

    /// Sends `message`, waiting for room; `false` once the subscription has ended.
    fn send<'a>(&'a self, message: &'a Self::Message) -> impl Future<Output = bool> + Send + 'a;
}

/// The publishing side shared by a server's subscribe handler and its publisher task:
/// new outlets go to the task through `joined`; `start` lets it begin.
#[derive(Debug)]
pub(crate) struct Publisher<O> {
    joined: mpsc::UnboundedSender<O>,
}

impl<O: Outlet> Publisher<O> {
    /// Starts the publisher task, which waits for `start`, then publishes heads 1, 2, …
    /// to every outlet there is, until the process ends.
    pub(crate) fn spawn(start: Arc<Notify>) -> Self {
        let (joined, outlets) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            start.notified().await;
            if let Err(error) = publish::<O>(outlets).await {
                eprintln!("error: the publisher stopped: {error:#}");
            }
        });
        Publisher { joined }
    }

    /// Hands a new subscription's outlet to the publisher.
    ///
    /// # Errors
    ///
    /// When the publisher task has stopped.
    pub(crate) fn join(&self, outlet: O) -> anyhow::Result<()> {
        self.joined
            .send(outlet)
            .map_err(|_| anyhow::anyhow!("the publisher has stopped"))
    }
}

/// Publishes head after head to every outlet, each outlet in turn, waiting where one is
/// full; outlets whose subscription ended are left out from then on.
async fn publish<O: Outlet>(mut joined: mpsc::UnboundedReceiver<O>) -> anyhow::Result<()> {
    let mut outlets: Vec<O> = Vec::new();
    for number in 1.. {
        while let Ok(outlet) = joined.try_recv() {
            outlets.push(outlet);
        }
        if outlets.is_empty() {
            match joined.recv().await {
                Some(outlet) => outlets.push(outlet),
                None => return Ok(()),
            }
        }
        let message = O::message(&head(number))?;
        let mut open = Vec::with_capacity(outlets.len());
        for outlet in outlets.drain(..) {
            if outlet.send(&message).await {
                open.push(outlet);
            }
        }
        outlets = open;
    }
    Ok(())
}

/// Reads standard input on a thread of its own and wakes `start` at the first line
/// `publish` (the benchmark's signal).
pub(crate) fn start_on_stdin() -> Arc<Notify> {
    let start = Arc::new(Notify::new());
    let signal = Arc::clone(&start);
    std::thread::spawn(move || {
        for line in std::io::stdin().lines() {
            match line {
                Ok(line) if line.trim() == "publish" => {
                    signal.notify_one();
                    return;
                }
                Ok(_) => {}
                Err(_) => return,
            }
        }
    });
    start
}

impl Outlet for jsonrpsee::SubscriptionSink {
    type Message = Box<RawValue>;

    fn message(head: &Head) -> anyhow::Result<Box<RawValue>> {
        Ok(serde_json::value::to_raw_value(head)?)
    }

    async fn send<'a>(&'a self, message: &'a Box<RawValue>) -> bool {
        self.send(message.clone()).await.is_ok()
    }
}

/// jsonrpsee's module: `items_subscribe` accepts the subscription and hands its sink to
/// the publisher.
pub(crate) fn jsonrpsee_module(start: Arc<Notify>) -> RpcModule<()> {
    let publisher = Arc::new(Publisher::<jsonrpsee::SubscriptionSink>::spawn(start));
    let mut module = RpcModule::new(());
    module
        .register_subscription(
            SUBSCRIBE,
            NOTIFICATION,
            UNSUBSCRIBE,
            move |_params, pending, _, _| {
                let publisher = Arc::clone(&publisher);
                async move {
                    let sink = pending.accept().await?;
                    publisher.join(sink).map_err(|e| e.to_string())?;
                    Ok(())
                }
            },
        )
        .expect("`items_subscribe` is registered once");
    module
}

impl Outlet for Sink<Shared<Head>> {
    type Message = Shared<Head>;

    fn message(head: &Head) -> anyhow::Result<Shared<Head>> {
        Ok(Shared::new(head)?)
    }

    async fn send<'a>(&'a self, message: &'a Shared<Head>) -> bool {
        self.send(message.clone()).await.is_ok()
    }
}

/// The handler behind rpcsmith's generated `ItemsServer` trait.
struct Fanned {
    publisher: Publisher<Sink<Shared<Head>>>,
}

impl items::ItemsServer for Fanned {
    async fn items_subscribe(&self, _cx: Context) -> Result<Items<Head>, Failure> {
        let (sink, items) = shared_channel(CHANNEL);
        self.publisher
            .join(sink)
            .map_err(|e| ErrorObject::new(-32000, e.to_string()))?;
        Ok(items)
    }
}

/// rpcsmith's server: the generated `items_subscribe` handler returns the receiving end
/// of a `shared_channel` whose sending end goes to the publisher.
pub(crate) fn rpcsmith_server(start: Arc<Notify>) -> Server {
    let publisher = Publisher::spawn(start);
    Server::new(items::ItemsDispatcher::new(Fanned { publisher }))
}

/// A server whose `items_subscribe` handler returns what `subscribe` makes (the
/// cross-instance scenario's subscriptions to a broker's topic).
pub(crate) fn rpcsmith_server_with<F>(subscribe: F) -> Server
where
    F: Fn() -> Items<Head> + Send + Sync + 'static,
{
    /// The handler behind the generated trait: `subscribe` for each subscription.
    struct Subscribed<F>(F);

    impl<F: Fn() -> Items<Head> + Send + Sync + 'static> items::ItemsServer for Subscribed<F> {
        async fn items_subscribe(&self, _cx: Context) -> Result<Items<Head>, Failure> {
            Ok((self.0)())
        }
    }
    Server::new(items::ItemsDispatcher::new(Subscribed(subscribe)))
}

/// What `subscribers` needs to know about the run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Subscribers {
    /// Connections, each subscribed once.
    pub(crate) count: usize,
}

/// Connections opened at once while subscribing.
const OPENING: usize = 64;

/// How long one connection may take to be opened and subscribed.
const SUBSCRIBING: Duration = Duration::from_secs(15);

type WsStream = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

/// `subscribers.count` WebSocket connections to `url`, each subscribed once and every
/// subscription answered, as a load counting the heads they receive.
///
/// # Errors
///
/// When a connection cannot be opened or its subscription is refused.
pub(crate) async fn subscribe(url: &str, subscribers: Subscribers) -> anyhow::Result<Load> {
    let url = url.to_owned();
    let subscribed = opened(subscribers, move || {
        let url = url.clone();
        async move { subscriber(&url).await }
    })
    .await?;
    let mut load = Load::default();
    for (stream, id) in subscribed {
        load.spawn(move |gauge| receive(stream, id, gauge));
    }
    Ok(load)
}

/// `subscribers.count` results of `open`, [`OPENING`] at a time, each within
/// [`SUBSCRIBING`].
///
/// # Errors
///
/// The first `open` that failed or took too long.
pub(crate) async fn opened<T, F, Fut>(subscribers: Subscribers, open: F) -> anyhow::Result<Vec<T>>
where
    T: Send + 'static,
    F: Fn() -> Fut,
    Fut: Future<Output = anyhow::Result<T>> + Send + 'static,
{
    let mut opening = JoinSet::new();
    let mut subscribed = Vec::with_capacity(subscribers.count);
    for _ in 0..subscribers.count {
        if opening.len() == OPENING {
            subscribed.push(joined(opening.join_next().await)?);
        }
        let open = open();
        opening.spawn(async move {
            tokio::time::timeout(SUBSCRIBING, open)
                .await
                .with_context(|| format!("subscribing took more than {SUBSCRIBING:?}"))?
        });
    }
    while let Some(done) = opening.join_next().await {
        subscribed.push(joined(Some(done))?);
    }
    Ok(subscribed)
}

fn joined<T>(done: Option<Result<anyhow::Result<T>, tokio::task::JoinError>>) -> anyhow::Result<T> {
    done.context("no connection was being opened")?
        .context("a connection task panicked")?
}

/// One connection, subscribed: the stream and the subscription id's JSON text.
async fn subscriber(url: &str) -> anyhow::Result<(WsStream, String)> {
    // A small read buffer, as the load generator's (see `load::ws`).
    let config = WebSocketConfig::default().read_buffer_size(8 * 1024);
    let (mut stream, _) = tokio_tungstenite::connect_async_with_config(url, Some(config), true)
        .await
        .with_context(|| format!("WebSocket connection to {url}"))?;
    let request = format!(r#"{{"jsonrpc":"2.0","method":"{SUBSCRIBE}","params":[],"id":1}}"#);
    stream.send(Message::text(request)).await?;
    let answer = next_text(&mut stream).await?;
    Ok((stream, subscription_id(&answer)?))
}

/// The subscription id's JSON text in `answer`, the answer to `items_subscribe`.
///
/// # Errors
///
/// When `answer` is not the answer to call 1, or is an error.
pub(crate) fn subscription_id(answer: &[u8]) -> anyhow::Result<String> {
    let parsed: Answer<'_> = serde_json::from_slice(answer)
        .with_context(|| format!("the answer to {SUBSCRIBE}: {}", quote(answer)))?;
    ensure!(
        parsed.id == 1,
        "the answer to {SUBSCRIBE} has id {}",
        parsed.id
    );
    let id = parsed
        .result
        .with_context(|| format!("{SUBSCRIBE} was refused: {:?}", parsed.error))?;
    Ok(id.get().to_owned())
}

#[derive(serde::Deserialize)]
struct Answer<'a> {
    id: u64,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

/// A notification as the subscribers check it.
#[derive(serde::Deserialize)]
struct Notification<'a> {
    method: &'a str,
    #[serde(borrow)]
    params: Params<'a>,
}

#[derive(serde::Deserialize)]
struct Params<'a> {
    #[serde(borrow)]
    subscription: &'a RawValue,
    result: Numbered,
}

#[derive(serde::Deserialize)]
struct Numbered {
    number: u64,
}

async fn next_text(stream: &mut WsStream) -> anyhow::Result<bytes::Bytes> {
    loop {
        match stream.next().await.context("the WebSocket closed")?? {
            Message::Text(text) => return Ok(bytes::Bytes::from(text)),
            Message::Binary(bytes) => return Ok(bytes),
            Message::Close(frame) => bail!("the server closed the WebSocket: {frame:?}"),
            _ => {}
        }
    }
}

/// What one subscriber has received: checks that each notification is for its
/// subscription and carries the head after the last one.
pub(crate) struct Heads {
    id: String,
    last: Option<u64>,
}

impl Heads {
    /// For the subscription whose id's JSON text is `id`.
    pub(crate) fn new(id: String) -> Self {
        Heads { id, last: None }
    }

    /// Checks the notification `text`.
    ///
    /// # Errors
    ///
    /// When it is not a notification of this subscription, or not the next head.
    pub(crate) fn check(&mut self, text: &[u8]) -> anyhow::Result<()> {
        let note: Notification<'_> = serde_json::from_slice(text)
            .with_context(|| format!("a notification: {}", quote(text)))?;
        ensure!(
            note.method == NOTIFICATION && note.params.subscription.get() == self.id,
            "a notification for another subscription than {}: {}",
            self.id,
            quote(text)
        );
        let number = note.params.result.number;
        if let Some(last) = self.last {
            ensure!(
                number == last + 1,
                "head {number} came after head {last}: items were lost or reordered"
            );
        }
        self.last = Some(number);
        Ok(())
    }
}

/// Receives, checks and counts heads until the gauge says stop.
async fn receive(mut stream: WsStream, id: String, gauge: Gauge) -> anyhow::Result<()> {
    let mut heads = Heads::new(id);
    while gauge.running() {
        // A load must stop when told, even while no item comes (a server slowed down by
        // callgrind): 1,000 subscribers each waiting for one more item outlasted the
        // stop's timeout. `next` keeps a partly read message in the stream, so giving up
        // the wait loses nothing.
        let text = tokio::select! {
            text = next_text(&mut stream) => text?,
            () = gauge.stopped() => break,
        };
        heads.check(&text)?;
        gauge.add(1);
    }
    let _ = stream.close(None).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_are_numbered_and_sized_like_new_heads() {
        let json = serde_json::to_string(&head(7)).unwrap();
        assert!(json.contains(r#""number":7"#), "{json}");
        assert!(json.contains(r#""parentHash":"0x"#), "{json}");
        assert!(
            (180..320).contains(&json.len()),
            "{} bytes: {json}",
            json.len()
        );
    }
}
