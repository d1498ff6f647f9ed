//! The in-memory transport: a client and a server engine in one process, no sockets.
//!
//! Messages still travel as bytes: the client serialises each call, the server engine
//! parses it and writes its answer, and the client parses that. Nothing is shortcut,
//! so a test over this transport exercises both engines exactly as a socket would.

use crate::client;
use crate::server::{Metadata, Server};
use crate::transport::{Reply, SendFuture, Transport};
use bytes::Bytes;

/// A request/response [`Transport`] that hands each message to a [`Server`] in the
/// same process.
///
/// ```
/// # async fn run(server: rpcsmith::server::Server) -> Result<(), rpcsmith::client::Error> {
/// use rpcsmith::transport::memory::Link;
///
/// let client = rpcsmith::client::Client::new(Link::new(server));
/// let sum: i64 = client.request("add", &[1, 2]).await?;
/// # let _ = sum;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Link {
    server: Server,
}

impl Link {
    /// A link to `server`.
    pub fn new(server: Server) -> Self {
        Self { server }
    }
}

impl Transport for Link {
    fn send(&self, message: Bytes) -> SendFuture<'_> {
        Box::pin(async move {
            Ok(match self.server.handle(&message, Metadata::default()).await {
                Some(answer) => Reply::Answer(answer.into()),
                None => Reply::NoAnswer,
            })
        })
    }
}

/// A client connected to `server` through a [`Link`].
pub fn connect(server: Server) -> client::Client {
    client::Client::new(Link::new(server))
}
