//! Framing: where one JSON-RPC message ends and the next begins on a byte stream.
//!
//! Two codecs ([`Codec`]): one message per line (MCP's stdio transport, most TCP and
//! Unix-socket peers), or a `Content-Length` header block before each message (the
//! Language Server Protocol's base protocol). Frames larger than the limit are refused
//! ([`FrameError::TooLarge`]) without being held in memory: their bytes are read and
//! dropped, and the stream stays usable.

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
    /// The frame was larger than the limit; its bytes were skipped and the stream can
    /// be read on. `size` is its length when the header announced it.
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
}

/// What [`read_line`] found.
enum Line {
    /// A whole line, without its `\n` (nor a `\r` before it).
    Text(Vec<u8>),
    /// A line longer than the limit, skipped to its end.
    TooLong,
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
        }
    }

    /// The next frame; `Ok(None)` when the stream ended cleanly between frames.
    ///
    /// # Errors
    ///
    /// [`FrameError::TooLarge`] for a frame over the limit (recoverable), otherwise
    /// the stream should be closed.
    pub async fn read(&mut self) -> Result<Option<Bytes>, FrameError> {
        match self.codec {
            Codec::Newline => self.read_line_frame().await,
            Codec::ContentLength => self.read_header_frame().await,
        }
    }

    async fn read_line_frame(&mut self) -> Result<Option<Bytes>, FrameError> {
        loop {
            match read_line(&mut self.reader, self.max_size).await? {
                Line::End => return Ok(None),
                Line::TooLong => return Err(FrameError::TooLarge { size: None }),
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
            let skipped = tokio::io::copy(
                &mut (&mut self.reader).take(size as u64),
                &mut tokio::io::sink(),
            )
            .await?;
            if skipped < size as u64 {
                return Err(io::Error::from(io::ErrorKind::UnexpectedEof).into());
            }
            return Err(FrameError::TooLarge { size: Some(size) });
        }
        let mut body = vec![0; size];
        self.reader.read_exact(&mut body).await?;
        Ok(Some(body.into()))
    }

    /// Reads a header block; its `Content-Length`, or `None` at a clean end of stream.
    async fn read_headers(&mut self) -> Result<Option<usize>, FrameError> {
        let mut length = None;
        for index in 0..=MAX_HEADER_LINES {
            let line = match read_line(&mut self.reader, MAX_HEADER_LINE).await? {
                Line::End if index == 0 => return Ok(None),
                Line::End => return Err(io::Error::from(io::ErrorKind::UnexpectedEof).into()),
                Line::TooLong => return Err(malformed("header line too long")),
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

/// Reads one line of at most `max` bytes; a longer one is skipped to its end.
async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R, max: usize) -> io::Result<Line> {
    let mut line = Vec::new();
    let mut too_long = false;
    let mut seen = false;
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            // The stream ended: a last line without `\n` still counts.
            return Ok(match (seen, too_long) {
                (false, _) => Line::End,
                (true, true) => Line::TooLong,
                (true, false) => Line::Text(trim_cr(line)),
            });
        }
        seen = true;
        let (chunk, found) = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => (&buffer[..end], Some(end + 1)),
            None => (buffer, None),
        };
        if !too_long && line.len() + chunk.len() <= max.saturating_add(1) {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line = Vec::new();
        }
        let used = found.unwrap_or(buffer.len());
        reader.consume(used);
        if found.is_some() {
            let line = trim_cr(line);
            return Ok(if too_long || line.len() > max {
                Line::TooLong
            } else {
                Line::Text(line)
            });
        }
    }
}

fn trim_cr(mut line: Vec<u8>) -> Vec<u8> {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    line
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
    put_frame(writer, codec, message).await?;
    writer.flush().await
}

/// Writes one message as a frame of `codec`, without flushing.
pub(crate) async fn put_frame<W: AsyncWrite + Unpin>(
    writer: &mut W,
    codec: Codec,
    message: &[u8],
) -> io::Result<()> {
    match codec {
        Codec::Newline if message.iter().any(|&b| b == b'\n' || b == b'\r') => {
            // Raw line breaks can only be JSON whitespace (strings escape them).
            let mut line: Vec<u8> = message
                .iter()
                .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
                .collect();
            line.push(b'\n');
            writer.write_all(&line).await?;
        }
        Codec::Newline => {
            writer.write_all(message).await?;
            writer.write_all(b"\n").await?;
        }
        Codec::ContentLength => {
            let mut header = itoa::Buffer::new();
            writer.write_all(b"Content-Length: ").await?;
            writer
                .write_all(header.format(message.len()).as_bytes())
                .await?;
            writer.write_all(b"\r\n\r\n").await?;
            writer.write_all(message).await?;
        }
    }
    Ok(())
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
        let truncated_big = b"Content-Length: 50\r\n\r\n{}";
        assert_eq!(
            run(frames(truncated_big, Codec::ContentLength, 10)),
            ["<io>"]
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
