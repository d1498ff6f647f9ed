//! Serving an HTTP service (a [`Service`](super::Service), or any tower service
//! around one) on a TCP listener.

use super::closing::Stopping;
use super::connection::{self, ConnectionSettings, Socket};
use super::refusal::Refusals;
use super::unsent::Unsent;
use crate::server::InFlight;
use ::http::{Request, Response};
use hyper::body::{Body, Incoming};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, mpsc, watch};
use tokio::task::JoinSet;

/// How many connections [`serve`] keeps open at once unless told otherwise.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// How many bytes of answers made and not yet sent one connection may hold unless told
/// otherwise: 16 MiB; see [`Serve::max_unsent_bytes`].
pub const DEFAULT_MAX_UNSENT_BYTES: usize = 16 * 1024 * 1024;

/// How long [`serve`] lets a connection wait for a request unless told otherwise: 30
/// seconds (hyper's own default header read timeout); see [`Serve::header_timeout`].
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(30);

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Serves `service` on `listener` until `shutdown` resolves, with the default
/// settings: the shorthand for [`Serve::new`]`(listener, service).run(shutdown)`.
///
/// `service` is a [`Service`](super::Service), or any tower service around one (tower
/// or tower-http layers: CORS, authentication, compression, timeouts).
///
/// ```
/// # use rpcsmith::server::{Context, Dispatch, Reply, Server};
/// # use serde_json::value::RawValue;
/// # struct Nothing;
/// # impl Dispatch for Nothing {
/// #     fn call(&self, _: &str, _: Option<&RawValue>, _: Context) -> Reply {
/// #         Reply::err(rpcsmith::protocol::ErrorObject::method_not_found())
/// #     }
/// # }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// use rpcsmith::http::{Service, serve};
///
/// let server = Server::builder(Nothing).build();
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
/// let serving = tokio::spawn(serve(listener, Service::new(server), async {
///     let _ = stopped.await;
/// }));
/// // ... serve until it is time to stop:
/// let _ = stop.send(());
/// serving.await.expect("serve ends cleanly");
/// # Ok(())
/// # }
/// ```
pub async fn serve<S, B, F>(listener: TcpListener, service: S, shutdown: F)
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
    F: Future<Output = ()> + Send,
{
    Serve::new(listener, service).run(shutdown).await;
}

/// Serves an HTTP service on a TCP listener; [`serve`] with settings.
///
/// Each connection speaks HTTP/1.1 with keep-alive, or HTTP/2 with prior knowledge
/// (told apart once per connection by whether its first bytes are the HTTP/2 preface).
/// The engine learns the connection's peer address
/// ([`Metadata::peer`](crate::server::Metadata)); when the service is wrapped in
/// layers, each request also carries it as a [`PeerAddr`](super::PeerAddr) extension,
/// for the layers to read. The requests of one connection (in turn over HTTP/1.1, at
/// once as HTTP/2 streams) share its budget of calls in flight,
/// [`Limits::max_in_flight`](crate::server::Limits::max_in_flight).
///
/// Every wait on a peer has a deadline:
///
/// | setting | default | then |
/// |---|---|---|
/// | [`header_timeout`](Serve::header_timeout): wait for a request (its first bytes, its head, the next one on a kept-alive connection) | [`DEFAULT_HEADER_TIMEOUT`] (30 s) | the connection closes |
/// | [`Service::body_timeout`](super::Service::body_timeout): wait for a request's body, head read to last byte | [`DEFAULT_BODY_TIMEOUT`](super::DEFAULT_BODY_TIMEOUT) (30 s) | `408` with a `-32012` error body; over HTTP/1.1 the connection closes |
///
/// so a peer that sends nothing, or a head or a body a byte at a time, holds a
/// connection slot for a bounded time only.
///
/// An HTTP/2 connection is told explicit bounds in its `SETTINGS`: at most 100
/// streams at once, receive windows of 256 KiB per stream and 1 MiB per connection,
/// frames and header lists of at most 16 KiB; the server buffers at most 64 KiB of an
/// answer per stream for sending, and closes a connection whose client resets more
/// than 20 streams before they are accepted or causes 256 error resets. A stream lasts
/// until its answer is sent whole, so a client that asks and never reads could make the
/// server hold up to 100 answers; the answers one connection has made and not sent are
/// bounded in bytes as well, by [`max_unsent_bytes`](Serve::max_unsent_bytes) (16 MiB):
/// past it the connection is closed. It is closed too once it has had no request in
/// progress for a header timeout, sent or not.
///
/// At most [`max_connections`](Serve::max_connections) connections are served at once,
/// WebSocket connections upgraded from them included (each keeps its slot until it
/// closes). A connection beyond that is refused, not left waiting in the listen
/// backlog: it is accepted, its first request is answered
/// `503 Service Unavailable` with `Retry-After: 1` and a JSON-RPC error body
/// (`-32009`, `id: null`; over HTTP/2 on its stream, then `GOAWAY`), and it is closed.
/// A refused connection has 5 seconds (or the header timeout, when shorter) to send
/// its request; at most 64 are refused at once, and past that a connection is closed
/// as soon as it is accepted. Either way a client or a load balancer sees a refusal
/// at once, not a hang. Failures to accept a connection (too many open files, say)
/// are logged through `tracing` and retried after a short pause; they do not end the
/// server.
#[derive(Debug)]
#[must_use = "nothing is served until `run` is awaited"]
pub struct Serve<S> {
    listener: TcpListener,
    service: S,
    max_connections: usize,
    header_timeout: Option<Duration>,
    max_unsent_bytes: usize,
    #[cfg(feature = "tls")]
    tls: Option<Arc<rustls::ServerConfig>>,
}

impl<S, B> Serve<S>
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    /// Prepares to serve `service` on `listener`.
    pub fn new(listener: TcpListener, service: S) -> Self {
        Self {
            listener,
            service,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            header_timeout: Some(DEFAULT_HEADER_TIMEOUT),
            max_unsent_bytes: DEFAULT_MAX_UNSENT_BYTES,
            #[cfg(feature = "tls")]
            tls: None,
        }
    }

    /// Serves HTTPS (and `wss://`, for a [`Service`](super::Service) with WebSocket
    /// upgrades) instead of plain HTTP, with `config`'s certificate: every connection
    /// makes a TLS handshake first, which must end within the
    /// [`header_timeout`](Serve::header_timeout). HTTP/2 or HTTP/1.1 is chosen by ALPN:
    /// `config`'s ALPN protocols are replaced by `h2` and `http/1.1`. A connection past
    /// [`max_connections`](Serve::max_connections) is closed at once rather than
    /// answered `503` (that would need a handshake first). Needs the `tls` feature.
    ///
    /// ```no_run
    /// # async fn demo(service: rpcsmith::http::Service, cert_chain: Vec<rustls::pki_types::CertificateDer<'static>>, key: rustls::pki_types::PrivateKeyDer<'static>) -> Result<(), Box<dyn std::error::Error>> {
    /// use rpcsmith::http::Serve;
    /// use std::sync::Arc;
    ///
    /// let provider = Arc::new(rustls::crypto::ring::default_provider());
    /// let tls = rustls::ServerConfig::builder_with_provider(provider)
    ///     .with_safe_default_protocol_versions()?
    ///     .with_no_client_auth()
    ///     .with_single_cert(cert_chain, key)?;
    /// let listener = tokio::net::TcpListener::bind("0.0.0.0:8443").await?;
    /// Serve::new(listener, service).tls(tls).run(std::future::pending()).await;
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "tls")]
    pub fn tls(mut self, mut config: rustls::ServerConfig) -> Self {
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        self.tls = Some(Arc::new(config));
        self
    }

    /// How many connections are served at once, at least one; connections beyond are
    /// refused (`503`, see [`Serve`]). The default is [`DEFAULT_MAX_CONNECTIONS`].
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.clamp(1, Semaphore::MAX_PERMITS);
        self
    }

    /// How long a connection may wait for a request: for its first bytes, for the rest
    /// of a request's head, or idle between kept-alive requests, while none of its
    /// requests is in progress. A connection that waits longer is closed, so that peers
    /// that connect and send nothing, or a header a byte at a time (slowloris), cannot
    /// hold [`max_connections`](Serve::max_connections) slots for long. `None` lets
    /// connections wait forever. The default is [`DEFAULT_HEADER_TIMEOUT`].
    ///
    /// The wait is checked by one timer per connection, not per request: a connection is
    /// closed once it has started no request during two consecutive checks, so after
    /// waiting between one and two of these periods. (hyper's own header read timeout,
    /// which this replaces, arms a timer for every request.) A request in progress
    /// keeps its connection open, however long its handler takes; its body has its own
    /// deadline, [`Service::body_timeout`](super::Service::body_timeout).
    pub fn header_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.header_timeout = timeout.filter(|timeout| !timeout.is_zero());
        self
    }

    /// How many bytes of answers one connection may have made and not yet sent. A
    /// connection past it is closed, which drops them: its client asks more than it
    /// reads. Only HTTP/2 connections can pass it (one answer alone never does,
    /// whatever its size, and HTTP/1.1 has one at a time), when a client asks on many
    /// streams and does not read the answers. The default is
    /// [`DEFAULT_MAX_UNSENT_BYTES`]; keep it above
    /// [`Limits::max_response_size`](crate::server::Limits::max_response_size).
    pub fn max_unsent_bytes(mut self, bytes: usize) -> Self {
        self.max_unsent_bytes = bytes;
        self
    }

    /// Serves until `shutdown` resolves. Then the listener closes, every connection
    /// is asked to shut down gracefully (requests in progress are answered, idle
    /// keep-alive connections close), WebSocket connections upgraded from it are closed
    /// (calls in flight on them are abandoned), and `run` returns once all of them have
    /// ended.
    pub async fn run<F>(self, shutdown: F)
    where
        F: Future<Output = ()> + Send,
    {
        let (stop, stopped) = watch::channel(false);
        let (alive, mut all_gone) = mpsc::channel(1);
        let stopping = Stopping {
            stopped,
            _alive: alive,
        };
        let permits = Arc::new(Semaphore::new(self.max_connections));
        let mut refusals = Refusals::new(self.header_timeout);
        let mut connections = JoinSet::new();
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            let (stream, peer) = tokio::select! {
                () = &mut shutdown => break,
                accepted = accept(&self.listener) => accepted,
            };
            while connections.try_join_next().is_some() {}
            let Ok(slot) = Arc::clone(&permits).try_acquire_owned() else {
                #[cfg(feature = "tls")]
                if self.tls.is_some() {
                    tracing::debug!(%peer, "closing a TLS connection past the limit");
                    continue;
                }
                refusals.refuse(stream, peer);
                continue;
            };
            let socket = Socket {
                stopping: stopping.clone(),
                in_flight: InFlight::new(),
                unsent: Arc::new(Unsent::new(self.max_unsent_bytes)),
                local: stream.local_addr().ok(),
                _slot: Arc::new(slot),
            };
            let settings = ConnectionSettings {
                header_timeout: self.header_timeout,
                #[cfg(feature = "tls")]
                tls: self.tls.clone(),
            };
            connections.spawn(connection::serve_connection(
                stream,
                peer,
                self.service.clone(),
                socket,
                settings,
            ));
        }
        drop(self.listener);
        // Refusals in progress end at once.
        drop(refusals);
        let _ = stop.send(true);
        drop(stopping);
        while connections.join_next().await.is_some() {}
        // The upgraded connections hold the last copies.
        let _ = all_gone.recv().await;
    }
}

/// The next connection accepted.
async fn accept(listener: &TcpListener) -> (TcpStream, SocketAddr) {
    loop {
        match listener.accept().await {
            Ok(accepted) => return accepted,
            Err(error) => {
                tracing::warn!(%error, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}
