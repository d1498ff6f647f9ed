//! The client engine: typed calls, notifications and batches over any [`Transport`].
//!
//! A [`Client`] writes each call into one buffer, hands the bytes to its transport,
//! and routes the answer back to the call by id. Every call has a timeout; a call
//! whose future is dropped leaves nothing behind. Results are deserialised straight
//! from the answer's bytes into the type the caller asks for, and error objects are
//! matched against the method's declared errors ([`DeclaredError`]), so a failed call
//! is an [`Error<E>`] with `E` the method's own error type.
//!
//! ```
//! # use rpcsmith::server::{Context, Dispatch, Reply, Server};
//! # use serde_json::value::RawValue;
//! # struct Calculator;
//! # impl Dispatch for Calculator {
//! #     fn call(&self, method: &str, params: Option<&RawValue>, _: Context) -> Reply {
//! #         let (a, b): (i64, i64) = params.and_then(|p| serde_json::from_str(p.get()).ok()).unwrap_or((0, 0));
//! #         Reply::ok(&(a + b))
//! #     }
//! # }
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), rpcsmith::client::Error> {
//! use rpcsmith::client::{Client, Handle};
//! use rpcsmith::transport::memory::Link;
//!
//! let client = Client::new(Link::new(Server::builder(Calculator).build()));
//!
//! // A single call: params by position, a typed result.
//! let sum: i64 = client.request("add", &[1, 2]).await?;
//! assert_eq!(sum, 3);
//!
//! // A notification: no answer is expected.
//! client.notify("log", &["hello"]).await?;
//!
//! // A typed batch: each entry is read by its handle, in any order.
//! let mut batch = client.batch();
//! let first: Handle<i64> = batch.request("add", &[1, 2]);
//! let second: Handle<i64> = batch.request("add", &[3, 4]);
//! let mut replies = batch.send().await?;
//! assert_eq!(replies.take(second)?, 7);
//! assert_eq!(replies.take(first)?, 3);
//! # Ok(())
//! # }
//! ```
//!
//! # Middleware, timeouts and spans
//!
//! Every message goes through the client's [`Middleware`] (added with
//! [`Builder::middleware`]) on its way to the transport: [`Retry`] for idempotent
//! methods, [`Authorize`] for per-call [`Credentials`], and, with feature `otel`,
//! `TracePropagation`. A call waits [`Builder::timeout`], or its method's
//! [`Builder::method_timeout`], or the timeout of the handle it was made through
//! ([`Client::with_timeout`]). Each call, notification and batch runs in a `DEBUG` span
//! named `call`, with `method`, `id` and `outcome`.
//!
//! # Failures
//!
//! - A call waits at most its timeout ([`Builder::timeout`], [`Client::with_timeout`]),
//!   sending included, then fails with [`Error::Timeout`] and is forgotten.
//! - Dropping a call's future removes it from the table of pending calls at once; a
//!   late answer to it is ignored.
//! - **Error responses with `id: null`** mean the server could not read the request's
//!   id (invalid JSON, a body over its size limit). On request/response transports
//!   (HTTP, in-memory) the answer is known to belong to the message just sent, so the
//!   error is given to every call of that message that got no response of its own
//!   (all entries of a refused batch, for instance) as [`Error::Undeclared`], and a
//!   refused notification returns it too. On message streams (WebSocket, stdio, TCP)
//!   nothing says which message it answers, so it fails no call: the call it belonged
//!   to ends at its timeout, and unrelated calls on the same connection are not
//!   broken. See [`Inbox`].
//! - An answer that cannot be read fails the calls of its exchange with
//!   [`Error::InvalidResponse`]. In a batch answer each member is read on its own: the
//!   members that can be read reach their calls, and only the calls left unanswered
//!   fail, when some member could not be read.
//! - A closed connection fails every pending call at once with [`Error::Closed`]: on
//!   message streams, where the connection is the client's only one. Over HTTP, a server
//!   that closes the connection before answering fails that exchange's calls with
//!   [`Error::Transport`] (kind [`Io`](TransportErrorKind::Io)); the request
//!   may or may not have run, and the next call opens a new connection.

mod batch;
mod builder;
mod cite;
mod codec;
mod deadline;
mod error;
mod middleware;
mod pending;
mod port;
mod pull;
mod quick;
mod registry;
mod route;
pub(crate) mod rt;
mod send;
mod slot;
mod span;
mod streamed;
mod subscription;
mod subscription_id;
mod transport_error;

pub use batch::{Batch, Handle, Replies};
pub use builder::Builder;
pub use error::{DeclaredError, Error};
#[cfg(feature = "sign")]
pub use middleware::Sign;
#[cfg(feature = "otel")]
pub use middleware::TracePropagation;
pub use middleware::{
    Authorize, Backoff, Carries, Credentials, DEFAULT_RETRY_STATUSES, Exchange, Middleware, Next,
    RefreshFuture, Retry,
};
pub use port::{Delivery, HostedItems, Hosting, SendFuture, Transport};
#[cfg(feature = "stream")]
pub(crate) use quick::Utf8;
pub use route::Inbox;
#[cfg(feature = "stream")]
pub(crate) use route::Received as ReceivedAnswers;
pub use slot::{DEFAULT_SUBSCRIPTION_BYTES, DEFAULT_SUBSCRIPTION_ITEMS};
pub use subscription::{Subscription, SubscriptionError, SubscriptionId};
pub use transport_error::{TransportError, TransportErrorKind};

use crate::metrics::{ClientCall, ClientOutcome};
use crate::protocol::constraint::{Rules, Validate};
use crate::protocol::mismatch::Places;
use crate::protocol::write_typed_call;
use bytes::Bytes;
use cite::{Cite, Under};
use error::UntypedFailure;
use pending::{Answer, Pending};
use registry::Registry;
use send::Sending;
use serde::Serialize;
use serde::de::DeserializeOwned;
use slot::Bounds;
use std::collections::HashMap;
use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tracing::Instrument;

/// How long a call waits for its answer unless told otherwise: 30 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// A JSON-RPC client over one [`Transport`].
///
/// Cheap to clone: clones share the transport, the id sequence and the table of
/// pending calls, so any number of tasks can call through one client concurrently.
/// Timeouts need a Tokio runtime with its timer enabled (`#[tokio::main]` has it).
#[derive(Clone)]
pub struct Client {
    shared: Arc<Shared>,
    timeout: Duration,
    /// Whether `timeout` was given for this handle ([`Client::with_timeout`]): it then
    /// overrides the per-method timeouts.
    per_call: bool,
    /// Where the document writes its schemas ([`Client::places`]).
    places: Option<&'static Places>,
}

struct Shared {
    transport: Box<dyn Transport>,
    /// Whether the transport answers every message from its `send`
    /// ([`Transport::is_request_response`]): its calls then wait for that answer
    /// without a place in the table of pending calls.
    request_response: bool,
    pending: Arc<Pending>,
    next_id: AtomicU64,
    /// Whether subscriptions are pushed through the inbox ([`Transport::receives_pushes`])
    /// rather than pulled.
    pushes: bool,
    /// Pushed subscriptions, by notification method and id.
    subscriptions: Arc<Registry>,
    /// How much each pushed subscription buffers.
    bounds: Bounds,
    /// The middleware every message goes through, outermost first.
    middleware: Box<[Arc<dyn Middleware>]>,
    /// Timeouts of their own, by method ([`Builder::method_timeout`]).
    method_timeouts: HashMap<Box<str>, Duration>,
    /// Whether generated clients check params against their schema before sending.
    validate_params: bool,
    /// Whether calls with a timeout of their own send their deadline.
    deadlines: bool,
}

impl Client {
    /// A client that speaks through `transport`, with the default settings.
    pub fn new(transport: impl Transport) -> Self {
        Self::builder().build(transport)
    }

    /// Starts configuring a client.
    pub fn builder() -> Builder {
        Builder::new()
    }

    /// How long this client's calls wait for their answer.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// A handle to the same connection whose calls wait up to `timeout`, whatever
    /// their method ([`Builder::method_timeout`]): the way to give one call, or one part
    /// of a program, its own timeout. A generated client takes it as
    /// `PetstoreClient::new(client.with_timeout(d))`.
    pub fn with_timeout(&self, timeout: Duration) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
            timeout,
            per_call: true,
            places: self.places,
        }
    }

    /// A handle to the same connection whose decode errors cite the place under the
    /// method called, with its `file:line:col`, from a generated module's table (see
    /// [`Places`]): what a generated client's `new` does.
    pub fn places(mut self, places: &'static Places) -> Self {
        self.places = Some(places);
        self
    }

    /// Where a decode error of `method`'s answer cites its schema: the place under that
    /// method in the table given by [`places`](Self::places), looked up now so that an
    /// error needs no copy of the name.
    fn cite(&self, method: &str) -> Cite {
        Cite(self.places.map(|p| (p, Under::Found(p.method(method)))))
    }

    /// How long a call of `method` waits: this handle's timeout when it was given one
    /// ([`with_timeout`](Self::with_timeout)), else the method's own, else the client's;
    /// and whether it was chosen for this call (the first two), in which case the call's
    /// deadline goes with it ([`protocol::deadline`](crate::protocol::deadline)).
    #[inline]
    fn timeout_of(&self, method: &str) -> (Duration, bool) {
        if self.per_call {
            return (self.timeout, self.shared.deadlines);
        }
        if self.shared.method_timeouts.is_empty() {
            return (self.timeout, false);
        }
        match self.shared.method_timeouts.get(method) {
            Some(&timeout) => (timeout, self.shared.deadlines),
            None => (self.timeout, false),
        }
    }

    /// Checks `params` against their schema's constraints when the client was built with
    /// [`Builder::validate_params`]; generated clients call it before sending.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] with the first violation found.
    pub fn check_params<P: Validate, E>(&self, params: &P) -> Result<(), Error<E>> {
        if !self.shared.validate_params {
            return Ok(());
        }
        params.validate(&Rules::NONE).map_err(Error::Invalid)
    }

    /// How many calls are waiting for their answer.
    pub fn pending(&self) -> usize {
        self.shared.pending.len()
    }

    /// Whether the transport reported its connection closed; calls then fail at once
    /// with [`Error::Closed`].
    pub fn is_closed(&self) -> bool {
        self.shared.pending.is_closed()
    }

    /// Waits until the transport reports its connection closed ([`is_closed`](Self::is_closed)):
    /// a message stream that ended. Over HTTP, which has no one connection, it waits
    /// for ever.
    pub async fn closed(&self) {
        self.shared.pending.closed().await;
    }

    /// A number that is this client's, and its clones', while any of them lives (no
    /// other client has it meanwhile): a key for a map of connections, such as the
    /// upstream connections a proxy's bridge keeps for its front connections.
    pub fn key(&self) -> usize {
        Arc::as_ptr(&self.shared).addr()
    }

    /// Calls `method`, which declares no errors, and decodes its result as `R`.
    ///
    /// `params` is serialised straight into the request: a tuple, slice or array
    /// gives params by position, a struct or map gives them by name, and `&()` or
    /// `&None::<()>` sends none. Pre-serialised params can be passed as a
    /// [`RawValue`](serde_json::value::RawValue). Params are serialised before this
    /// function returns, so the future borrows nothing.
    ///
    /// # Errors
    ///
    /// As [`request_declared`](Self::request_declared), with every error response
    /// [`Error::Undeclared`].
    pub fn request<R, P>(
        &self,
        method: &str,
        params: &P,
    ) -> impl Future<Output = Result<R, Error>> + Send + use<R, P>
    where
        R: DeserializeOwned,
        P: Serialize + ?Sized,
    {
        self.request_declared::<R, Infallible, P>(method, params)
    }

    /// [`request_static`](Self::request_static), once `params` pass
    /// [`check_params`](Self::check_params): what generated clients call for params with
    /// constraints.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] when the params break a constraint (nothing is sent then), else
    /// as [`request_declared`](Self::request_declared).
    pub fn request_checked<R, E, P>(
        &self,
        method: &'static str,
        params: &P,
    ) -> impl Future<Output = Result<R, Error<E>>> + Send + use<R, E, P>
    where
        R: DeserializeOwned,
        E: DeclaredError + Send,
        P: Serialize + Validate,
    {
        let call = self
            .check_params(params)
            .map(|()| self.request_static(method, params));
        async move { call?.await }
    }

    /// [`request_declared`](Self::request_declared) of a method whose name lives for ever
    /// (a literal): what generated clients call. Where `request_declared` looks the
    /// method's place up in the table of [`places`](Self::places) on every call (its name
    /// is only borrowed), this keeps the name and looks the place up only when the result
    /// fails to decode; the error is the same.
    ///
    /// # Errors
    ///
    /// As [`request_declared`](Self::request_declared).
    #[inline]
    pub fn request_static<R, E, P>(
        &self,
        method: &'static str,
        params: &P,
    ) -> impl Future<Output = Result<R, Error<E>>> + Send + use<R, E, P>
    where
        R: DeserializeOwned,
        E: DeclaredError,
        P: Serialize + ?Sized,
    {
        let cite = Cite(self.places.map(|p| (p, Under::Wire(method))));
        self.start(method, params, cite)
    }

    /// Calls `method`, whose declared errors are `E`, and decodes its result as `R`;
    /// `params` as in [`request`](Self::request). This is what generated clients call.
    ///
    /// # Errors
    ///
    /// [`Error::Declared`] or [`Error::Undeclared`] when the server answers with an
    /// error, [`Error::Decode`] when the result does not fit `R`, [`Error::Encode`]
    /// when the params cannot be serialised to an array or object, and the transport,
    /// timeout and connection failures of [`Error`].
    #[inline]
    pub fn request_declared<R, E, P>(
        &self,
        method: &str,
        params: &P,
    ) -> impl Future<Output = Result<R, Error<E>>> + Send + use<R, E, P>
    where
        R: DeserializeOwned,
        E: DeclaredError,
        P: Serialize + ?Sized,
    {
        self.start(method, params, self.cite(method))
    }

    /// A call of `method`, whose decode errors cite their schema as `cite` says.
    ///
    /// Always inlined: called, it returned its ~900-byte future into a temporary that the
    /// caller's `.await` copied twice (`IntoFuture`, then its own state); inlined, the
    /// future is built where it is awaited (−2 copies, ~−220 instructions a call,
    /// BENCHMARKS.md "Issue 30: the HTTP client, third round").
    #[inline(always)]
    fn start<R, E, P>(
        &self,
        method: &str,
        params: &P,
        cite: Cite,
    ) -> impl Future<Output = Result<R, Error<E>>> + Send + use<R, E, P>
    where
        R: DeserializeOwned,
        E: DeclaredError,
        P: Serialize + ?Sized,
    {
        let id = self.next_id();
        let mut message = Vec::with_capacity(64 + method.len());
        let encoded = write_typed_call(&mut message, Some(id), method, params);
        let shared = Arc::clone(&self.shared);
        let (timeout, deadline) = self.timeout_of(method);
        let carries = call_carries(&shared, method, id, deadline);
        let span = span::call(method, Some(id));
        let meter = ClientCall::start(method);
        let recorded = span.clone();
        // Instrumented from outside: wrapping the inner call moved its whole future
        // twice more on every call (issue 30).
        let call = async move {
            if let Err(error) = encoded {
                meter.finish(|| ClientOutcome::failed("encode"));
                return Err(Error::Encode(error));
            }
            let result = shared
                .call(
                    id,
                    Bytes::from(message),
                    Sending {
                        timeout,
                        carries,
                        deadline,
                    },
                    None,
                )
                .await;
            let decoded = result.and_then(Answer::decode);
            span::record(&recorded, &decoded);
            let decoded = match decoded {
                Ok(decoded) => decoded.map_err(|m| Error::Decode(cite.cite(m))),
                Err(failure) => {
                    meter.finish(|| failure.outcome());
                    return Err(failure.into_error());
                }
            };
            meter.finish(|| match decoded {
                Ok(_) => ClientOutcome::Ok,
                Err(_) => ClientOutcome::failed("decode"),
            });
            decoded
        };
        call.instrument(span)
    }

    /// Sends `method` as a notification: no id, no result. `params` as in
    /// [`request`](Self::request).
    ///
    /// # Errors
    ///
    /// [`Error::Encode`], transport, timeout and connection failures, and
    /// [`Error::Undeclared`] when the server refuses the message as a whole with an
    /// error whose id is null (a request too large, for instance).
    pub fn notify<P>(
        &self,
        method: &str,
        params: &P,
    ) -> impl Future<Output = Result<(), Error>> + Send + use<P>
    where
        P: Serialize + ?Sized,
    {
        let mut message = Vec::with_capacity(64 + method.len());
        let encoded = write_typed_call(&mut message, None, method, params);
        let shared = Arc::clone(&self.shared);
        let (timeout, _) = self.timeout_of(method);
        let carries = shared.carries(|| Carries::Notification {
            method: method.into(),
        });
        let span = span::call(method, None);
        async move {
            encoded.map_err(Error::Encode)?;
            let result = shared
                .notify(Bytes::from(message), Sending::new(timeout, carries))
                .instrument(span.clone())
                .await;
            span::record(&span, &result);
            result.map_err(UntypedFailure::into_error)
        }
    }

    /// Starts a batch: calls and notifications sent as one message, each call's
    /// result read through its [`Handle`].
    pub fn batch(&self) -> Batch {
        Batch::new(self.clone())
    }

    fn next_id(&self) -> u64 {
        self.shared.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// An inbox for this client's pending calls, as [`Transport::attach`] receives: for
    /// a transport that reads on behalf of a client it did not build (a connection
    /// whose reader also serves the other side's calls).
    pub fn inbox(&self) -> Inbox {
        Inbox::new(&self.shared.pending, &self.shared.subscriptions)
    }

    /// A handle that does not keep the client (and so its connection) alive: what a
    /// connection keeps of its own client, or a registry of connections of theirs.
    pub fn downgrade(&self) -> WeakClient {
        WeakClient {
            shared: Arc::downgrade(&self.shared),
            timeout: self.timeout,
            per_call: self.per_call,
            places: self.places,
        }
    }
}

/// What the transport is told of call `id` of `method`: always under a `deadline` (its
/// expiry travels with it), otherwise only when middleware may read it.
#[inline]
fn call_carries(shared: &Shared, method: &str, id: u64, deadline: bool) -> Option<Carries> {
    let call = || Carries::Call {
        method: method.into(),
        id,
    };
    if deadline {
        Some(call())
    } else {
        shared.carries(call)
    }
}

/// A [`Client`] that does not keep its connection alive; see [`Client::downgrade`].
#[derive(Clone)]
pub struct WeakClient {
    shared: std::sync::Weak<Shared>,
    timeout: Duration,
    per_call: bool,
    places: Option<&'static Places>,
}

impl WeakClient {
    /// The client, while any clone of it lives.
    pub fn upgrade(&self) -> Option<Client> {
        Some(Client {
            shared: self.shared.upgrade()?,
            timeout: self.timeout,
            per_call: self.per_call,
            places: self.places,
        })
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("timeout", &self.timeout)
            .field("pending", &self.pending())
            .field("closed", &self.is_closed())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send_sync<T: Send + Sync + 'static>() {}

    #[test]
    fn client_types_cross_threads() {
        send_sync::<Client>();
        send_sync::<Batch>();
        send_sync::<Replies>();
        send_sync::<Handle<String, Infallible>>();
        send_sync::<Error>();
        send_sync::<Inbox>();
        fn send<T: Send + 'static>() {}
        send::<Subscription<String>>();
        send_sync::<SubscriptionError>();
    }
}
