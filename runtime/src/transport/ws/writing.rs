//! A WebSocket connection's write buffer, held only between a write and the flush that
//! sends it: an idle connection, and one whose last burst has gone out, holds none.
//!
//! tungstenite gathers outgoing frames in a vector of its own which it never shrinks:
//! with an 8 KiB threshold, a burst of small frames grew it past 8 KiB, to 16 KiB after
//! the vector's doubling, and every connection of a fan-out kept that much for its whole
//! life (the server's peak RSS while publishing to 1,000 subscribers, issue 28). So
//! tungstenite is told to write each frame at once (write buffer 0: its vector then
//! holds one frame), and [`Writing`] gathers those writes below it into a buffer of at
//! most [`WRITE_BUFFER`] bytes, which it gives back to the allocator once a flush has
//! sent it. A burst of small messages still goes out in one `write` of the socket; the
//! cost is one allocation per flush (a flush carries every message the connection had
//! ready, not one per message), sized to what is gathered: a small one for a single
//! answer, served from the allocator's per-thread cache.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, Waker, ready};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The most outgoing bytes gathered before they are written to the socket (about 16
/// small notifications; 4 KiB rather than 8 KiB took the fan-out's publishing peak from
/// 33 MB to 31 MB, with server CPU per item within the runs' noise); a write that
/// does not fit in what is left is sent after what was gathered, and one at least this
/// large goes straight through.
pub(crate) const WRITE_BUFFER: usize = 4 * 1024;

/// A stream written through a buffer that exists only while bytes wait in it.
#[derive(Debug)]
pub(crate) struct Writing<S> {
    inner: S,
    /// The bytes not yet written, from `written` on; no capacity while released, and never
    /// more than [`WRITE_BUFFER`].
    buffer: Vec<u8>,
    /// How much of `buffer` the stream has taken already.
    written: usize,
    /// Writes go straight to the stream while nothing is gathered (see
    /// [`write_through`](Self::write_through)).
    through: bool,
}

impl<S> Writing<S> {
    /// `inner`, written through a gathering buffer.
    pub(crate) fn new(inner: S) -> Self {
        Self {
            inner,
            buffer: Vec::new(),
            written: 0,
            through: false,
        }
    }

    /// While `on`, a write that finds nothing gathered goes straight to the stream,
    /// taking no buffer; what the stream does not take at once is gathered as usual.
    /// For a message that is the only one before the flush: gathering it would only
    /// take a buffer, copy it there, and give the buffer back at the flush.
    pub(crate) fn write_through(&mut self, on: bool) {
        self.through = on;
    }

    /// The stream written to.
    pub(crate) fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// The capacity of the buffer held now (for tests).
    #[cfg(test)]
    fn held(&self) -> usize {
        self.buffer.capacity()
    }

    /// Adds `bytes` (less than [`WRITE_BUFFER`] in all, with what is gathered) to the
    /// buffer, grown to fit them (at least doubled, at most [`WRITE_BUFFER`]): a single
    /// small answer, what most flushes carry, takes a small allocation, which the
    /// allocator serves from its per-thread cache. (A whole [`WRITE_BUFFER`] taken for
    /// each flush and given back after it went through the allocator's slower paths:
    /// 520 instructions a small call, by callgrind, a twentieth of the server's work.)
    fn gather(&mut self, bytes: &[u8]) {
        let needed = self.buffer.len() + bytes.len();
        if needed > self.buffer.capacity() {
            let grown = needed
                .max(self.buffer.capacity() * 2)
                .clamp(MIN_GATHER, WRITE_BUFFER);
            self.buffer.reserve_exact(grown - self.buffer.len());
        }
        self.buffer.extend_from_slice(bytes);
    }
}

/// The smallest buffer taken for gathering: room for a typical small answer and its
/// frame header.
const MIN_GATHER: usize = 128;

impl<S: AsyncWrite + Unpin> Writing<S> {
    /// Writes out everything gathered; keeps the (now empty) buffer.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.buffer.len() {
            let wrote =
                ready!(Pin::new(&mut self.inner).poll_write(cx, &self.buffer[self.written..]))?;
            if wrote == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += wrote;
        }
        self.buffer.clear();
        self.written = 0;
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> Writing<S> {
    /// Writes one whole `frame` straight to the stream when nothing is gathered: what
    /// the stream does not take at once is gathered for the flush. `false`, writing
    /// nothing, when something is gathered already (the frame would overtake it) or
    /// when the frame is not smaller than [`WRITE_BUFFER`].
    ///
    /// One plain write of one piece: the header and the payload written together by
    /// `writev` cost the kernel more than the copy saved (a 50-byte frame on loopback
    /// TCP: about 300 ns more system time than `send`, measured).
    ///
    /// # Errors
    ///
    /// When writing to the stream fails.
    pub(crate) fn put_alone(&mut self, frame: &[u8]) -> io::Result<bool> {
        if !self.buffer.is_empty() || frame.len() >= WRITE_BUFFER {
            return Ok(false);
        }
        // No task to wake: what the stream does not take now waits for the flush,
        // which polls with the connection task's own.
        let mut cx = Context::from_waker(Waker::noop());
        let wrote = match Pin::new(&mut self.inner).poll_write(&mut cx, frame) {
            Poll::Ready(Ok(wrote)) => wrote,
            Poll::Ready(Err(error)) => return Err(error),
            Poll::Pending => 0,
        };
        if wrote < frame.len() {
            self.gather(&frame[wrote..]);
        }
        Ok(true)
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Writing<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, out)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Writing<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.buffer.len() + bytes.len() > WRITE_BUFFER {
            ready!(this.poll_drain(cx))?;
        }
        if bytes.len() >= WRITE_BUFFER {
            return Pin::new(&mut this.inner).poll_write(cx, bytes);
        }
        if this.through
            && this.buffer.is_empty()
            && let Poll::Ready(wrote) = Pin::new(&mut this.inner).poll_write(cx, bytes)
        {
            return Poll::Ready(wrote);
        }
        this.gather(bytes);
        Poll::Ready(Ok(bytes.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        // Sent: the buffer goes back to the allocator until the next write.
        this.buffer = Vec::new();
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        this.buffer = Vec::new();
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt as _;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    #[tokio::test]
    async fn small_writes_are_gathered_and_the_buffer_is_given_back_after_the_flush() {
        let (near, mut far) = tokio::io::duplex(64 * 1024);
        let mut writing = Writing::new(near);
        for _ in 0..10 {
            writing.write_all(&[b'a'; 300]).await.unwrap();
        }
        assert!(writing.held() >= 3000, "gathered, not yet sent");
        assert!(writing.held() <= WRITE_BUFFER);
        let mut probe = [0_u8; 1];
        assert!(
            far.read(&mut probe).now_or_never().is_none(),
            "nothing written yet"
        );
        writing.flush().await.unwrap();
        assert_eq!(writing.held(), 0, "a flushed connection holds no buffer");
        let mut got = vec![0_u8; 3000];
        far.read_exact(&mut got).await.unwrap();
        assert!(got.iter().all(|&b| b == b'a'));
    }

    #[tokio::test]
    async fn a_single_small_message_takes_a_small_buffer() {
        let (near, mut far) = tokio::io::duplex(1024);
        let mut writing = Writing::new(near);
        writing.write_all(&[b'a'; 40]).await.unwrap();
        assert_eq!(writing.held(), MIN_GATHER, "not a whole gathering buffer");
        writing.flush().await.unwrap();
        assert_eq!(writing.held(), 0);
        let mut got = [0_u8; 40];
        far.read_exact(&mut got).await.unwrap();
        assert_eq!(got, [b'a'; 40]);
    }

    /// Reads `len` bytes from `far` in a task of its own (while this side flushes).
    fn read_exactly(
        mut far: tokio::io::DuplexStream,
        len: usize,
    ) -> tokio::task::JoinHandle<Vec<u8>> {
        tokio::spawn(async move {
            let mut got = vec![0_u8; len];
            far.read_exact(&mut got).await.unwrap();
            got
        })
    }

    #[tokio::test]
    async fn a_message_written_through_takes_no_buffer_unless_the_stream_is_full() {
        let (near, mut far) = tokio::io::duplex(64);
        let mut writing = Writing::new(near);
        writing.write_through(true);
        writing.write_all(&[b'a'; 40]).await.unwrap();
        assert_eq!(writing.held(), 0, "straight to the stream");
        let mut got = [0_u8; 40];
        far.read_exact(&mut got).await.unwrap();
        assert_eq!(got, [b'a'; 40]);

        // The stream takes 64 bytes: the rest of the first write, and all of the second
        // (something is gathered before it), wait for the flush, in order.
        let first: Vec<u8> = (0..100_u8).collect();
        let second = [b'z'; 10];
        writing.write_all(&first).await.unwrap();
        assert_eq!(writing.held(), MIN_GATHER, "what the stream did not take");
        writing.write_all(&second).await.unwrap();
        writing.write_through(false);
        let reader = read_exactly(far, 110);
        writing.flush().await.unwrap();
        assert_eq!(writing.held(), 0);
        let got = reader.await.unwrap();
        assert_eq!(&got[..100], &first[..]);
        assert_eq!(&got[100..], &second[..]);
    }

    #[tokio::test]
    async fn a_frame_put_alone_goes_straight_out_and_waits_only_for_what_the_stream_refused() {
        let (near, mut far) = tokio::io::duplex(64);
        let mut writing = Writing::new(near);
        assert!(writing.put_alone(b"hhpayload").unwrap());
        assert_eq!(writing.held(), 0, "straight to the stream");
        let mut got = [0_u8; 9];
        far.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"hhpayload");

        // The stream takes 64 bytes: the rest waits for the flush; a frame put alone
        // then is not taken (it would overtake what waits), nor is a large one.
        let frame: Vec<u8> = (0..102_u8).collect();
        assert!(writing.put_alone(&frame).unwrap());
        assert_eq!(writing.held(), MIN_GATHER, "what the stream did not take");
        assert!(!writing.put_alone(b"later").unwrap());
        let reader = read_exactly(far, 102);
        writing.flush().await.unwrap();
        assert_eq!(writing.held(), 0);
        assert_eq!(reader.await.unwrap(), frame);
        assert!(!writing.put_alone(&[0; WRITE_BUFFER]).unwrap());
    }

    #[tokio::test]
    async fn a_burst_never_grows_the_buffer_and_large_writes_go_through_in_order() {
        let (near, mut far) = tokio::io::duplex(256 * 1024);
        let mut writing = Writing::new(near);
        let mut sent = Vec::new();
        for n in 0..100_u32 {
            let message = vec![(n % 251) as u8; 250];
            writing.write_all(&message).await.unwrap();
            sent.extend_from_slice(&message);
            assert!(writing.held() <= WRITE_BUFFER, "never past its base");
        }
        let large = vec![7_u8; 3 * WRITE_BUFFER];
        writing.write_all(&large).await.unwrap();
        sent.extend_from_slice(&large);
        assert!(writing.held() <= WRITE_BUFFER);
        writing.flush().await.unwrap();
        assert_eq!(writing.held(), 0);
        let mut got = vec![0_u8; sent.len()];
        far.read_exact(&mut got).await.unwrap();
        assert_eq!(got, sent, "every byte, in order");
    }
}
