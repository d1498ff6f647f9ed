//! The server: bytes in, bytes (or nothing) out.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::value::RawValue;

use crate::protocol::{ErrorObject, Id, write_error};

use super::dispatch::CallResult;
use super::handling::Handling;
use super::{Dispatch, Encoded, Limits, Metadata, Middleware};

/// What every clone of a [`Server`] shares.
pub(crate) struct Shared {
    pub(crate) dispatch: Box<dyn Dispatch>,
    pub(crate) middleware: Vec<Box<dyn Middleware>>,
    pub(crate) limits: Limits,
    pub(crate) document: Option<Encoded>,
}

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
}

/// One connection's handle on the server: the same [`Connection::handle`], with the
/// connection's metadata and its in-flight limit ([`Limits::max_in_flight`]) shared by
/// every message handled through it (and its clones).
#[derive(Clone)]
pub struct Connection {
    shared: Arc<Shared>,
    state: Arc<ConnectionState>,
}

/// What a connection's calls share: the metadata, and the count of its calls in flight.
#[derive(Debug)]
pub(crate) struct ConnectionState {
    pub(crate) metadata: Metadata,
    pub(crate) in_flight: AtomicUsize,
}

impl ConnectionState {
    /// The state calls share, unless the transport said nothing (empty metadata): then
    /// calls need none of their own.
    #[inline]
    pub(crate) fn shared(metadata: Metadata) -> Option<Arc<Self>> {
        // Not `then`: its closure would copy the metadata once more.
        if metadata.is_empty() {
            return None;
        }
        Some(Arc::new(ConnectionState {
            metadata,
            in_flight: AtomicUsize::new(0),
        }))
    }
}

/// Where a message's calls come from: the state their contexts share (`None` when the
/// transport said nothing), and the count of calls in flight they join (`None` for a
/// message handled as if on a connection of its own).
#[derive(Clone, Copy)]
pub(crate) struct Origin<'s, 'a> {
    pub(crate) state: Option<&'s Arc<ConnectionState>>,
    pub(crate) in_flight: Option<&'a AtomicUsize>,
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
        }
    }

    /// The limits this server enforces (transports read `max_request_size` to stop reading
    /// a body early).
    pub fn limits(&self) -> &Limits {
        &self.shared.limits
    }

    /// A handle for one connection, carrying what the transport knows about it.
    pub fn connection(&self, metadata: Metadata) -> Connection {
        Connection {
            shared: self.shared.clone(),
            state: Arc::new(ConnectionState {
                metadata,
                in_flight: AtomicUsize::new(0),
            }),
        }
    }

    /// Handles one message as if it came on a connection of its own: its calls are the
    /// only ones [`Limits::max_in_flight`] counts. Transports with long-lived connections
    /// should hold a [`Server::connection`] instead.
    ///
    /// Nothing runs before the future is polled; a message whose calls all finish on
    /// their first poll is answered within that poll, without allocating more than the
    /// answer.
    pub fn handle<'a>(
        &'a self,
        message: &'a [u8],
        metadata: Metadata,
    ) -> impl Future<Output = Option<Vec<u8>>> + Send + 'a {
        Handling::alone(&self.shared, ConnectionState::shared(metadata), message)
    }

    /// Handles one message with metadata of its own, its calls counted against
    /// [`Limits::max_in_flight`] together with every other message sharing `in_flight`
    /// (the requests of one HTTP connection). Costs about what [`Server::handle`] does.
    #[cfg(feature = "http")]
    pub(crate) fn handle_counted<'a>(
        &'a self,
        message: &'a [u8],
        metadata: Metadata,
        in_flight: Arc<AtomicUsize>,
    ) -> impl Future<Output = Option<Vec<u8>>> + Send + 'a {
        let state = ConnectionState::shared(metadata);
        async move {
            let origin = Origin {
                state: state.as_ref(),
                in_flight: Some(&*in_flight),
            };
            Handling::counted(&self.shared, origin, message).await
        }
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

    /// Builds the server. The dispatcher's document is read here, once; a document that is
    /// not valid JSON is logged and treated as absent.
    pub fn build(self) -> Server {
        let document = self.dispatch.document().and_then(|text| {
            serde_json::from_str::<&RawValue>(text)
                .inspect_err(|e| tracing::error!(error = %e, "rpc.discover document is not JSON"))
                .ok()
                .map(Encoded::from_raw)
        });
        Server {
            shared: Arc::new(Shared {
                dispatch: self.dispatch,
                middleware: self.middleware,
                limits: self.limits,
                document,
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
        let origin = Origin {
            state: Some(&self.state),
            in_flight: Some(&self.state.in_flight),
        };
        Handling::counted(&self.shared, origin, message)
    }

    /// Handles a message its transport has already read (a symmetric connection reads
    /// each message once, to tell calls from responses): [`handle`](Self::handle)
    /// after its size check and parse.
    #[cfg(feature = "stream")]
    pub(crate) fn handle_parsed<'a>(
        &'a self,
        message: Result<crate::protocol::Message<'a>, ErrorObject>,
    ) -> impl Future<Output = Option<Vec<u8>>> + Send + 'a {
        let origin = Origin {
            state: Some(&self.state),
            in_flight: Some(&self.state.in_flight),
        };
        Handling::parsed(&self.shared, origin, message)
    }

    /// What the transport said about this connection.
    pub fn metadata(&self) -> &Metadata {
        &self.state.metadata
    }

    /// How many calls are in flight on this connection now.
    pub fn in_flight(&self) -> usize {
        self.state.in_flight.load(Ordering::Relaxed)
    }
}

/// One error response with `id: null`.
pub(crate) fn error_message(error: &ErrorObject) -> Vec<u8> {
    let mut out = Vec::with_capacity(96);
    write_error(&mut out, &Id::NULL, error);
    out
}

/// Writes a call's response, replacing a result larger than `max_size` by an error.
pub(crate) fn write_response(out: &mut Vec<u8>, id: &Id<'_>, result: &CallResult, max_size: usize) {
    match result {
        Ok(encoded) if encoded.len() > max_size => {
            write_error(out, id, &ErrorObject::response_too_large());
        }
        Ok(encoded) => encoded.write_response(out, id),
        Err(error) => write_error(out, id, error),
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
    use crate::server::{Context, Reply};

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
