//! What a transport knows about the connection a message came on.

use std::net::SocketAddr;
use std::sync::Arc;

/// What a transport knows about where a message came from, handed to every call's
/// [`Context`](super::Context).
///
/// Transports fill in what they have: the HTTP transport sets the peer address, the
/// request's headers and the request's extensions (so the typed data a tower auth layer
/// put there reaches handlers); the in-memory transport sets nothing.
///
/// ```
/// use rpcsmith::server::Metadata;
///
/// let mut meta = Metadata::default();
/// meta.peer = Some("127.0.0.1:9000".parse().unwrap());
/// meta.extensions.insert(String::from("user-42"));
/// assert_eq!(meta.extensions.get::<String>().map(String::as_str), Some("user-42"));
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Metadata {
    /// The peer's address, when the transport has one.
    pub peer: Option<SocketAddr>,
    /// The HTTP request's headers, for HTTP and WebSocket transports.
    pub headers: Option<http::HeaderMap>,
    /// Typed data from the transport and its layers (for instance an authenticated user).
    pub extensions: http::Extensions,
}

impl Metadata {
    /// Whether the transport said nothing: then calls share one empty `Metadata` rather
    /// than a connection state of their own.
    pub(crate) fn is_empty(&self) -> bool {
        self.peer.is_none() && self.headers.is_none() && self.extensions.is_empty()
    }

    /// The metadata, for the calls that share it; `None` when the transport said
    /// nothing: then calls need none of their own.
    #[inline]
    pub(crate) fn into_shared(self) -> Option<Arc<Self>> {
        // Not `then`: its closure would copy the metadata once more.
        if self.is_empty() {
            return None;
        }
        Some(Arc::new(self))
    }

    /// The metadata of calls whose transport said nothing.
    pub(crate) fn empty() -> &'static Metadata {
        static EMPTY: std::sync::LazyLock<Metadata> = std::sync::LazyLock::new(Metadata::default);
        &EMPTY
    }
}
