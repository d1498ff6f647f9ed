//! The HTTP client's connections to its one server: HTTP/1.1 connections kept alive
//! and reused, one exchange at a time each, at most `max_connections` of them; or one
//! HTTP/2 connection that carries every exchange at once.
//!
//! Smaller than hyper-util's pool because it serves a single origin: no key to hash,
//! no map of hosts, and an HTTP/1.1 connection goes back to the idle list as soon as
//! its answer has been read, so the next call finds it (no background task waiting for
//! the connection to be ready, no race between a returning connection and a new one).

use super::body;
use crate::client::{TransportError, TransportErrorKind};
use ::http::{Request, Response, Uri};
use bytes::Bytes;
use futures_util::future::Either;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::client::conn::{TrySendError, http1, http2};
use hyper_util::client::legacy::connect::{Connection as _, HttpConnector};
use hyper_util::rt::{TokioExecutor, TokioTimer};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;
use tokio::sync::{Semaphore, SemaphorePermit};
use tower::ServiceExt as _;

/// What the pool connects with: plain TCP, or TCP then TLS for `https://` URLs.
#[cfg(not(feature = "tls"))]
pub(super) type Connector = HttpConnector;
#[cfg(feature = "tls")]
pub(super) type Connector = hyper_rustls::HttpsConnector<HttpConnector>;

type Body = Full<Bytes>;

/// How the pool is set up.
pub(super) struct PoolSettings {
    pub(super) connector: Connector,
    /// The server: scheme and authority are what is connected to.
    pub(super) target: Uri,
    pub(super) http2_only: bool,
    pub(super) max_connections: usize,
    pub(super) idle_timeout: Duration,
}

/// The connections to one server. Clones share them.
#[derive(Clone)]
pub(super) struct Pool {
    inner: Arc<Inner>,
}

struct Inner {
    settings: PoolSettings,
    /// One per HTTP/1.1 exchange in progress, so at most this many connections.
    exchanges: Semaphore,
    /// HTTP/1.1 connections not in use, the most recently used last.
    idle: Mutex<Vec<Idle>>,
    /// The HTTP/2 connection, once one is open.
    http2: Mutex<Option<http2::SendRequest<Body>>>,
    /// Whether the task closing idle connections runs.
    reaping: AtomicBool,
}

struct Idle {
    sender: http1::SendRequest<Body>,
    /// Rounds of the reaper this connection has stayed idle through.
    rounds: u8,
}

/// A connection lent to one exchange.
pub(super) enum Lease<'a> {
    Http1 {
        sender: http1::SendRequest<Body>,
        /// Whether it had served an exchange before (and may have been closed since).
        reused: bool,
        pool: &'a Pool,
        _exchange: SemaphorePermit<'a>,
    },
    Http2(http2::SendRequest<Body>),
}

impl Pool {
    pub(super) fn new(settings: PoolSettings) -> Self {
        let max = settings.max_connections.clamp(1, Semaphore::MAX_PERMITS);
        Self {
            inner: Arc::new(Inner {
                settings,
                exchanges: Semaphore::new(max),
                idle: Mutex::new(Vec::new()),
                http2: Mutex::new(None),
                reaping: AtomicBool::new(false),
            }),
        }
    }

    /// Posts `message` on a connection of the pool (a kept-alive one when there is
    /// one), in the request `request` makes of it (told whether the connection speaks
    /// HTTP/2), and returns the response with the connection, which goes back to the
    /// pool once the response's body has been read ([`Lease::release`]). A message that
    /// a kept-alive connection could not take (the server had closed it) is sent again
    /// on another connection.
    ///
    /// # Errors
    ///
    /// [`Connect`](TransportErrorKind::Connect) when no connection can be made, and
    /// [`Io`](TransportErrorKind::Io) when the exchange fails.
    pub(super) async fn send(
        &self,
        mut message: Bytes,
        request: impl Fn(Bytes, bool) -> Request<Body>,
    ) -> Result<(Response<Incoming>, Lease<'_>), TransportError> {
        loop {
            // The request is made once the connection is known, so that the future
            // holds only the message while it waits for one.
            let mut lease = match self.ready() {
                Some(lease) => lease,
                None => self.checkout().await?,
            };
            let sent = lease.send(request(message, lease.is_http2())).await;
            match sent {
                Ok(response) => return Ok((response, lease)),
                Err(mut error) => match error.take_message() {
                    // Never written: the connection had been closed; try another.
                    Some(unsent) if lease.is_reused() => message = body::whole(unsent.into_body()),
                    _ => return Err(failed(error.into_error())),
                },
            }
        }
    }

    /// A connection that takes the exchange at once, the way most exchanges find one:
    /// the HTTP/2 connection, or the kept-alive HTTP/1.1 one used last when it is ready
    /// and an exchange may start. `None` leaves the rest to [`checkout`](Self::checkout)
    /// (waiting for a turn, a connection still finishing its last answer, a closed one,
    /// a new one). Not `async`: the common case polls no future of its own (issue 30).
    #[inline]
    fn ready(&self) -> Option<Lease<'_>> {
        if let Some(sender) = self.http2() {
            return Some(Lease::Http2(sender));
        }
        let exchange = self.inner.exchanges.try_acquire().ok()?;
        let sender = {
            let mut idle = lock(&self.inner.idle);
            if !idle.last()?.sender.is_ready() {
                return None;
            }
            idle.pop()?.sender
        };
        Some(Lease::Http1 {
            sender,
            reused: true,
            pool: self,
            _exchange: exchange,
        })
    }

    /// A connection for one exchange: the HTTP/2 connection, a kept-alive HTTP/1.1
    /// one, or a new one.
    async fn checkout(&self) -> Result<Lease<'_>, TransportError> {
        if let Some(sender) = self.http2() {
            return Ok(Lease::Http2(sender));
        }
        let exchanges = &self.inner.exchanges;
        let exchange = match exchanges.try_acquire() {
            Ok(permit) => permit,
            // The semaphore is never closed.
            Err(_) => exchanges.acquire().await.map_err(|_| closed())?,
        };
        while let Some(mut sender) = self.pop_idle() {
            // Ready at once, unless the connection is still finishing its last answer
            // (then it is, in a moment) or has been closed (then it fails).
            if sender.is_ready() || sender.ready().await.is_ok() {
                return Ok(Lease::Http1 {
                    sender,
                    reused: true,
                    pool: self,
                    _exchange: exchange,
                });
            }
        }
        // Boxed: connecting (TCP, TLS, handshakes) takes a large future, and this is
        // the rare path; the future of every exchange stays small without it.
        match Box::pin(self.connect()).await? {
            Connected::Http1(sender) => Ok(Lease::Http1 {
                sender,
                reused: false,
                pool: self,
                _exchange: exchange,
            }),
            Connected::Http2(sender) => Ok(Lease::Http2(sender)),
        }
    }

    fn http2(&self) -> Option<http2::SendRequest<Body>> {
        let mut slot = lock(&self.inner.http2);
        match &*slot {
            Some(sender) if !sender.is_closed() => Some(sender.clone()),
            Some(_) => {
                *slot = None;
                None
            }
            None => None,
        }
    }

    fn pop_idle(&self) -> Option<http1::SendRequest<Body>> {
        loop {
            let idle = lock(&self.inner.idle).pop()?;
            if !idle.sender.is_closed() {
                return Some(idle.sender);
            }
        }
    }

    /// Opens a connection: HTTP/2 with prior knowledge when told to, or when TLS
    /// negotiated it; HTTP/1.1 otherwise.
    async fn connect(&self) -> Result<Connected, TransportError> {
        let inner = &*self.inner;
        let io = inner
            .settings
            .connector
            .clone()
            .oneshot(inner.settings.target.clone())
            .await
            .map_err(|error| {
                let message = format!("HTTP connection failed: {error}");
                TransportError::with_source(TransportErrorKind::Connect, message, error)
            })?;
        if inner.settings.http2_only || io.connected().is_negotiated_h2() {
            let (sender, connection) = http2::Builder::new(TokioExecutor::new())
                .timer(TokioTimer::new())
                .handshake(io)
                .await
                .map_err(connect_failed)?;
            tokio::spawn(run(connection));
            let sender = {
                let mut slot = lock(&inner.http2);
                slot.get_or_insert(sender).clone()
            };
            return Ok(Connected::Http2(sender));
        }
        let (sender, connection) = http1::Builder::new()
            // Head and body in one buffer, one `write`: messages are small.
            .writev(false)
            .handshake(io)
            .await
            .map_err(connect_failed)?;
        tokio::spawn(run(connection));
        Ok(Connected::Http1(sender))
    }

    /// Takes back an HTTP/1.1 connection whose exchange is over.
    fn put_back(&self, sender: http1::SendRequest<Body>) {
        let inner = &*self.inner;
        lock(&inner.idle).push(Idle { sender, rounds: 0 });
        if !inner.reaping.swap(true, Ordering::Relaxed) {
            // Started once, by the first exchange, so inside a runtime.
            tokio::spawn(reap(
                Arc::downgrade(&self.inner),
                inner.settings.idle_timeout,
            ));
        }
    }
}

enum Connected {
    Http1(http1::SendRequest<Body>),
    Http2(http2::SendRequest<Body>),
}

/// Runs a connection's I/O until it closes.
async fn run<F, E>(connection: F)
where
    F: std::future::Future<Output = Result<(), E>>,
    E: std::fmt::Display,
{
    if let Err(error) = connection.await {
        tracing::debug!(%error, "HTTP client connection ended with an error");
    }
}

/// Closes the connections that stayed idle through two rounds of half the idle
/// timeout, so each is closed after between a half and a whole of it; ends with the
/// pool.
async fn reap(pool: Weak<Inner>, idle_timeout: Duration) {
    let round = (idle_timeout / 2).max(Duration::from_millis(1));
    loop {
        tokio::time::sleep(round).await;
        let Some(pool) = pool.upgrade() else {
            return;
        };
        let mut idle = lock(&pool.idle);
        idle.retain_mut(|idle| {
            idle.rounds += 1;
            idle.rounds < 2 && !idle.sender.is_closed()
        });
    }
}

impl Lease<'_> {
    fn is_http2(&self) -> bool {
        matches!(self, Lease::Http2(_))
    }

    fn is_reused(&self) -> bool {
        matches!(self, Lease::Http1 { reused: true, .. })
    }

    /// Sends `request` on the connection. Not `async`: hyper's future already holds the
    /// request until it is written, and a future of this function's own would hold it
    /// a second time (issue 30: every exchange's future carried both).
    fn send(
        &mut self,
        request: Request<Body>,
    ) -> impl Future<Output = Result<Response<Incoming>, TrySendError<Request<Body>>>> + Send + '_
    {
        match self {
            Lease::Http1 { sender, .. } => Either::Left(sender.try_send_request(request)),
            Lease::Http2(sender) => Either::Right(sender.try_send_request(request)),
        }
    }

    /// The exchange is over and its answer read whole: the connection can serve the
    /// next one. (A lease dropped without this closes its HTTP/1.1 connection.)
    pub(super) fn release(self) {
        if let Lease::Http1 { sender, pool, .. } = self {
            pool.put_back(sender);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn connect_failed(error: hyper::Error) -> TransportError {
    TransportError::with_source(
        TransportErrorKind::Connect,
        format!("HTTP handshake failed: {error}"),
        error,
    )
}

fn failed(error: hyper::Error) -> TransportError {
    TransportError::with_source(
        TransportErrorKind::Io,
        format!("HTTP request failed: {error}"),
        error,
    )
}

fn closed() -> TransportError {
    TransportError::new(
        TransportErrorKind::Closed,
        "the HTTP client's pool is closed",
    )
}
