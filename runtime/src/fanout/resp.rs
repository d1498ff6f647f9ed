//! The part of Redis's protocol (RESP 2) that publishing and subscribing use: commands
//! written as arrays of bulk strings, and replies read as simple strings, errors,
//! integers, bulk strings and flat arrays of those, every one bounded in size.

use std::io;

use bytes::Bytes;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt};

/// The longest header line read (`*3`, `$1048576`, `:12`, an error's text).
const MAX_LINE: usize = 1024;
/// The most elements an array reply may have (`message`, channel, payload).
const MAX_ELEMENTS: usize = 8;

/// One reply, or one element of an array reply.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Frame {
    /// `+OK`.
    Simple(String),
    /// `-ERR …`.
    Error(String),
    /// `:3`.
    Integer(i64),
    /// `$5 hello`; `None` for `$-1`.
    Bulk(Option<Bytes>),
    /// A bulk string longer than the limit, read and dropped: its length.
    Skipped(usize),
    /// `*3 …` (flat: elements are not arrays).
    Array(Vec<Frame>),
}

/// Appends the command `words` (`PUBLISH topic payload`) to `out`.
pub(super) fn write_command(out: &mut Vec<u8>, words: &[&[u8]]) {
    out.push(b'*');
    out.extend_from_slice(itoa::Buffer::new().format(words.len()).as_bytes());
    out.extend_from_slice(b"\r\n");
    for word in words {
        out.push(b'$');
        out.extend_from_slice(itoa::Buffer::new().format(word.len()).as_bytes());
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(word);
        out.extend_from_slice(b"\r\n");
    }
}

/// Reads one reply; bulk strings longer than `max_bulk` are read past and given as
/// [`Frame::Skipped`]. An end of stream is [`io::ErrorKind::UnexpectedEof`].
pub(super) async fn read_frame<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    max_bulk: usize,
) -> io::Result<Frame> {
    let line = read_line(reader).await?;
    if let Some(count) = line.strip_prefix('*') {
        let count = parse_length(count)?;
        if count > MAX_ELEMENTS {
            return Err(invalid(format!("an array of {count} elements")));
        }
        let mut elements = Vec::with_capacity(count);
        for _ in 0..count {
            let line = read_line(reader).await?;
            if line.starts_with('*') {
                return Err(invalid("a nested array".into()));
            }
            elements.push(scalar(reader, &line, max_bulk).await?);
        }
        return Ok(Frame::Array(elements));
    }
    scalar(reader, &line, max_bulk).await
}

/// A reply that is not an array, whose header line is `line`.
async fn scalar<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &str,
    max_bulk: usize,
) -> io::Result<Frame> {
    let (kind, rest) = line.split_at(line.len().min(1));
    match kind {
        "+" => Ok(Frame::Simple(rest.to_owned())),
        "-" => Ok(Frame::Error(rest.to_owned())),
        ":" => rest
            .parse()
            .map(Frame::Integer)
            .map_err(|_| invalid(format!("the integer {rest:?}"))),
        "$" if rest == "-1" => Ok(Frame::Bulk(None)),
        "$" => {
            let length = parse_length(rest)?;
            if length > max_bulk {
                let skipped =
                    tokio::io::copy(&mut reader.take(length as u64 + 2), &mut tokio::io::sink())
                        .await?;
                if skipped < length as u64 + 2 {
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
                return Ok(Frame::Skipped(length));
            }
            let mut bulk = vec![0; length + 2];
            reader.read_exact(&mut bulk).await?;
            if !bulk.ends_with(b"\r\n") {
                return Err(invalid("a bulk string not ended by CRLF".into()));
            }
            bulk.truncate(length);
            Ok(Frame::Bulk(Some(bulk.into())))
        }
        _ => Err(invalid(format!("the reply {line:?}"))),
    }
}

/// Reads one line ended by CRLF, at most [`MAX_LINE`] bytes, without its end.
async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R) -> io::Result<String> {
    let mut line = Vec::new();
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let end = available.iter().position(|&byte| byte == b'\n');
        let taken = end.map_or(available.len(), |end| end + 1);
        line.extend_from_slice(&available[..taken]);
        reader.consume(taken);
        if line.len() > MAX_LINE {
            return Err(invalid(format!("a line longer than {MAX_LINE} bytes")));
        }
        if end.is_some() {
            break;
        }
    }
    if !line.ends_with(b"\r\n") {
        return Err(invalid("a line not ended by CRLF".into()));
    }
    line.truncate(line.len() - 2);
    String::from_utf8(line).map_err(|_| invalid("a line that is not UTF-8".into()))
}

fn parse_length(text: &str) -> io::Result<usize> {
    text.parse()
        .map_err(|_| invalid(format!("the length {text:?}")))
}

fn invalid(what: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("unexpected {what} from Redis"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn read(bytes: &[u8], max_bulk: usize) -> io::Result<Frame> {
        let mut reader = tokio::io::BufReader::new(bytes);
        read_frame(&mut reader, max_bulk).await
    }

    fn bulk(text: &str) -> Frame {
        Frame::Bulk(Some(Bytes::copy_from_slice(text.as_bytes())))
    }

    #[test]
    fn commands_are_arrays_of_bulk_strings() {
        let mut out = Vec::new();
        write_command(&mut out, &[b"PUBLISH", b"t", b"hi"]);
        assert_eq!(out, b"*3\r\n$7\r\nPUBLISH\r\n$1\r\nt\r\n$2\r\nhi\r\n");
    }

    #[tokio::test]
    async fn replies_of_each_kind() {
        assert_eq!(
            read(b"+OK\r\n", 8).await.unwrap(),
            Frame::Simple("OK".into())
        );
        assert_eq!(
            read(b"-ERR no\r\n", 8).await.unwrap(),
            Frame::Error("ERR no".into())
        );
        assert_eq!(read(b":3\r\n", 8).await.unwrap(), Frame::Integer(3));
        assert_eq!(read(b"$-1\r\n", 8).await.unwrap(), Frame::Bulk(None));
        let message = b"*3\r\n$7\r\nmessage\r\n$1\r\nt\r\n$4\r\na\r\nb\r\n";
        assert_eq!(
            read(message, 8).await.unwrap(),
            Frame::Array(vec![bulk("message"), bulk("t"), bulk("a\r\nb")])
        );
    }

    #[tokio::test]
    async fn a_bulk_string_over_the_limit_is_read_past() {
        let mut reader = tokio::io::BufReader::new(&b"$5\r\nhello\r\n:1\r\n"[..]);
        assert_eq!(read_frame(&mut reader, 4).await.unwrap(), Frame::Skipped(5));
        assert_eq!(read_frame(&mut reader, 4).await.unwrap(), Frame::Integer(1));
    }

    #[tokio::test]
    async fn broken_replies_are_errors() {
        for broken in [
            &b""[..],
            b"+OK",
            b"+OK\n",
            b"?x\r\n",
            b":x\r\n",
            b"$3\r\nab",
            b"$2\r\nabcd",
            b"*9\r\n",
            b"*1\r\n*1\r\n",
        ] {
            assert!(read(broken, 8).await.is_err(), "{broken:?}");
        }
        let long = format!("+{}\r\n", "x".repeat(MAX_LINE + 1));
        assert!(read(long.as_bytes(), 8).await.is_err());
    }
}
