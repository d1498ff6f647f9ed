//! The chain: [`Middleware`], what it handles ([`Exchange`]), and the rest of the chain
//! after it ([`Next`]).

use bytes::Bytes;
use http::HeaderMap;
use std::sync::Arc;

use crate::client::port::{SendFuture, Transport};

/// Code that runs around every message a [`Client`](crate::client::Client) sends: retry,
/// credentials, trace context, logging.
///
/// Middleware registered first ([`Builder::middleware`](crate::client::Builder::middleware))
/// runs outermost. It may change the exchange (its message, its headers), send it
/// through `next` once, several times (a retry) or not at all (answer by itself), and
/// look at what came back. [`Next`] is `Copy`: each send is `next.run(exchange)`.
///
/// ```
/// use rpcsmith::client::{Exchange, Middleware, Next, SendFuture};
///
/// /// Tags every exchange with the method it carries.
/// struct Tag;
///
/// impl Middleware for Tag {
///     fn send<'a>(&'a self, mut exchange: Exchange, next: Next<'a>) -> SendFuture<'a> {
///         if let Some(method) = exchange.method() {
///             if let Ok(value) = http::HeaderValue::try_from(method) {
///                 exchange.headers_mut().insert("x-rpc-method", value);
///             }
///         }
///         next.run(exchange)
///     }
/// }
/// ```
pub trait Middleware: Send + Sync + 'static {
    /// Handles one exchange; `next.run(exchange)` passes it on.
    fn send<'a>(&'a self, exchange: Exchange, next: Next<'a>) -> SendFuture<'a>;
}

/// Middleware shared by several clients (one [`Authorize`](super::Authorize) whose
/// refreshed token serves them all, say): each client adds a clone of the `Arc`.
impl<M: Middleware + ?Sized> Middleware for Arc<M> {
    fn send<'a>(&'a self, exchange: Exchange, next: Next<'a>) -> SendFuture<'a> {
        (**self).send(exchange, next)
    }
}

impl std::fmt::Debug for dyn Middleware {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Middleware")
    }
}

/// What one message carries, as middleware sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Carries {
    /// One call, answered by its id.
    Call {
        /// The method called.
        method: Arc<str>,
        /// The call's id.
        id: u64,
    },
    /// One notification: no answer.
    Notification {
        /// The method notified.
        method: Arc<str>,
    },
    /// A batch of calls and notifications.
    Batch {
        /// How many entries it has.
        entries: usize,
    },
}

/// One message on its way to the transport: its bytes, what it carries, and the headers
/// to send with it on this exchange only. Cheap to clone (what a retry does).
#[derive(Debug, Clone)]
pub struct Exchange {
    message: Bytes,
    carries: Carries,
    headers: HeaderMap,
}

impl Exchange {
    /// An exchange sending `message`, which carries `carries`, with no headers of its own.
    pub fn new(message: Bytes, carries: Carries) -> Self {
        Self {
            message,
            carries,
            headers: HeaderMap::new(),
        }
    }

    /// The serialised JSON-RPC message.
    pub fn message(&self) -> &Bytes {
        &self.message
    }

    /// Replaces the message (it must stay the same calls, with the same ids).
    pub fn set_message(&mut self, message: Bytes) {
        self.message = message;
    }

    /// What the message carries.
    pub fn carries(&self) -> &Carries {
        &self.carries
    }

    /// The method of the call or notification; `None` for a batch.
    pub fn method(&self) -> Option<&str> {
        match &self.carries {
            Carries::Call { method, .. } | Carries::Notification { method } => Some(method),
            Carries::Batch { .. } => None,
        }
    }

    /// The id of the call; `None` for a notification or a batch.
    pub fn id(&self) -> Option<u64> {
        match self.carries {
            Carries::Call { id, .. } => Some(id),
            _ => None,
        }
    }

    /// This exchange's own headers, sent after the transport's (each replacing the
    /// transport's header of the same name) by transports that carry headers
    /// ([`Next::carries_headers`]); others drop them.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// This exchange's own headers, to add to; see [`headers`](Self::headers).
    pub fn headers_mut(&mut self) -> &mut HeaderMap {
        &mut self.headers
    }
}

/// The rest of the chain after a middleware: the next middleware, then the transport.
#[derive(Clone, Copy)]
pub struct Next<'a> {
    chain: &'a [Arc<dyn Middleware>],
    transport: &'a dyn Transport,
}

impl<'a> Next<'a> {
    pub(crate) fn start(chain: &'a [Arc<dyn Middleware>], transport: &'a dyn Transport) -> Self {
        Self { chain, transport }
    }

    /// Passes `exchange` on to the rest of the chain.
    pub fn run(self, exchange: Exchange) -> SendFuture<'a> {
        match self.chain.split_first() {
            Some((middleware, rest)) => middleware.send(
                exchange,
                Next {
                    chain: rest,
                    transport: self.transport,
                },
            ),
            None if exchange.headers.is_empty() => self.transport.send(exchange.message),
            None => self
                .transport
                .send_with_headers(exchange.message, exchange.headers),
        }
    }

    /// Whether the transport puts an exchange's headers on the wire
    /// ([`Transport::carries_headers`]).
    pub fn carries_headers(&self) -> bool {
        self.transport.carries_headers()
    }
}

impl std::fmt::Debug for Next<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Next")
            .field("remaining", &self.chain.len())
            .finish_non_exhaustive()
    }
}
