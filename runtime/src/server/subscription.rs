//! What the handler of a subscribe method returns ([`Items`], or a
//! [`Sink`](super::Sink) and its [`Items`] from [`channel`](super::channel)), and the
//! two runtime functions a generated dispatcher calls for a subscription: [`subscribe`]
//! and [`unsubscribe`].

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll, ready};

use futures_util::Stream;
use pin_project_lite::pin_project;
use serde::Serialize;
use serde_json::value::RawValue;

use crate::protocol::{ErrorObject, Feed};

use super::context::Context;
use super::dispatch::{Reply, ReplyInner};
use super::failure::Failure;
use super::stream_call::{Closing, EncodedItems, Handler, ItemSource, Opening, StreamCall};

/// The items of one subscription, as the handler of a subscribe method returns them:
/// any `Stream` of serializable items ([`Items::new`]) or of items serialized once for
/// many subscriptions ([`Items::shared`]), or the receiving end of a
/// [`channel`](super::channel) or a [`shared_channel`](super::shared_channel).
///
/// The runtime drops it when the subscription ends (unsubscribed, cancelled, the
/// connection closed), which is how the code producing the items learns to stop.
///
/// ```
/// use rpcsmith::server::Items;
///
/// let ticks: Items<u64> = Items::new(futures_util::stream::iter([1, 2, 3]));
/// # drop(ticks);
/// ```
pub struct Items<T> {
    source: EncodedItems,
    _item: PhantomData<fn() -> T>,
}

impl<T: Serialize + Send + 'static> Items<T> {
    /// The items of `stream`; the subscription ends when it does. Each item is
    /// serialized straight into the message that carries it.
    pub fn new(stream: impl Stream<Item = T> + Send + 'static) -> Self {
        // Serialized as they come.
        let write = |out: &mut Vec<u8>, item: T| crate::protocol::number::to_writer(out, &item);
        Items::from_source(Source { stream, write })
    }
}

impl<T: 'static> Items<T> {
    /// The items of `stream`, each serialized once already ([`Shared`]): its JSON text
    /// is copied into each subscription's notification, not serialized again. For
    /// sending one item to many subscriptions.
    pub fn shared(stream: impl Stream<Item = Shared<T>> + Send + 'static) -> Self {
        // Serialized already.
        let write = |out: &mut Vec<u8>, item: Shared<T>| {
            out.extend_from_slice(item.json().as_bytes());
            Ok(())
        };
        Items::from_source(Source { stream, write })
    }

    fn from_source(source: impl ItemSource + 'static) -> Self {
        Items {
            source: Box::pin(source),
            _item: PhantomData,
        }
    }

    /// The items, for the runtime.
    pub(crate) fn encoded(self) -> EncodedItems {
        self.source
    }
}

impl<T> fmt::Debug for Items<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Items").finish_non_exhaustive()
    }
}

pin_project! {
    /// A stream of items, and how each is written as JSON.
    struct Source<S, W> {
        #[pin]
        stream: S,
        write: W,
    }
}

impl<S, W> ItemSource for Source<S, W>
where
    S: Stream + Send,
    W: Fn(&mut Vec<u8>, S::Item) -> Result<(), serde_json::Error> + Send,
{
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        out: &mut Vec<u8>,
        start: &(dyn Fn(&mut Vec<u8>) + Sync),
    ) -> Poll<Option<Result<(), serde_json::Error>>> {
        let this = self.project();
        let item = ready!(this.stream.poll_next(cx));
        Poll::Ready(item.map(|item| {
            start(out);
            (this.write)(out, item)
        }))
    }
}

/// An item serialized once, for sending to many subscriptions: cloning it is cheap (an
/// `Arc` inside), and the runtime copies its JSON text into each notification rather
/// than serializing the item for each subscription. Typed by the item it holds, so
/// that [`Items::shared`] and [`shared_channel`](super::shared_channel) give the
/// `Items<T>` a handler returns.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use rpcsmith::server::{Shared, shared_channel};
///
/// let (a, _items_a) = shared_channel::<Vec<u32>>(8);
/// let (b, _items_b) = shared_channel::<Vec<u32>>(8);
/// let head = Shared::new(&vec![1, 2, 3]).unwrap();
/// assert_eq!(head.json(), "[1,2,3]");
/// for sink in [&a, &b] {
///     sink.send(head.clone()).await.unwrap();
/// }
/// # });
/// ```
pub struct Shared<T> {
    json: Arc<str>,
    _item: PhantomData<fn() -> T>,
}

impl<T: Serialize> Shared<T> {
    /// Serializes `item`, once.
    ///
    /// # Errors
    ///
    /// The serializer's error, when `item` cannot be serialized (a map with non-string
    /// keys, a failing `Serialize` implementation).
    pub fn new(item: &T) -> Result<Self, serde_json::Error> {
        let json = serde_json::to_string(item)?;
        Ok(Shared {
            json: json.into(),
            _item: PhantomData,
        })
    }
}

impl<T> Shared<T> {
    /// An item serialized elsewhere (another instance, through a broker): `json` must
    /// be one JSON value, which the caller has checked.
    #[cfg(feature = "broker")]
    pub(crate) fn from_json(json: Arc<str>) -> Self {
        Shared {
            json,
            _item: PhantomData,
        }
    }

    /// The item's JSON text.
    pub fn json(&self) -> &str {
        &self.json
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared {
            json: Arc::clone(&self.json),
            _item: PhantomData,
        }
    }
}

impl<T> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Shared").field(&self.json).finish()
    }
}

/// Runs the handler of a subscribe method and, on success, answers the subscription's
/// id and starts sending its items: what a generated dispatcher returns for a
/// subscribe method. A handler's [`Failure`] is answered as any call's.
///
/// A subscription's life, as the runtime runs it:
///
/// 1. [`subscribe`] refuses at once, with `-32014` (too many subscriptions), a call past
///    [`Limits::max_subscriptions`](super::Limits::max_subscriptions) on its connection
///    (or, pulled, past [`Limits::max_pull_streams`](super::Limits::max_pull_streams)
///    in the server); else it runs the handler.
/// 2. On `Ok(items)` it assigns the subscription's id (per [`Feed::id_kind`]) and
///    answers it. Where the connection can push (WebSocket, byte streams: their
///    transport installs a [`Pushes`](super::Pushes)) and the feed is not
///    [`pull_only`](Feed::pull_only), each item is then written as the feed's
///    notification, with the document's param names, by name or by position; **every
///    item after the id's answer on the wire**. Elsewhere (plain HTTP, the in-memory
///    transport) it becomes a pull stream, read with `rpc.stream.next`.
/// 3. It ends when the items end, when the client calls the feed's unsubscribe method
///    (answered by the runtime: [`unsubscribe`]) or `rpc.stream.cancel`, or when the
///    connection closes: the item stream is dropped then, so a [`Sink`](super::Sink) sees
///    [`closed`](super::Sink::closed), and nothing more is written.
///
/// **Batches**: a subscribe call inside a batch works like a single one; its items are
/// held until the whole batch's answer (which carries the id) is queued.
///
/// **What a subscription costs**: no task of its own. One task per connection (started
/// with its first subscription, ending with its last) polls the subscriptions whose
/// items woke it, so an idle subscription holds its item stream, its id and a slot in
/// that task's set; a [`channel`](super::channel)'s queue is allocated only while items
/// wait in it.
///
/// **A slow connection** blocks only its own subscriptions: each subscription waits for
/// room in its connection's byte budget before it takes the next item, so items stay in
/// the handler's stream (or the [`channel`](super::channel), whose
/// [`Sink::send`](super::Sink::send) then waits) rather than piling up in the server;
/// the connection's reader and every other connection go on.
///
/// **Pull streams** (the quasi-protocol of the kotlinx-rpc JSON-RPC proposal) are the
/// server's, not a connection's (the HTTP requests of one client may come on different
/// sockets): their ids are always random 128-bit `0x`-hex strings, whatever the feed's
/// [`id_kind`](Feed::id_kind), and the engine answers two methods for them:
///
/// | call | answer |
/// |---|---|
/// | `rpc.stream.next {"stream": id}` (or `[id]`) | `{"item": …}`; `{"idle": true}` when no item came within [`Limits::pull_wait`](super::Limits::pull_wait) (ask again); `{"done": true}` once the stream has ended, after which its id is forgotten |
/// | `rpc.stream.cancel {"stream": id}` | `true`; `false` for an unknown id |
/// | `rpc.stream.next` naming an unknown or expired id | `-32602`, `unknown stream: <id> is not a live stream (…)` |
///
/// The same streams answer the two methods of the kotlinx-rpc JSON-RPC proposal
/// ("Implementation of JSON-RPC in kotlinx.rpc", its Flow support), so that a client
/// of that proposal pulls them too: `kotlinx.rpc.jsonrpc.internal.nextFlowValue [id]`
/// answers the item itself as the result, waits without an `idle` answer (up to the
/// [handler timeout](super::Limits::handler_timeout)), and answers `-32001`
/// `Flow completed` once the stream has ended; `kotlinx.rpc.jsonrpc.internal.cancelFlow
/// [id]` answers as `rpc.stream.cancel`. (The runtime's own names stay `rpc.stream.*`:
/// an end marker inside the result tells the end from an error without a reserved
/// error code, and `idle` keeps a pulling HTTP request within proxies' timeouts.)
///
/// A stream no `rpc.stream.next` asked for within
/// [`Limits::pull_idle_timeout`](super::Limits::pull_idle_timeout) is dropped. A pull
/// stream has backpressure by construction: the next item is taken from the handler's
/// stream only when asked for.
///
/// **A subscribe call sent as a notification** has no answer, so no one could learn its
/// id: its handler is not run.
///
/// The returned [`Reply`] must reach the server engine as it is (a dispatcher returns
/// it): turned into a future elsewhere ([`Reply::into_future`]) it answers `-32603`.
///
/// ```
/// use rpcsmith::protocol::{ErrorObject, Feed};
/// use rpcsmith::server::{Context, Dispatch, Failure, Items, Reply, subscribe, unsubscribe};
/// use serde_json::value::RawValue;
///
/// static TICKS: Feed = Feed::push("tick", "subscription", "result")
///     .unsubscribe("untick", "subscription", true);
///
/// struct Clock;
///
/// impl Dispatch for Clock {
///     fn call(&self, method: &str, params: Option<&RawValue>, cx: Context) -> Reply {
///         match method {
///             "ticks" => subscribe(cx, &TICKS, async {
///                 Ok::<_, Failure>(Items::new(futures_util::stream::iter(1..=3u64)))
///             }),
///             "untick" => unsubscribe(cx, &TICKS, params),
///             _ => Reply::err(ErrorObject::method_not_found()),
///         }
///     }
/// }
/// ```
pub fn subscribe<T, E, F>(cx: Context, feed: &'static Feed, handler: F) -> Reply
where
    T: Serialize + Send + 'static,
    E: Into<ErrorObject> + Send + 'static,
    F: Future<Output = Result<Items<T>, Failure<E>>> + Send + 'static,
{
    let handler: Handler = Box::pin(async move {
        match handler.await {
            Ok(items) => Ok(items.encoded()),
            Err(Failure::Declared(error)) => Err(error.into()),
            Err(Failure::Object(error)) => Err(error),
        }
    });
    Reply(ReplyInner::Stream(StreamCall::Open(Box::new(Opening {
        context: cx,
        feed,
        handler,
    }))))
}

/// Answers a feed's unsubscribe method: `true` when the id in `params` names a live
/// subscription of this connection (or a pull stream), which then ends; `false`
/// otherwise. The id is read by position (`["0xab"]`) or by name
/// (`{"<unsubscribe_param>": "0xab"}`), whichever the client sent.
///
/// One unsubscribe method often serves several subscribe methods (Ethereum's
/// `eth_unsubscribe`, Starknet's `starknet_unsubscribe`): any live subscription of the
/// connection may be named, whatever its feed.
///
/// Params that hold no id are answered `-32602` with a message saying what was
/// expected. See [`subscribe`] for an example.
pub fn unsubscribe(cx: Context, feed: &'static Feed, params: Option<&RawValue>) -> Reply {
    closing(cx, feed, params, None)
}

/// As [`unsubscribe`], but an unknown id is answered with `unknown` (the method's
/// declared error, when the document declares one for it) instead of `false`.
pub fn unsubscribe_or(
    cx: Context,
    feed: &'static Feed,
    params: Option<&RawValue>,
    unknown: ErrorObject,
) -> Reply {
    closing(cx, feed, params, Some(unknown))
}

fn closing(
    cx: Context,
    feed: &'static Feed,
    params: Option<&RawValue>,
    unknown: Option<ErrorObject>,
) -> Reply {
    let Some(id) = params.and_then(|params| feed.read_unsubscribe_id(params)) else {
        let name = if feed.unsubscribe_param.is_empty() {
            "id"
        } else {
            feed.unsubscribe_param
        };
        return Reply::err(ErrorObject::invalid_params(format!(
            "invalid params: expected the subscription id, as [<id>] or {{\"{name}\": <id>}}"
        )));
    };
    Reply(ReplyInner::Stream(StreamCall::Close(Box::new(Closing {
        context: cx,
        id: id.get().into(),
        unknown,
    }))))
}
