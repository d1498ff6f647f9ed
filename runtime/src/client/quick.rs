//! A large answer routed without a walk of its result.
//!
//! A client reads an answer's envelope to learn which call it answers, and the call
//! then decodes the result into its type. Read through serde_json, the envelope walks
//! the whole result only to find where it ends, in the connection's reader, which
//! reads one message after the other; the decoding walks it again in the call's task.
//! For the bench's 118 KB block that first walk cost 1.16 M instructions a call, a
//! sixth of the call (BENCHMARKS.md, "Issue 28, item 1: the client's envelope").
//!
//! Here, one response of at least [`FROM`] bytes is routed by its [`id`] alone, read
//! from the members before its `result` or, when it comes last, from the one after it
//! (`,"id":7}`): a few bytes at either end. The call's task then reads the answer whole
//! ([`read`], or the general reader when the answer has another shape) before it
//! decodes the result, so the connection's reader goes on to the next message at once.
//! [`read`] takes the answers whose members are `"jsonrpc":"2.0"`, a whole-number `id`
//! and an object or array `result`, in any order and each once, and finds the result's
//! end by counting brackets outside strings (strings are skipped with `memchr`). It
//! does not check the result: the call's decoding checks it whole, as it always does,
//! and a result that is not JSON fails the call with
//! [`Error::Decode`](super::Error::Decode) ("not valid JSON"). Anything else (another
//! member, a string or null id, a scalar result, a batch, a name with an escape) goes
//! to the general reader.

use std::ops::Range;

/// The smallest answer read here: below it, the general reader's walk costs little.
pub(crate) const FROM: usize = 4096;

/// Whether an answer's bytes are known to be UTF-8 (a WebSocket text message), or must
/// be checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Utf8 {
    #[cfg_attr(
        not(feature = "stream"),
        expect(dead_code, reason = "known by the peer (feature stream) alone")
    )]
    Known,
    Unknown,
}

/// A large answer as routed: the id it answers, and where its result should lie.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Routed {
    pub(crate) id: u64,
    /// From the result's first byte to the last before what follows it when that is
    /// the closing brace, or `,"id":7}` when the id comes last; `None` when the answer
    /// has no `"jsonrpc":"2.0"` before its result. Unchecked: it is the result only if
    /// it is one JSON value (see [`route`]).
    pub(crate) result: Option<Range<usize>>,
}

/// The id of the one response in `bytes`, when it is at least [`FROM`] bytes long and
/// its `result` comes after its other members (`"jsonrpc":"2.0"` and its `id`), or
/// before its `id` alone (`,"id":7}`): all a reader needs to route it, a few bytes at
/// either end. The answer is not read whole: [`read`], or the general reader, does
/// that for the call, unless the [`Routed::result`] decodes: when the text there is one
/// JSON value, the answer is `{"jsonrpc":"2.0"` and an id (or none), then that value,
/// then the id (or none) and its end, which makes it one response of that id.
pub(crate) fn route(bytes: &[u8]) -> Option<Routed> {
    if bytes.len() < FROM {
        return None;
    }
    let mut cursor = Cursor { bytes, at: 0 };
    let seen = cursor.members(Until::Result)?;
    let start = cursor.at;
    let (id, end) = match seen.id {
        Some(id) => (id, trim_end(trim_end(bytes).strip_suffix(b"}")?).len()),
        None => last_id(bytes)?,
    };
    let result = (seen.version && start < end).then_some(start..end);
    Some(Routed { id, result })
}

/// The id of the one response in `bytes`, and where its result lies, when the answer
/// has the shape this module reads (see its doc); `None` to leave it to the general
/// reader. Bytes not known to be UTF-8 have their result checked (the rest of what is
/// read here is ASCII).
pub(crate) fn read(bytes: &[u8], utf8: Utf8) -> Option<(u64, Range<usize>)> {
    if bytes.len() < FROM {
        return None;
    }
    let mut cursor = Cursor { bytes, at: 0 };
    let seen = cursor.members(Until::End)?;
    cursor.skip_whitespace();
    (seen.version && cursor.at == bytes.len()).then_some(())?;
    let (id, result) = (seen.id?, seen.result?);
    if utf8 == Utf8::Unknown {
        std::str::from_utf8(&bytes[result.clone()]).ok()?;
    }
    Some((id, result))
}

/// The id of `{…,"id":7}`, the last member's, read from the end; and how many bytes
/// come before that member, without the whitespace before its comma.
fn last_id(bytes: &[u8]) -> Option<(u64, usize)> {
    let rest = trim_end(bytes).strip_suffix(b"}")?;
    let rest = trim_end(rest);
    let digits = rest
        .iter()
        .rev()
        .take_while(|byte| byte.is_ascii_digit())
        .count();
    let (rest, number) = rest.split_at(rest.len() - digits);
    let rest = trim_end(rest).strip_suffix(b":")?;
    let rest = trim_end(rest).strip_suffix(br#""id""#)?;
    let before = trim_end(trim_end(rest).strip_suffix(b",")?);
    let id = Cursor {
        bytes: number,
        at: 0,
    }
    .whole_number()?;
    Some((id, before.len()))
}

/// `bytes` without the JSON whitespace at their end.
fn trim_end(bytes: &[u8]) -> &[u8] {
    let spaces = bytes
        .iter()
        .rev()
        .take_while(|byte| matches!(byte, b' ' | b'\n' | b'\r' | b'\t'))
        .count();
    &bytes[..bytes.len() - spaces]
}

/// How far [`Cursor::members`] reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Until {
    /// To the start of the result.
    Result,
    /// Through the closing brace.
    End,
}

/// The members read so far.
#[derive(Default)]
struct Seen {
    version: bool,
    id: Option<u64>,
    result: Option<Range<usize>>,
}

/// The members read here.
#[derive(Clone, Copy)]
enum Name {
    Jsonrpc,
    Id,
    Result,
}

/// The answer and how far it has been read.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    /// The object's members, as far as `until` says: only the three names, each once,
    /// with `"2.0"`, a whole number and an object or array.
    fn members(&mut self, until: Until) -> Option<Seen> {
        if self.next()? != b'{' {
            return None;
        }
        let mut seen = Seen::default();
        loop {
            if self.next()? != b'"' {
                return None;
            }
            let name = self.name()?;
            if self.next()? != b':' {
                return None;
            }
            self.skip_whitespace();
            match name {
                Name::Jsonrpc if !seen.version && self.eat(br#""2.0""#) => seen.version = true,
                Name::Id if seen.id.is_none() => seen.id = Some(self.whole_number()?),
                Name::Result if until == Until::Result => return Some(seen),
                Name::Result if seen.result.is_none() => seen.result = Some(self.container()?),
                _ => return None,
            }
            match self.next()? {
                b',' => {}
                b'}' => return Some(seen),
                _ => return None,
            }
        }
    }

    /// The next byte that is not JSON whitespace, consumed.
    fn next(&mut self) -> Option<u8> {
        self.skip_whitespace();
        let byte = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(byte)
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// Consumes `literal` when the text goes on with it.
    fn eat(&mut self, literal: &[u8]) -> bool {
        let found = self.bytes[self.at..].starts_with(literal);
        if found {
            self.at += literal.len();
        }
        found
    }

    /// A member's name, its opening quote read: one of the three, with its closing quote.
    fn name(&mut self) -> Option<Name> {
        [
            (Name::Jsonrpc, &br#"jsonrpc""#[..]),
            (Name::Id, br#"id""#),
            (Name::Result, br#"result""#),
        ]
        .into_iter()
        .find_map(|(name, text)| self.eat(text).then_some(name))
    }

    /// A number with no sign, fraction nor exponent that fits a `u64`.
    fn whole_number(&mut self) -> Option<u64> {
        let digits = self.bytes[self.at..]
            .iter()
            .take_while(|byte| byte.is_ascii_digit())
            .count();
        let text = &self.bytes[self.at..self.at + digits];
        let leading_zero = digits > 1 && text[0] == b'0';
        let goes_on = matches!(self.bytes.get(self.at + digits), Some(b'.' | b'e' | b'E'));
        if digits == 0 || leading_zero || goes_on {
            return None;
        }
        self.at += digits;
        std::str::from_utf8(text).ok()?.parse().ok()
    }

    /// Where an object or an array starting here ends: the bracket that closes the
    /// first one, counted outside strings. Exact for JSON; for text that is not, some
    /// place or `None`, and the call's decoding finds what is wrong.
    fn container(&mut self) -> Option<Range<usize>> {
        let start = self.at;
        if !matches!(self.bytes.get(start)?, b'{' | b'[') {
            return None;
        }
        let mut depth = 0_usize;
        loop {
            match *self.bytes.get(self.at)? {
                b'"' => {
                    self.at = string_end(self.bytes, self.at + 1)?;
                    continue;
                }
                b'{' | b'[' => depth += 1,
                // The first byte opened one: the depth is at least one here.
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        self.at += 1;
                        return Some(start..self.at);
                    }
                }
                _ => {}
            }
            self.at += 1;
        }
    }
}

/// Where the string whose opening quote is before `at` ends: just past its closing quote.
fn string_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    loop {
        at += memchr::memchr2(b'"', b'\\', bytes.get(at..)?)?;
        if bytes[at] == b'"' {
            return Some(at + 1);
        }
        // An escape: the byte after the backslash is never the string's end.
        at += 2;
    }
}

#[cfg(test)]
mod tests;
