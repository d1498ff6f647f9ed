//! Serving an HTTP service (a [`Service`](super::Service), or any tower service
//! around one) on a TCP listener.

use super::connection::{self, ConnectionSettings, Socket, Stopping};
use crate::server::InFlight;
use ::http::{Request, Response};
use hyper::body::{Body, Incoming};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, watch};
use tokio::task::JoinSet;

/// How many connections [`serve`] keeps open at once unless told otherwise.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

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
/// Each connection speaks HTTP/1.1 with keep-alive, or HTTP/2 with prior knowledge
/// (told apart once per connection by whether its first bytes are the HTTP/2 preface).
/// The engine learns the connection's peer address
/// ([`Metadata::peer`](crate::server::Metadata)); when the service is wrapped in
/// layers, each request also carries it as a [`PeerAddr`](super::PeerAddr) extension,
/// for the layers to read. The requests of one connection (in turn over HTTP/1.1, at
/// once as HTTP/2 streams) share its budget of calls in flight,
/// [`Limits::max_in_flight`](crate::server::Limits::max_in_flight).
///
/// A connection that waits too long for a request is closed; see
/// [`header_timeout`](Serve::header_timeout).
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
    header_timeout: Option<Duration>,
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
        }
    }

    /// How many connections are open at once, at least one. The default is
    /// [`DEFAULT_MAX_CONNECTIONS`].
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
    /// which this replaces, arms a timer for every request.) A request in progress,
    /// however long its handler or its body takes, keeps its connection open.
    pub fn header_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.header_timeout = timeout.filter(|timeout| !timeout.is_zero());
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
                in_flight: InFlight::new(),
                _slot: permit.map(Arc::new),
            };
            let settings = ConnectionSettings {
                header_timeout: self.header_timeout,
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
