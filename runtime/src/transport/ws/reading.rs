//! A WebSocket connection's read buffer, held only while there is something to read: an
//! idle connection holds none.
//!
//! Where tungstenite reads the stream itself (a stream with no frames shared, below), it
//! reads [`FRAME_READ`](super::FRAME_READ) bytes at a time (it
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
//!
//! A [`Reading`] also reads the frames it receives itself when they are whole messages,
//! and lends tungstenite every other frame, exactly its bytes (see
//! [`frames`]); on a client's side, only after the handshake's answer,
//! of which it gives tungstenite no more than the answer.

use super::frames::{self, After, Frame};
use crate::transport::peer::wire::Incoming;
use bytes::{Buf as _, Bytes, BytesMut};
use std::io;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, ReadBuf};
use tokio_tungstenite::tungstenite::Utf8Bytes;

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
    /// How the frames received are shared with tungstenite; `None`: tungstenite reads
    /// everything (a stream made otherwise, or after a close).
    frames: Option<Sharing>,
}

/// The frames received, shared with tungstenite (see [`frames`]).
#[derive(Debug)]
struct Sharing {
    /// The longest message read here (longer ones are lent, and refused).
    limit: usize,
    /// Whether frames come masked (from a client, to a server).
    masked: bool,
    /// What tungstenite may still read of the frames lent to it.
    lent: u64,
    /// Whether tungstenite is inside a fragmented message: its next frames are lent.
    fragmented: bool,
    /// While a client's handshake answer is read: whether the line given to tungstenite
    /// last has something in it (the answer ends with an empty line).
    handshake: Option<bool>,
}

/// What [`Reading::poll_message`] found.
#[derive(Debug)]
pub(crate) enum Next {
    /// A whole message, read here.
    Message(Incoming),
    /// A text message that is not UTF-8.
    NotUtf8(std::str::Utf8Error),
    /// Nothing read here: tungstenite reads the next frame.
    Lent,
}

/// What [`Reading::poll_first`] read.
enum First {
    /// A whole message.
    Message(Next),
    /// Something else, for the buffer.
    Kept(BytesMut),
    /// The end of the stream.
    End,
}

/// A message's `payload`, unmasked: checked as UTF-8 if it is `text`.
fn whole_message(payload: Bytes, text: bool) -> Next {
    if !text {
        return Next::Message(Incoming::Bytes(payload));
    }
    match Utf8Bytes::try_from(payload) {
        Ok(text) => Next::Message(Incoming::Text(text)),
        Err(error) => Next::NotUtf8(error),
    }
}

/// How much is read from the socket at once into a read of no buffer held: a usual
/// message arrives in one such read, and its payload alone is then copied into a buffer
/// of its own size.
const FIRST_READ: usize = super::FRAME_READ;

impl<S> Reading<S> {
    /// `inner`, read through a buffer of `capacity` bytes when reads are large.
    pub(crate) fn new(inner: S, capacity: usize) -> Self {
        Self {
            inner,
            buffer: BytesMut::new(),
            held: false,
            capacity,
            frames: None,
        }
    }

    /// Reads the frames received that are whole messages here, up to `limit` bytes each
    /// (see [`frames`]): a server's, from its first read (its handshake
    /// was read by HTTP), or a client's, once tungstenite has read the handshake's answer
    /// through this (and it is given that answer alone). Before the first read only.
    pub(crate) fn read_frames(&mut self, limit: usize, server: bool) {
        self.frames = Some(Sharing {
            limit,
            masked: server,
            lent: 0,
            fragmented: false,
            handshake: (!server).then_some(true),
        });
    }

    /// Tells a client's `Reading` that tungstenite has read the handshake's answer. If it
    /// was not seen to end (an answer this reads otherwise than tungstenite), nothing is
    /// read past tungstenite on this connection.
    pub(crate) fn handshake_read(&mut self) {
        if self.frames.as_ref().is_some_and(|s| s.handshake.is_some()) {
            self.frames = None;
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

    /// Reads the stream into the buffer, with room for at least `room` bytes more:
    /// `false` at the end of the stream. (Empty, the buffer takes back the space of what
    /// was read from it, without copying.)
    fn poll_fill(&mut self, cx: &mut Context<'_>, room: usize) -> Poll<io::Result<bool>> {
        self.buffer.reserve(room);
        let read = std::pin::pin!(self.inner.read_buf(&mut self.buffer));
        Poll::Ready(Ok(ready!(read.poll(cx))? > 0))
    }
}

impl<S: AsyncRead + Unpin> Reading<S> {
    /// The next message, when it is a whole frame read here (see
    /// [`frames`]); [`Next::Lent`] when tungstenite reads the next
    /// frame: lent to it whole, or everything when it reads everything (a stream made
    /// otherwise, a client's before its handshake, after a close).
    pub(crate) fn poll_message(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Next>> {
        let (limit, masked) = match &self.frames {
            Some(sharing)
                if sharing.lent == 0 && !sharing.fragmented && sharing.handshake.is_none() =>
            {
                (sharing.limit, sharing.masked)
            }
            _ => return Poll::Ready(Ok(Next::Lent)),
        };
        loop {
            if self.buffer.is_empty() {
                // Nothing buffered: the usual case, a message in one read of its own.
                match ready!(self.poll_first(cx, limit, masked))? {
                    First::Message(next) => return Poll::Ready(Ok(next)),
                    First::Kept(bytes) => self.buffer = bytes,
                    First::End => return Poll::Ready(Ok(self.ended())),
                }
            }
            let wanted = match frames::classify(&self.buffer, limit, masked) {
                Frame::Whole {
                    header,
                    payload,
                    mask,
                    text,
                } if self.buffer.len() >= header + payload => {
                    return Poll::Ready(Ok(self.take(header + payload, header, mask, text)));
                }
                Frame::Whole {
                    header, payload, ..
                } => header + payload - self.buffer.len(),
                Frame::Partial => 1,
                frame => {
                    self.lend(frame);
                    return Poll::Ready(Ok(Next::Lent));
                }
            };
            if !ready!(self.poll_more(cx, wanted))? {
                return Poll::Ready(Ok(self.ended()));
            }
        }
    }

    /// The end of the stream, met by [`poll_message`](Self::poll_message): tungstenite
    /// reads what is left, and reports it.
    fn ended(&mut self) -> Next {
        self.frames = None;
        Next::Lent
    }

    /// Reads the stream onto the stack, no buffer held: a read that is exactly one whole
    /// message is that message, its payload copied once into a buffer of its size;
    /// anything else goes into a buffer, for [`poll_message`](Self::poll_message) to
    /// read on. (Kept first and taken from the buffer, the usual message cost about 100
    /// instructions more: the buffer's bookkeeping, its header skipped, the empty buffer
    /// it left dropped, and the buffer classified empty before the read.)
    fn poll_first(
        &mut self,
        cx: &mut Context<'_>,
        limit: usize,
        masked: bool,
    ) -> Poll<io::Result<First>> {
        self.poll_on_stack(cx, |bytes| {
            if bytes.is_empty() {
                return First::End;
            }
            if let Frame::Whole {
                header,
                payload,
                mask,
                text,
            } = frames::classify(bytes, limit, masked)
                && bytes.len() == header + payload
            {
                let payload = &mut bytes[header..];
                if let Some(mask) = mask {
                    frames::unmask(payload, mask);
                }
                return First::Message(whole_message(Bytes::from(payload.to_vec()), text));
            }
            First::Kept(BytesMut::from(&*bytes))
        })
    }

    /// Reads the stream onto the stack, up to [`FIRST_READ`] bytes, and gives what came
    /// to `then` (the buffer, empty, is released first: an idle connection holds none).
    fn poll_on_stack<R>(
        &mut self,
        cx: &mut Context<'_>,
        then: impl FnOnce(&mut [u8]) -> R,
    ) -> Poll<io::Result<R>> {
        if self.buffer.capacity() > 0 {
            self.buffer = BytesMut::new();
        }
        let mut space = [MaybeUninit::<u8>::uninit(); FIRST_READ];
        let mut read = ReadBuf::uninit(&mut space);
        ready!(Pin::new(&mut self.inner).poll_read(cx, &mut read))?;
        Poll::Ready(Ok(then(read.filled_mut())))
    }

    /// Takes the whole message of `whole` bytes at the buffer's front: a `header`, then
    /// the payload, masked with `mask` if any.
    fn take(&mut self, whole: usize, header: usize, mask: Option<[u8; 4]>, text: bool) -> Next {
        let mut message = if self.buffer.len() == whole {
            // The usual case: the buffer held this message alone and goes with it.
            std::mem::take(&mut self.buffer)
        } else {
            self.buffer.split_to(whole)
        };
        message.advance(header);
        if let Some(mask) = mask {
            frames::unmask(&mut message, mask);
        }
        whole_message(message.freeze(), text)
    }

    /// Lends tungstenite the frame at the buffer's front (or, for a header that does not
    /// parse, everything).
    fn lend(&mut self, frame: Frame) {
        let Some(sharing) = &mut self.frames else {
            return;
        };
        let (length, then) = match frame {
            Frame::Lend { length, then } => (length, then),
            // Within a fragmented message (tungstenite refuses it there).
            Frame::Whole {
                header, payload, ..
            } => ((header + payload) as u64, After::Completed),
            Frame::Partial | Frame::Broken => (0, After::Closed),
        };
        sharing.lent = length;
        match then {
            After::Nothing => {}
            After::Fragmented => sharing.fragmented = true,
            After::Completed => sharing.fragmented = false,
            After::Closed => self.frames = None,
        }
    }

    /// Reads more of the stream into the buffer, which lacks `wanted` bytes of a frame:
    /// `false` at the end of the stream. While nothing is held and little is wanted
    /// (a header), the read goes onto the stack and only what came is kept, in a buffer
    /// of its size: an idle connection's read holds nothing, and a usual message is
    /// allocated once. Else the buffer grows by up to [`capacity`](Self::capacity)
    /// bytes a read, however large the frame says it is, so that a client must send
    /// what it announced before it is held.
    fn poll_more(&mut self, cx: &mut Context<'_>, wanted: usize) -> Poll<io::Result<bool>> {
        if self.buffer.is_empty() && wanted <= FIRST_READ {
            self.buffer = ready!(self.poll_on_stack(cx, |bytes| BytesMut::from(&*bytes)))?;
            return Poll::Ready(Ok(!self.buffer.is_empty()));
        }
        self.poll_fill(cx, wanted.clamp(FIRST_READ, self.capacity.max(FIRST_READ)))
    }

    /// tungstenite's read of the frames lent to it. When it has read them all and reads
    /// on (within a fragmented message), the next frame is lent to it, whatever it is.
    fn poll_lent(&mut self, cx: &mut Context<'_>, out: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        loop {
            let Some(sharing) = &mut self.frames else {
                return self.poll_through(cx, out);
            };
            let (lent, limit, masked) = (sharing.lent, sharing.limit, sharing.masked);
            if lent > 0 && !self.buffer.is_empty() {
                let count = out
                    .remaining()
                    .min(self.buffer.len())
                    .min(usize::try_from(lent).unwrap_or(usize::MAX));
                out.put_slice(&self.buffer[..count]);
                self.buffer.advance(count);
                sharing.lent -= count as u64;
                return Poll::Ready(Ok(()));
            }
            if lent > 0 {
                // The rest of a frame lent: at the end of the stream, tungstenite sees it.
                let wanted = usize::try_from(lent).unwrap_or(usize::MAX);
                if !ready!(self.poll_more(cx, wanted))? {
                    return Poll::Ready(Ok(()));
                }
                continue;
            }
            match frames::classify(&self.buffer, limit, masked) {
                Frame::Partial => {
                    if !ready!(self.poll_more(cx, 1))? {
                        self.frames = None;
                    }
                }
                frame => self.lend(frame),
            }
        }
    }

    /// tungstenite's read of a client's handshake answer: the answer's bytes up to the
    /// empty line that ends it, no further (`line`: whether the line given last has
    /// something in it; a line ends with `\n`, and a `\r` counts for nothing, as
    /// tungstenite's parser reads lines). Whatever follows is frames, for
    /// [`poll_message`](Self::poll_message).
    fn poll_handshake(
        &mut self,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
        mut line: bool,
    ) -> Poll<io::Result<()>> {
        if self.buffer.is_empty() && !ready!(self.poll_more(cx, 1))? {
            return Poll::Ready(Ok(()));
        }
        let (mut count, mut ended) = (0, false);
        for &byte in self.buffer.iter().take(out.remaining()) {
            count += 1;
            match byte {
                b'\n' if !line => {
                    ended = true;
                    break;
                }
                b'\n' => line = false,
                b'\r' => {}
                _ => line = true,
            }
        }
        out.put_slice(&self.buffer[..count]);
        self.buffer.advance(count);
        if let Some(sharing) = &mut self.frames {
            sharing.handshake = (!ended).then_some(line);
        }
        Poll::Ready(Ok(()))
    }

    /// tungstenite's read when it reads everything: from the buffer while it holds
    /// something, else as described in this module's documentation.
    fn poll_through(
        &mut self,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.buffer.is_empty() {
            // Drained, the buffer is filled again while it is held: a large message
            // goes on being read `capacity` bytes at a time. (Tested on its capacity,
            // which a drained `BytesMut` reports as nothing, a 118 KB message took a
            // read of `out`'s size between the buffer's two: four reads, not three.)
            if !self.held || out.remaining() >= self.capacity {
                self.release();
                return self.poll_direct(cx, out);
            }
            match self.poll_fill(cx, self.capacity) {
                Poll::Pending => {
                    // Drained, and nothing more for now: idle until the next message.
                    self.release();
                    return Poll::Pending;
                }
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Ready(Ok(false)) => {
                    // The end of the stream.
                    self.release();
                    return Poll::Ready(Ok(()));
                }
                Poll::Ready(Ok(true)) => {}
            }
        }
        let count = out.remaining().min(self.buffer.len());
        out.put_slice(&self.buffer[..count]);
        self.buffer.advance(count);
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Reading<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match this.frames.as_ref().map(|sharing| sharing.handshake) {
            Some(Some(line)) => this.poll_handshake(cx, out, line),
            Some(None) => this.poll_lent(cx, out),
            None => this.poll_through(cx, out),
        }
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
mod tests;
