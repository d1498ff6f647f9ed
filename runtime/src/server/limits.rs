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
    /// Most push subscriptions live at once on one connection (see
    /// [`subscribe`](super::subscribe)); a subscribe call beyond it is refused at once with
    /// `-32014` ([`ErrorObject::TOO_MANY_SUBSCRIPTIONS`](crate::protocol::ErrorObject::TOO_MANY_SUBSCRIPTIONS)),
    /// before its handler runs. Default: 1,024.
    pub max_subscriptions: usize,
    /// Most pull streams live at once in the whole server (they are shared by every
    /// connection: the HTTP requests of one client may come on different sockets); a
    /// subscribe call beyond it is refused with `-32014`. Default: 10,000.
    pub max_pull_streams: usize,
    /// How long a pull stream lives with no `rpc.stream.next` asking for it; then it is
    /// dropped (its item stream with it) and its id forgotten. Default: 60 s.
    pub pull_idle_timeout: Duration,
    /// How long one `rpc.stream.next` waits for an item before it answers
    /// `{"idle": true}` (the client then asks again). Default: 20 s.
    pub pull_wait: Duration,
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
            max_subscriptions: 1024,
            max_pull_streams: 10_000,
            pull_idle_timeout: Duration::from_secs(60),
            pull_wait: Duration::from_secs(20),
        }
    }
}
