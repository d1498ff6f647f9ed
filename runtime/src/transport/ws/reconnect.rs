//! A WebSocket client that reconnects.

use super::{Settings, Socket, config, open};
use crate::client::Client;
pub use crate::transport::peer::Reconnect;
use crate::transport::peer::{Builder, reconnecting};
use std::io;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// Opens a [`Client`] on a WebSocket server that survives lost connections.
///
/// When a connection ends, the calls waiting on it fail with
/// [`Error::Closed`](crate::client::Error::Closed) (their requests may or may not have
/// been handled), and a new connection is opened after the [`Reconnect`] policy's
/// delay. Calls made while there is no connection wait for the next one, up to their
/// timeout. The first connection is opened in the background, so a server that is not
/// up yet is not an error: calls wait for it in the same way. The client stops
/// reconnecting when every clone of it is dropped, or with [`Reconnect::Never`] after
/// the first loss (its calls then fail with `Closed` at once).
///
/// ```no_run
/// # async fn demo() -> Result<(), rpcsmith::client::Error> {
/// use rpcsmith::transport::peer::Peer;
/// use rpcsmith::transport::ws::{Reconnect, Reconnecting, Settings};
/// use std::time::Duration;
///
/// let policy = Reconnect::Exponential { initial: Duration::from_millis(100), max: Duration::from_secs(10) };
/// let client = Reconnecting::connect("ws://127.0.0.1:8080/", Peer::builder(), Settings::default(), policy)
///     .map_err(rpcsmith::client::Error::Transport)?;
/// let height: u64 = client.request("block_number", &()).await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct Reconnecting;

impl Reconnecting {
    /// Starts a reconnecting client for `request` (a URL, or an `http::Request` with
    /// extra headers), made by `builder` (its timeout, its server for the calls the
    /// server makes, cancellation), with `settings`. Needs a Tokio runtime.
    ///
    /// # Errors
    ///
    /// A [`TransportError`](crate::client::TransportError) of kind `Config` when `request`
    /// is not a valid WebSocket request.
    pub fn connect(
        request: impl IntoClientRequest,
        builder: Builder,
        settings: Settings,
        policy: Reconnect,
    ) -> Result<Client, crate::client::TransportError> {
        let request = request.into_client_request().map_err(|e| {
            crate::client::TransportError::with_source(
                crate::client::TransportErrorKind::Config,
                "invalid WebSocket request",
                e,
            )
        })?;
        let config = config(&builder);
        let connect = move || {
            let request = request.clone();
            let settings = settings.clone();
            async move {
                let stream = open(request, config, &settings)
                    .await
                    .map_err(io::Error::other)?;
                Ok(Socket::new(stream, &settings))
            }
        };
        Ok(reconnecting(builder, policy, connect))
    }
}
