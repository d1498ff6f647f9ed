//! The error a transport reports when it could not move a message: the failure of the
//! client's port ([`Transport`](super::Transport)).

use std::fmt;
use std::sync::Arc;

/// Why a transport could not move a message.
///
/// Cheap to clone: one failed exchange fails every call it carried (all the entries
/// of a batch), and each of them gets a copy.
#[derive(Clone)]
pub struct TransportError {
    inner: Arc<Inner>,
}

struct Inner {
    kind: TransportErrorKind,
    message: String,
    /// The HTTP status the peer answered with, for [`TransportErrorKind::Status`].
    status: Option<u16>,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// The class of a transport [`TransportError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportErrorKind {
    /// The connection is closed and will carry no more messages.
    Closed,
    /// No connection could be made to the peer.
    Connect,
    /// The peer answered at the transport level with a failure (an HTTP status that
    /// carries no JSON-RPC answer, for instance).
    Status,
    /// Reading or writing the connection failed.
    Io,
    /// The transport was configured wrongly (an invalid URL or header, for instance).
    Config,
    /// The credentials a call needs could not be had: refreshing them failed (see
    /// [`Credentials`](super::Credentials)).
    Credentials,
}

impl TransportError {
    /// An error of `kind` described by `message`.
    pub fn new(kind: TransportErrorKind, message: impl Into<String>) -> Self {
        Self {
            inner: Arc::new(Inner {
                kind,
                message: message.into(),
                status: None,
                source: None,
            }),
        }
    }

    /// The peer answered with HTTP `status` and no JSON-RPC answer: an error of kind
    /// [`Status`](TransportErrorKind::Status) that keeps the status
    /// ([`http_status`](Self::http_status)).
    pub fn from_http_status(status: u16) -> Self {
        Self {
            inner: Arc::new(Inner {
                kind: TransportErrorKind::Status,
                message: match http::StatusCode::from_u16(status) {
                    Ok(status) => format!("HTTP status {status}"),
                    Err(_) => format!("HTTP status {status}"),
                },
                status: Some(status),
                source: None,
            }),
        }
    }

    /// The HTTP status the peer answered with, when this error is one
    /// ([`from_http_status`](Self::from_http_status)): what retry and credential
    /// middleware look at (503, 401).
    pub fn http_status(&self) -> Option<u16> {
        self.inner.status
    }

    /// An error of `kind` described by `message`, caused by `source`.
    pub fn with_source(
        kind: TransportErrorKind,
        message: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                kind,
                message: message.into(),
                status: None,
                source: Some(source.into()),
            }),
        }
    }

    /// The connection is closed.
    pub fn closed() -> Self {
        Self::new(TransportErrorKind::Closed, "connection closed")
    }

    /// The class of this error.
    pub fn kind(&self) -> TransportErrorKind {
        self.inner.kind
    }
}

impl fmt::Debug for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("TransportError");
        debug
            .field("kind", &self.inner.kind)
            .field("message", &self.inner.message);
        if let Some(source) = &self.inner.source {
            debug.field("source", source);
        }
        debug.finish()
    }
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.inner.message)
    }
}

impl std::error::Error for TransportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.inner.source {
            Some(source) => Some(source.as_ref()),
            None => None,
        }
    }
}
