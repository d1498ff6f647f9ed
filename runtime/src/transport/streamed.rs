//! A stream param: [`Streamed`], the type a param declared `"x-stream": true` has in
//! generated code, on both sides of the call.
//!
//! The caller wraps any `Stream` of items ([`Streamed::new`]); its generated client
//! hosts it on the connection ([`Client::host_stream`]) and sends the stream's id in the
//! param's place. The server's generated dispatcher decodes the id into a `Streamed`
//! bound to the connection the call came on, and its handler reads the items as a
//! `Stream`, each pulled from the caller with `rpc.stream.next` — the pull streams'
//! protocol in the other direction ([`Client::pull_stream`]). Dropping it before the
//! end sends `rpc.stream.cancel`; the caller drops its stream when the call has its
//! answer, whatever the handler read.
//!
//! Only connections on which the server can call the caller carry stream params
//! (WebSocket and byte streams, [`peer`](super::peer)); over plain HTTP the client
//! refuses to send the call, and a server receiving such a call answers `-32602`.
//!
//! The dispatcher binds the id to its connection while it decodes the params
//! ([`with_caller`]): a `Deserialize` impl sees no context, and this keeps the binding
//! to the one arm of the methods that have a stream param, with no cost for others.

use std::cell::RefCell;
use std::fmt;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context as TaskContext, Poll};

use futures_core::Stream;
use serde::de::{DeserializeOwned, Error as _};
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::client::{
    Client, Error, Hosting, Subscription, SubscriptionError, SubscriptionId, TransportError,
    TransportErrorKind,
};
use crate::server::Context;

/// The items of a stream param: made from a `Stream` by the caller, read as a `Stream`
/// by the handler. See the guide's [streams both ways](crate::guide::subscriptions#streams-both-ways).
///
/// ```
/// use rpcsmith::transport::Streamed;
///
/// let items = Streamed::new(futures_util::stream::iter([1, 2, 3]));
/// // A clone is the same stream, not a copy of it.
/// assert_eq!(items.clone(), items);
/// ```
pub struct Streamed<T> {
    state: Arc<Mutex<State<T>>>,
}

enum State<T> {
    /// The caller's items, not yet hosted.
    Local(Pin<Box<dyn Stream<Item = T> + Send>>),
    /// Hosted under this id (the caller's side, once sent).
    Hosted(Box<RawValue>),
    /// The handler's side: pulled from the caller.
    Pulled(Subscription<T>),
    /// Taken, or not hosted because the transport could not.
    Gone,
}

impl<T: Serialize + Send + 'static> Streamed<T> {
    /// A stream param of `items`, for a generated client method to send.
    pub fn new(items: impl Stream<Item = T> + Send + 'static) -> Self {
        Self::from_state(State::Local(Box::pin(items)))
    }

    /// Hosts the items on `client`'s connection for the server to pull, and gives the
    /// registration to keep until the call has its answer; the param then serializes
    /// as the stream's id. What a generated client does before sending the call.
    ///
    /// # Errors
    ///
    /// [`Error::Transport`] (kind `Config`) when the transport cannot host a stream
    /// (plain HTTP: the server could not call back), when the connection's server is
    /// at its limit of pull streams, or when this stream was sent already.
    pub fn host<E>(&self, client: &Client) -> Result<Hosting, Error<E>> {
        let mut state = self.lock();
        let State::Local(items) = std::mem::replace(&mut *state, State::Gone) else {
            return Err(refused("this stream param was sent already"));
        };
        let hosting = client.host_stream(items).ok_or_else(|| {
            refused(
                "a stream param needs a connection the server can call back on \
                 (WebSocket, byte streams), with room for another pull stream",
            )
        })?;
        *state = State::Hosted(hosting.id().to_owned());
        Ok(hosting)
    }
}

fn refused<E>(message: &str) -> Error<E> {
    Error::Transport(TransportError::new(TransportErrorKind::Config, message))
}

impl<T> Streamed<T> {
    fn from_state(state: State<T>) -> Self {
        Self {
            state: Arc::new(Mutex::new(state)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The handler's side: each item pulled from the caller as it is polled; ends when the
/// caller's stream does, or with one error (the caller refused, or is gone).
impl<T: DeserializeOwned> Stream for Streamed<T> {
    type Item = Result<T, SubscriptionError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        match &mut *self.lock() {
            State::Pulled(items) => Pin::new(items).poll_next(cx),
            _ => Poll::Ready(None),
        }
    }
}

impl<T> Serialize for Streamed<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &*self.lock() {
            State::Hosted(id) => id.serialize(serializer),
            _ => Err(S::Error::custom(
                "a stream param is sent as its id once hosted (`Streamed::host`, which generated clients call)",
            )),
        }
    }
}

impl<'de, T> Deserialize<'de> for Streamed<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let id = Box::<RawValue>::deserialize(deserializer)?;
        if !(id.get().starts_with('"') || id.get().starts_with(|c: char| c.is_ascii_digit())) {
            return Err(D::Error::custom(
                "a stream param is a stream id: a string or a number",
            ));
        }
        let caller = CALLER
            .with(|caller| caller.borrow().clone())
            .ok_or_else(|| {
                D::Error::custom(
                    "a stream param needs a connection on which the server can call the caller \
                 (WebSocket, byte streams)",
                )
            })?;
        let items = caller.pull_stream(SubscriptionId::new(id.get()));
        Ok(Self::from_state(State::Pulled(items)))
    }
}

/// The same stream (a clone shares it).
impl<T> Clone for Streamed<T> {
    fn clone(&self) -> Self {
        Self {
            state: Arc::clone(&self.state),
        }
    }
}

/// Equal when they are the same stream.
impl<T> PartialEq for Streamed<T> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.state, &other.state)
    }
}

impl<T> fmt::Debug for Streamed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &*self.lock() {
            State::Local(_) => "local".to_owned(),
            State::Hosted(id) => format!("hosted {}", id.get()),
            State::Pulled(items) => format!("pulled {}", items.id().as_str()),
            State::Gone => "gone".to_owned(),
        };
        f.debug_tuple("Streamed").field(&state).finish()
    }
}

thread_local! {
    /// The client back to the caller of the call whose params are being decoded.
    static CALLER: RefCell<Option<Client>> = const { RefCell::new(None) };
}

/// The client back to the caller of `cx`'s call, for [`with_caller`]: `None` when the
/// server cannot call it (plain HTTP, in memory).
pub fn caller(cx: &Context) -> Option<Client> {
    #[cfg(any(feature = "http", feature = "stream"))]
    return super::remote(cx);
    #[cfg(not(any(feature = "http", feature = "stream")))]
    {
        let _ = cx;
        None
    }
}

/// Runs `decode` (a dispatcher arm decoding its params) with stream params bound to
/// `caller`.
pub fn with_caller<R>(caller: Option<Client>, decode: impl FnOnce() -> R) -> R {
    struct Restore(Option<Client>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CALLER.with(|caller| *caller.borrow_mut() = previous);
        }
    }
    let _restore = Restore(CALLER.with(|slot| slot.replace(caller)));
    decode()
}
