//! The per-call context handed to middleware and handlers.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use crate::protocol::Id;

use super::connection_id::ConnectionId;
use super::metadata::Metadata;

/// Everything a handler may want to know about its call besides the params: the method,
/// the id, the transport's [`Metadata`] and typed extensions.
///
/// The extensions start empty for every call; middleware puts data there (an
/// authenticated user, a request-scoped value) for the handler to read.
///
/// ```
/// use rpcsmith::server::{Context, Metadata};
///
/// #[derive(Clone)]
/// struct User(&'static str);
///
/// let mut cx = Context::new("add", None, Metadata::default());
/// cx.extensions_mut().insert(User("ada"));
/// assert_eq!(cx.extensions().get::<User>().map(|u| u.0), Some("ada"));
/// assert!(cx.is_notification());
/// ```
#[derive(Debug, Clone)]
pub struct Context {
    /// The method name followed by the id's JSON text.
    text: Text,
    method_len: usize,
    has_id: bool,
    /// `None` when the transport said nothing about the connection.
    metadata: Option<Arc<Metadata>>,
    /// `None` for a message handled as if on a connection of its own.
    connection: Option<ConnectionId>,
    /// When the caller stops waiting, when it said so.
    deadline: Option<Instant>,
    extensions: http::Extensions,
}

impl Context {
    /// A context for a call of `method`; `id` is `None` for a notification.
    pub fn new(method: &str, id: Option<Id<'_>>, metadata: Metadata) -> Self {
        Self::from_parts(method, id.as_ref(), metadata.into_shared(), None, None)
    }

    /// A call's context, built whole: a context is about 100 bytes, and each step that
    /// returned it changed (as `with_deadline` did) moved it once more.
    pub(crate) fn from_parts(
        method: &str,
        id: Option<&Id<'_>>,
        metadata: Option<Arc<Metadata>>,
        connection: Option<ConnectionId>,
        deadline: Option<Instant>,
    ) -> Self {
        let id_json = id.map_or("", Id::as_json);
        let mut context = Context {
            text: Text::EMPTY,
            method_len: method.len(),
            has_id: id.is_some(),
            metadata,
            connection,
            deadline,
            extensions: http::Extensions::new(),
        };
        // Written where it stays: a text built apart and moved in was read back at once,
        // in wider loads than the few bytes' stores that wrote it, which store forwarding
        // cannot serve (`from_parts` 13.7 → 11.0 ns a call, BENCHMARKS.md, "Issue 28,
        // item 3, second round").
        context.text.set(method, id_json);
        context
    }

    /// The method called.
    pub fn method(&self) -> &str {
        self.text
            .as_str()
            .get(..self.method_len)
            .unwrap_or_default()
    }

    /// The request's id; `None` for a notification.
    pub fn id(&self) -> Option<Id<'_>> {
        if !self.has_id {
            return None;
        }
        self.text
            .as_str()
            .get(self.method_len..)
            .map(Id::from_trusted)
    }

    /// Whether the call is a notification (nothing will be answered).
    pub fn is_notification(&self) -> bool {
        !self.has_id
    }

    /// What the transport knows about the connection.
    pub fn metadata(&self) -> &Metadata {
        self.metadata.as_deref().unwrap_or(Metadata::empty())
    }

    /// The peer's address, when the transport has one.
    pub fn peer(&self) -> Option<SocketAddr> {
        self.metadata().peer
    }

    /// The connection the call came on, when its transport tells connections apart (see
    /// [`InFlight`](super::InFlight)): `None` for a context made with [`Context::new`]
    /// and for a message handled alone ([`Server::handle`](super::Server::handle), an
    /// HTTP `Service` mounted in another server).
    pub fn connection(&self) -> Option<ConnectionId> {
        self.connection
    }

    /// The HTTP headers of the message, when it came over HTTP.
    pub fn headers(&self) -> Option<&http::HeaderMap> {
        self.metadata().headers.as_ref()
    }

    /// When the caller stops waiting for the answer, on tokio's clock: the deadline the
    /// call carried (the HTTP header `Rpc-Deadline`, or `"deadline"` in the params'
    /// `_meta`; see [`protocol::deadline`](crate::protocol::deadline)), `None` when it
    /// carried none. The handler is cancelled when it passes, and the call answered
    /// `-32018` ([`code::DEADLINE_EXCEEDED`](crate::protocol::code::DEADLINE_EXCEEDED)).
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// How long the caller still waits ([`deadline`](Self::deadline) less now; zero
    /// once it has passed), `None` when the call carried no deadline. What a handler
    /// passes on when it calls further: `client.with_timeout(left)`, as
    /// [`Proxy`](crate::proxy::Proxy) does.
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|deadline| deadline.saturating_duration_since(Instant::now()))
    }

    /// This call's typed extensions.
    pub fn extensions(&self) -> &http::Extensions {
        &self.extensions
    }

    /// This call's typed extensions, for middleware to add to.
    pub fn extensions_mut(&mut self) -> &mut http::Extensions {
        &mut self.extensions
    }
}

/// Short text (most method names with their id) kept inline, so a call's context costs no
/// allocation; longer text on the heap.
#[derive(Debug, Clone)]
enum Text {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Box<str>),
}

const INLINE: usize = 38;

impl Text {
    const EMPTY: Text = Text::Inline {
        len: 0,
        bytes: [0; INLINE],
    };

    /// Makes this text `first` followed by `second`.
    fn set(&mut self, first: &str, second: &str) {
        let len = first.len() + second.len();
        match self {
            Text::Inline { len: inline, bytes } if len <= INLINE => {
                bytes[..first.len()].copy_from_slice(first.as_bytes());
                bytes[first.len()..len].copy_from_slice(second.as_bytes());
                // `len <= INLINE < 256`.
                *inline = len as u8;
            }
            _ => *self = Text::Heap([first, second].concat().into_boxed_str()),
        }
    }

    fn as_str(&self) -> &str {
        match self {
            // Two `str`s copied whole: always UTF-8.
            Text::Inline { len, bytes } => {
                std::str::from_utf8(bytes.get(..usize::from(*len)).unwrap_or_default())
                    .unwrap_or_default()
            }
            Text::Heap(text) => text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_and_id_short_and_long() {
        let long = "m".repeat(60);
        for method in ["", "add", "eth_getBalance", long.as_str()] {
            for id in [None, Some(Id::number(12345)), Some(Id::string("é\\x"))] {
                let cx = Context::new(method, id.clone(), Metadata::default());
                assert_eq!(cx.method(), method);
                assert_eq!(cx.id(), id);
                assert_eq!(cx.is_notification(), id.is_none());
            }
        }
    }
}
