//! Server-Sent Events, the `text/event-stream` format of the WHATWG HTML standard, as
//! both sides of the HTTP transport speak it: the server writes events ([`encode`]), the
//! client reads them ([`Parser`]).

use bytes::{Bytes, BytesMut};
use std::time::Duration;

/// One event: its id, the type `message`, and the message as `data` lines (a message
/// with line breaks, which JSON allows between tokens, takes several).
#[cfg(test)]
pub(in crate::http) fn encode(id: &str, message: &Bytes) -> Vec<u8> {
    let mut event = Vec::new();
    encode_into(&mut event, id, message);
    event
}

/// Appends the event of [`encode`] to `out` (the server writes the events ready at once
/// into one buffer).
pub(in crate::http) fn encode_into(out: &mut Vec<u8>, id: &str, message: &Bytes) {
    out.reserve(message.len() + id.len() + 32);
    out.extend_from_slice(b"id: ");
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(b"\nevent: message\n");
    for line in message.split(|&byte| byte == b'\n' || byte == b'\r') {
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out.push(b'\n');
}

/// One event read from a stream.
#[derive(Debug, Default, PartialEq, Eq)]
pub(in crate::http) struct Event {
    pub(in crate::http) id: Option<String>,
    pub(in crate::http) data: Bytes,
    /// The server's `retry:`: how long to wait before reconnecting.
    pub(in crate::http) retry: Option<Duration>,
}

/// Why an event stream could not be read.
#[derive(Debug, PartialEq, Eq)]
pub(in crate::http) struct TooLarge;

/// Reads `text/event-stream` (the WHATWG HTML standard's format): events end with a
/// blank line; `data:` lines join with line breaks; `id:` sets the event's id (an event
/// with an id and no data, such as MCP's priming event, is still returned: the id is
/// where a resumption starts); `retry:` (ASCII digits) sets the reconnection time;
/// comments and other fields are skipped. An event may not grow past `max` bytes.
///
/// Linear in the stream's length: the lines of an event still incomplete are looked at
/// once, however many pieces it arrives in (the search for its end goes on from where
/// the last piece left it).
#[derive(Debug)]
pub(in crate::http) struct Parser {
    buffer: BytesMut,
    max: usize,
    /// Where the search for the event's end goes on: the start of the first line not
    /// known to be whole, and the end of the last whole line before it.
    scan: Scan,
    /// Bytes looked at by the search, for the test that it is linear.
    #[cfg(test)]
    examined: usize,
}

#[derive(Debug, Default, Clone, Copy)]
struct Scan {
    start: usize,
    last_line_end: usize,
    /// How far the line from `start` was searched for its end, in vain.
    searched: usize,
}

impl Parser {
    pub(in crate::http) fn new(max: usize) -> Self {
        Self {
            buffer: BytesMut::new(),
            max,
            scan: Scan::default(),
            #[cfg(test)]
            examined: 0,
        }
    }

    pub(in crate::http) fn push(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
    }

    /// The next whole event with data, an id or a retry time, if the buffer holds one.
    ///
    /// # Errors
    ///
    /// [`TooLarge`] when the event being read is past the limit.
    pub(in crate::http) fn next(&mut self) -> Result<Option<Event>, TooLarge> {
        loop {
            #[cfg(test)]
            let before = self.scan.searched;
            let found = blank_line(&self.buffer, &mut self.scan);
            #[cfg(test)]
            {
                let after = found.map_or(self.scan.searched, |(_, next)| next);
                self.examined += after.saturating_sub(before);
            }
            let Some(end) = found else {
                return if self.buffer.len() > self.max {
                    Err(TooLarge)
                } else {
                    Ok(None)
                };
            };
            self.scan = Scan::default();
            let block = self.buffer.split_to(end.1).freeze();
            let event = read_event(&block[..end.0]);
            if !event.data.is_empty() || event.id.is_some() || event.retry.is_some() {
                return Ok(Some(event));
            }
        }
    }
}

/// Where the first blank line ends an event: (end of its last line, after the blank),
/// searched from `scan` on, which is left where the search must go on when there is
/// none yet. A line ending in `\r` at the end of the buffer waits for what follows (a
/// `\n` would belong to it), unless it is the blank line itself.
fn blank_line(buffer: &[u8], scan: &mut Scan) -> Option<(usize, usize)> {
    let Scan {
        mut start,
        mut last_line_end,
        mut searched,
    } = *scan;
    while let Some(offset) = buffer[searched..]
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
    {
        let line_end = searched + offset;
        let mut next = line_end + 1;
        let crlf = buffer[line_end] == b'\r' && buffer.get(next) == Some(&b'\n');
        if crlf {
            next += 1;
        }
        if line_end == start {
            return Some((last_line_end, next));
        }
        if buffer[line_end] == b'\r' && next == buffer.len() {
            // Looked at again with what follows.
            *scan = Scan {
                start,
                last_line_end,
                searched: line_end,
            };
            return None;
        }
        last_line_end = line_end;
        start = next;
        searched = next;
    }
    *scan = Scan {
        start,
        last_line_end,
        searched: buffer.len(),
    };
    None
}

fn read_event(block: &[u8]) -> Event {
    let mut event = Event::default();
    let mut data = Vec::new();
    for line in block.split(|&b| b == b'\n' || b == b'\r') {
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(0) => continue,
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                if !data.is_empty() {
                    data.push(b'\n');
                }
                data.extend_from_slice(value);
            }
            b"id" => event.id = std::str::from_utf8(value).ok().map(str::to_owned),
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                event.retry = std::str::from_utf8(value)
                    .ok()
                    .and_then(|ms| ms.parse().ok())
                    .map(Duration::from_millis);
            }
            _ => {}
        }
    }
    event.data = data.into();
    event
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_carry_their_id_and_one_data_line_per_line() {
        let event = encode("1-2", &Bytes::from_static(br#"{"a":1}"#));
        assert_eq!(event, b"id: 1-2\nevent: message\ndata: {\"a\":1}\n\n");
        let event = encode("0-3", &Bytes::from_static(b"{\n\"a\":1}"));
        assert_eq!(
            event,
            b"id: 0-3\nevent: message\ndata: {\ndata: \"a\":1}\n\n"
        );
    }

    #[test]
    fn a_priming_event_gives_its_id_and_retry_time_without_data() {
        let mut parser = Parser::new(1024);
        parser.push(b"id: 0-7\nretry: 500\ndata: \n\nretry: x5\n\nretry: 20\n\n");
        let priming = parser.next().unwrap().unwrap();
        assert_eq!(priming.id.as_deref(), Some("0-7"));
        assert!(priming.data.is_empty());
        assert_eq!(priming.retry, Some(Duration::from_millis(500)));
        // Not digits: ignored, and the event is empty.
        let retry = parser.next().unwrap().unwrap();
        assert_eq!(
            (retry.id, retry.retry),
            (None, Some(Duration::from_millis(20)))
        );
        assert_eq!(parser.next(), Ok(None));
    }

    fn events(pieces: &[&str]) -> Vec<(Option<String>, String)> {
        let mut parser = Parser::new(1024);
        let mut all = Vec::new();
        for piece in pieces {
            parser.push(piece.as_bytes());
            while let Some(event) = parser.next().expect("within the limit") {
                all.push((event.id, String::from_utf8(event.data.to_vec()).unwrap()));
            }
        }
        all
    }

    #[test]
    fn events_are_read_as_the_standard_says_in_any_pieces() {
        let stream = "id: 1-1\nevent: message\ndata: {\"a\":1}\n\n: comment\n\ndata: x\ndata:y\r\n\r\nid:0-2\ndata: z\r\r";
        let expected = vec![
            (Some("1-1".to_owned()), "{\"a\":1}".to_owned()),
            (None, "x\ny".to_owned()),
            (Some("0-2".to_owned()), "z".to_owned()),
        ];
        assert_eq!(events(&[stream]), expected);
        let bytes: Vec<String> = stream.chars().map(String::from).collect();
        let pieces: Vec<&str> = bytes.iter().map(String::as_str).collect();
        assert_eq!(events(&pieces), expected, "a byte at a time");
    }

    #[test]
    fn an_event_past_the_limit_is_refused() {
        let mut parser = Parser::new(8);
        parser.push(b"data: 0123456789");
        assert_eq!(parser.next(), Err(TooLarge));
    }

    #[test]
    fn an_event_in_many_pieces_is_looked_at_once() {
        let data = "x".repeat(100_000);
        let stream = format!("id: 1-1\ndata: {data}\ndata: {data}\n\n");
        let mut parser = Parser::new(1 << 20);
        let mut read = Vec::new();
        for piece in stream.as_bytes().chunks(7) {
            parser.push(piece);
            while let Some(event) = parser.next().expect("within the limit") {
                read.push(event.data.len());
            }
        }
        assert_eq!(read, [200_001]);
        assert!(
            parser.examined <= stream.len(),
            "{} bytes looked at for a stream of {}",
            parser.examined,
            stream.len()
        );
    }
}
