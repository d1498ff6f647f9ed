//! TCP and Unix-socket clients that reconnect.

use super::{Codec, framed};
use crate::client::Client;
use crate::transport::peer::{Builder, reconnecting};
pub use crate::transport::peer::{ConnectionState, Reconnect};
use std::future::Future;
use std::io;
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::watch;

/// Opens a [`Client`] on a TCP or Unix-socket server that survives lost connections,
/// as `ws::Reconnecting` does for WebSocket.
///
/// When a connection ends, the calls waiting on it fail with
/// [`Error::Closed`](crate::client::Error::Closed) (their requests may or may not have
/// been handled), and a new connection is opened after the [`Reconnect`] policy's
/// delay; calls made meanwhile wait for it, up to their timeout. Every live
/// [`Subscription`](crate::client::Subscription) is re-issued on the new connection
/// with its original method and params, and yields
/// [`SubscriptionError::Resubscribed`](crate::client::SubscriptionError::Resubscribed)
/// before its first item there. The first connection is opened in the background. The
/// client stops reconnecting when every clone of it is dropped, with
/// [`Reconnect::Never`] after the first loss, or after [`Reconnect::max_retries`] failed
/// retries in a row.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use rpcsmith::transport::peer::{ConnectionState, Peer};
/// use rpcsmith::transport::stream::{Codec, Reconnect, Reconnecting};
/// use std::time::Duration;
///
/// let policy = Reconnect::Fixed(Duration::from_millis(200)).jitter(0.5).max_retries(50);
/// let (client, mut states) =
///     Reconnecting::tcp_watched(Peer::builder(), Codec::Newline, "127.0.0.1:7000", policy);
/// states.wait_for(|state| *state == ConnectionState::Connected).await?;
/// let height: u64 = client.request("block_number", &()).await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct Reconnecting;

impl Reconnecting {
    /// Starts a reconnecting client of the TCP server at `address`, made by `builder`
    /// (its timeout, its server for the calls the server makes, cancellation, its
    /// subscription buffers), framing messages with `codec`. Needs a Tokio runtime.
    pub fn tcp(
        builder: Builder,
        codec: Codec,
        address: impl Into<String>,
        policy: Reconnect,
    ) -> Client {
        Self::tcp_watched(builder, codec, address, policy).0
    }

    /// [`tcp`](Self::tcp), and a receiver of the connection's [`ConnectionState`]:
    /// connecting, connected, waiting before the next attempt, closed for good. It
    /// starts at `Connecting`; a state that changes quickly may be seen only at its
    /// latest.
    pub fn tcp_watched(
        builder: Builder,
        codec: Codec,
        address: impl Into<String>,
        policy: Reconnect,
    ) -> (Client, watch::Receiver<ConnectionState>) {
        let address: Arc<str> = address.into().into();
        framed_reconnecting(builder, codec, policy, move || {
            let address = Arc::clone(&address);
            async move {
                let stream = tokio::net::TcpStream::connect(&*address).await?;
                stream.set_nodelay(true)?;
                Ok(stream.into_split())
            }
        })
    }

    /// Starts a reconnecting client of the Unix-socket server at `path`; as
    /// [`tcp`](Self::tcp).
    #[cfg(unix)]
    pub fn unix(
        builder: Builder,
        codec: Codec,
        path: impl Into<std::path::PathBuf>,
        policy: Reconnect,
    ) -> Client {
        Self::unix_watched(builder, codec, path, policy).0
    }

    /// [`unix`](Self::unix), and a receiver of the connection's [`ConnectionState`], as
    /// [`tcp_watched`](Self::tcp_watched).
    #[cfg(unix)]
    pub fn unix_watched(
        builder: Builder,
        codec: Codec,
        path: impl Into<std::path::PathBuf>,
        policy: Reconnect,
    ) -> (Client, watch::Receiver<ConnectionState>) {
        let path: Arc<std::path::Path> = path.into().into();
        framed_reconnecting(builder, codec, policy, move || {
            let path = Arc::clone(&path);
            async move { Ok(tokio::net::UnixStream::connect(&*path).await?.into_split()) }
        })
    }
}

/// A reconnecting client on the byte streams `open` opens, framed by `codec`.
fn framed_reconnecting<O, F, R, W>(
    builder: Builder,
    codec: Codec,
    policy: Reconnect,
    open: O,
) -> (Client, watch::Receiver<ConnectionState>)
where
    O: Fn() -> F + Send + Sync + 'static,
    F: Future<Output = io::Result<(R, W)>> + Send + 'static,
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let builder = builder.cancel_by_default(codec == Codec::ContentLength);
    let template = builder.clone();
    let connect = move || {
        let (opening, template) = (open(), template.clone());
        async move {
            let (reader, writer) = opening.await?;
            Ok(framed(&template, codec, reader, writer))
        }
    };
    reconnecting(builder, policy, connect)
}
