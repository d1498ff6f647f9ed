//! Framing: where one JSON-RPC message ends and the next begins on a byte stream.
//!
//! Two codecs ([`Codec`]): one message per line (MCP's stdio transport, most TCP and
//! Unix-socket peers), or a `Content-Length` header block before each message (the
//! Language Server Protocol's base protocol). Frames larger than the limit are refused
//! ([`FrameError::TooLarge`]) as soon as that is known (from the `Content-Length`
//! header, or once a line passes the limit), without being held in memory: the next
//! read drops their remaining bytes as they arrive, and the stream stays usable.

use bytes::Bytes;
use std::fmt;
use std::io;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// How messages are delimited on a byte stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Codec {
    /// One message per line, ended by `\n` (a `\r` before it is dropped). Blank lines
    /// are skipped. A message written out has any raw line break in its JSON whitespace
    /// replaced by a space, so it always fits on one line.
    #[default]
    Newline,
    /// `Content-Length: N` (and optionally `Content-Type`) header lines, a blank line,
    /// then exactly `N` bytes of message: the LSP base protocol.
    ContentLength,
}

/// Longest header line accepted with [`Codec::ContentLength`], in bytes.
const MAX_HEADER_LINE: usize = 1024;
/// Most header lines before the blank line.
const MAX_HEADER_LINES: usize = 16;

/// Why no frame could be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum FrameError {
    /// The frame is larger than the limit. It is reported before its end has arrived;
    /// the next [`read`](FrameReader::read) skips the rest of its bytes, and the stream
    /// can be read on. `size` is its length when the header announced it.
    TooLarge {
        /// The announced size, when known before reading the frame.
        size: Option<usize>,
    },
    /// The header block is not a valid `Content-Length` header: the stream cannot be
    /// resynchronised and should be closed.
    Malformed(String),
    /// Reading failed, or the stream ended inside a frame.
    Io(io::Error),
}

impl FrameError {
    /// Whether the stream can still be read after this error.
    pub fn is_recoverable(&self) -> bool {
        matches!(self, FrameError::TooLarge { .. })
    }
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::TooLarge { size: Some(size) } => {
                write!(f, "frame of {size} bytes is over the limit")
            }
            FrameError::TooLarge { size: None } => f.write_str("frame over the size limit"),
            FrameError::Malformed(why) => write!(f, "malformed frame header: {why}"),
            FrameError::Io(error) => write!(f, "reading a frame failed: {error}"),
        }
    }
}

impl std::error::Error for FrameError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FrameError::Io(error) => Some(error),
            _ => None,
        }
    }
}

impl From<io::Error> for FrameError {
    fn from(error: io::Error) -> Self {
        FrameError::Io(error)
    }
}

/// Reads frames from a buffered byte stream.
#[derive(Debug)]
pub struct FrameReader<R> {
    reader: R,
    codec: Codec,
    max_size: usize,
    /// What is left of a refused frame, dropped before the next frame is read.
    skip: Skip,
}

/// The rest of a frame refused as too large.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Skip {
    /// Nothing to skip.
    Nothing,
    /// Everything up to and including the next `\n`.
    Line,
    /// This many bytes.
    Bytes(u64),
}

/// What [`read_line`] found.
enum Line {
    /// A whole line, without its `\n` (nor a `\r` before it).
    Text(Vec<u8>),
    /// A line longer than the limit; `ended` when its `\n` was read too, otherwise
    /// the rest of it is left unread.
    TooLong {
        /// Whether the line's end was read.
        ended: bool,
    },
    /// The stream ended before any byte of a line.
    End,
}

impl<R: AsyncBufRead + Unpin> FrameReader<R> {
    /// A reader of `codec` frames from `reader`, refusing frames over `max_size` bytes.
    pub fn new(reader: R, codec: Codec, max_size: usize) -> Self {
        Self {
            reader,
            codec,
            max_size,
            skip: Skip::Nothing,
        }
    }

    /// The next frame; `Ok(None)` when the stream ended cleanly between frames.
    ///
    /// # Errors
    ///
    /// [`FrameError::TooLarge`] for a frame over the limit (recoverable), otherwise
    /// the stream should be closed.
    pub async fn read(&mut self) -> Result<Option<Bytes>, FrameError> {
        if !self.skip_refused().await? {
            return Ok(None);
        }
        match self.codec {
            Codec::Newline => self.read_line_frame().await,
            Codec::ContentLength => self.read_header_frame().await,
        }
    }

    async fn read_line_frame(&mut self) -> Result<Option<Bytes>, FrameError> {
        loop {
            match read_line(&mut self.reader, self.max_size).await? {
                Line::End => return Ok(None),
                Line::TooLong { ended } => {
                    if !ended {
                        self.skip = Skip::Line;
                    }
                    return Err(FrameError::TooLarge { size: None });
                }
                Line::Text(line) if line.iter().all(u8::is_ascii_whitespace) => {}
                Line::Text(line) => return Ok(Some(line.into())),
            }
        }
    }

    async fn read_header_frame(&mut self) -> Result<Option<Bytes>, FrameError> {
        let Some(size) = self.read_headers().await? else {
            return Ok(None);
        };
        if size > self.max_size {
            self.skip = Skip::Bytes(size as u64);
            return Err(FrameError::TooLarge { size: Some(size) });
        }
        let mut body = vec![0; size];
        self.reader.read_exact(&mut body).await?;
        Ok(Some(body.into()))
    }

    /// Drops what is left of a refused frame, keeping count as it goes (so a read
    /// cancelled midway resumes where it stopped). `false` when the stream ended.
    async fn skip_refused(&mut self) -> Result<bool, FrameError> {
        loop {
            let wanted = match self.skip {
                Skip::Nothing => return Ok(true),
                Skip::Line => None,
                Skip::Bytes(0) => {
                    self.skip = Skip::Nothing;
                    return Ok(true);
                }
                Skip::Bytes(left) => Some(left),
            };
            let buffer = self.reader.fill_buf().await?;
            if buffer.is_empty() {
                return match wanted {
                    // A refused line may end with the stream.
                    None => Ok(false),
                    Some(_) => Err(io::Error::from(io::ErrorKind::UnexpectedEof).into()),
                };
            }
            let used = match wanted {
                None => match buffer.iter().position(|&b| b == b'\n') {
                    Some(end) => {
                        self.skip = Skip::Nothing;
                        end + 1
                    }
                    None => buffer.len(),
                },
                Some(left) => {
                    let used = buffer
                        .len()
                        .min(usize::try_from(left).unwrap_or(usize::MAX));
                    self.skip = Skip::Bytes(left - used as u64);
                    used
                }
            };
            self.reader.consume(used);
        }
    }

    /// Reads a header block; its `Content-Length`, or `None` at a clean end of stream.
    async fn read_headers(&mut self) -> Result<Option<usize>, FrameError> {
        let mut length = None;
        for index in 0..=MAX_HEADER_LINES {
            let line = match read_line(&mut self.reader, MAX_HEADER_LINE).await? {
                Line::End if index == 0 => return Ok(None),
                Line::End => return Err(io::Error::from(io::ErrorKind::UnexpectedEof).into()),
                Line::TooLong { .. } => return Err(malformed("header line too long")),
                Line::Text(line) => line,
            };
            if line.is_empty() {
                return length
                    .map(Some)
                    .ok_or_else(|| malformed("no Content-Length"));
            }
            if let Some(value) = header_value(&line, "content-length") {
                let value = std::str::from_utf8(value).map_err(|_| malformed("not UTF-8"))?;
                length = Some(
                    value
                        .trim()
                        .parse()
                        .map_err(|_| malformed("bad Content-Length"))?,
                );
            } else if !line.contains(&b':') {
                return Err(malformed("header line without a colon"));
            }
        }
        Err(malformed("too many header lines"))
    }
}

fn malformed(why: &str) -> FrameError {
    FrameError::Malformed(why.to_owned())
}

/// The value of header `name` (lowercase) in `line`, if the line is that header.
fn header_value<'a>(line: &'a [u8], name: &str) -> Option<&'a [u8]> {
    let colon = line.iter().position(|&b| b == b':')?;
    let (key, value) = line.split_at(colon);
    key.trim_ascii()
        .eq_ignore_ascii_case(name.as_bytes())
        .then(|| value.get(1..).unwrap_or_default())
}

/// Reads one line of at most `max` bytes. A longer one is reported as soon as it
/// passes the limit, its rest left unread.
async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R, max: usize) -> io::Result<Line> {
    let mut line = Vec::new();
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            // The stream ended: a last line without `\n` still counts (and still has
            // to fit: the byte allowed over the limit was for a `\r`).
            return Ok(if line.is_empty() {
                Line::End
            } else {
                ended_line(line, max)
            });
        }
        let (chunk, found) = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => (&buffer[..end], Some(end + 1)),
            None => (buffer, None),
        };
        // One byte over the limit is allowed for a `\r` before the `\n`.
        let room = max.saturating_add(1).saturating_sub(line.len());
        if chunk.len() > room {
            reader.consume(room);
            return Ok(Line::TooLong { ended: false });
        }
        line.extend_from_slice(chunk);
        let used = found.unwrap_or(buffer.len());
        reader.consume(used);
        if found.is_some() {
            return Ok(ended_line(line, max));
        }
    }
}

/// A line whose end was read: without a `\r` before its end, and refused when it is
/// still over `max`.
fn ended_line(mut line: Vec<u8>, max: usize) -> Line {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if line.len() > max {
        Line::TooLong { ended: true }
    } else {
        Line::Text(line)
    }
}

/// Writes one message as a frame of `codec` and flushes it.
///
/// # Errors
///
/// Writing or flushing failed.
pub async fn write_frame<W: AsyncWrite + Unpin>(
    writer: &mut W,
    codec: Codec,
    message: &[u8],
) -> io::Result<()> {
    let mut frame = Vec::with_capacity(message.len() + 32);
    put_frame(&mut frame, codec, message);
    writer.write_all(&frame).await?;
    writer.flush().await
}

/// Appends one message to `out` as a frame of `codec`.
pub(crate) fn put_frame(out: &mut Vec<u8>, codec: Codec, message: &[u8]) {
    match codec {
        Codec::Newline => {
            let start = out.len();
            out.extend_from_slice(message);
            // Raw line breaks can only be JSON whitespace (strings escape them).
            for byte in &mut out[start..] {
                if *byte == b'\n' || *byte == b'\r' {
                    *byte = b' ';
                }
            }
            out.push(b'\n');
        }
        Codec::ContentLength => {
            out.extend_from_slice(b"Content-Length: ");
            out.extend_from_slice(itoa::Buffer::new().format(message.len()).as_bytes());
            out.extend_from_slice(b"\r\n\r\n");
            out.extend_from_slice(message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every frame of `input` (at most 64 reads), as text or the error's class.
    async fn frames(input: &[u8], codec: Codec, max: usize) -> Vec<String> {
        let mut reader = FrameReader::new(input, codec, max);
        let mut out = Vec::new();
        for _ in 0..64 {
            match reader.read().await {
                Ok(Some(frame)) => out.push(String::from_utf8_lossy(&frame).into_owned()),
                Ok(None) => return out,
                Err(FrameError::TooLarge { .. }) => out.push("<too large>".to_owned()),
                Err(FrameError::Malformed(_)) => {
                    out.push("<malformed>".to_owned());
                    return out;
                }
                Err(FrameError::Io(_)) => {
                    out.push("<io>".to_owned());
                    return out;
                }
            }
        }
        out
    }

    fn run<T>(future: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .map(|runtime| runtime.block_on(future))
            .unwrap_or_else(|e| panic!("runtime: {e}"))
    }

    #[test]
    fn newline_frames() {
        let input = b"{\"a\":1}\n\r\n  \n{\"b\":2}\r\n0123456789ABC\n{\"c\":3}";
        assert_eq!(
            run(frames(input, Codec::Newline, 10)),
            ["{\"a\":1}", "{\"b\":2}", "<too large>", "{\"c\":3}"]
        );
        assert_eq!(
            run(frames(b"0123456789ABCDEF", Codec::Newline, 10)),
            ["<too large>"]
        );
        assert!(run(frames(b"", Codec::Newline, 10)).is_empty());
        // At the limit, one over it (with and without a `\r`), and a line ended by the
        // end of the stream.
        let edges = b"0123456789\n0123456789A\n0123456789\r\n{}\n0123456789AB";
        assert_eq!(
            run(frames(edges, Codec::Newline, 10)),
            [
                "0123456789",
                "<too large>",
                "0123456789",
                "{}",
                "<too large>"
            ]
        );
    }

    #[test]
    fn a_last_line_one_byte_over_the_limit_is_refused() {
        // Found by the `framing` fuzz target: a line ended by the end of the stream got
        // the byte allowed for a `\r` before `\n`, and came out one byte over the limit.
        assert_eq!(
            run(frames(b"{}\n0123456789A", Codec::Newline, 10)),
            ["{}", "<too large>"]
        );
        assert_eq!(
            run(frames(b"0123456789\r", Codec::Newline, 10)),
            ["0123456789"]
        );
    }

    #[test]
    fn an_oversized_frame_is_refused_before_its_end_arrives() {
        // The writer sends the start of a frame that never ends; the refusal comes
        // anyway, and only then does the reader wait for more.
        for (codec, start) in [
            (Codec::Newline, b"0123456789ABCDEF".to_vec()),
            (
                Codec::ContentLength,
                b"Content-Length: 1099511627776\r\n\r\n{".to_vec(),
            ),
        ] {
            run(async {
                let (mut writer, reader) = tokio::io::duplex(64);
                writer.write_all(&start).await.unwrap();
                let mut frames = FrameReader::new(tokio::io::BufReader::new(reader), codec, 10);
                // Waiting for the frame's end would wait forever: the writer is open.
                let read = tokio::time::timeout(std::time::Duration::from_secs(10), frames.read());
                assert!(
                    matches!(read.await, Ok(Err(FrameError::TooLarge { .. }))),
                    "{codec:?}"
                );
            });
        }
    }

    #[test]
    fn a_refused_frame_is_skipped_across_reads() {
        // The rest of a refused frame arrives in pieces: the next frame is still found.
        let chunks: [&[u8]; 4] = [
            b"Content-Length: 30\r\n\r\n0123456789",
            b"0123456789",
            b"0123456789Content-Length: 2\r\n",
            b"\r\n[]",
        ];
        let reader = tokio_test_reader(&chunks);
        let mut frames = FrameReader::new(reader, Codec::ContentLength, 10);
        run(async {
            assert!(matches!(
                frames.read().await,
                Err(FrameError::TooLarge { size: Some(30) })
            ));
            assert_eq!(frames.read().await.unwrap().as_deref(), Some(&b"[]"[..]));
            assert!(frames.read().await.unwrap().is_none());
        });
        let chunks: [&[u8]; 3] = [b"0123456789AB", b"CDEF", b"GH\n{}\n"];
        let mut frames = FrameReader::new(tokio_test_reader(&chunks), Codec::Newline, 10);
        run(async {
            assert!(matches!(
                frames.read().await,
                Err(FrameError::TooLarge { size: None })
            ));
            assert_eq!(frames.read().await.unwrap().as_deref(), Some(&b"{}"[..]));
        });
    }

    /// A buffered reader that yields `chunks` one read at a time.
    fn tokio_test_reader(chunks: &[&[u8]]) -> impl AsyncBufRead + Unpin + use<> {
        tokio::io::BufReader::new(Chunks(chunks.iter().map(|c| c.to_vec()).collect()))
    }

    /// Bytes that arrive in the given pieces, one piece per read.
    struct Chunks(std::collections::VecDeque<Vec<u8>>);

    impl tokio::io::AsyncRead for Chunks {
        fn poll_read(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> std::task::Poll<io::Result<()>> {
            if let Some(mut chunk) = self.0.pop_front() {
                let n = chunk.len().min(buf.remaining());
                buf.put_slice(&chunk[..n]);
                if n < chunk.len() {
                    self.0.push_front(chunk.split_off(n));
                }
            }
            std::task::Poll::Ready(Ok(()))
        }
    }

    #[test]
    fn content_length_frames() {
        let input =
            b"Content-Length: 7\r\n\r\n{\"a\":1}content-length:3\r\nContent-Type: x\r\n\r\n[1]";
        assert_eq!(
            run(frames(input, Codec::ContentLength, 10)),
            ["{\"a\":1}", "[1]"]
        );
        let big = b"Content-Length: 20\r\n\r\n01234567890123456789Content-Length: 2\r\n\r\n{}";
        assert_eq!(
            run(frames(big, Codec::ContentLength, 10)),
            ["<too large>", "{}"]
        );
    }

    #[test]
    fn broken_content_length_headers() {
        let cases: &[&[u8]] = &[
            b"Content-Length: x\r\n\r\n{}",
            b"\r\n{}",
            b"{\"jsonrpc\":\"2.0\"}\r\n\r\n",
            b"Content-Length: 99999999999999999999999\r\n\r\n",
            b"Content-Length: -1\r\n\r\n",
        ];
        for case in cases {
            assert_eq!(run(frames(case, Codec::ContentLength, 10)), ["<malformed>"]);
        }
        let long_header = [b"X-Long: ".as_slice(), &[b'a'; 2000], b"\r\n\r\n"].concat();
        assert_eq!(
            run(frames(&long_header, Codec::ContentLength, 10)),
            ["<malformed>"]
        );
        let truncated = b"Content-Length: 5\r\n\r\n{}";
        assert_eq!(run(frames(truncated, Codec::ContentLength, 10)), ["<io>"]);
        // Refused at once; then the stream ends inside the frame being skipped.
        let truncated_big = b"Content-Length: 50\r\n\r\n{}";
        assert_eq!(
            run(frames(truncated_big, Codec::ContentLength, 10)),
            ["<too large>", "<io>"]
        );
    }

    #[test]
    fn written_frames_read_back() {
        let messages: &[&[u8]] = &[b"{\"a\":\n 1}", b"[]", b"{\"s\":\"\\n\"}"];
        for codec in [Codec::Newline, Codec::ContentLength] {
            let mut wire = Vec::new();
            for message in messages {
                run(write_frame(&mut wire, codec, message)).unwrap();
            }
            let read = run(frames(&wire, codec, 100));
            assert_eq!(
                read[0],
                if codec == Codec::Newline {
                    "{\"a\":  1}"
                } else {
                    "{\"a\":\n 1}"
                }
            );
            assert_eq!(read[1..], ["[]", "{\"s\":\"\\n\"}"]);
        }
    }

    proptest! {
        #[test]
        fn any_bytes_end_in_frames_or_an_error(input in proptest::collection::vec(any::<u8>(), 0..256)) {
            for codec in [Codec::Newline, Codec::ContentLength] {
                let read = run(frames(&input, codec, 32));
                prop_assert!(read.len() < 64);
            }
        }
    }
}
