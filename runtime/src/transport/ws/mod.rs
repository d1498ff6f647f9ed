//! JSON-RPC over WebSocket: the symmetric [`Peer`] on WebSocket messages (one JSON-RPC
//! message per text or binary message; this side sends text).
//!
//! - **Server**: the HTTP [`Service`](super::http::Service) upgrades `GET` requests with
//!   `Upgrade: websocket` on the same port as JSON-RPC over HTTP
//!   ([`Service::websocket`](super::http::Service::websocket)); each connection is a
//!   [`Peer`] served by the service's server, its handlers reading the upgrade request's
//!   headers and extensions through the [`Context`](crate::server::Context).
//! - **Client**: [`connect`] opens one connection; [`Reconnecting`] keeps a client
//!   across connections with a [`Reconnect`] policy.
//! - **Limits**: a message over the peer's
//!   [`max_message_size`](super::peer::Builder::max_message_size) closes the connection
//!   (WebSocket close code 1009), as the WebSocket protocol prescribes.
//! - **Keep-alive**: each side pings an idle connection every
//!   [`Settings::keep_alive`] and closes it when nothing at all (not even a pong) arrived
//!   for three periods; pending calls then fail with `Closed`.
//! - **Close**: a close frame from the other side ends the connection cleanly; dropping
//!   the last [`Peer`]/[`Client`](crate::client::Client) sends one, and so does a
//!   [`serve`](super::http::serve) that shuts down, for each connection it upgraded.

mod reconnect;
mod upgrade;

pub use reconnect::{Reconnect, Reconnecting};
pub(crate) use upgrade::{is_upgrade, upgrade};

use super::peer::wire::{Incoming, Outgoing, Received};
use super::peer::{Builder, Peer};
use crate::transport::{self, ErrorKind};
use bytes::Bytes;
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use std::io;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

/// WebSocket settings beyond the [`Builder`]'s.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Settings {
    /// How often an idle connection is pinged; `None` never pings nor times out an
    /// idle peer. Default: 30 seconds.
    pub keep_alive: Option<Duration>,
    /// The size of each connection's read buffer, in bytes: how much is read from the
    /// socket at once (a larger message takes several reads). Default: 8 KiB. Bigger
    /// is not faster: the WebSocket library clears the free part of this buffer before
    /// every read, so its size is paid per message received, and in memory per
    /// connection.
    pub read_buffer: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            keep_alive: Some(Duration::from_secs(30)),
            read_buffer: 8 * 1024,
        }
    }
}

/// The tungstenite configuration for a peer's message limit and read buffer.
pub(crate) fn config(builder: &Builder, settings: &Settings) -> WebSocketConfig {
    let limit = builder.message_limit();
    WebSocketConfig::default()
        .read_buffer_size(settings.read_buffer)
        .max_message_size(Some(limit))
        .max_frame_size(Some(limit))
}

impl Builder {
    /// Starts a peer on an open WebSocket (server or client side). The stream's own
    /// configuration limits message sizes: create it with the limit this builder wants
    /// ([`connect`] and the HTTP upgrade do).
    pub fn websocket<S>(self, stream: WebSocketStream<S>, settings: &Settings) -> Peer
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let (sink, stream) = stream.split();
        let idle = settings.keep_alive.map(|period| period.saturating_mul(3));
        self.start(
            Reader { stream, idle },
            Writer {
                sink,
                keep_alive: settings.keep_alive,
            },
        )
    }
}

/// Connects to the WebSocket server at `request` (a URL, or an `http::Request` with
/// extra headers such as `Authorization`).
///
/// # Errors
///
/// A [`transport::Error`] of kind [`ErrorKind::Config`] for an invalid URL, and
/// [`ErrorKind::Connect`] when the connection or the handshake failed.
pub async fn connect(
    request: impl IntoClientRequest + Unpin,
    builder: Builder,
    settings: &Settings,
) -> Result<Peer, transport::Error> {
    let request = request.into_client_request().map_err(|e| {
        transport::Error::with_source(ErrorKind::Config, "invalid WebSocket request", e)
    })?;
    let config = config(&builder, settings);
    let (stream, _) = tokio_tungstenite::connect_async_with_config(request, Some(config), true)
        .await
        .map_err(|e| {
            transport::Error::with_source(ErrorKind::Connect, "WebSocket connection failed", e)
        })?;
    Ok(builder.websocket(stream, settings))
}

struct Reader<S> {
    stream: SplitStream<WebSocketStream<S>>,
    /// The longest silence tolerated, with keep-alive on.
    idle: Option<Duration>,
}

impl<S: AsyncRead + AsyncWrite + Unpin + Send + 'static> Incoming for Reader<S> {
    async fn next(&mut self) -> Received {
        loop {
            let frame = match self.idle {
                Some(idle) => match tokio::time::timeout(idle, self.stream.next()).await {
                    Ok(frame) => frame,
                    Err(_) => {
                        tracing::debug!("WebSocket peer silent past keep-alive; closing");
                        return Received::Closed;
                    }
                },
                None => self.stream.next().await,
            };
            match frame {
                Some(Ok(Message::Text(text))) => return Received::Message(text.into()),
                Some(Ok(Message::Binary(bytes))) => return Received::Message(bytes),
                Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => {}
                Some(Ok(Message::Close(_))) | None => return Received::Closed,
                Some(Err(error)) => {
                    tracing::debug!(%error, "WebSocket read failed; closing");
                    return Received::Closed;
                }
            }
        }
    }
}

struct Writer<S> {
    sink: SplitSink<WebSocketStream<S>, Message>,
    keep_alive: Option<Duration>,
}

impl<S: AsyncRead + AsyncWrite + Unpin + Send + 'static> Outgoing for Writer<S> {
    async fn write(&mut self, message: Bytes) -> io::Result<()> {
        // Messages are JSON written by serde, so UTF-8; a foreign one goes as binary.
        let message = match tokio_tungstenite::tungstenite::Utf8Bytes::try_from(message.clone()) {
            Ok(text) => Message::Text(text),
            Err(_) => Message::Binary(message),
        };
        self.sink.feed(message).await.map_err(io::Error::other)
    }

    async fn flush(&mut self) -> io::Result<()> {
        self.sink.flush().await.map_err(io::Error::other)
    }

    async fn close(&mut self) {
        let _ = self.sink.close().await;
    }

    fn keep_alive(&self) -> Option<Duration> {
        self.keep_alive
    }

    async fn ping(&mut self) -> io::Result<()> {
        self.sink
            .send(Message::Ping(Bytes::new()))
            .await
            .map_err(io::Error::other)
    }
}
