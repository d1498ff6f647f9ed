//! A proxy between peers: each front connection gets an upstream connection of its
//! own, and each side's calls, notifications and answers cross to the other.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use tokio::sync::OnceCell;

use crate::client::{Client, TransportError};
use crate::protocol::ErrorObject;
use crate::proxy::{Proxy, Upstream};
use crate::server::{BoxFuture, Context, Server};

use super::{Builder, Peer, remote};

/// How a [`Bridge`] opens an upstream connection: given the peer builder that serves
/// the other way (the upstream's calls and pushes, to the front connection), it dials.
type Connect = dyn Fn(Builder) -> BoxFuture<'static, Result<Peer, TransportError>> + Send + Sync;

/// The [`Upstream`] of a [`Proxy`] whose front and upstream are both peers (WebSocket,
/// stdio, TCP): each front connection gets an upstream connection of its own, dialled
/// on its first call. What the upstream sends on it — notifications (pushes,
/// subscription items), requests, and their cancellations — is forwarded to that front
/// connection by a [`Proxy`] the other way, and the answers come back. The upstream
/// connection is closed when its front connection ends; a front connection whose
/// upstream ended gets a new one on its next call.
///
/// The front must be a peer: a call that did not come on one (HTTP) is answered
/// `-32015`. Traffic the upstream sends before the front connection's first call has
/// nowhere to go: there is no upstream connection yet.
///
/// ```no_run
/// use rpcsmith::proxy::Proxy;
/// use rpcsmith::server::Server;
/// use rpcsmith::http;
/// use rpcsmith::transport::{peer::{Bridge, Peer}, ws};
///
/// # async fn run(listener: tokio::net::TcpListener) {
/// let bridge = Bridge::new(|builder: rpcsmith::transport::peer::Builder| {
///     Box::pin(ws::connect("ws://127.0.0.1:9944", builder.cancel(true), ws::Settings::default()))
/// });
/// let front = http::Service::new(Server::new(Proxy::new(bridge)))
///     .websocket(Peer::builder().cancel(true), ws::Settings::default());
/// http::serve(listener, front, std::future::pending()).await;
/// # }
/// ```
#[derive(Clone)]
pub struct Bridge {
    inner: Arc<Inner>,
}

struct Inner {
    connect: Box<Connect>,
    /// The upstream of each front connection, by the front client's key.
    sessions: Mutex<HashMap<usize, Arc<OnceCell<Client>>>>,
}

impl Bridge {
    /// A bridge that opens each upstream connection with `connect`, given a peer
    /// builder already serving the other way (configure it further: cancellation,
    /// timeouts, limits).
    pub fn new<F>(connect: F) -> Self
    where
        F: Fn(Builder) -> BoxFuture<'static, Result<Peer, TransportError>> + Send + Sync + 'static,
    {
        Bridge {
            inner: Arc::new(Inner {
                connect: Box::new(connect),
                sessions: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// How many front connections have an upstream connection now.
    pub fn connections(&self) -> usize {
        self.inner
            .sessions()
            .values()
            .filter(|cell| cell.initialized())
            .count()
    }
}

impl Inner {
    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<usize, Arc<OnceCell<Client>>>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Dials the upstream of `front`, and watches both: when either ends, the upstream
    /// is closed and forgotten.
    async fn dial(self: Arc<Self>, front: Client) -> Result<Client, ErrorObject> {
        let builder = Peer::builder().serve(Server::new(Proxy::new(front.clone())));
        let peer = (self.connect)(builder).await.map_err(|error| {
            tracing::warn!(%error, "could not open the upstream connection");
            ErrorObject::upstream_unavailable()
        })?;
        let upstream = peer.client().clone();
        let inner = Arc::downgrade(&self);
        tokio::spawn(watch(inner, front, peer));
        Ok(upstream)
    }
}

/// Closes `peer` when `front` or it ends, and forgets it.
async fn watch(inner: Weak<Inner>, front: Client, peer: Peer) {
    tokio::select! {
        () = front.closed() => {}
        () = peer.closed() => {}
    }
    peer.close();
    if let Some(inner) = inner.upgrade() {
        inner.sessions().remove(&front.key());
    }
}

impl Upstream for Bridge {
    fn client(&self, context: &Context) -> BoxFuture<'static, Result<Client, ErrorObject>> {
        let Some(front) = remote(context) else {
            tracing::warn!("a bridged call that did not come on a peer connection");
            return Box::pin(std::future::ready(Err(ErrorObject::upstream_unavailable())));
        };
        let cell = Arc::clone(self.inner.sessions().entry(front.key()).or_default());
        let inner = Arc::clone(&self.inner);
        Box::pin(async move { cell.get_or_try_init(|| inner.dial(front)).await.cloned() })
    }
}

impl fmt::Debug for Bridge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bridge")
            .field("connections", &self.connections())
            .finish_non_exhaustive()
    }
}
