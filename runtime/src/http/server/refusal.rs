//! Connections past [`Serve::max_connections`](super::Serve::max_connections): each is
//! accepted, its first request answered `503 Service Unavailable` (a JSON-RPC error
//! body, `Retry-After`), and it is closed, so that clients and load balancers see a
//! refusal rather than a connect that hangs in the listen backlog.
//!
//! What refusing costs is bounded too: a refused connection has a short deadline for
//! its request ([`DEADLINE`], or the header timeout when shorter), and at most
//! [`MAX_REFUSING`] are being refused at once; past that, a connection is closed as
//! soon as it is accepted.

use super::answer;
use super::closing::{Guard, Signal};
use super::connection;
use ::http::Request;
use hyper::body::Incoming;
use std::convert::Infallible;
use std::future::Ready;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;

/// How long a refused connection may take to send its request.
const DEADLINE: Duration = Duration::from_secs(5);

/// How many connections are being refused at once, at most.
const MAX_REFUSING: usize = 64;

/// The connections being refused.
pub(super) struct Refusals {
    permits: Arc<Semaphore>,
    deadline: Duration,
    /// Dropped with the server's accept loop, which ends them at once.
    tasks: JoinSet<()>,
}

impl Refusals {
    /// Refusals with [`DEADLINE`], or the server's header timeout when shorter.
    pub(super) fn new(header_timeout: Option<Duration>) -> Self {
        Self {
            permits: Arc::new(Semaphore::new(MAX_REFUSING)),
            deadline: header_timeout.map_or(DEADLINE, |timeout| timeout.min(DEADLINE)),
            tasks: JoinSet::new(),
        }
    }

    /// Refuses `stream`, or closes it at once when [`MAX_REFUSING`] are in progress.
    pub(super) fn refuse(&mut self, stream: TcpStream, peer: SocketAddr) {
        while self.tasks.try_join_next().is_some() {}
        match Arc::clone(&self.permits).try_acquire_owned() {
            Ok(permit) => {
                self.tasks
                    .spawn(refuse(stream, peer, self.deadline, permit));
            }
            Err(_) => tracing::debug!(%peer, "closing a connection past the limit"),
        }
    }
}

/// Answers the first request of `stream` with a refusal, then closes it; gives up after
/// `deadline`. `permit` is its place among the [`MAX_REFUSING`].
async fn refuse(
    stream: TcpStream,
    peer: SocketAddr,
    deadline: Duration,
    permit: OwnedSemaphorePermit,
) {
    let _permit = permit;
    let _ = stream.set_nodelay(true);
    let answered = Arc::new(Notify::new());
    let refusing = async {
        let Some(protocol) = connection::sniff(&stream).await else {
            return;
        };
        let notified = Arc::clone(&answered);
        // Once the refusal is answered, the connection is shut down gracefully: over
        // HTTP/1.1 it closes after the answer, over HTTP/2 it sends `GOAWAY`.
        let guard = Guard::new(async move {
            notified.notified().await;
            Signal::Stop
        });
        connection::run(stream, peer, protocol, Refuse { answered }, guard).await;
    };
    if tokio::time::timeout(deadline, refusing).await.is_err() {
        tracing::debug!(%peer, "closing a refused connection that sent no request in time");
    }
}

/// The hyper service of a refused connection: every request is answered `503`.
#[derive(Clone)]
struct Refuse {
    answered: Arc<Notify>,
}

impl hyper::service::Service<Request<Incoming>> for Refuse {
    type Response = super::answer::Answer;
    type Error = Infallible;
    type Future = Ready<Result<Self::Response, Infallible>>;

    fn call(&self, _: Request<Incoming>) -> Self::Future {
        self.answered.notify_one();
        std::future::ready(Ok(answer::too_many_connections()))
    }
}
