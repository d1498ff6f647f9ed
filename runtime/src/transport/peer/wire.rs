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
    Message(Bytes),
    /// Something that is no message (a WebSocket ping or pong): the other side is alive.
    #[cfg_attr(not(feature = "ws"), allow(dead_code))]
    Signal,
    /// A message over the size limit was skipped; the connection goes on.
    TooLarge,
    /// The connection ended (cleanly or not: the reason is logged by the transport).
    Closed,
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
    fn send(&mut self, message: Bytes) -> io::Result<()>;

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
