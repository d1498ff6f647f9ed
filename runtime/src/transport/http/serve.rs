//! Serving an HTTP service (a [`Service`](super::Service), or any tower service
//! around one) on a TCP listener.

use super::service::PeerAddr;
use ::http::{Request, Response};
use hyper::body::{Body, Incoming};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, watch};
use tokio::task::JoinSet;
use tower::ServiceExt as _;

/// The server's shutdown, as a request extension, for connections that outlive their
/// HTTP exchange (WebSocket): they end when it says so, and [`Serve::run`] returns only
/// once every copy of it is gone.
#[derive(Debug, Clone)]
pub(crate) struct Stopping {
    stopped: watch::Receiver<bool>,
    _alive: mpsc::Sender<()>,
}

impl Stopping {
    /// Resolves when the server shuts down.
    pub(crate) async fn wait(&mut self) {
        // An error means the server is gone, which is a shutdown too.
        let _ = self.stopped.wait_for(|stopped| *stopped).await;
    }
}

/// What [`serve`] hands every request of one accepted connection, as an extension: the
/// server's shutdown, the connection's count of calls in flight (which the
/// [`Service`](super::Service) gives the engine, so the requests of one socket share
/// [`Limits::max_in_flight`](crate::server::Limits::max_in_flight)), and its slot among
/// [`Serve::max_connections`], which a request upgraded to a WebSocket keeps for as long
/// as the WebSocket lives. Cloning it allocates nothing.
#[derive(Debug, Clone)]
pub(crate) struct Socket {
    pub(crate) stopping: Stopping,
    pub(crate) in_flight: Arc<AtomicUsize>,
    _slot: Option<Arc<OwnedSemaphorePermit>>,
}

/// How many connections [`serve`] keeps open at once unless told otherwise.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

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
/// use rpcsmith::transport::http::{Service, serve};
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
/// Each connection speaks HTTP/1.1 with keep-alive or HTTP/2 (detected from its first
/// bytes), and each request carries the connection's peer address as a [`PeerAddr`]
/// extension, which [`Service`](super::Service) hands to the engine. The requests of
/// one connection (in turn over HTTP/1.1, at once as HTTP/2 streams) share its budget
/// of calls in flight, [`Limits::max_in_flight`](crate::server::Limits::max_in_flight).
///
/// At most [`max_connections`](Serve::max_connections) connections are open at once,
/// WebSocket connections upgraded from them included (each keeps its slot until it
/// closes); beyond that, new connections wait in the listener's backlog until one
/// closes. Failures to accept a connection (too many open files, say) are logged
/// through `tracing` and retried after a short pause; they do not end the server.
#[derive(Debug)]
#[must_use = "nothing is served until `run` is awaited"]
pub struct Serve<S> {
    listener: TcpListener,
    service: S,
    max_connections: usize,
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
        }
    }

    /// How many connections are open at once, at least one. The default is
    /// [`DEFAULT_MAX_CONNECTIONS`].
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.clamp(1, Semaphore::MAX_PERMITS);
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
        let mut connections = JoinSet::new();
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            let (stream, peer, permit) = tokio::select! {
                () = &mut shutdown => break,
                next = next_connection(&self.listener, &permits) => next,
            };
            while connections.try_join_next().is_some() {}
            let socket = Socket {
                stopping: stopping.clone(),
                in_flight: Arc::new(AtomicUsize::new(0)),
                _slot: permit.map(Arc::new),
            };
            connections.spawn(connection(stream, peer, self.service.clone(), socket));
        }
        drop(self.listener);
        let _ = stop.send(true);
        drop(stopping);
        while connections.join_next().await.is_some() {}
        // The upgraded connections hold the last copies.
        let _ = all_gone.recv().await;
    }
}

/// Waits for a free connection slot, then for a connection to accept.
async fn next_connection(
    listener: &TcpListener,
    permits: &Arc<Semaphore>,
) -> (TcpStream, SocketAddr, Option<OwnedSemaphorePermit>) {
    // The semaphore is never closed, so a failed acquire cannot happen; were it to,
    // the connection would simply go uncounted.
    let permit = Arc::clone(permits).acquire_owned().await.ok();
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => return (stream, peer, permit),
            Err(error) => {
                tracing::warn!(%error, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// Serves one connection until it ends or the server shuts down.
async fn connection<S, B>(stream: TcpStream, peer: SocketAddr, service: S, socket: Socket)
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let _ = stream.set_nodelay(true);
    let mut stopping = socket.stopping.clone();
    let hyper_service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
        request.extensions_mut().insert(PeerAddr(peer));
        request.extensions_mut().insert(socket.clone());
        service.clone().oneshot(request)
    });
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new());
    builder.http2().timer(TokioTimer::new());
    let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), hyper_service);
    let mut connection = std::pin::pin!(connection);
    tokio::select! {
        result = connection.as_mut() => {
            if let Err(error) = result {
                tracing::debug!(%error, %peer, "connection ended with an error");
            }
            return;
        }
        () = stopping.wait() => {}
    }
    connection.as_mut().graceful_shutdown();
    if let Err(error) = connection.await {
        tracing::debug!(%error, %peer, "connection ended with an error during shutdown");
    }
}
