//! The cross-instance fan-out: [`Fanout`] for notifications to every connection of a
//! [`Hub`], [`Topic`] for the items of subscriptions; both deliver locally first, then
//! publish to the broker, and deliver what the other instances publish.

use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use serde::Serialize;
use tokio::sync::watch;
use tokio::task::AbortHandle;

use super::{Broker, Error};
use crate::server::{Items, Shared, Sink, TrySendError, shared_channel};
use crate::transport::peer::{Hub, Pushed};

/// The first pause before subscribing to the broker again.
const MIN_BACKOFF: Duration = Duration::from_millis(20);
/// The longest pause between two attempts to subscribe.
const MAX_BACKOFF: Duration = Duration::from_secs(2);
/// The bytes naming the instance that published a message, ahead of its payload.
const ORIGIN: usize = 16;

/// A [`Hub`]'s notifications, sent to the connections of every instance through a
/// [`Broker`]; and, through [`Fanout::topic`], the items of subscriptions. See the
/// [module](super) for the semantics.
///
/// Cheap to clone; the link to the broker ends when the last clone is dropped.
///
/// ```no_run
/// # #[cfg(feature = "redis")]
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use rpcsmith::fanout::{Fanout, PublishError, redis::Redis};
/// use rpcsmith::transport::peer::Hub;
///
/// let hub = Hub::new(); // given to each connection's `peer::Builder::hub`
/// let fanout = Fanout::new(Redis::new("127.0.0.1:6379"), &hub, "shop");
/// match fanout.notify_all("priceChanged", &[42]).await {
///     Ok(local) => println!("published; {} local connections took it", local.sent),
///     // The broker is down: local connections got it, the other instances did not.
///     Err(PublishError::Broker { local, error }) => eprintln!("{error} ({} local)", local.sent),
///     Err(other) => return Err(other.into()),
/// }
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Fanout {
    inner: Arc<Notifications>,
}

struct Notifications {
    channel: Channel,
    hub: Hub,
}

impl Fanout {
    /// A fan-out of `hub`'s notifications on the broker's topic `topic` (the same on
    /// every instance), which starts subscribing at once.
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime (the subscription runs as a task).
    pub fn new(broker: impl Broker, hub: &Hub, topic: impl Into<String>) -> Self {
        let broker: Arc<dyn Broker> = Arc::new(broker);
        let local = hub.clone();
        let from_broker = move |payload: Bytes| {
            if is_json(&payload) {
                local.push_all(payload);
            } else {
                tracing::warn!("a notification from the broker is not JSON: dropped");
            }
        };
        let channel = Channel::open(broker, topic.into(), from_broker);
        let hub = hub.clone();
        Fanout {
            inner: Arc::new(Notifications { channel, hub }),
        }
    }

    /// Sends the notification `method` to every connection of every instance: to this
    /// instance's at once, as [`Hub::notify_all`] does, then to the others' through the
    /// broker. Resolves once the broker has taken it.
    ///
    /// # Errors
    ///
    /// [`PublishError::Encode`] when `params` cannot be serialised to an array or an
    /// object (nothing is sent); [`PublishError::Broker`] when the broker did not take
    /// it: the local connections got it, the other instances did not.
    pub async fn notify_all<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<Pushed, PublishError<Pushed>> {
        let mut message = Vec::with_capacity(ORIGIN + 64 + method.len());
        message.extend_from_slice(&self.inner.channel.origin);
        crate::protocol::write_typed_call(&mut message, None, method, params)
            .map_err(PublishError::Encode)?;
        let message = Bytes::from(message);
        let local = self.inner.hub.push_all(message.slice(ORIGIN..));
        match self
            .inner
            .channel
            .broker
            .publish(&self.inner.channel.topic, message)
            .await
        {
            Ok(()) => Ok(local),
            Err(error) => Err(PublishError::Broker { local, error }),
        }
    }

    /// The subscriptions' items published on `name` (a topic of its own on the broker,
    /// beside this fan-out's), which starts subscribing at once.
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime (the subscription runs as a task).
    pub fn topic<T: Send + 'static>(&self, name: &str) -> Topic<T> {
        let broker = Arc::clone(&self.inner.channel.broker);
        Topic::open(broker, format!("{}.{name}", self.inner.channel.topic))
    }

    /// Whether this instance is subscribed to the broker now, so that it receives what
    /// the other instances publish.
    pub fn is_linked(&self) -> bool {
        self.inner.channel.is_linked()
    }

    /// Resolves once this instance is subscribed to the broker.
    pub async fn linked(&self) {
        self.inner.channel.linked().await;
    }
}

impl fmt::Debug for Fanout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fanout")
            .field("topic", &self.inner.channel.topic)
            .field("linked", &self.is_linked())
            .finish()
    }
}

/// Items of subscriptions, published on any instance and sent to the subscribers of
/// every instance: a handler of a subscribe method returns [`Topic::subscribe`]'s
/// items, and whoever has news calls [`Topic::publish`]. Made by [`Fanout::topic`].
///
/// Cheap to clone; the link to the broker ends when the last clone is dropped.
pub struct Topic<T> {
    inner: Arc<TopicInner<T>>,
}

struct TopicInner<T> {
    channel: Channel,
    sinks: Arc<Sinks<T>>,
}

/// The local subscribers of a topic.
type Sinks<T> = Mutex<Vec<Sink<Shared<T>>>>;

/// What a publish on a [`Topic`] did on this instance.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Delivered {
    /// How many local subscribers took the item.
    pub sent: usize,
    /// How many local subscribers had no room for it (they are behind by the
    /// capacity given to [`Topic::subscribe`]), and missed it.
    pub full: usize,
}

impl<T: Send + 'static> Topic<T> {
    fn open(broker: Arc<dyn Broker>, topic: String) -> Self {
        let sinks: Arc<Sinks<T>> = Arc::default();
        let local = Arc::clone(&sinks);
        let from_broker = move |payload: Bytes| match std::str::from_utf8(&payload) {
            Ok(json) if is_json(json.as_bytes()) => {
                deliver(&local, &Shared::from_json(json.into()));
            }
            _ => tracing::warn!("an item from the broker is not JSON: dropped"),
        };
        let channel = Channel::open(broker, topic, from_broker);
        Topic {
            inner: Arc::new(TopicInner { channel, sinks }),
        }
    }

    /// A new subscriber's items, of which up to `capacity` wait for its connection
    /// (more are missed: see [`Delivered::full`]): what a subscribe handler returns.
    /// It leaves the topic when the subscription ends.
    pub fn subscribe(&self, capacity: usize) -> Items<T> {
        let (sink, items) = shared_channel(capacity);
        let mut sinks = lock(&self.inner.sinks);
        sinks.retain(|sink| !sink.is_closed());
        sinks.push(sink);
        items
    }

    /// How many local subscribers are live.
    pub fn subscribers(&self) -> usize {
        let mut sinks = lock(&self.inner.sinks);
        sinks.retain(|sink| !sink.is_closed());
        sinks.len()
    }

    /// Whether this instance is subscribed to the broker now.
    pub fn is_linked(&self) -> bool {
        self.inner.channel.is_linked()
    }

    /// Resolves once this instance is subscribed to the broker.
    pub async fn linked(&self) {
        self.inner.channel.linked().await;
    }
}

impl<T: Serialize + Send + 'static> Topic<T> {
    /// Sends `item` to every subscriber of every instance: to this instance's at once,
    /// then to the others' through the broker. Resolves once the broker has taken it.
    ///
    /// # Errors
    ///
    /// [`PublishError::Encode`] when `item` cannot be serialised (nothing is sent);
    /// [`PublishError::Broker`] when the broker did not take it: the local subscribers
    /// got it, the other instances' did not.
    pub async fn publish(&self, item: &T) -> Result<Delivered, PublishError<Delivered>> {
        let item = Shared::new(item).map_err(PublishError::Encode)?;
        let local = deliver(&self.inner.sinks, &item);
        let channel = &self.inner.channel;
        let mut message = Vec::with_capacity(ORIGIN + item.json().len());
        message.extend_from_slice(&channel.origin);
        message.extend_from_slice(item.json().as_bytes());
        match channel.broker.publish(&channel.topic, message.into()).await {
            Ok(()) => Ok(local),
            Err(error) => Err(PublishError::Broker { local, error }),
        }
    }
}

impl<T> Clone for Topic<T> {
    fn clone(&self) -> Self {
        Topic {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<T> fmt::Debug for Topic<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Topic")
            .field("topic", &self.inner.channel.topic)
            .field("linked", &self.inner.channel.is_linked())
            .finish()
    }
}

/// Gives `item` to each live local subscriber that has room.
fn deliver<T>(sinks: &Sinks<T>, item: &Shared<T>) -> Delivered {
    let mut delivered = Delivered::default();
    lock(sinks).retain(|sink| match sink.try_send(item.clone()) {
        Ok(()) => {
            delivered.sent += 1;
            true
        }
        Err(TrySendError::Full(_)) => {
            delivered.full += 1;
            true
        }
        Err(_) => false,
    });
    delivered
}

fn lock<T>(sinks: &Sinks<T>) -> std::sync::MutexGuard<'_, Vec<Sink<Shared<T>>>> {
    sinks.lock().unwrap_or_else(PoisonError::into_inner)
}

fn is_json(bytes: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok()
}

/// A publish that did not reach every instance.
#[derive(Debug)]
#[non_exhaustive]
pub enum PublishError<D> {
    /// The message could not be serialised; nothing was sent.
    Encode(serde_json::Error),
    /// The broker did not take the message: this instance's connections got it
    /// (`local` says how), the other instances' did not.
    Broker {
        /// What was delivered on this instance.
        local: D,
        /// Why the broker did not take it.
        error: Error,
    },
}

impl<D> fmt::Display for PublishError<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PublishError::Encode(error) => write!(f, "cannot serialise the message: {error}"),
            PublishError::Broker { error, .. } => write!(
                f,
                "delivered on this instance only, not published to the others: {error}"
            ),
        }
    }
}

impl<D: fmt::Debug> std::error::Error for PublishError<D> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PublishError::Encode(error) => Some(error),
            PublishError::Broker { error, .. } => Some(error),
        }
    }
}

/// One topic on the broker: where this instance publishes, and the task that keeps it
/// subscribed and hands what the other instances publish to `deliver`.
struct Channel {
    broker: Arc<dyn Broker>,
    topic: String,
    /// This channel's own messages, which it skips when the broker sends them back.
    origin: [u8; ORIGIN],
    linked: watch::Receiver<bool>,
    listener: AbortHandle,
}

impl Channel {
    fn open(
        broker: Arc<dyn Broker>,
        topic: String,
        deliver: impl Fn(Bytes) + Send + 'static,
    ) -> Self {
        let origin = new_origin();
        let (link, linked) = watch::channel(false);
        let listening = listen(Arc::clone(&broker), topic.clone(), origin, link, deliver);
        let listener = tokio::spawn(listening).abort_handle();
        Channel {
            broker,
            topic,
            origin,
            linked,
            listener,
        }
    }

    fn is_linked(&self) -> bool {
        *self.linked.borrow()
    }

    async fn linked(&self) {
        let mut linked = self.linked.clone();
        // The sender lives as long as the listener, which lives as long as `self`.
        let _ = linked.wait_for(|linked| *linked).await;
    }
}

impl Drop for Channel {
    fn drop(&mut self) {
        self.listener.abort();
    }
}

/// Keeps `topic` subscribed, subscribing again after a loss with a growing pause, and
/// delivers every message another instance published.
async fn listen(
    broker: Arc<dyn Broker>,
    topic: String,
    origin: [u8; ORIGIN],
    link: watch::Sender<bool>,
    deliver: impl Fn(Bytes),
) {
    let mut backoff = MIN_BACKOFF;
    loop {
        match broker.subscribe(&topic).await {
            Ok(mut messages) => {
                link.send_replace(true);
                backoff = MIN_BACKOFF;
                while let Some(message) = messages.next().await {
                    match message.get(..ORIGIN) {
                        Some(from) if from == origin => {}
                        Some(_) => deliver(message.slice(ORIGIN..)),
                        None => {
                            tracing::warn!(topic, "a message from the broker is too short: dropped")
                        }
                    }
                }
                link.send_replace(false);
                tracing::warn!(topic, "the broker subscription ended: subscribing again");
            }
            Err(error) => {
                tracing::warn!(%error, topic, ?backoff, "cannot subscribe to the broker: retrying")
            }
        }
        // Wall-clock time is the point: a pause between attempts on a broker that is down.
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

/// 128 random bits naming one channel of this process (SipHash under the standard
/// library's keys, which are seeded from the operating system).
fn new_origin() -> [u8; ORIGIN] {
    let keys = std::collections::hash_map::RandomState::new();
    let mut origin = [0; ORIGIN];
    for (lane, half) in origin.chunks_mut(8).enumerate() {
        let mut hasher = keys.build_hasher();
        hasher.write_u32(std::process::id());
        hasher.write_usize(lane);
        half.copy_from_slice(&hasher.finish().to_le_bytes());
    }
    origin
}
