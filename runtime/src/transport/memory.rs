//! The in-memory transport: a client and a server engine in one process, no sockets.
//!
//! Messages still travel as bytes: the client serialises each call, the server engine
//! parses it and writes its answer, and the client parses that. Nothing is shortcut,
//! so a test over this transport exercises both engines exactly as a socket would.

use crate::client;
use crate::client::{Delivery, SendFuture, Transport};
use crate::server::{Connection, Metadata, Server};
use bytes::Bytes;

/// A request/response [`Transport`] that hands each message to a [`Server`] in the
/// same process. A link is one connection of the server: its in-flight limit
/// ([`Limits::max_in_flight`](crate::server::Limits::max_in_flight)) counts the calls
/// of every clone of the link.
///
/// ```
/// # use rpcsmith::server::{Context, Dispatch, Reply, Server};
/// # use serde_json::value::RawValue;
/// # struct Echo;
/// # impl Dispatch for Echo {
/// #     fn call(&self, _: &str, params: Option<&RawValue>, _: Context) -> Reply {
/// #         Reply::ok(&params)
/// #     }
/// # }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), rpcsmith::client::Error> {
/// use rpcsmith::transport::memory::Link;
///
/// let server = Server::builder(Echo).build();
/// let client = rpcsmith::client::Client::new(Link::new(server));
/// let echoed: Vec<u8> = client.request("echo", &[1, 2]).await?;
/// assert_eq!(echoed, [1, 2]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Link {
    connection: Connection,
}

impl Link {
    /// A link to `server`.
    pub fn new(server: Server) -> Self {
        Self {
            connection: server.connection(Metadata::default()),
        }
    }
}

impl Transport for Link {
    fn is_request_response(&self) -> bool {
        true
    }

    fn send(&self, message: Bytes) -> SendFuture<'_> {
        Box::pin(async move {
            Ok(match self.connection.handle(&message).await {
                Some(answer) => Delivery::Answer(answer.into()),
                None => Delivery::NoAnswer,
            })
        })
    }
}

/// A client connected to `server` through a [`Link`].
pub fn connect(server: Server) -> client::Client {
    client::Client::new(Link::new(server))
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("in_flight", &self.connection.in_flight())
            .finish_non_exhaustive()
    }
}
