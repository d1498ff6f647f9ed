//! A call's result, serialized once, straight into the buffer its response is sent from.

use std::cell::Cell;
use std::fmt;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::protocol::{ErrorObject, Id, RESULT_PREFIX, write_id_and_close};

/// A call's result, serialized to JSON.
///
/// The JSON is written after room for the response's opening (`{"jsonrpc":"2.0","result":`),
/// so for a single call the same buffer becomes the response: one allocation from the
/// handler's value to the bytes a transport sends.
#[derive(Clone)]
pub struct Encoded {
    /// `RESULT_PREFIX` followed by valid JSON text.
    buf: Vec<u8>,
}

impl Encoded {
    /// Serializes `value`.
    ///
    /// # Errors
    ///
    /// When `value` fails to serialize (a map with non-string keys, a failing `Serialize`).
    pub fn new<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        let mut buf = SPARE.take();
        buf.clear();
        buf.reserve(64);
        buf.extend_from_slice(RESULT_PREFIX);
        crate::protocol::number::to_writer(&mut buf, value)?;
        Ok(Encoded { buf })
    }

    /// Gives the buffer back for the next result serialized on this thread, once the
    /// result has been copied out (into a batch's response). Large buffers are dropped.
    pub(crate) fn recycle(self) {
        reuse(self.buf);
    }

    /// Wraps JSON that is already serialized.
    pub fn from_raw(raw: &RawValue) -> Self {
        let json = raw.get().as_bytes();
        let mut buf = Vec::with_capacity(RESULT_PREFIX.len() + json.len() + 24);
        buf.extend_from_slice(RESULT_PREFIX);
        buf.extend_from_slice(json);
        Encoded { buf }
    }

    /// The result's JSON text.
    pub fn json(&self) -> &str {
        let json = self.buf.get(RESULT_PREFIX.len()..).unwrap_or_default();
        // Only serde_json output and `RawValue` text are ever stored: always UTF-8.
        std::str::from_utf8(json).unwrap_or("null")
    }

    /// The length of the result's JSON text, in bytes.
    pub fn len(&self) -> usize {
        self.buf.len() - RESULT_PREFIX.len()
    }

    /// Always false: JSON text is never empty. Here for `len`'s sake.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The whole success response for `id`, reusing this buffer.
    pub(crate) fn into_response(mut self, id: &Id<'_>) -> Vec<u8> {
        write_id_and_close(&mut self.buf, id);
        self.buf
    }

    /// Appends the whole success response for `id` to `out`.
    pub(crate) fn write_response(&self, out: &mut Vec<u8>, id: &Id<'_>) {
        out.extend_from_slice(&self.buf);
        write_id_and_close(out, id);
    }
}

thread_local! {
    /// A buffer to serialize the next result into, whatever it holds: the calls of a
    /// batch, whose results are copied into the batch's response, then serialize into
    /// one buffer rather than one each; a single call's, into the buffer the previous
    /// answer was written from (see [`reuse`]).
    static SPARE: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// Largest buffer kept for reuse.
const MAX_SPARE: usize = 4096;

/// Keeps `buf` (any bytes: an answer its transport has copied out) for the next result
/// serialized on this thread, unless it is larger than 4 KiB. A connection answering
/// calls one by one then serializes each into the buffer of the one before, where each
/// took a buffer and gave it back (an allocation and a free, about 150 instructions a
/// WebSocket call by callgrind).
pub(crate) fn reuse(buf: Vec<u8>) {
    if buf.capacity() <= MAX_SPARE {
        SPARE.set(buf);
    }
}

/// Serializes a handler's result.
///
/// # Errors
///
/// [`ErrorObject::internal_error`] when `value` fails to serialize; the cause is logged with
/// `tracing`, not sent.
pub fn encode<T: Serialize + ?Sized>(value: &T) -> Result<Encoded, ErrorObject> {
    Encoded::new(value).map_err(|e| {
        tracing::error!(error = %e, "result failed to serialize");
        ErrorObject::internal_error()
    })
}

impl fmt::Debug for Encoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Encoded").field(&self.json()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn becomes_a_response() {
        let encoded = encode(&[1, 2]).unwrap();
        assert_eq!(encoded.json(), "[1,2]");
        assert_eq!(encoded.len(), 5);
        let mut out = Vec::new();
        encoded.write_response(&mut out, &Id::number(3));
        assert_eq!(out, br#"{"jsonrpc":"2.0","result":[1,2],"id":3}"#);
        assert_eq!(encoded.into_response(&Id::number(3)), out);
        let raw: &RawValue = serde_json::from_str(r#"{"a" : 1}"#).unwrap();
        assert_eq!(Encoded::from_raw(raw).json(), r#"{"a" : 1}"#);
    }

    #[test]
    fn failures_are_internal_errors() {
        let map: std::collections::HashMap<Vec<u8>, u8> = [(vec![1], 1)].into();
        assert_eq!(encode(&map).unwrap_err(), ErrorObject::internal_error());
    }
}
