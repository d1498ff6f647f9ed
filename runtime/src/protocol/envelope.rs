//! The common message read by hand: an object, or a batch of objects, whose member names
//! and `jsonrpc` and `method` strings have no escapes. Each member's value is still read
//! by serde_json, as borrowed raw JSON; only the envelope's punctuation, its names, its
//! two short strings and the usual ids (an integer, a string with no escape) are read
//! here. Anything else (escapes, a control character in a
//! string, a scalar or an empty batch, a batch at its
//! limit, a syntax error, text after the message) gives `None`, and [`super::fields`]
//! reads the whole message through serde as before, so that every answer to an unusual
//! message is serde's. (serde_json skips a raw value without a depth limit either way:
//! a value read here by a reader of its own is refused or kept as through serde.)
//!
//! Why by hand: through serde's visitors, the envelope of
//! `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}` cost about 2,150
//! instructions (a call through `next_key` and `next_value` per member, each result
//! returned through memory and reloaded at once, wider than it was written: loads that
//! store forwarding cannot serve). Read here, it costs about 600 (BENCHMARKS.md, "Issue
//! 28, item 3, fourth round").

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::fields::{Fields, Key, Make, Member, Slot, Str, Top, batch_capacity};

/// The message in `text` when it has the common shape (see the module's doc), its
/// members converted by `convert`; `None` to leave it to serde.
#[inline]
pub(super) fn read<'a, F: Make<'a>>(
    text: &'a str,
    max_batch: usize,
    convert: F,
) -> Option<Top<F::Made>> {
    let mut cursor = Cursor { text, at: 0 };
    let top = match cursor.next()? {
        b'{' => Top::Single(convert.make(Member::Object(cursor.object()?))),
        b'[' => Top::Batch(cursor.batch(max_batch, convert)?),
        _ => return None,
    };
    cursor.skip_whitespace();
    (cursor.at == text.len()).then_some(top)
}

/// The text and how far it has been read.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    /// The next byte that is not JSON whitespace, consumed. Each byte is loaded once
    /// (skipping the whitespace first, then loading the byte after it, loaded the byte
    /// twice: about 50 instructions a message more).
    #[inline(always)]
    fn next(&mut self) -> Option<u8> {
        let bytes = self.text.as_bytes();
        let mut byte = *bytes.get(self.at)?;
        while is_whitespace(byte) {
            self.at += 1;
            byte = *bytes.get(self.at)?;
        }
        self.at += 1;
        Some(byte)
    }

    #[inline(always)]
    fn skip_whitespace(&mut self) {
        while let Some(&byte) = self.text.as_bytes().get(self.at)
            && is_whitespace(byte)
        {
            self.at += 1;
        }
    }

    /// A batch's members, its `[` read: objects only, and fewer than `max_batch`.
    fn batch<F: Make<'a>>(&mut self, max_batch: usize, convert: F) -> Option<Vec<F::Made>> {
        let mut members = Vec::with_capacity(batch_capacity(self.text.len(), max_batch));
        loop {
            if members.len() == max_batch || self.next()? != b'{' {
                return None;
            }
            members.push(convert.make(Member::Object(self.object()?)));
            match self.next()? {
                b',' => {}
                b']' => return Some(members),
                _ => return None,
            }
        }
    }

    /// An object's members, its `{` read.
    #[inline(always)]
    fn object(&mut self) -> Option<Fields<'a>> {
        let mut fields = Fields::default();
        let mut first = true;
        loop {
            match self.next()? {
                b'"' => {}
                b'}' if first => return Some(fields),
                _ => return None,
            }
            first = false;
            let key = self.key()?;
            if self.next()? != b':' {
                return None;
            }
            let duplicate = match fields.slot(key) {
                Slot::Str(slot) => slot.replace(self.str()?).is_some(),
                Slot::Raw(slot) => slot.replace(self.raw()?).is_some(),
                Slot::Id(slot) => slot.replace(self.id()?).is_some(),
                Slot::Skip => self.raw().map(|_| false)?,
            };
            fields.duplicate |= duplicate;
            match self.next()? {
                b',' => {}
                b'}' => return Some(fields),
                _ => return None,
            }
        }
    }

    /// A member's name, its opening quote read: the six names the protocol gives are
    /// matched where they lie, by their bytes and the closing quote (compared as
    /// constants: through `starts_with`, each name was a call of `memcmp`, about 30
    /// instructions a member); any other name is read as a string first.
    #[inline(always)]
    fn key(&mut self) -> Option<Key> {
        let (key, len) = match self.text.as_bytes().get(self.at..)? {
            [b'j', b's', b'o', b'n', b'r', b'p', b'c', b'"', ..] => (Key::Jsonrpc, 8),
            [b'm', b'e', b't', b'h', b'o', b'd', b'"', ..] => (Key::Method, 7),
            [b'p', b'a', b'r', b'a', b'm', b's', b'"', ..] => (Key::Params, 7),
            [b'i', b'd', b'"', ..] => (Key::Id, 3),
            [b'r', b'e', b's', b'u', b'l', b't', b'"', ..] => (Key::Result, 7),
            [b'e', b'r', b'r', b'o', b'r', b'"', ..] => (Key::Error, 6),
            _ => return self.plain_str().map(Key::of),
        };
        self.at += len;
        Some(key)
    }

    /// A member that should be a string: its text, or `Str(None)` when it is another
    /// kind of value.
    #[inline(always)]
    fn str(&mut self) -> Option<Str<'a>> {
        self.skip_whitespace();
        if self.text.as_bytes().get(self.at) != Some(&b'"') {
            return self.raw().map(|_| Str(None));
        }
        self.at += 1;
        self.plain_str().map(|text| Str(Some(Cow::Borrowed(text))))
    }

    /// A string with no escape and no control character, its opening quote read.
    #[inline(always)]
    fn plain_str(&mut self) -> Option<&'a str> {
        let start = self.at;
        let quote = closing_quote(self.text.as_bytes(), start)?;
        self.at = quote + 1;
        self.text.get(start..quote)
    }

    /// An id's JSON text. The usual ids, an integer (`-?(0|[1-9][0-9]*)`, followed by
    /// what may follow a member: a comma, the object's end or whitespace) or a string
    /// with no escape, are read here: JSON as they are, and what serde_json would read
    /// (about 120 instructions a call fewer than its raw value, by callgrind). Any other
    /// value is read by serde_json.
    #[inline(always)]
    fn id(&mut self) -> Option<&'a str> {
        self.skip_whitespace();
        let start = self.at;
        let bytes = self.text.as_bytes();
        let end = match *bytes.get(start)? {
            b'"' => closing_quote(bytes, start + 1).map(|quote| quote + 1),
            b'-' | b'0'..=b'9' => integer_end(bytes, start),
            _ => None,
        };
        match end {
            Some(end) => {
                self.at = end;
                self.text.get(start..end)
            }
            None => self.raw().map(RawValue::get),
        }
    }

    /// One JSON value, read by serde_json.
    #[inline(always)]
    fn raw(&mut self) -> Option<&'a RawValue> {
        let rest = self.text.get(self.at..)?;
        let raw = <&RawValue>::deserialize(&mut serde_json::Deserializer::from_str(rest)).ok()?;
        // The value is a part of `rest` (a `&RawValue` is only ever borrowed from its
        // input): it ends where its text ends.
        let end = raw.get().as_ptr() as usize + raw.get().len();
        let read = end.checked_sub(rest.as_ptr() as usize)?;
        self.at += read.min(rest.len());
        Some(raw)
    }
}

/// Whether `byte` is JSON whitespace (what is above a space never is).
#[inline(always)]
fn is_whitespace(byte: u8) -> bool {
    byte <= b' ' && matches!(byte, b' ' | b'\n' | b'\r' | b'\t')
}

/// Where the integer at `start` ends, when it is written as JSON writes one
/// (`-?(0|[1-9][0-9]*)`) and followed by a comma, a `}` or whitespace; `None` for
/// anything else (a fraction, an exponent, a leading zero, the text's end).
#[inline(always)]
fn integer_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start + usize::from(bytes.get(start) == Some(&b'-'));
    match bytes.get(at)? {
        b'0' => at += 1,
        b'1'..=b'9' => {
            at += 1;
            while let Some(b'0'..=b'9') = bytes.get(at) {
                at += 1;
            }
        }
        _ => return None,
    }
    let byte = *bytes.get(at)?;
    (byte == b',' || byte == b'}' || is_whitespace(byte)).then_some(at)
}

/// The index of the quote that closes a string with no escape and no control character
/// whose text starts at `start`; `None` when another byte stops it first.
#[inline(always)]
fn closing_quote(bytes: &[u8], start: usize) -> Option<usize> {
    let quote = start + plain_len(bytes.get(start..)?);
    (bytes.get(quote) == Some(&b'"')).then_some(quote)
}

/// How many bytes of `bytes` come before the first quote, backslash or control
/// character (all of them when there is none), eight bytes a step: a method name is
/// often longer than a word (`eth_getBlockByNumber`).
#[inline(always)]
fn plain_len(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES << 7;
    let mut words = bytes.chunks_exact(8);
    let mut len = 0;
    for word in words.by_ref() {
        let mut eight = [0; 8];
        eight.copy_from_slice(word);
        let word = u64::from_le_bytes(eight);
        // The lowest byte whose high bit is set is the first below 0x20, quote or
        // backslash (higher ones may be set by the subtraction's borrow).
        let quote = word ^ (ONES * u64::from(b'"'));
        let backslash = word ^ (ONES * u64::from(b'\\'));
        let found = ((word.wrapping_sub(ONES * 0x20) & !word)
            | (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash))
            & HIGH;
        if found != 0 {
            return len + found.trailing_zeros() as usize / 8;
        }
        len += 8;
    }
    let tail = words.remainder();
    len + tail
        .iter()
        .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)
        .unwrap_or(tail.len())
}

#[cfg(test)]
mod tests;
