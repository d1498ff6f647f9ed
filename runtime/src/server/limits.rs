//! The server's limits, all with safe defaults.

use std::time::Duration;

/// Limits the server engine enforces. Every limit has a safe default; change the ones you
/// need on a `Limits::default()`.
///
/// ```
/// use std::time::Duration;
/// use rpcsmith::server::Limits;
///
/// let mut limits = Limits::default();
/// limits.max_batch_len = 100;
/// limits.handler_timeout = Some(Duration::from_secs(5));
/// assert_eq!(limits.max_request_size, 10 << 20);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Limits {
    /// Largest message accepted, in bytes, checked before parsing (transports should also
    /// stop reading a body past it). A larger message is answered with `-32007` (request
    /// too large) and `id: null`. Default: 10 MiB.
    pub max_request_size: usize,
    /// Largest response sent, in bytes. A larger result is replaced by `-32008` (response
    /// too large) for its call. A batch whose response grows past it is answered with one
    /// such error with `id: null` as soon as it does, so the response is never buffered
    /// beyond the limit: the batch's calls not yet started are not run, and those still
    /// running are dropped. Default: 10 MiB.
    pub max_response_size: usize,
    /// Most entries in a batch; a longer batch is answered with one `-32010` (batch too
    /// large) and `id: null`, and is not read past the limit. Default: 1,024.
    pub max_batch_len: usize,
    /// How many calls of one batch may wait on their handlers at the same time (0 counts
    /// as 1); the others start as these finish. Calls that finish on their first poll do
    /// not count. Default: 64.
    pub batch_concurrency: usize,
    /// Most calls in flight on one connection; a call beyond it is answered with `-32009`
    /// (server busy), and a notification beyond it is dropped. Default: 256.
    ///
    /// A connection is what the transport says it is: a [`Connection`](super::Connection)
    /// (WebSocket, byte streams, an in-memory link), and over HTTP a socket accepted by
    /// `http::serve`, whose requests (HTTP/1.1 keep-alive, HTTP/2 streams) share it. An
    /// HTTP `Service` mounted in another server (axum) cannot tell sockets apart and
    /// counts each request alone; [`Server::handle`](super::Server::handle) too.
    pub max_in_flight: usize,
    /// Longest a handler may run; a call still running after it is answered with `-32012`
    /// (timeout) and its future is dropped. `None` lets handlers run for ever. Default: 60 s.
    ///
    /// The timer needs a Tokio runtime with time enabled, and is only set for a call whose
    /// handler does not finish on its first poll; outside a Tokio runtime no timeout applies.
    pub handler_timeout: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_request_size: 10 << 20,
            max_response_size: 10 << 20,
            max_batch_len: 1024,
            batch_concurrency: 64,
            max_in_flight: 256,
            handler_timeout: Some(Duration::from_secs(60)),
        }
    }
}
