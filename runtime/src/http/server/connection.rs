//! One connection accepted by [`serve`](super::serve): which protocol it speaks, the glue
//! between hyper and the service, and what watches it (the server's shutdown, the
//! header timeout).
//!
//! The per-request path is kept free of per-request work that belongs to the
//! connection: the protocol is chosen once (HTTP/2 by its preface, seen with a `peek`,
//! so HTTP/1.1 reads go straight to the socket), the shutdown signal and the header
//! timeout are polled only when they fire (not on every wake of the connection), and a
//! bare [`Service`] gets the peer address and the in-flight count handed to it rather
//! than through request extensions.

use super::closing::{Activity, Guard, InProgress, Signal, Stopping, signal};
use super::service::{Begun, Busy, PeerAddr, Service, SocketInfo};
use super::unsent::Unsent;
use super::written::Written;
use crate::metrics::{ConnectionMeter, Transport};
use crate::server::InFlight;
use ::http::{Method, Request, Response};
use hyper::body::{Body, Incoming};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use std::any::Any;
use std::convert::Infallible;
use std::fmt::Display;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;

use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::sync::OwnedSemaphorePermit;
use tower::ServiceExt as _;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The first bytes of every HTTP/2 connection with prior knowledge (RFC 9113, 3.4).
const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// What [`serve`](super::serve) hands every request of one accepted connection, as an extension: the
/// server's shutdown, the connection's count of calls in flight (which the
/// [`Service`](super::Service) gives the engine, so the requests of one socket share
/// [`Limits::max_in_flight`](crate::server::Limits::max_in_flight)), and its slot among
/// [`Serve::max_connections`](super::Serve::max_connections), which a request upgraded to a WebSocket keeps for as long
/// as the WebSocket lives. Cloning it allocates nothing.
#[derive(Debug, Clone)]
pub(crate) struct Socket {
    pub(crate) stopping: Stopping,
    pub(crate) in_flight: InFlight,
    /// The bytes of its answers not sent yet, against
    /// [`Serve::max_unsent_bytes`](super::Serve::max_unsent_bytes).
    pub(crate) unsent: Arc<Unsent>,
    /// The listener's address it came in on.
    pub(crate) local: Option<SocketAddr>,
    pub(super) _slot: Arc<OwnedSemaphorePermit>,
}

/// What [`serve`](super::serve) hands each connection besides the socket.
pub(super) struct ConnectionSettings {
    pub(super) header_timeout: Option<Duration>,
    /// The TLS configuration, when [`Serve::tls`](super::Serve::tls) gave one.
    #[cfg(feature = "tls")]
    pub(super) tls: Option<Arc<rustls::ServerConfig>>,
}

/// Serves one connection until it ends, the server shuts down, or it waits too long
/// for a request.
pub(super) async fn serve_connection<S, B>(
    stream: TcpStream,
    peer: SocketAddr,
    service: S,
    socket: Socket,
    settings: ConnectionSettings,
) where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let _ = stream.set_nodelay(true);
    let _meter = ConnectionMeter::open(Some(Transport::Http));
    #[cfg(feature = "tls")]
    if let Some(config) = settings.tls.clone() {
        let handshake = async {
            let accepted = tokio_rustls::TlsAcceptor::from(config).accept(stream).await;
            accepted
                .inspect_err(|error| tracing::debug!(%error, %peer, "TLS handshake failed"))
                .ok()
        };
        let Some(stream) = first(&socket, settings.header_timeout, handshake).await else {
            return;
        };
        // ALPN says which protocol; a client that named none may still speak either.
        let protocol = match stream.get_ref().1.alpn_protocol() {
            Some(b"h2") => Protocol::Http2,
            Some(_) => Protocol::Http1,
            None => Protocol::Unsure,
        };
        return serve_protocol(stream, peer, protocol, service, socket, settings).await;
    }
    let Some(protocol) = first(&socket, settings.header_timeout, sniff(&stream)).await else {
        return;
    };
    serve_protocol(stream, peer, protocol, service, socket, settings).await;
}

/// `future`'s output, unless the header timeout passes or the server stops first.
async fn first<T>(
    socket: &Socket,
    limit: Option<Duration>,
    future: impl Future<Output = Option<T>>,
) -> Option<T> {
    let mut stopping = socket.stopping.clone();
    tokio::select! {
        output = within(limit, future) => output,
        () = stopping.wait() => None,
    }
}

/// Serves one connection speaking `protocol` on `stream` (TCP, or TLS over TCP).
async fn serve_protocol<I, S, B>(
    stream: I,
    peer: SocketAddr,
    protocol: Protocol,
    service: S,
    socket: Socket,
    settings: ConnectionSettings,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let activity = Arc::new(Activity::default());
    let guard = Guard::new(signal(
        socket.stopping.clone(),
        Arc::clone(&activity),
        Arc::clone(&socket.unsent),
        settings.header_timeout,
    ));
    let counted = Arc::clone(&activity);
    let accepted = Accepted {
        peer,
        socket,
        activity,
        busy: Busy(Arc::new(move || Box::new(counted.start()))),
    };
    // A bare `Service` (no layers between it and `serve`) is called directly; anything
    // else learns about the connection through request extensions.
    match (&service as &dyn Any).downcast_ref::<Service>().cloned() {
        Some(service) => run(stream, peer, protocol, Direct { service, accepted }, guard).await,
        None => run(stream, peer, protocol, Layered { service, accepted }, guard).await,
    }
}

/// What the glue services know of their connection.
#[derive(Clone)]
struct Accepted {
    peer: SocketAddr,
    socket: Socket,
    activity: Arc<Activity>,
    /// Counts a request as in progress for as long as its answer's body needs.
    busy: Busy,
}

impl Accepted {
    /// Tells a request, through its extensions, where it came from.
    fn tag(&self, request: &mut Request<Incoming>) {
        request.extensions_mut().insert(PeerAddr(self.peer));
        request.extensions_mut().insert(self.socket.clone());
        request.extensions_mut().insert(self.busy.clone());
    }
}

/// The protocol a connection speaks, known from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Protocol {
    Http1,
    Http2,
    /// The first bytes are a beginning of the HTTP/2 preface but too short to tell:
    /// hyper-util reads on until it knows.
    Unsure,
}

/// Looks at the first bytes without consuming them; `None` when the peer closed (or the
/// socket failed) before sending any.
pub(super) async fn sniff(stream: &TcpStream) -> Option<Protocol> {
    let mut head = [0_u8; PREFACE.len()];
    let read = stream.peek(&mut head).await.ok()?;
    protocol_of(&head[..read])
}

fn protocol_of(head: &[u8]) -> Option<Protocol> {
    if head.is_empty() {
        None
    } else if head != &PREFACE[..head.len()] {
        Some(Protocol::Http1)
    } else if head.len() == PREFACE.len() {
        Some(Protocol::Http2)
    } else {
        Some(Protocol::Unsure)
    }
}

/// `future`'s output, or `None` when it takes longer than `limit`.
async fn within<T>(limit: Option<Duration>, future: impl Future<Output = Option<T>>) -> Option<T> {
    match limit {
        Some(limit) => tokio::time::timeout(limit, future).await.ok().flatten(),
        None => future.await,
    }
}

/// What one HTTP/2 connection may make the server hold, set explicitly rather than left
/// to hyper's defaults (which hyper says may change):
///
/// - 100 streams at once (hyper: 200). A stream lasts until its answer is sent whole,
///   so a client that never reads could make the server hold 100 answers (each up to
///   [`Limits::max_response_size`](crate::server::Limits::max_response_size)); their
///   bytes are bounded by [`Serve::max_unsent_bytes`](super::Serve::max_unsent_bytes)
///   (see [`unsent`](super::unsent)), and their time by the header timeout.
/// - Receive windows of 256 KiB per stream (hyper: 1 MiB) and 1 MiB per connection:
///   what a client may send that the server has not read yet.
/// - Frames of at most 16 KiB, a header list of at most 16 KiB.
/// - At most 64 KiB of an answer buffered per stream for sending (hyper: 400 KiB).
/// - At most 20 streams opened and reset by the client before the server accepts them,
///   and 256 streams reset for errors of the client's, before the connection is closed
///   (hyper: 1,024); the "rapid reset" attacks.
macro_rules! http2_bounds {
    ($builder:expr) => {
        $builder
            .max_concurrent_streams(100)
            .initial_stream_window_size(256 * 1024)
            .initial_connection_window_size(1024 * 1024)
            .max_frame_size(16 * 1024)
            .max_header_list_size(16 * 1024)
            .max_send_buf_size(64 * 1024)
            .max_pending_accept_reset_streams(20)
            .max_local_error_reset_streams(256)
    };
}

/// Runs hyper's connection for `protocol` with `glue` as its service, watched by `guard`.
pub(super) async fn run<I, H, B>(
    stream: I,
    peer: SocketAddr,
    protocol: Protocol,
    glue: H,
    guard: Guard,
) where
    H: hyper::service::Service<Request<Incoming>, Response = Response<B>> + Send + 'static,
    H::Future: Send + 'static,
    H::Error: Into<BoxError>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let io = TokioIo::new(stream);
    match protocol {
        Protocol::Http1 => {
            // Head and body copied into one buffer and sent with one `write`: answers
            // are small, and that is cheaper than queueing the body for a `writev`.
            let connection = hyper::server::conn::http1::Builder::new()
                .writev(false)
                .serve_connection(io, glue)
                .with_upgrades();
            Watched::new(connection, guard, peer).await;
        }
        Protocol::Http2 => {
            let mut builder = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
            http2_bounds!(builder.timer(TokioTimer::new()));
            let connection = builder.serve_connection(io, glue);
            Watched::new(connection, guard, peer).await;
        }
        Protocol::Unsure => {
            let mut builder = auto::Builder::new(TokioExecutor::new());
            http2_bounds!(builder.http2().timer(TokioTimer::new()));
            let connection = builder.serve_connection_with_upgrades(io, glue);
            Watched::new(connection, guard, peer).await;
        }
    }
}

/// A connection hyper can be asked to close gracefully.
trait Graceful {
    fn graceful_shutdown(self: Pin<&mut Self>);
}

macro_rules! graceful {
    ($($connection:ty),* $(,)?) => {$(
        impl<I, H> Graceful for $connection
        where
            I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
            H: hyper::service::HttpService<Incoming> + 'static,
            H::Future: Send + 'static,
            H::Error: Into<BoxError>,
            H::ResBody: Send + 'static,
            <H::ResBody as Body>::Data: Send,
            <H::ResBody as Body>::Error: Into<BoxError>,
        {
            fn graceful_shutdown(self: Pin<&mut Self>) {
                <$connection>::graceful_shutdown(self);
            }
        }
    )*};
}

graceful!(
    hyper::server::conn::http1::UpgradeableConnection<TokioIo<I>, H>,
    hyper::server::conn::http2::Connection<TokioIo<I>, H, TokioExecutor>,
    auto::UpgradeableConnection<'_, TokioIo<I>, H, TokioExecutor>,
);

pin_project_lite::pin_project! {
    /// A hyper connection and its guard: polls the guard only when it was woken.
    struct Watched<C> {
        #[pin]
        connection: C,
        guard: Guard,
        peer: SocketAddr,
        closing: bool,
    }
}

impl<C> Watched<C> {
    fn new(connection: C, guard: Guard, peer: SocketAddr) -> Self {
        Self {
            connection,
            guard,
            peer,
            closing: false,
        }
    }
}

impl<C, E> Future for Watched<C>
where
    C: Future<Output = Result<(), E>> + Graceful,
    E: Display,
{
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut this = self.project();
        match this.guard.poll(cx) {
            Poll::Pending => {}
            Poll::Ready(Signal::Stop) => {
                *this.closing = true;
                this.connection.as_mut().graceful_shutdown();
            }
            Poll::Ready(Signal::Idle) => {
                tracing::debug!(peer = %this.peer, "closing a connection that sent no request in time");
                return Poll::Ready(());
            }
            Poll::Ready(Signal::Unread) => {
                tracing::debug!(peer = %this.peer, "closing a connection whose client does not read its answers");
                return Poll::Ready(());
            }
        }
        match this.connection.poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Ok(())) => Poll::Ready(()),
            Poll::Ready(Err(error)) => {
                let during = if *this.closing {
                    " during shutdown"
                } else {
                    ""
                };
                tracing::debug!(%error, peer = %this.peer, "connection ended with an error{during}");
                Poll::Ready(())
            }
        }
    }
}

/// The hyper service for a bare [`Service`]: what `serve` knows of the connection is
/// handed to it directly.
#[derive(Clone)]
struct Direct {
    service: Service,
    accepted: Accepted,
}

impl hyper::service::Service<Request<Incoming>> for Direct {
    type Response = super::answer::Answer<Written>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, mut request: Request<Incoming>) -> Self::Future {
        let accepted = &self.accepted;
        let in_progress = accepted.activity.start();
        if request.method() != Method::POST {
            // A WebSocket upgrade finds the socket where a layered service would.
            accepted.tag(&mut request);
        }
        let origin = SocketInfo {
            peer: Some(accepted.peer),
            local: accepted.socket.local,
            in_flight: Some(accepted.socket.in_flight.clone()),
            unsent: Some(Arc::clone(&accepted.socket.unsent)),
        };
        match self.service.begin(request, origin) {
            Begun::Reading(exchange) => Box::pin(exchange.finish(in_progress)),
            Begun::Answered(answer) => Box::pin(std::future::ready(Ok(answer))),
            Begun::Stream(opening) => Box::pin(std::future::ready(Ok(opening.open(in_progress)))),
        }
    }
}

/// The hyper service for any other tower service (layers around a [`Service`]): the
/// peer address and the socket travel as request extensions.
#[derive(Clone)]
struct Layered<S> {
    service: S,
    accepted: Accepted,
}

impl<S, B> hyper::service::Service<Request<Incoming>> for Layered<S>
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response<B>;
    type Error = S::Error;
    type Future = Counted<tower::util::Oneshot<S, Request<Incoming>>>;

    fn call(&self, mut request: Request<Incoming>) -> Self::Future {
        let in_progress = self.accepted.activity.start();
        self.accepted.tag(&mut request);
        Counted {
            call: self.service.clone().oneshot(request),
            _in_progress: in_progress,
        }
    }
}

pin_project_lite::pin_project! {
    /// A request's future, counted as in progress until it is dropped.
    struct Counted<F> {
        #[pin]
        call: F,
        _in_progress: InProgress,
    }
}

impl<F: Future> Future for Counted<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.project().call.poll(cx)
    }
}
