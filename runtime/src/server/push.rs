//! The server's port for pushing: [`Outlet`], which a transport that can push (the
//! symmetric peer: WebSocket, byte streams) implements for each connection, and
//! [`Pushes`], the connection's registry of push subscriptions around it, which the
//! transport installs in the connection's [`Metadata`](super::Metadata) extensions.
//!
//! The transport also wraps the handling of each message in [`hold`](super::hold()), and releases
//! what it returns once the message's answer is queued: so a subscription's items are
//! queued after the answer that carries its id.

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, OnceLock, PoisonError};

use serde_json::value::RawValue;

use bytes::Bytes;
use tokio::sync::oneshot;

use crate::metrics::LiveMeter;
use crate::protocol::{ErrorObject, Feed, IdKind};

use super::dispatch::BoxFuture;
use super::encoded::Encoded;
use super::hold::held;
use super::pump::{Drained, Pump};
use super::sink::Closed;
use super::stream_call::{EncodedItems, write_next};

/// What a transport offers the server engine for pushing to one connection.
///
/// ```
/// use bytes::Bytes;
/// use rpcsmith::server::{BoxFuture, Closed, Outlet};
/// use tokio::sync::mpsc;
///
/// /// Messages go to the connection's writer through a bounded channel.
/// struct Writer(mpsc::Sender<Bytes>);
///
/// impl Outlet for Writer {
///     fn push(&self, message: Bytes) -> BoxFuture<'_, Result<(), Closed>> {
///         Box::pin(async move { self.0.send(message).await.map_err(|_| Closed) })
///     }
///     fn closed(&self) -> BoxFuture<'_, ()> {
///         Box::pin(self.0.closed())
///     }
/// }
/// ```
pub trait Outlet: Send + Sync + 'static {
    /// Queues one message for the other side, waiting for room (in the connection's
    /// byte budget, in its queue) as long as it takes: a slow connection makes only its
    /// own pushers wait.
    ///
    /// # Errors
    ///
    /// [`Closed`] once the connection has ended.
    fn push(&self, message: Bytes) -> BoxFuture<'_, Result<(), Closed>>;

    /// Resolves when the connection has ended.
    fn closed(&self) -> BoxFuture<'_, ()>;
}

/// A connection's push subscriptions, around its [`Outlet`]. A transport that can push
/// makes one per connection and puts it in the connection's
/// [`Metadata::extensions`](super::Metadata::extensions); the engine's
/// [`subscribe`](super::subscribe) finds it there (a connection without one gets pull
/// streams). Cheap to clone (an `Arc` inside).
///
/// ```
/// # use bytes::Bytes;
/// # use rpcsmith::server::{BoxFuture, Closed, Outlet};
/// # struct Writer;
/// # impl Outlet for Writer {
/// #     fn push(&self, _: Bytes) -> BoxFuture<'_, Result<(), Closed>> { Box::pin(async { Ok(()) }) }
/// #     fn closed(&self) -> BoxFuture<'_, ()> { Box::pin(std::future::pending()) }
/// # }
/// use rpcsmith::server::{Metadata, Pushes};
///
/// let mut metadata = Metadata::default();
/// metadata.extensions.insert(Pushes::new(Writer));
/// // … `server.connection(metadata)` for the connection's messages.
/// ```
#[derive(Clone)]
pub struct Pushes {
    inner: Arc<Inner>,
}

struct Inner {
    outlet: Box<dyn Outlet>,
    registry: Mutex<Registry>,
    /// Runs the connection's subscriptions, in one task.
    pump: Pump,
}

#[derive(Default)]
struct Registry {
    /// The last integer id given out on this connection.
    last_number: u64,
    /// Subscriptions whose handler is still running.
    reserved: usize,
    /// Live subscriptions by id (JSON text).
    live: HashMap<Box<str>, Live>,
}

/// A live subscription, as its registry holds it.
struct Live {
    /// Dropped: the pump stops.
    stop: oneshot::Sender<()>,
    /// Told (by being dropped) when the pump has stopped.
    stopped: oneshot::Receiver<()>,
}

/// A subscription being ended: resolves once its pump has stopped, so that nothing of
/// it is queued any more.
pub(crate) struct Ending(oneshot::Receiver<()>);

impl Ending {
    pub(crate) async fn stopped(self) {
        let _ = self.0.await;
    }
}

impl Pushes {
    /// The registry of a new connection, pushing through `outlet`.
    pub fn new(outlet: impl Outlet) -> Self {
        Pushes {
            inner: Arc::new(Inner {
                outlet: Box::new(outlet),
                registry: Mutex::default(),
                pump: Pump::default(),
            }),
        }
    }

    /// How many push subscriptions are live on the connection now.
    pub fn len(&self) -> usize {
        self.registry().live.len()
    }

    /// Whether no push subscription is live on the connection.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn registry(&self) -> MutexGuard<'_, Registry> {
        self.inner
            .registry
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Reserves room for one more subscription, within `max`.
    pub(crate) fn reserve(&self, max: usize) -> Result<Reservation, ErrorObject> {
        let mut registry = self.registry();
        if registry.live.len() + registry.reserved >= max {
            return Err(ErrorObject::too_many_subscriptions(format!(
                "too many subscriptions on this connection (limit: {max})"
            )));
        }
        registry.reserved += 1;
        Ok(Reservation {
            pushes: Some(self.clone()),
        })
    }

    /// Ends the live subscription `id` (JSON text) of this connection, if there is
    /// one: its pump is told to stop.
    pub(crate) fn end(&self, id: &str) -> Option<Ending> {
        // The stop sender is dropped outside the lock: the pump wakes to stop.
        let Live { stop, stopped } = self.registry().live.remove(id)?;
        drop(stop);
        Some(Ending(stopped))
    }
}

impl fmt::Debug for Pushes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pushes").field("live", &self.len()).finish()
    }
}

/// Room for one subscription whose handler runs; given back when dropped unused.
pub(crate) struct Reservation {
    pushes: Option<Pushes>,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if let Some(pushes) = &self.pushes {
            pushes.registry().reserved -= 1;
        }
    }
}

impl Reservation {
    /// Makes the subscription live: gives it its id, starts its pump (held until the
    /// answer is queued, inside [`hold`](super::hold())), and returns the id to answer.
    pub(crate) fn start(mut self, feed: &'static Feed, items: EncodedItems) -> Encoded {
        let Some(pushes) = self.pushes.take() else {
            return encoded_id("null");
        };
        let (stop_sender, stop) = oneshot::channel();
        let (stopped_sender, stopped) = oneshot::channel::<()>();
        let id = {
            let mut registry = pushes.registry();
            registry.reserved -= 1;
            let id = match feed.id_kind {
                IdKind::Number => {
                    registry.last_number += 1;
                    registry.last_number.to_string()
                }
                IdKind::String | IdKind::Null => random_id(),
            };
            let live = Live {
                stop: stop_sender,
                stopped,
            };
            registry.live.insert(id.clone().into(), live);
            id
        };
        let release = held();
        let answer = encoded_id(&id);
        let live = LiveMeter::subscription();
        let run = Box::pin({
            let pushes = pushes.clone();
            async move {
                let _live = live;
                run(pushes, id, feed, items, release, stop).await;
                drop(stopped_sender);
            }
        });
        if pushes.inner.pump.add(run) {
            tokio::spawn(async move {
                let closed = pushes.inner.outlet.closed();
                if pushes.inner.pump.drive(closed).await == Drained::Closed {
                    // Their runs were dropped, not ended: forget them here.
                    pushes.registry().live.clear();
                }
            });
        }
        answer
    }
}

/// Sends a subscription's items until it is unsubscribed; then forgets it. Items that
/// end do not end the subscription (design decision 14): where the feed declares an end
/// notification it is sent and the subscription forgotten; elsewhere (Starknet,
/// Ethereum: no "ended" message) it stays registered, silent, so that the client's
/// unsubscribe is answered `true`. Its items are dropped only when it is forgotten, which
/// is how their producer learns that the subscription is over. The connection's end is
/// the [`Pump`]'s to watch: it drops every run then.
async fn run(
    pushes: Pushes,
    id: String,
    feed: &'static Feed,
    mut items: EncodedItems,
    release: Option<oneshot::Receiver<()>>,
    mut stop: oneshot::Receiver<()>,
) {
    let outlet = &pushes.inner.outlet;
    if let Some(release) = release {
        tokio::select! {
            biased;
            _ = &mut stop => return,
            released = release => if released.is_err() {
                // The answer was never queued (the call was cancelled): no subscription.
                pushes.end(&id);
                return;
            },
        }
    }
    if send_items(outlet.as_ref(), &id, feed, &mut items, &mut stop).await {
        match feed.end_message(&id) {
            Some(end) => {
                tokio::select! {
                    biased;
                    _ = &mut stop => {}
                    _ = outlet.push(end.into()) => {}
                }
            }
            None => {
                let _ = (&mut stop).await;
            }
        }
    }
    drop(items);
    // Ids are never reused, so this is this subscription's entry, if still there.
    pushes.end(&id);
}

/// Sends the items as the feed's notifications: `true` once they have ended, `false`
/// when the subscription was stopped or the connection ended first.
async fn send_items(
    outlet: &dyn Outlet,
    id: &str,
    feed: &'static Feed,
    items: &mut EncodedItems,
    stop: &mut oneshot::Receiver<()>,
) -> bool {
    // The notification's start, the same for every item: written (its strings escaped)
    // once, at the first item (a subscription waiting for one holds none), then copied.
    let prefix = OnceLock::<Box<[u8]>>::new();
    // The last message's length: each message is allocated at about its size at once
    // (a fan-out's items are alike), not grown from a guess, which both reallocated and
    // left up to half of each queued message's allocation unused.
    let last = AtomicUsize::new(0);
    let start = |out: &mut Vec<u8>| {
        let prefix = prefix.get_or_init(|| {
            let mut prefix = Vec::new();
            feed.write_item_start(&mut prefix, id);
            prefix.into_boxed_slice()
        });
        let guess = last.load(Ordering::Relaxed).max(prefix.len() + ITEM_GUESS);
        out.reserve_exact(guess + MESSAGE_SLACK);
        out.extend_from_slice(prefix);
    };
    loop {
        let mut message = Vec::new();
        let written = tokio::select! {
            biased;
            _ = &mut *stop => return false,
            written = write_next(items, &mut message, &start) => written,
        };
        match written {
            Some(Ok(())) => {
                feed.write_item_end(&mut message);
                last.store(message.len(), Ordering::Relaxed);
            }
            Some(Err(error)) => {
                tracing::error!(%error, id, "a subscription's item could not be serialized; skipped");
                continue;
            }
            None => return true,
        }
        let pushed = tokio::select! {
            biased;
            _ = &mut *stop => return false,
            pushed = outlet.push(message.into()) => pushed,
        };
        if pushed.is_err() {
            return false;
        }
    }
}

/// Room for the first item of a subscription, after its notification's start.
const ITEM_GUESS: usize = 192;

/// Room beyond the last message's length, for an item a little longer than the last.
const MESSAGE_SLACK: usize = 32;

/// The answer carrying an id (JSON text the runtime made).
pub(crate) fn encoded_id(id: &str) -> Encoded {
    match serde_json::from_str::<&RawValue>(id) {
        Ok(raw) => Encoded::from_raw(raw),
        Err(_) => Encoded::from_raw(&Box::<RawValue>::default()),
    }
}

/// A random 128-bit id, as a JSON string of `0x` and 32 hex digits: subscription,
/// pull-stream and HTTP session ids, which must be unguessable (MCP asks for
/// cryptographically secure session ids).
///
/// The bits come from the operating system's CSPRNG (`getrandom`). Should it fail
/// (it does not on the supported systems), the error is logged and the bits are
/// SipHash outputs of a process-wide counter under the standard library's randomly
/// seeded keys: still never repeated within the process.
pub(crate) fn random_id() -> String {
    let mut bytes = [0u8; 16];
    if let Err(error) = getrandom::fill(&mut bytes) {
        tracing::error!(%error, "the system's random source failed: ids fall back to keyed hashing");
        bytes = hashed_bits();
    }
    format!("\"0x{:032x}\"", u128::from_be_bytes(bytes))
}

/// The fallback bits of [`random_id`].
fn hashed_bits() -> [u8; 16] {
    static KEYS: LazyLock<std::hash::RandomState> = LazyLock::new(std::hash::RandomState::new);
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let half = |lane: u64| {
        let mut hasher = KEYS.build_hasher();
        hasher.write_u64(n);
        hasher.write_u64(lane);
        hasher.finish()
    };
    ((u128::from(half(0)) << 64) | u128::from(half(1))).to_be_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_ids_are_128_bits_of_hex_and_distinct() {
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| random_id()).collect();
        assert_eq!(ids.len(), 1000);
        for id in &ids {
            let hex = id.strip_prefix("\"0x").and_then(|s| s.strip_suffix('"'));
            assert!(
                hex.is_some_and(|h| h.len() == 32 && h.bytes().all(|b| b.is_ascii_hexdigit())),
                "{id}"
            );
        }
        // The fallback has the same shape and never repeats either.
        assert_ne!(hashed_bits(), hashed_bits());
    }
}
