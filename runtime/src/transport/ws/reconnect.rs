//! A WebSocket client that reconnects.

use super::{Hooks, Settings, Socket, client_request, config, dial};
use crate::client::{Client, TransportError};
use crate::transport::peer::{Builder, reconnecting};
pub use crate::transport::peer::{ConnectionState, Reconnect};
use std::io;
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// Opens a [`Client`] on a WebSocket server that survives lost connections.
///
/// When a connection ends, the calls waiting on it fail with
/// [`Error::Closed`](crate::client::Error::Closed) (their requests may or may not have
/// been handled), and a new connection is opened after the [`Reconnect`] policy's
/// delay. Calls made while there is no connection wait for the next one, up to their
/// timeout. Every live [`Subscription`](crate::client::Subscription) is re-issued on the
/// new connection with its original method and params, and yields
/// [`SubscriptionError::Resubscribed`](crate::client::SubscriptionError::Resubscribed)
/// before its first item there (items sent in between are missed); one the new server
/// refuses ends with `SubscriptionError::Server`. The stream form of this client is
/// `stream::Reconnecting`. The first connection is opened in the background, so a server that is not
/// up yet is not an error: calls wait for it in the same way. The client stops
/// reconnecting when every clone of it is dropped, with [`Reconnect::Never`] after
/// the first loss, or after [`Reconnect::max_retries`] failed retries in a row (its
/// calls then fail with `Closed` at once).
///
/// ```no_run
/// # async fn demo() -> Result<(), rpcsmith::client::Error> {
/// use rpcsmith::transport::peer::Peer;
/// use rpcsmith::transport::ws::{Reconnect, Reconnecting, Settings};
/// use std::time::Duration;
///
/// let policy = Reconnect::Exponential { initial: Duration::from_millis(100), max: Duration::from_secs(10) }
///     .jitter(0.5);
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
    /// A [`TransportError`] of kind `Config` when `request` is not a valid WebSocket
    /// request (or is `wss://` without the `tls` feature), or when no TLS configuration
    /// was given for `wss://` and the system's root certificates cannot be loaded.
    pub fn connect(
        request: impl IntoClientRequest,
        builder: Builder,
        settings: Settings,
        policy: Reconnect,
    ) -> Result<Client, TransportError> {
        let (client, _) = Self::connect_watched(request, builder, settings, policy)?;
        Ok(client)
    }

    /// [`connect`](Self::connect), and a receiver of the connection's
    /// [`ConnectionState`]: connecting, connected, waiting before the next attempt,
    /// closed for good. It starts at `Connecting`; a state that changes quickly may be
    /// seen only at its latest.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// use rpcsmith::transport::peer::{ConnectionState, Peer};
    /// use rpcsmith::transport::ws::{Reconnect, Reconnecting, Settings};
    /// use std::time::Duration;
    ///
    /// let policy = Reconnect::Fixed(Duration::from_secs(1)).max_retries(10);
    /// let (client, mut states) =
    ///     Reconnecting::connect_watched("wss://rpc.example.com/", Peer::builder(), Settings::default(), policy)?;
    /// states.wait_for(|state| *state == ConnectionState::Connected).await?;
    /// # drop(client);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`connect`](Self::connect).
    pub fn connect_watched(
        request: impl IntoClientRequest,
        builder: Builder,
        settings: Settings,
        policy: Reconnect,
    ) -> Result<(Client, watch::Receiver<ConnectionState>), TransportError> {
        let request = client_request(request)?;
        let target = dial::Target::new(&request, &settings)?;
        let config = config(&builder);
        let connect = move || {
            let (request, target, settings) = (request.clone(), target.clone(), settings.clone());
            async move {
                let stream = dial::open(&target, request, config, &settings)
                    .await
                    .map_err(io::Error::other)?;
                Ok(Socket::new(stream, &settings, Hooks::buffered(false)))
            }
        };
        Ok(reconnecting(builder, policy, connect))
    }
}
