//! Subscriptions: a typed stream of the items a server sends after a subscribe call
//! ([`Subscription`]), and how a client makes one.

use super::error::UntypedFailure;
use super::pending::Answer;
use super::pull;
use super::send::Sending;
use super::slot::{Next, Slot};
use super::subscription_id::OneParam;
pub use super::subscription_id::SubscriptionId;
use super::{Carries, Client, DeclaredError, Error, Shared};
use crate::protocol::{ErrorObject, Feed, Mismatch, mismatch, write_typed_call};
use bytes::Bytes;
use futures_core::Stream;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

/// What a [`Subscription`] yields instead of an item. [`Closed`](Self::Closed),
/// [`Server`](Self::Server) and [`Protocol`](Self::Protocol) end the stream (the next
/// poll gives `None`); the others do not.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SubscriptionError {
    /// The consumer fell behind: `missed` items were dropped, the oldest first (the
    /// buffer is bounded in items and bytes); the stream goes on.
    Lagged {
        /// How many items were dropped since the consumer was last told.
        missed: u64,
    },
    /// The connection was lost and the subscription re-issued on a new one (under a
    /// new [`id`](Subscription::id)); items sent in between are missed. The stream goes
    /// on.
    Resubscribed,
    /// One item did not fit the item type (the [`Mismatch`] says where and why); the
    /// stream goes on.
    Decode(Mismatch),
    /// The server ended the stream with an error (a pull stream's `rpc.stream.next`
    /// failed, as for an unknown stream), or refused to re-issue it on a new
    /// connection. The stream ends.
    Server(ErrorObject),
    /// The connection closed; this is the last item, then `None`.
    Closed,
    /// A pulled stream's answer broke the pull protocol (the message says how). The
    /// stream ends.
    Protocol(String),
}

impl fmt::Display for SubscriptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Lagged { missed } => {
                write!(f, "the consumer fell behind: {missed} items were dropped")
            }
            Self::Resubscribed => {
                f.write_str("subscribed again on a new connection: items may have been missed")
            }
            Self::Decode(mismatch) => {
                write!(f, "could not decode item{}", mismatch.after_subject())
            }
            Self::Server(error) => write!(f, "server error {}: {}", error.code, error.message),
            Self::Closed => f.write_str("the connection closed"),
            Self::Protocol(reason) => write!(f, "the pull protocol was broken: {reason}"),
        }
    }
}

impl std::error::Error for SubscriptionError {}

/// A subscription's items, typed `T`, as a [`Stream`] of `Result<T, SubscriptionError>`,
/// whether the server pushes them (WebSocket, byte streams) or they are pulled (plain
/// HTTP); made by [`Client::subscribe`].
///
/// ```no_run
/// # async fn demo(client: rpcsmith::client::Client) -> Result<(), rpcsmith::client::Error> {
/// use futures_util::StreamExt;
/// use rpcsmith::client::{Subscription, SubscriptionError};
/// use rpcsmith::protocol::Feed;
///
/// static NEW_HEADS: Feed = Feed::push("starknet_subscriptionNewHeads", "subscription_id", "result")
///     .unsubscribe("starknet_unsubscribe", "subscription_id", false);
///
/// let mut heads: Subscription<serde_json::Value> =
///     client.subscribe("starknet_subscribeNewHeads", &(), &NEW_HEADS).await?;
/// while let Some(head) = heads.next().await {
///     match head {
///         Ok(head) => println!("{head}"),
///         Err(SubscriptionError::Lagged { missed }) => eprintln!("missed {missed} heads"),
///         Err(SubscriptionError::Resubscribed) => eprintln!("reconnected; heads may be missing"),
///         Err(error) => eprintln!("{error}"),
///     }
/// }
/// # Ok(()) }
/// ```
///
/// **Push.** On a transport that receives pushes ([`Transport::receives_pushes`](super::Transport::receives_pushes): the
/// peer transports), the items come as the [`Feed`]'s notification and the runtime
/// routes each to its subscription by (notification method, subscription id); a
/// notification that arrives right after the subscribe call's answer is not lost (the
/// subscription is routed as the answer is read, before the next message). Each
/// subscription buffers what its consumer has not taken yet, bounded in items and in
/// bytes ([`Builder::subscription_buffer`](super::Builder::subscription_buffer)); a
/// full buffer drops its oldest items and says so with
/// [`SubscriptionError::Lagged`]. Waiting instead (backpressure) would stall the
/// connection's reader, and with it every call and subscription of that connection.
/// (Items come as single notifications: one inside a batch goes to the peer's own
/// handler.) A notification that matches no subscription goes to that handler too, as
/// without subscriptions.
///
/// **Pull.** Where the transport cannot receive pushes (HTTP, in-memory), or the feed
/// is [`pull_only`](Feed::pull_only), the subscription asks for each item with
/// `rpc.stream.next` (`{"stream": id}` → `{"item": …}`, `{"idle": true}` to ask again,
/// or `{"done": true}` at the end), one request at a time, only while it is polled:
/// backpressure by construction. Unsubscribing sends `rpc.stream.cancel`. Each
/// `rpc.stream.next` waits up to the client's timeout: keep it above the server's pull
/// wait (20 s by default), or every request times out and is asked again (over HTTP an
/// item the server gives to a request that timed out is lost).
///
/// **Ends.** Dropping a subscription (or [`Subscription::unsubscribe`]) stops routing
/// it and sends the feed's unsubscribe method. Where the document declares an end
/// notification ([`Feed::end`]), the stream ends (`None`) when it arrives; elsewhere
/// a subscription whose items the server stopped sending simply stays silent until it
/// is unsubscribed (Starknet and Ethereum have no "ended" message). A closed connection ends every
/// subscription with [`SubscriptionError::Closed`], then `None`. A reconnecting client
/// (`ws::Reconnecting`, `stream::Reconnecting`) re-issues every live subscription on its
/// new connection, with the same method and params, and the stream goes on after
/// [`SubscriptionError::Resubscribed`] (items sent in between are missed).
///
/// Dropping it unsubscribes, best effort: the subscription is routed no more at once,
/// and the unsubscribe call is sent from a task, never blocking the drop (and not at
/// all without a Tokio runtime). A subscription holds a clone of its [`Client`], so it
/// keeps its connection open (and a reconnecting client reconnecting) while it lives.
#[must_use = "a subscription does nothing unless polled; dropping it unsubscribes"]
pub struct Subscription<T> {
    client: Client,
    feed: &'static Feed,
    id: SubscriptionId,
    fed: Fed,
    /// The stream has ended: `None` from now on.
    done: bool,
    /// Nothing is left to unsubscribe from.
    forgotten: bool,
    _item: PhantomData<fn() -> T>,
}

/// How a subscription's items come.
enum Fed {
    /// Pushed, routed into this buffer.
    Push(Arc<Slot>),
    /// Pulled, by the request under way, if any.
    Pull(Option<pull::Asking>),
}

impl<T> Subscription<T> {
    /// The id the server assigned (on the current connection, after a
    /// [`Resubscribed`](SubscriptionError::Resubscribed)).
    pub fn id(&self) -> &SubscriptionId {
        &self.id
    }

    /// Unsubscribes: items are routed no more, and the feed's unsubscribe method (or
    /// `rpc.stream.cancel` for a pulled subscription) is called. `Ok(true)` when the
    /// server confirms; `Ok(false)` when it answers `false` or the error the document
    /// declares for an unknown id ([`Feed::unknown_id`]), when the feed names no
    /// unsubscribe method, or when there was nothing to unsubscribe from (the stream
    /// had ended, or its connection was lost and it waited to be re-issued).
    ///
    /// A subscription whose items the server stopped sending is still the server's
    /// until unsubscribed (where the document declares no end notification): this
    /// answers `Ok(true)` then.
    ///
    /// # Errors
    ///
    /// As [`Client::request`], for the unsubscribe call.
    pub async fn unsubscribe(mut self) -> Result<bool, Error> {
        let Some(unsent) = self.forget() else {
            return Ok(false);
        };
        let id = self.client.next_id();
        let shared = &self.client.shared;
        let carries = shared.carries(|| Carries::Call {
            method: unsent.method.into(),
            id,
        });
        let answered = shared
            .call(
                id,
                unsent.with_id(id),
                Sending::new(self.client.timeout, carries),
                None,
            )
            .await
            .and_then(Answer::read);
        let answer = match answered {
            Ok(answer) => answer,
            // The document's error for an id the server does not know: nothing was
            // left to unsubscribe from.
            Err(UntypedFailure::Error(e)) if Some(e.code) == self.feed.unknown_id => {
                return Ok(false);
            }
            Err(failure) => return Err(failure.into_error()),
        };
        mismatch::from_slice(&answer).map_err(Error::Decode)
    }

    /// Stops routing and forgets the subscription (once): the unsubscribe call to send,
    /// if one is due.
    fn forget(&mut self) -> Option<Unsent> {
        if std::mem::replace(&mut self.forgotten, true) {
            return None;
        }
        match &self.fed {
            Fed::Push(slot) => {
                let id = self.client.shared.subscriptions.remove(slot)?;
                let method = self.feed.unsubscribe?;
                let by_position = self.feed.unsubscribe_by_position;
                Unsent::new(method, self.feed.unsubscribe_param, by_position, &id)
            }
            Fed::Pull(_) => Unsent::new(pull::CANCEL, pull::STREAM_PARAM, false, &self.id),
        }
    }

    /// `mismatch` with its schema cited under the feed's notification (the method whose
    /// params carry the items), with its position, when the client has a table of places.
    fn cite(&self, mismatch: Mismatch) -> Mismatch {
        let method = self.feed.notification.unwrap_or_default();
        self.client.cite(method).cite(mismatch)
    }

    fn pushed(client: Client, feed: &'static Feed, id: SubscriptionId, slot: Arc<Slot>) -> Self {
        Self::new(client, feed, id, Fed::Push(slot))
    }

    pub(super) fn pulled(client: Client, feed: &'static Feed, id: SubscriptionId) -> Self {
        Self::new(client, feed, id, Fed::Pull(None))
    }

    fn new(client: Client, feed: &'static Feed, id: SubscriptionId, fed: Fed) -> Self {
        Self {
            client,
            feed,
            id,
            fed,
            done: false,
            forgotten: false,
            _item: PhantomData,
        }
    }
}

impl<T: DeserializeOwned> Stream for Subscription<T> {
    type Item = Result<T, SubscriptionError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        let next = match &mut this.fed {
            Fed::Push(slot) => ready!(slot.poll_next(cx)),
            Fed::Pull(next) => ready!(pull::poll(&this.client, &this.id, next, cx)),
        };
        let item = match next {
            Next::Item(item) => {
                mismatch::from_slice(&item).map_err(|m| SubscriptionError::Decode(this.cite(m)))
            }
            Next::Lagged(missed) => Err(SubscriptionError::Lagged { missed }),
            Next::Resubscribed(id) => {
                this.id = id;
                Err(SubscriptionError::Resubscribed)
            }
            Next::Refused(error) => this.last(SubscriptionError::Server(error)),
            Next::Closed => this.last(SubscriptionError::Closed),
            Next::Unreadable(reason) => this.last(SubscriptionError::Protocol(reason)),
            Next::Done => {
                this.end();
                return Poll::Ready(None);
            }
        };
        Poll::Ready(Some(item))
    }
}

impl<T> Subscription<T> {
    /// `error`, the stream's last item.
    fn last(&mut self, error: SubscriptionError) -> Result<T, SubscriptionError> {
        self.end();
        Err(error)
    }

    /// The stream is over: nothing to unsubscribe from any more.
    fn end(&mut self) {
        self.done = true;
        if let Fed::Push(slot) = &self.fed {
            self.client.shared.subscriptions.remove(slot);
        }
        self.forgotten = true;
    }
}

impl<T> Drop for Subscription<T> {
    fn drop(&mut self) {
        if let Some(unsent) = self.forget() {
            unsent.send_from_task(&self.client);
        }
    }
}

impl<T> fmt::Debug for Subscription<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id)
            .field("pulled", &matches!(self.fed, Fed::Pull(_)))
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

/// An unsubscribe call, written but for its id (see [`with_id`](Self::with_id)).
struct Unsent {
    method: &'static str,
    notification: Vec<u8>,
}

impl Unsent {
    /// `method` with the subscription's `id` as its one param, by position or as
    /// `name`; `None` when the id is not JSON.
    fn new(
        method: &'static str,
        name: &str,
        by_position: bool,
        id: &SubscriptionId,
    ) -> Option<Self> {
        let id = id.as_raw()?;
        let mut out = Vec::with_capacity(64 + method.len() + id.get().len());
        let written = if by_position {
            write_typed_call(&mut out, None, method, &[id])
        } else {
            write_typed_call(&mut out, None, method, &OneParam { name, id })
        };
        written.ok().map(|()| Self {
            method,
            notification: out,
        })
    }

    /// The call, as a request with id `id`.
    fn with_id(self, id: u64) -> Bytes {
        let mut out = self.notification;
        // A notification as written ends with `}`: the id goes before it.
        out.pop();
        out.extend_from_slice(br#","id":"#);
        out.extend_from_slice(itoa::Buffer::new().format(id).as_bytes());
        out.push(b'}');
        Bytes::from(out)
    }

    /// Sends the call through `client` from a task, not waiting for its answer (which
    /// the client then ignores); nothing without a runtime (Tokio's, or a browser's).
    fn send_from_task(self, client: &Client) {
        let method = self.method;
        let id = client.next_id();
        let message = self.with_id(id);
        let shared = Arc::clone(&client.shared);
        let timeout = client.timeout;
        let carries = shared.carries(|| Carries::Call {
            method: method.into(),
            id,
        });
        let spawned = super::rt::spawn(async move {
            let sent = super::rt::timeout(timeout, shared.send(message, carries, None)).await;
            if !matches!(sent, Ok(Ok(_))) {
                tracing::debug!(method, "could not send the unsubscribe call");
            }
        });
        if !spawned {
            tracing::debug!(method, "no runtime to unsubscribe from");
        }
    }
}

impl Client {
    /// Calls `method(params)`, which subscribes to the items `feed` describes, and
    /// returns them as a [`Subscription`] of `T`, pushed or pulled (see there). The
    /// method declares no errors.
    ///
    /// # Errors
    ///
    /// As [`subscribe_declared`](Self::subscribe_declared), with every error response
    /// [`Error::Undeclared`].
    pub fn subscribe<T, P>(
        &self,
        method: &str,
        params: &P,
        feed: &'static Feed,
    ) -> impl Future<Output = Result<Subscription<T>, Error>> + Send + use<T, P>
    where
        T: DeserializeOwned,
        P: Serialize + ?Sized,
    {
        self.subscribe_declared::<T, std::convert::Infallible, P>(method, params, feed)
    }

    /// Calls `method(params)`, whose declared errors are `E`, which subscribes to the
    /// items `feed` describes; `params` as in [`request`](Self::request). This is what
    /// generated clients call.
    ///
    /// # Errors
    ///
    /// The subscribe call's errors, as [`request_declared`](Self::request_declared)
    /// gives them (its result, the subscription id, is read as any JSON value).
    pub fn subscribe_declared<T, E, P>(
        &self,
        method: &str,
        params: &P,
        feed: &'static Feed,
    ) -> impl Future<Output = Result<Subscription<T>, Error<E>>> + Send + use<T, E, P>
    where
        T: DeserializeOwned,
        E: DeclaredError,
        P: Serialize + ?Sized,
    {
        let client = self.clone();
        let params = crate::protocol::number::to_raw_value(params);
        let method: Box<str> = method.into();
        async move {
            let params = params.map_err(Error::Encode)?;
            if !client.shared.pushes || feed.pull_only {
                let id: Box<RawValue> = client.request_declared(&method, &*params).await?;
                let id = SubscriptionId::from_result(id.get().as_bytes());
                return Ok(Subscription::pulled(client, feed, id));
            }
            let serial = client.shared.subscriptions.serial();
            let slot = Arc::new(Slot::new(
                serial,
                feed,
                (&method, params),
                client.shared.bounds,
            ));
            // Made first, so that a subscription routed by an answer this future no
            // longer waits for (dropped, timed out) is forgotten and unsubscribed.
            let placeholder = SubscriptionId::new("null");
            let mut subscription =
                Subscription::pushed(client, feed, placeholder, Arc::clone(&slot));
            let client = &subscription.client;
            let id = client.next_id();
            let message = subscribe_call(&slot, id).map_err(Error::Encode)?;
            subscription.id = issue(&client.shared, &slot, (id, message), client.timeout)
                .await
                .map_err(UntypedFailure::into_error)?;
            Ok(subscription)
        }
    }

    /// Re-issues every live pushed subscription that is routed by no id (its
    /// connection was lost), with its original method and params, on the transport's
    /// current connection: what a reconnecting transport calls once
    /// a new connection is up (after [`Inbox::fail_pending`](super::Inbox::fail_pending)
    /// unrouted them). Each is routed by its new id as its answer is read, and its
    /// consumer gets [`SubscriptionError::Resubscribed`]; one the server refuses ends
    /// with [`SubscriptionError::Server`]; one whose call fails otherwise (the
    /// connection was lost again, a timeout) waits for the next call of this.
    pub async fn resubscribe(&self) {
        let unrouted = self.shared.subscriptions.claim_unrouted();
        let calls = unrouted.into_iter().map(|slot| async move {
            let id = self.next_id();
            let Ok(message) = subscribe_call(&slot, id) else {
                // Its params were written once already, so this does not happen.
                slot.reissued();
                return;
            };
            let issued = issue(&self.shared, &slot, (id, message), self.timeout).await;
            slot.reissued();
            match issued {
                Ok(_) => {}
                Err(UntypedFailure::Error(error)) => self.shared.subscriptions.refuse(&slot, error),
                Err(failure) => {
                    let error: Error = failure.into_error();
                    tracing::debug!(%error, "re-issuing a subscription failed");
                }
            }
        });
        futures_util::future::join_all(calls).await;
    }
}

/// `slot`'s subscribe call, as call `id`.
///
/// # Errors
///
/// The params are not an array, an object or nothing.
fn subscribe_call(slot: &Slot, id: u64) -> Result<Bytes, serde_json::Error> {
    let mut message = Vec::with_capacity(64 + slot.method.len() + slot.params.get().len());
    write_typed_call(&mut message, Some(id), &slot.method, &*slot.params)?;
    Ok(Bytes::from(message))
}

/// Sends `slot`'s subscribe call `message` (call `id`) and waits for its answer, the
/// subscription id; the reader routes the subscription as it reads the answer.
async fn issue(
    shared: &Shared,
    slot: &Arc<Slot>,
    (id, message): (u64, Bytes),
    timeout: std::time::Duration,
) -> Result<SubscriptionId, UntypedFailure> {
    let carries = shared.carries(|| Carries::Call {
        method: (&*slot.method).into(),
        id,
    });
    let result = shared
        .call(
            id,
            message,
            Sending::new(timeout, carries),
            Some(Arc::clone(slot)),
        )
        .await
        .and_then(Answer::read)?;
    Ok(SubscriptionId::from_result(&result))
}
