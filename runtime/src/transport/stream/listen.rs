//! Accepting connections on TCP and Unix-socket listeners.

use super::Codec;
use crate::metrics::Transport;
use crate::transport::peer::{Builder, Peer};
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::task::JoinSet;

/// A listener's accepted stream, split, with the peer's address when it has one.
type Accepted<R, W> = (R, W, Option<SocketAddr>);

/// Serves every connection accepted on a TCP `listener` until `shutdown` completes,
/// each as a [`Peer`](crate::transport::peer::Peer) made by `builder` (its server,
/// limits and hub; the peer's address is set in each connection's metadata). On
/// shutdown the listener stops accepting and open connections are closed.
pub async fn serve_tcp(
    listener: tokio::net::TcpListener,
    builder: Builder,
    codec: Codec,
    shutdown: impl Future<Output = ()>,
) {
    let accept = || async {
        let (stream, address) = listener.accept().await?;
        stream.set_nodelay(true)?;
        let (reader, writer) = stream.into_split();
        Ok((reader, writer, Some(address)))
    };
    let builder = builder.accepted_on(Transport::Tcp);
    accept_loop(accept, builder, codec, shutdown).await;
}

/// As [`serve_tcp`], on a Unix-socket `listener`.
#[cfg(unix)]
pub async fn serve_unix(
    listener: tokio::net::UnixListener,
    builder: Builder,
    codec: Codec,
    shutdown: impl Future<Output = ()>,
) {
    let accept = || async {
        let (stream, _) = listener.accept().await?;
        let (reader, writer) = stream.into_split();
        Ok((reader, writer, None))
    };
    let builder = builder.accepted_on(Transport::Unix);
    accept_loop(accept, builder, codec, shutdown).await;
}

/// Closes a connection of the server when the task that keeps it ends.
struct CloseOnDrop(Peer);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

async fn accept_loop<A, F, R, W>(
    accept: A,
    builder: Builder,
    codec: Codec,
    shutdown: impl Future<Output = ()>,
) where
    A: Fn() -> F,
    F: Future<Output = io::Result<Accepted<R, W>>>,
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = accept() => match accepted {
                Ok((reader, writer, address)) => {
                    let mut metadata = builder.metadata_template();
                    metadata.peer = address;
                    let peer = builder.clone().metadata(metadata).framed(codec, reader, writer);
                    connections.spawn(async move {
                        // Closed when the server shuts down (this task is aborted then),
                        // whatever clients of it handlers still hold.
                        let _close = CloseOnDrop(peer.clone());
                        peer.closed().await;
                    });
                }
                Err(error) => {
                    // Out of file descriptors, typically: wait rather than spin.
                    tracing::warn!(%error, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
        }
    }
}
