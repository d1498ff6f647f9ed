//! JSON-RPC over WebSocket: the symmetric [`Peer`] on WebSocket messages (one JSON-RPC
//! message per text or binary message; this side sends text).
//!
//! - **Server**: the HTTP [`Service`](crate::http::Service) upgrades `GET` requests with
//!   `Upgrade: websocket` on the same port as JSON-RPC over HTTP
//!   ([`Service::websocket`](crate::http::Service::websocket)); each connection is a
//!   [`Peer`] served by the service's server, its handlers reading the upgrade request's
//!   headers and extensions through the [`Context`](crate::server::Context).
//! - **Client**: [`connect`] opens one connection; [`Reconnecting`] keeps a client
//!   across connections with a [`Reconnect`] policy.
//! - **TLS**: with the `tls` feature, both connect to `wss://` URLs (rustls with the
//!   ring provider, trusting the system's root certificates unless
//!   [`Settings::tls_config`] gives a configuration); without it, a `wss://` URL is a
//!   [`Config`](TransportErrorKind::Config) error that says so. To serve `wss://`,
//!   give [`Serve::tls`](crate::http::Serve::tls) a certificate (same port, same
//!   limits and deadlines, the TLS handshake within the header timeout), or terminate
//!   TLS in front of a plain [`serve`](crate::http::serve): a reverse proxy or load
//!   balancer that forwards WebSocket upgrades.
//! - **Limits**: a message over the peer's
//!   [`max_message_size`](super::peer::Builder::max_message_size) closes the connection
//!   with close code 1009 (message too big), as the WebSocket protocol prescribes; a
//!   text message that is not UTF-8 with 1007, a broken frame with 1002. What waits to
//!   be written to the other side is bounded by the peer's
//!   [`byte_budget`](super::peer::Builder::byte_budget) (4 MiB by default): past it the
//!   connection reads no more messages until the other side has taken enough, so a
//!   client that sends without reading cannot make the server buffer its answers; one
//!   that takes nothing for the
//!   [`stall_timeout`](super::peer::Builder::stall_timeout) is dropped without a close
//!   frame. (While reading is paused, the keep-alive does not count the other side's
//!   silence.)
//! - **Keep-alive**: each side pings the other every [`Settings::keep_alive`] and
//!   closes the connection when nothing at all (not even a pong) arrived for three
//!   whole periods; pending calls then fail with `Closed`.
//! - **Reading**: the socket is read [`Settings::read_buffer`] bytes at a time while
//!   large messages arrive, through a buffer given back as soon as there is nothing more
//!   to read: an idle connection holds no read buffer of that size. A connection reads
//!   a frame that is a whole message itself (the usual case), and leaves every other
//!   frame (pings, closes, fragments, anything it refuses) to tungstenite, which answers
//!   them as before (see `frames.rs` in the source).
//! - **Writing**: outgoing messages are gathered (up to 4 KiB) so that a burst goes out
//!   in one write of the socket, through a buffer given back once it is sent: after a
//!   burst, a connection holds no write buffer. An answer with nothing else to send
//!   (a single call's) is written at once, and on a server's side framed by the runtime
//!   itself, past tungstenite (see `Hooks::direct` in the source).
//! - **Close**: a close frame from the other side ends the connection cleanly; dropping
//!   the last [`Peer`]/[`Client`](crate::client::Client) sends one, and so does a
//!   [`serve`](crate::http::serve) that shuts down, for each connection it upgraded.

mod dial;
mod frames;
mod framing;
mod reading;
mod reconnect;
mod upgrade;
mod writing;

pub use reconnect::{ConnectionState, Reconnect, Reconnecting};

use super::peer::wire::{Incoming, Outgoing, Received, Wire};
use super::peer::{Builder, Peer};
use crate::client::{TransportError, TransportErrorKind};
use bytes::Bytes;
use framing::{Framed, MAX_HEADER, framed, unframed};
use futures_util::{Sink, StreamExt};
use reading::{Next, Reading};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::handshake::client::Request;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{CloseCode, Data as OpData, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::{CloseFrame, Frame};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use writing::Writing;

/// WebSocket settings beyond the [`Builder`]'s.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Settings {
    /// How often an idle connection is pinged; `None` never pings nor times out an
    /// idle peer. Default: 30 seconds.
    pub keep_alive: Option<Duration>,
    /// The size of each connection's read buffer, in bytes: how much is read from the
    /// socket at once while a large message arrives (a larger one takes several reads).
    /// The buffer is held only while there is something to read. Default: 64 KiB.
    pub read_buffer: usize,
    /// The client's TLS configuration for `wss://`; see [`Settings::tls_config`].
    #[cfg(feature = "tls")]
    tls: Option<std::sync::Arc<rustls::ClientConfig>>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            keep_alive: Some(Duration::from_secs(30)),
            read_buffer: 64 * 1024,
            #[cfg(feature = "tls")]
            tls: None,
        }
    }
}

impl Settings {
    /// The TLS configuration a client uses for `wss://` URLs: its root certificates,
    /// client certificates, crypto provider (its ALPN protocols are replaced by
    /// `http/1.1`, the WebSocket handshake's protocol). By default the system's root
    /// certificates are trusted, with the ring provider. Servers ignore it: see
    /// [`ws`](self) for serving `wss://`.
    #[cfg(feature = "tls")]
    #[must_use]
    pub fn tls_config(mut self, config: rustls::ClientConfig) -> Self {
        self.tls = Some(std::sync::Arc::new(dial::http1_only(config)));
        self
    }
}

/// How much tungstenite takes from the connection's read buffer at once, when it reads
/// (the frames a [`Reading`] lends it: pings, closes, fragments; and everything on a
/// stream made otherwise). It clears that much of its own buffer before every read (and
/// there are two reads per message, the second finding nothing): kept small, that costs
/// next to nothing, while the socket is still read [`Settings::read_buffer`] bytes at a
/// time when messages are large, by the [`Reading`] below it.
/// (With tungstenite reading the socket itself through its default 128 KiB buffer, the
/// clearing was 93 % of the instructions of a WebSocket call; through 8 KiB, 38 %.)
/// tungstenite also allocates that buffer when the connection starts and keeps it for
/// the connection's life: 1 KiB rather than 2 KiB is 1 KiB less per idle connection
/// (issue 28), while a typical call still arrives in one read, and a large message
/// is handed over from the [`Reading`] buffer in twice as many pieces (the same bytes
/// copied, the socket read no more often).
const FRAME_READ: usize = 1024;

/// The tungstenite configuration for a peer's message limit, over a stream read through
/// a [`Reading`] (see [`FRAME_READ`]) and written through a [`Writing`]: tungstenite
/// writes each frame at once (its own buffer, never shrunk, then holds one frame), and
/// the [`Writing`] gathers them into a buffer given back after each flush.
pub(crate) fn config(builder: &Builder) -> WebSocketConfig {
    let limit = builder.message_limit();
    WebSocketConfig::default()
        .read_buffer_size(FRAME_READ)
        .write_buffer_size(0)
        .max_message_size(Some(limit))
        .max_frame_size(Some(limit))
}

/// A connection's stream, read [`Settings::read_buffer`] bytes at a time when messages
/// are large, through a buffer released whenever the connection is idle, and written
/// through a buffer released after each flush. Frames that are whole messages, within
/// `config`'s message limit, are read past tungstenite: a `server`'s from the start, a
/// client's once tungstenite has read the handshake's answer (see
/// [`Reading::read_frames`]).
pub(crate) fn buffered<S: AsyncRead>(
    settings: &Settings,
    stream: S,
    config: &WebSocketConfig,
    server: bool,
) -> Buffered<S> {
    let mut reading = Reading::new(stream, settings.read_buffer.max(FRAME_READ * 2));
    reading.read_frames(config.max_message_size.unwrap_or(usize::MAX), server);
    Writing::new(reading)
}

/// A connection's stream as [`buffered`] makes it.
pub(crate) type Buffered<S> = Writing<Reading<S>>;

impl Builder {
    /// Starts a peer on an open WebSocket (server or client side). The stream's own
    /// configuration limits message sizes: create it with the limit this builder wants
    /// ([`connect`] and the HTTP upgrade do). They also give tungstenite a small read
    /// buffer of its own (1 KiB), which it clears before every read, and read large
    /// messages [`Settings::read_buffer`] bytes at a time through a buffer held only
    /// while they arrive: a stream made otherwise works as well, but costs more per
    /// message or per idle connection.
    pub fn websocket<S>(self, stream: WebSocketStream<S>, settings: Settings) -> Peer
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let hooks = Hooks {
            through: |_, _| {},
            direct: None,
            read: None,
        };
        self.start(Socket::new(stream, &settings, hooks))
    }

    /// [`websocket`](Self::websocket), on a stream [`buffered`] made: frames that are
    /// whole messages are read past tungstenite (see [`Hooks::read`]), and an answer with
    /// nothing before it is written through rather than gathered, on a server's side
    /// (`server`) framed here (see [`Hooks::direct`]).
    pub(crate) fn websocket_buffered<S>(
        self,
        stream: WebSocketStream<Buffered<S>>,
        settings: Settings,
        server: bool,
    ) -> Peer
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        self.start(Socket::new(stream, &settings, Hooks::buffered(server)))
    }
}

/// Connects to the WebSocket server at `request` (a URL, or an `http::Request` with
/// extra headers such as `Authorization`): `ws://`, or `wss://` with the `tls` feature
/// (trusting the system's root certificates unless [`Settings::tls_config`] says
/// otherwise).
///
/// # Errors
///
/// A [`TransportError`] of kind [`TransportErrorKind::Config`] for an invalid URL (and
/// for `wss://` without the `tls` feature), and [`TransportErrorKind::Connect`] when the
/// connection, the TLS handshake (an untrusted certificate, say) or the WebSocket
/// handshake failed.
pub async fn connect(
    request: impl IntoClientRequest + Unpin,
    builder: Builder,
    settings: Settings,
) -> Result<Peer, TransportError> {
    let request = client_request(request)?;
    let target = dial::Target::new(&request, &settings)?;
    let stream = dial::open(&target, request, config(&builder), &settings).await?;
    Ok(builder.websocket_buffered(stream, settings, false))
}

/// `request` as a client's handshake request.
fn client_request(request: impl IntoClientRequest) -> Result<Request, TransportError> {
    request.into_client_request().map_err(|e| {
        TransportError::with_source(TransportErrorKind::Config, "invalid WebSocket request", e)
    })
}

/// A WebSocket as the peer's [`Wire`]: one JSON-RPC message per text or binary
/// message; pings and pongs are signs of life.
struct Socket<S> {
    stream: WebSocketStream<S>,
    keep_alive: Option<Duration>,
    /// The close frame to send instead of a plain one: why reading failed.
    close: Option<CloseFrame>,
    hooks: Hooks<S>,
    /// Whether tungstenite may have something to write or flush: it wrote a message,
    /// a ping, a close, or it read a ping or a close (it answers those itself). While
    /// not, a flush goes to the stream directly.
    owed: bool,
    /// Whether no close was read or sent (nor reading failed): only then may a frame
    /// be written past tungstenite, which refuses data after a close.
    open: bool,
}

impl<S> Socket<S> {
    /// Reading failed with `error`: the connection closes, with the close frame it
    /// calls for.
    fn failed(&mut self, error: WsError) -> Received {
        tracing::debug!(%error, "WebSocket read failed; closing");
        self.close = close_frame(&error);
        self.owed = true;
        self.open = false;
        Received::Closed
    }

    fn new(stream: WebSocketStream<S>, settings: &Settings, hooks: Hooks<S>) -> Self {
        Self {
            stream,
            keep_alive: settings.keep_alive,
            close: None,
            hooks,
            owed: false,
            open: true,
        }
    }
}

/// What a stream [`buffered`] made lets a [`Socket`] do beside tungstenite.
struct Hooks<S> {
    /// Tells the stream to write through, or to gather again (a [`Writing`]'s
    /// [`write_through`](Writing::write_through); nothing for a stream made otherwise).
    through: fn(&mut S, bool),
    /// Writes a whole frame to the stream when nothing is gathered there
    /// ([`Writing::put_alone`]); gives it back when it wrote nothing. A server's answer
    /// made alone goes out so: framed here (an unmasked frame is a two- to ten-byte
    /// header, written in front of the answer in its own vector), in one write, without
    /// tungstenite's frame, its copy into its own buffer, the `Bytes` its frame takes,
    /// and its flush (about 750 instructions a call, by callgrind, BENCHMARKS.md). A
    /// client's frames must be masked: they always go through tungstenite.
    direct: Option<Direct<S>>,
    /// Reads the next message from the stream when it is a whole frame
    /// ([`Reading::poll_message`]): the usual message is read without tungstenite's
    /// bridge from async to its blocking reads (about 900 instructions a server's call,
    /// by callgrind, BENCHMARKS.md; see `frames.rs`). Every other frame is tungstenite's
    /// to read.
    read: Option<ReadMessage<S>>,
}

/// See [`Hooks::direct`]: the whole frame, given back when it was not written.
type Direct<S> = fn(&mut S, Framed) -> io::Result<Option<Framed>>;

/// See [`Hooks::read`].
type ReadMessage<S> = fn(&mut S, &mut Context<'_>) -> Poll<io::Result<Next>>;

impl<S: AsyncRead + AsyncWrite + Unpin> Hooks<Buffered<S>> {
    fn buffered(server: bool) -> Self {
        Hooks {
            through: Writing::write_through,
            direct: server.then_some(Writing::put_frame as Direct<Buffered<S>>),
            read: Some(read_message),
        }
    }
}

/// [`Hooks::read`] of a stream [`buffered`] made.
fn read_message<S: AsyncRead + Unpin>(
    stream: &mut Buffered<S>,
    cx: &mut Context<'_>,
) -> Poll<io::Result<Next>> {
    stream.get_mut().poll_message(cx)
}

/// `message` as a text message when it is UTF-8 (messages are JSON written by serde), as
/// binary otherwise; its bytes are checked once and never copied. The frame is made
/// here, from the checked bytes as they are: tungstenite's `Message::Text` would take
/// them only as its own checked text type, whose conversion checks them again, or,
/// to keep the bytes should that check fail, checks a clone (a reference count taken
/// and given back: by callgrind, 148 instructions a small answer, where this takes 105).
/// (Checking the slice first and then converting checked a 118 KB answer twice.)
fn text_or_binary(message: Bytes) -> Message {
    let data = if std::str::from_utf8(&message).is_ok() {
        OpData::Text
    } else {
        OpData::Binary
    };
    Message::Frame(Frame::message(message, OpCode::Data(data), true))
}

/// The close frame that answers a failed read, as RFC 6455 section 7.4.1 says.
fn close_frame(error: &WsError) -> Option<CloseFrame> {
    let (code, reason) = match error {
        WsError::Capacity(_) => (CloseCode::Size, "message too big"),
        WsError::Utf8(_) => (CloseCode::Invalid, "text is not UTF-8"),
        WsError::Protocol(_) => (CloseCode::Protocol, "protocol error"),
        _ => return None,
    };
    Some(CloseFrame {
        code,
        reason: reason.into(),
    })
}

impl<S: AsyncRead + AsyncWrite + Unpin + Send + 'static> Wire for Socket<S> {
    fn poll_receive(&mut self, cx: &mut Context<'_>) -> Poll<Received> {
        if let (Some(read), true) = (self.hooks.read, self.open) {
            match ready!(read(self.stream.get_mut(), cx)) {
                Ok(Next::Message(message)) => return Poll::Ready(Received::Message(message)),
                Ok(Next::Lent) => {}
                Ok(Next::NotUtf8(error)) => return Poll::Ready(self.failed(error.into())),
                Err(error) => return Poll::Ready(self.failed(WsError::Io(error))),
            }
        }
        let received = match ready!(self.stream.poll_next_unpin(cx)) {
            // Checked as UTF-8 by tungstenite: the message is read as the text it is.
            Some(Ok(Message::Text(text))) => {
                return Poll::Ready(Received::Message(Incoming::Text(text)));
            }
            Some(Ok(Message::Binary(bytes))) => {
                return Poll::Ready(Received::Message(bytes.into()));
            }
            // A ping's pong is tungstenite's to send.
            Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => Received::Signal,
            Some(Ok(Message::Close(_))) | None => Received::Closed,
            Some(Err(error)) => return Poll::Ready(self.failed(error)),
        };
        self.owed = true;
        if matches!(received, Received::Closed) {
            self.open = false;
        }
        Poll::Ready(received)
    }

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream)
            .poll_ready(cx)
            .map_err(io::Error::other)
    }

    fn send(&mut self, message: Outgoing) -> io::Result<()> {
        self.owed = true;
        Pin::new(&mut self.stream)
            .start_send(text_or_binary(message.into_bytes()))
            .map_err(io::Error::other)
    }

    /// Framed here and written straight to the stream, on a server's side (see
    /// [`Hooks::direct`]); else through tungstenite, written through to the stream at
    /// once when nothing is gathered before it. Either way the flush that follows has
    /// nothing to write, and no gathering buffer is taken and given back for this one
    /// message.
    fn send_alone(&mut self, message: Outgoing) -> io::Result<()> {
        let message = match (self.hooks.direct, message) {
            // Only one the direct write can take (under the gathering buffer's size):
            // framing another here would move its bytes for nothing.
            (Some(direct), Outgoing::Made(answer))
                if self.open && answer.len() + MAX_HEADER < writing::WRITE_BUFFER =>
            {
                match direct(self.stream.get_mut(), framed(answer))? {
                    None => return Ok(()),
                    // Not taken: the answer goes through tungstenite after all.
                    Some(frame) => Outgoing::Made(unframed(frame)),
                }
            }
            (_, message) => message,
        };
        (self.hooks.through)(self.stream.get_mut(), true);
        let sent = self.send(message);
        (self.hooks.through)(self.stream.get_mut(), false);
        sent
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if !self.owed {
            return Pin::new(self.stream.get_mut()).poll_flush(cx);
        }
        ready!(Pin::new(&mut self.stream).poll_flush(cx)).map_err(io::Error::other)?;
        self.owed = false;
        Poll::Ready(Ok(()))
    }

    fn poll_close(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        self.open = false;
        self.owed = true;
        if let Some(frame) = self.close.take() {
            // Queued by tungstenite, and sent by the close below.
            let _ = Pin::new(&mut self.stream).start_send(Message::Close(Some(frame)));
        }
        if let Err(error) = ready!(Pin::new(&mut self.stream).poll_close(cx)) {
            tracing::debug!(%error, "closing the WebSocket failed");
        }
        // A server's tungstenite writes its answer to the peer's close frame, then reports
        // the connection closed without flushing it: the answer may still wait in the
        // stream's gathering buffer (`Writing`). Shutting the stream down sends it, and
        // closes the TCP connection from this side first, as RFC 6455 asks of a server.
        if let Err(error) = ready!(Pin::new(self.stream.get_mut()).poll_shutdown(cx)) {
            tracing::debug!(%error, "shutting the WebSocket's stream down failed");
        }
        Poll::Ready(())
    }

    fn keep_alive(&self) -> Option<Duration> {
        self.keep_alive
    }

    fn ping(&mut self) -> io::Result<()> {
        self.owed = true;
        Pin::new(&mut self.stream)
            .start_send(Message::Ping(Bytes::new()))
            .map_err(io::Error::other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vector with room to spare (an answer), one without, and static bytes: each kind
    /// of `Bytes` goes out as text when it is UTF-8, as the same bytes in binary otherwise.
    #[test]
    fn utf8_goes_out_as_text_and_anything_else_as_binary_unchanged() {
        let spare = |bytes: &[u8]| {
            let mut vec = Vec::with_capacity(bytes.len() + 32);
            vec.extend_from_slice(bytes);
            Bytes::from(vec)
        };
        let texts = [
            spare(br#"{"jsonrpc":"2.0","result":3,"id":1}"#),
            Bytes::from(br#"{"a":"\u00e9"}"#.to_vec()),
            Bytes::from_static("{\"b\":\"é\"}".as_bytes()),
        ];
        let sent = |bytes: &Bytes| match text_or_binary(bytes.clone()) {
            Message::Frame(frame) => {
                assert!(frame.header().is_final, "one whole message");
                assert_eq!(frame.payload(), &bytes[..], "the bytes unchanged");
                frame.header().opcode
            }
            other => panic!("expected a frame, got {other:?}"),
        };
        for bytes in texts {
            assert_eq!(sent(&bytes), OpCode::Data(OpData::Text), "{bytes:?}");
        }
        let binaries = [
            spare(&[b'{', 0xff, b'}']),
            Bytes::from(vec![0xc3, 0x28]),
            Bytes::from_static(&[0xfe]),
        ];
        for bytes in binaries {
            assert_eq!(sent(&bytes), OpCode::Data(OpData::Binary), "{bytes:?}");
        }
    }
}
