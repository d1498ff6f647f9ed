//! What a message stream carries, as far as the connection must know: the transport's
//! side of it ([`Wire`]). (How a received message is told apart, calls or responses, is
//! [`TwoWay`](crate::protocol::TwoWay).)

use bytes::Bytes;
use std::io;
use std::task::{Context, Poll};
use std::time::Duration;

/// One thing read from the connection.
#[derive(Debug)]
pub(crate) enum Received {
    /// A whole message.
    Message(Incoming),
    /// Something that is no message (a WebSocket ping or pong): the other side is alive.
    #[cfg_attr(not(feature = "ws"), allow(dead_code))]
    Signal,
    /// A message over the size limit was skipped; the connection goes on.
    TooLarge,
    /// The connection ended (cleanly or not: the reason is logged by the transport).
    Closed,
}

/// A whole message as the transport read it: bytes, or text the transport has checked
/// as UTF-8 already (a WebSocket text message, which tungstenite checks on receipt), so
/// that reading the message does not check its bytes a second time (for a 118 KB answer
/// that second check was 155,000 instructions, by callgrind).
#[derive(Debug, Clone)]
pub(crate) enum Incoming {
    /// Bytes, not checked.
    Bytes(Bytes),
    /// Checked text.
    #[cfg(feature = "ws")]
    Text(tokio_tungstenite::tungstenite::Utf8Bytes),
}

impl Incoming {
    /// The message's bytes.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self {
            Incoming::Bytes(bytes) => bytes,
            #[cfg(feature = "ws")]
            Incoming::Text(text) => text.as_bytes(),
        }
    }

    /// The message as text, when the transport checked it already.
    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            Incoming::Bytes(_) => None,
            #[cfg(feature = "ws")]
            Incoming::Text(text) => Some(text),
        }
    }

    /// The message's bytes, shared (a reference counted, no copy): slices of
    /// [`as_bytes`](Self::as_bytes) are slices of these.
    pub(crate) fn to_bytes(&self) -> Bytes {
        match self {
            Incoming::Bytes(bytes) => bytes.clone(),
            #[cfg(feature = "ws")]
            Incoming::Text(text) => text.clone().into(),
        }
    }

    /// Its length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.as_bytes().len()
    }
}

/// A message to send: an answer made on this connection, as its vector (a wire that
/// only copies it out needs nothing more: turning it into [`Bytes`] allocated a shared
/// header and freed it again, about 185 instructions a WebSocket call), or bytes shared
/// with whoever made them (pushes, this side's calls, answers from other tasks).
#[derive(Debug)]
pub(crate) enum Outgoing {
    /// Made here, owned.
    Made(Vec<u8>),
    /// Shared.
    Shared(Bytes),
}

impl Outgoing {
    /// The message's bytes.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self {
            Outgoing::Made(vec) => vec,
            Outgoing::Shared(bytes) => bytes,
        }
    }

    /// Its length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// The message as [`Bytes`] (for a vector, without copying it).
    #[cfg_attr(not(feature = "ws"), allow(dead_code))]
    pub(crate) fn into_bytes(self) -> Bytes {
        match self {
            Outgoing::Made(vec) => vec.into(),
            Outgoing::Shared(bytes) => bytes,
        }
    }
}

impl From<Vec<u8>> for Outgoing {
    fn from(vec: Vec<u8>) -> Self {
        Outgoing::Made(vec)
    }
}

impl From<Bytes> for Outgoing {
    fn from(bytes: Bytes) -> Self {
        Outgoing::Shared(bytes)
    }
}

impl From<Bytes> for Incoming {
    fn from(bytes: Bytes) -> Self {
        Incoming::Bytes(bytes)
    }
}

/// A message stream as a transport provides it: both directions, polled by the one task
/// that runs the connection (so a message read can be answered at once, in the same
/// wake-up, and a stalled writer never stops reading).
pub(crate) trait Wire: Send + Unpin + 'static {
    /// The next thing read. After [`Received::Closed`] it is not polled again.
    fn poll_receive(&mut self, cx: &mut Context<'_>) -> Poll<Received>;

    /// Ready when [`send`](Self::send) may take one more message (what is buffered may
    /// have to be written first).
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>;

    /// Buffers one message; call only after [`poll_ready`](Self::poll_ready) said so.
    fn send(&mut self, message: Outgoing) -> io::Result<()>;

    /// As [`send`](Self::send), for a message that is most likely the only one before
    /// the next flush (an answer made alone, with nothing else waiting): a wire that
    /// gathers messages for the flush may write this one through at once instead, when
    /// nothing is gathered before it.
    fn send_alone(&mut self, message: Outgoing) -> io::Result<()> {
        self.send(message)
    }

    /// Writes out what is buffered.
    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>;

    /// Ends the stream in an orderly way (a WebSocket close frame, a write shutdown),
    /// after what is buffered. Failures are only logged: the stream is done either way.
    fn poll_close(&mut self, cx: &mut Context<'_>) -> Poll<()>;

    /// How often to [`ping`](Self::ping) the other side, which is deemed gone after
    /// three whole periods without a sign of life; `None` (the default) never.
    fn keep_alive(&self) -> Option<Duration> {
        None
    }

    /// Buffers a keep-alive probe (a WebSocket ping); only after
    /// [`poll_ready`](Self::poll_ready) said so.
    fn ping(&mut self) -> io::Result<()> {
        Ok(())
    }
}
