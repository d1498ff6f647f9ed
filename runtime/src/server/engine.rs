//! The server's front: [`Server`], its [`Builder`], and a [`Connection`]'s handle on it.
//! Every transport hands a message to one entry, [`Connection::handle_input`] (or its
//! shorthands [`Connection::handle`] and [`Server::handle`]).

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use super::dispatch::Dispatch;
use super::endpoint::Endpoint;
use super::handling::{Handling, Input};
use super::limits::Limits;
use super::metadata::Metadata;
use super::middleware::Middleware;
use super::shared::{InFlight, Origin, Shared};
use super::system::{Providers, SystemMethod};

/// The JSON-RPC server engine: takes a message's bytes, returns the response's bytes, or
/// `None` when nothing may be sent back (a notification, or a batch of notifications).
///
/// Cheap to clone (an `Arc` inside). Transports call [`Server::connection`] once per
/// connection and [`Connection::handle`] per message, or [`Server::handle`] for one-shot
/// messages.
///
/// ```
/// use rpcsmith::server::{Context, Dispatch, Metadata, Reply, Server};
/// use serde_json::value::RawValue;
///
/// struct Hello;
/// impl Dispatch for Hello {
///     fn call(&self, method: &str, _params: Option<&RawValue>, _cx: Context) -> Reply {
///         match method {
///             "hello" => Reply::ok("world"),
///             _ => Reply::err(rpcsmith::protocol::ErrorObject::method_not_found()),
///         }
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let server = Server::builder(Hello).build();
/// let answer = server.handle(br#"{"jsonrpc":"2.0","method":"hello","id":1}"#, Metadata::default()).await;
/// assert_eq!(answer.unwrap(), br#"{"jsonrpc":"2.0","result":"world","id":1}"#);
/// assert!(server.handle(br#"{"jsonrpc":"2.0","method":"hello"}"#, Metadata::default()).await.is_none());
/// # });
/// ```
#[derive(Clone)]
pub struct Server {
    shared: Arc<Shared>,
}

/// Builds a [`Server`]: the dispatcher, then limits and middleware, then [`Builder::build`].
#[must_use]
pub struct Builder {
    dispatch: Box<dyn Dispatch>,
    middleware: Vec<Box<dyn Middleware>>,
    limits: Limits,
    system: Providers,
}

/// One connection's handle on the server: the same [`Connection::handle`], with the
/// connection's metadata and its in-flight limit ([`Limits::max_in_flight`]) shared by
/// every message handled through it (and its clones).
#[derive(Clone)]
pub struct Connection {
    shared: Arc<Shared>,
    /// What the transport said about the connection (`None`: nothing).
    metadata: Option<Arc<Metadata>>,
    in_flight: InFlight,
}

impl Server {
    /// A server around a dispatcher, with default limits and no middleware.
    pub fn new(dispatch: impl Dispatch) -> Self {
        Self::builder(dispatch).build()
    }

    /// Starts building a server around a dispatcher.
    pub fn builder(dispatch: impl Dispatch) -> Builder {
        Builder {
            dispatch: Box::new(dispatch),
            middleware: Vec::new(),
            limits: Limits::default(),
            system: Providers::defaults(),
        }
    }

    /// The limits this server enforces (transports read `max_request_size` to stop reading
    /// a body early).
    pub fn limits(&self) -> &Limits {
        &self.shared.limits
    }

    /// Its meters (empty without the `metrics` feature), for the transports' own figures.
    #[cfg(feature = "http")]
    pub(crate) fn meter(&self) -> &crate::metrics::ServerMeter {
        &self.shared.meter
    }

    /// Hosts `items` (each one item's JSON text) as a pull stream of this server,
    /// for the other side of a connection to ask for with `rpc.stream.next`: a
    /// client's stream param, on the connection's own server. Ended when the
    /// [`Hosted`](super::pull::Hosted) is dropped.
    #[cfg_attr(
        not(feature = "stream"),
        expect(
            dead_code,
            reason = "hosting is for the symmetric connections of feature `stream`"
        )
    )]
    pub(crate) fn host_stream(
        &self,
        items: std::pin::Pin<Box<dyn futures_core::Stream<Item = bytes::Bytes> + Send>>,
    ) -> Result<super::pull::Hosted, crate::protocol::ErrorObject> {
        let items: super::stream_call::EncodedItems =
            Box::pin(super::stream_call::JsonTexts(items));
        self.shared.endpoint.host_stream(items)
    }

    /// How many pull streams (see [`subscribe`](super::subscribe)) are live in the
    /// server now.
    pub fn pull_streams(&self) -> usize {
        self.shared.endpoint.pull_streams()
    }

    /// A handle for one connection, carrying what the transport knows about it, with a
    /// count of calls in flight of its own.
    pub fn connection(&self, metadata: Metadata) -> Connection {
        self.connection_sharing(metadata, &InFlight::new())
    }

    /// A handle for messages that carry `metadata` of their own but whose calls count
    /// together with every other handle given `in_flight` (the requests of one HTTP
    /// socket, each with its own headers) against [`Limits::max_in_flight`].
    pub fn connection_sharing(&self, metadata: Metadata, in_flight: &InFlight) -> Connection {
        self.connection_shared(metadata.into_shared(), in_flight)
    }

    /// [`connection_sharing`](Self::connection_sharing), the metadata shared already
    /// (`None`: none).
    pub(crate) fn connection_shared(
        &self,
        metadata: Option<Arc<Metadata>>,
        in_flight: &InFlight,
    ) -> Connection {
        Connection {
            shared: self.shared.clone(),
            metadata,
            in_flight: in_flight.clone(),
        }
    }

    /// Handles one message as if it came on a connection of its own: its calls are the
    /// only ones [`Limits::max_in_flight`] counts. Transports with long-lived connections
    /// should hold a [`Server::connection`] instead.
    ///
    /// Nothing runs before the future is polled; a message whose calls all finish on
    /// their first poll is answered within that poll, without allocating more than the
    /// answer.
    // Inlined so that the future is built where its caller keeps it: returned from
    // another crate, it was written field by field and copied at once, a reload store
    // forwarding cannot serve (BENCHMARKS.md, "Issue 28, item 3, second round").
    #[inline]
    pub fn handle<'a>(
        &'a self,
        message: &'a [u8],
        metadata: Metadata,
    ) -> impl Future<Output = Option<Vec<u8>>> + Send + 'a {
        self.handle_shared(message, metadata.into_shared())
    }

    /// [`handle`](Self::handle), the metadata shared already (`None`: none).
    #[inline]
    pub(crate) fn handle_shared<'a>(
        &'a self,
        message: &'a [u8],
        metadata: Option<Arc<Metadata>>,
    ) -> impl Future<Output = Option<Vec<u8>>> + Send + 'a {
        Handling::alone(&self.shared, metadata, Input::Bytes(message))
    }
}

impl Builder {
    /// The limits to enforce (default: [`Limits::default`]).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Adds a middleware; the first added runs outermost.
    pub fn middleware(mut self, middleware: impl Middleware) -> Self {
        self.middleware.push(Box::new(middleware));
        self
    }

    /// Answers the reserved name `name` (it must start with `rpc.`; another is logged
    /// and left out) with `provider`, replacing the provider it had. By default a server
    /// answers `rpc.discover` and `rpc.methods` (see [`super::system`]).
    pub fn system(mut self, name: &str, provider: impl SystemMethod) -> Self {
        self.system.insert(name, Box::new(provider));
        self
    }

    /// Stops answering the name `name` of the server's own table (`rpc.discover`,
    /// `rpc.methods`, the pull streams' `rpc.stream.next` and `rpc.stream.cancel`, and
    /// their kotlinx-rpc names; see [`super::system`]): an `rpc.*` name is then answered
    /// `-32601`, as every one without a provider; a kotlinx name reaches the dispatcher.
    pub fn without_system(mut self, name: &str) -> Self {
        self.system.remove(name);
        self
    }

    /// Builds the server. The dispatcher's document and method names are read here,
    /// once; a document that is not valid JSON is logged and treated as absent.
    pub fn build(self) -> Server {
        let endpoint = Endpoint::new(self.dispatch, self.system, &self.limits);
        Server {
            shared: Arc::new(Shared {
                meter: endpoint.meter(),
                endpoint,
                middleware: self.middleware,
                limits: self.limits,
            }),
        }
    }
}

impl Connection {
    /// Handles one message: its response's bytes, or `None` when nothing may be sent back.
    ///
    /// The future finishes when every call in the message has (notifications included),
    /// so a transport that awaits it before answering applies backpressure.
    ///
    /// Nothing runs before the future is polled; a message whose calls all finish on
    /// their first poll is answered within that poll, without allocating more than the
    /// answer.
    pub fn handle<'a>(
        &'a self,
        message: &'a [u8],
    ) -> impl Future<Output = Option<Vec<u8>>> + Send + 'a {
        self.handle_input(Input::Bytes(message))
    }

    /// Handles one message as its transport hands it over: its bytes, or the message
    /// already read (see [`Input`]). The one entry of every transport; as
    /// [`handle`](Self::handle) otherwise.
    pub fn handle_input<'a>(
        &'a self,
        input: Input<'a>,
    ) -> impl Future<Output = Option<Vec<u8>>> + Send + 'a {
        let origin = Origin {
            metadata: self.metadata.as_ref(),
            in_flight: Some(self.in_flight.counter()),
            connection: Some(self.in_flight.connection()),
        };
        Handling::counted(&self.shared, origin, input)
    }

    /// What the transport said about this connection.
    pub fn metadata(&self) -> &Metadata {
        self.metadata.as_deref().unwrap_or(Metadata::empty())
    }

    /// How many calls are in flight on this connection now.
    pub fn in_flight(&self) -> usize {
        self.in_flight.get()
    }
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("limits", &self.shared.limits)
            .field("middleware", &self.shared.middleware.len())
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("metadata", self.metadata())
            .field("in_flight", &self.in_flight())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::{Context, Encoded, Reply};

    fn shareable<T: Send + Sync + 'static>() {}
    fn sendable<T: Send + 'static>() {}

    #[test]
    fn handles_are_shareable_across_threads() {
        shareable::<Server>();
        shareable::<Connection>();
        shareable::<Context>();
        shareable::<Encoded>();
        sendable::<Reply>();
    }
}
