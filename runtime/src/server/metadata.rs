//! What a transport knows about the connection a message came on.

use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use http::HeaderName;

use crate::protocol::deadline;

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
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct Metadata {
    /// The peer's address, when the transport has one.
    pub peer: Option<SocketAddr>,
    /// The HTTP request's headers, for HTTP and WebSocket transports.
    pub headers: Option<http::HeaderMap>,
    /// Typed data from the transport and its layers (for instance an authenticated user).
    pub extensions: http::Extensions,
    /// The deadline in `headers`, read once for every call that shares this metadata.
    pub(crate) header_deadline: HeaderDeadline,
}

impl fmt::Debug for Metadata {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Metadata")
            .field("peer", &self.peer)
            .field("headers", &self.headers)
            .field("extensions", &self.extensions)
            .finish_non_exhaustive()
    }
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

    /// The deadline the `Rpc-Deadline` header carries ([`deadline::HEADER`]), if any,
    /// read on the first call that asks: the calls of an HTTP batch share their
    /// request's metadata, and each looked the header up again (about 120 instructions
    /// a call of a batch of 1,000 on the bench's `add`, once the name was parsed once).
    pub(crate) fn header_deadline(&self) -> Option<SystemTime> {
        *self.header_deadline.0.get_or_init(|| {
            let value = self.headers.as_ref()?.get(&HEADER)?;
            deadline::parse(value.to_str().ok()?)
        })
    }

    /// The metadata of calls whose transport said nothing.
    pub(crate) fn empty() -> &'static Metadata {
        static EMPTY: std::sync::LazyLock<Metadata> = std::sync::LazyLock::new(Metadata::default);
        &EMPTY
    }
}

/// [`deadline::HEADER`], parsed once: looked up by a `&str`, `HeaderMap::get` parses
/// and lower-cases the name again on every lookup.
static HEADER: HeaderName = HeaderName::from_static(deadline::HEADER);

/// The header's deadline, once read. A clone reads it again, from its own headers,
/// which the one who cloned may change.
#[derive(Default)]
pub(crate) struct HeaderDeadline(OnceLock<Option<SystemTime>>);

impl Clone for HeaderDeadline {
    fn clone(&self) -> Self {
        Self::default()
    }
}

#[cfg(test)]
impl Metadata {
    /// Metadata whose headers carry `value` as the deadline header (for tests).
    pub(super) fn carrying_deadline(value: &str) -> Metadata {
        let mut metadata = Metadata::default();
        let mut headers = http::HeaderMap::new();
        headers.insert(deadline::HEADER, value.parse().unwrap());
        metadata.headers = Some(headers);
        metadata
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_deadline_is_the_headers_own_and_a_clone_reads_its_own() {
        let early = "2030-01-01T00:00:00Z";
        let metadata = Metadata::carrying_deadline(early);
        let read = metadata.header_deadline();
        assert_eq!(read, deadline::parse(early));
        assert!(read.is_some());
        // Read again: the same instant.
        assert_eq!(metadata.header_deadline(), read);
        // A clone whose headers change reads them, not the first one's.
        let mut copy = metadata.clone();
        let late = "2031-01-01T00:00:00Z";
        copy.headers = Metadata::carrying_deadline(late).headers;
        assert_eq!(copy.header_deadline(), deadline::parse(late));
        copy.headers = None;
        assert_eq!(metadata.clone().header_deadline(), read);
        assert_eq!(Metadata::default().header_deadline(), None);
        assert_eq!(Metadata::carrying_deadline("soon").header_deadline(), None);
        // Debug names the public fields only.
        assert!(!format!("{metadata:?}").contains("header_deadline"));
    }
}
