//! A WebSocket connection's read buffer, held only while there is something to read: an
//! idle connection holds none.
//!
//! tungstenite reads the stream [`FRAME_READ`](super::FRAME_READ) bytes at a time (it
//! clears that much of its own buffer before every read, so it is kept small); a larger
//! message would then take many small reads of the socket. [`Reading`] reads into
//! tungstenite's buffer directly while messages are small, and through a buffer of its
//! own of [`Settings::read_buffer`](super::Settings::read_buffer) bytes once a read
//! fills tungstenite's whole (more is waiting): a large message is read from the socket
//! that many bytes at a time (64 KiB by default: two reads for a 118 KB message where
//! 8 KiB took fifteen; the buffer is not cleared before a read, so its size costs
//! nothing per read). The buffer is released as soon as it is drained and the stream has nothing
//! more, so that thousands of idle connections do not each keep one (a `BufReader`
//! did, for the connection's lifetime).

use bytes::{Buf as _, BytesMut};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, ReadBuf};

/// A stream read through a buffer that exists only while data waits in it.
#[derive(Debug)]
pub(crate) struct Reading<S> {
    inner: S,
    /// The unread bytes; no capacity while released. Read into without clearing it
    /// first (`read_buf` fills spare capacity), so that a large buffer costs no more
    /// than a small one per read: a large message is read in few pieces.
    buffer: BytesMut,
    /// Whether `buffer` is held (its own `capacity` cannot tell: once drained, what
    /// was read from it no longer counts, until it is filled again).
    held: bool,
    /// The size of `buffer` when it is held.
    capacity: usize,
}

impl<S> Reading<S> {
    /// `inner`, read through a buffer of `capacity` bytes when reads are large.
    pub(crate) fn new(inner: S, capacity: usize) -> Self {
        Self {
            inner,
            buffer: BytesMut::new(),
            held: false,
            capacity,
        }
    }

    /// Whether a buffer is held now (for tests).
    #[cfg(test)]
    fn holds_buffer(&self) -> bool {
        self.held
    }

    /// Gives the buffer back to the allocator.
    fn release(&mut self) {
        self.buffer = BytesMut::new();
        self.held = false;
    }
}

impl<S: AsyncRead + Unpin> Reading<S> {
    /// Reads into `out` directly (no buffer held); takes a buffer for the next reads
    /// when this one filled `out` (more is probably waiting).
    fn poll_direct(&mut self, cx: &mut Context<'_>, out: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = out.filled().len();
        ready!(Pin::new(&mut self.inner).poll_read(cx, out))?;
        if out.remaining() == 0 && out.filled().len() > before && self.capacity > 0 {
            self.buffer = BytesMut::with_capacity(self.capacity);
            self.held = true;
        }
        Poll::Ready(Ok(()))
    }

    /// Fills the (empty, held) buffer from the stream: `false` at the end of the stream.
    fn poll_fill(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<bool>> {
        // Empty: this takes back the space of what was read from it, without copying.
        self.buffer.reserve(self.capacity);
        let read = std::pin::pin!(self.inner.read_buf(&mut self.buffer));
        Poll::Ready(Ok(ready!(read.poll(cx))? > 0))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Reading<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.buffer.is_empty() {
            // Drained, the buffer is filled again while it is held: a large message
            // goes on being read `capacity` bytes at a time. (Tested on its capacity,
            // which a drained `BytesMut` reports as nothing, a 118 KB message took a
            // read of `out`'s size between the buffer's two: four reads, not three.)
            if !this.held || out.remaining() >= this.capacity {
                this.release();
                return this.poll_direct(cx, out);
            }
            match this.poll_fill(cx) {
                Poll::Pending => {
                    // Drained, and nothing more for now: idle until the next message.
                    this.release();
                    return Poll::Pending;
                }
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Ready(Ok(false)) => {
                    // The end of the stream.
                    this.release();
                    return Poll::Ready(Ok(()));
                }
                Poll::Ready(Ok(true)) => {}
            }
        }
        let count = out.remaining().min(this.buffer.len());
        out.put_slice(&this.buffer[..count]);
        this.buffer.advance(count);
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Reading<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, bytes)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt as _;

    #[tokio::test]
    async fn small_reads_hold_no_buffer_and_large_ones_release_it_when_drained() {
        let (mut near, far) = tokio::io::duplex(64 * 1024);
        let mut reading = Reading::new(far, 1024);
        let mut out = [0_u8; 16];

        near.write_all(b"hello").await.unwrap();
        let read = reading.read(&mut out).await.unwrap();
        assert_eq!(&out[..read], b"hello");
        assert!(
            !reading.holds_buffer(),
            "a small read goes straight through"
        );

        let message: Vec<u8> = (0..3000_u32).map(|i| (i % 251) as u8).collect();
        near.write_all(&message).await.unwrap();
        let mut got = Vec::new();
        while got.len() < message.len() {
            let read = reading.read(&mut out).await.unwrap();
            got.extend_from_slice(&out[..read]);
            if got.len() == 16 {
                assert!(reading.holds_buffer(), "a full read takes a buffer");
            }
        }
        assert_eq!(got, message, "every byte, in order");
        // Drained: the next read finds nothing waiting and gives the buffer back.
        let pending = futures_util::FutureExt::now_or_never(reading.read(&mut out));
        assert!(pending.is_none(), "nothing to read");
        assert!(
            !reading.holds_buffer(),
            "an idle connection holds no buffer"
        );

        drop(near);
        assert_eq!(
            reading.read(&mut out).await.unwrap(),
            0,
            "the end of the stream"
        );
    }

    /// A stream that counts the reads that gave bytes.
    struct Counted<S> {
        inner: S,
        reads: usize,
    }

    impl<S: AsyncRead + Unpin> AsyncRead for Counted<S> {
        fn poll_read(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            out: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            let this = self.get_mut();
            let before = out.filled().len();
            ready!(Pin::new(&mut this.inner).poll_read(cx, out))?;
            if out.filled().len() > before {
                this.reads += 1;
            }
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn a_large_message_is_read_a_whole_buffer_at_a_time() {
        let (mut near, far) = tokio::io::duplex(64 * 1024);
        let mut reading = Reading::new(
            Counted {
                inner: far,
                reads: 0,
            },
            1024,
        );
        let message: Vec<u8> = (0..3000_u32).map(|i| (i % 251) as u8).collect();
        near.write_all(&message).await.unwrap();
        let mut out = [0_u8; 16];
        let mut got = Vec::new();
        while got.len() < message.len() {
            let read = reading.read(&mut out).await.unwrap();
            got.extend_from_slice(&out[..read]);
        }
        assert_eq!(got, message, "every byte, in order");
        // 16 bytes straight into `out`, then 1,024, 1,024 and the last 936 through the
        // buffer: a drained buffer is filled again, not left for another small read.
        assert_eq!(reading.inner.reads, 4);
    }

    #[tokio::test]
    async fn writes_go_through() {
        let (near, mut far) = tokio::io::duplex(1024);
        let mut reading = Reading::new(near, 1024);
        reading.write_all(b"answer").await.unwrap();
        reading.flush().await.unwrap();
        let mut out = [0_u8; 6];
        far.read_exact(&mut out).await.unwrap();
        assert_eq!(&out, b"answer");
    }
}
