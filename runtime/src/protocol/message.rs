//! The calls a server reads: requests, notifications, and the single-versus-batch rules.

use std::borrow::Cow;

use serde::ser::{Serialize, SerializeStruct, Serializer};
use serde_json::value::RawValue;

use super::fields::{self, Fields, Member, ParseError, Str, Top};
use super::{ErrorObject, Id};

/// Longest request id accepted, in bytes of its JSON text (a string's quotes and
/// escapes included): 1,024. A request with a longer id is not a valid request
/// (`-32600` with `id: null`), so that nothing a server echoes — in its answer, in a
/// refusal such as `-32009` — is larger than this from the id. Numbers of any size or
/// precision that fit (`123456789012345678901234567890`, `1e400`) are kept byte for
/// byte.
pub const MAX_ID_LEN: usize = 1024;

/// A request: a call that expects a response.
///
/// `params` is borrowed from the message bytes, so generated code deserializes the typed
/// arguments straight from them.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The id the response must echo.
    pub id: Id<'a>,
    /// The method name.
    pub method: Cow<'a, str>,
    /// The params: a JSON array or object, or `None` when absent (or `null`).
    pub params: Option<&'a RawValue>,
}

/// A notification: a call without an id, to which nothing is ever answered.
#[derive(Debug, Clone)]
pub struct Notification<'a> {
    /// The method name.
    pub method: Cow<'a, str>,
    /// The params: a JSON array or object, or `None` when absent (or `null`).
    pub params: Option<&'a RawValue>,
}

/// One call in a message: a request, a notification, or something that is not a valid call.
#[derive(Debug, Clone)]
pub enum Entry<'a> {
    /// A call to answer.
    Request(Request<'a>),
    /// A call not to answer.
    Notification(Notification<'a>),
    /// Not a valid request: answered with this error and `id: null`.
    Invalid(ErrorObject),
}

/// A whole incoming message, parsed once.
///
/// The rules follow the JSON-RPC 2.0 specification and its examples: invalid JSON and the
/// empty batch are errors for the whole message ([`Message::parse`] returns them); anything
/// else that is valid JSON but not a valid request becomes an [`Entry::Invalid`], in place
/// inside a batch.
///
/// ```
/// use rpcsmith::protocol::{Entry, Message};
///
/// let msg = Message::parse(br#"[{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":"1"}, 1]"#).unwrap();
/// let Message::Batch(entries) = msg else { panic!("a batch") };
/// assert!(matches!(&entries[0], Entry::Request(r) if r.method == "sum" && r.id.as_json() == r#""1""#));
/// assert!(matches!(&entries[1], Entry::Invalid(e) if e.code == -32600));
/// assert_eq!(Message::parse(b"[]").unwrap_err().code, -32600);
/// assert_eq!(Message::parse(b"{").unwrap_err().code, -32700);
/// ```
#[derive(Debug, Clone)]
pub enum Message<'a> {
    /// One call (a JSON object, or a JSON value that is not an array).
    Single(Entry<'a>),
    /// A non-empty batch (a JSON array), entries in the order received.
    Batch(Vec<Entry<'a>>),
}

impl<'a> Message<'a> {
    /// Parses a message, with no limit on the batch length.
    ///
    /// # Errors
    ///
    /// The error to answer, once, with `id: null`: [`ErrorObject::parse_error`] for invalid
    /// JSON, [`ErrorObject::invalid_request`] for the empty batch `[]`.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ErrorObject> {
        Self::parse_limited(bytes, usize::MAX)
    }

    /// Parses a message, refusing batches longer than `max_batch_len` without reading them
    /// whole.
    ///
    /// # Errors
    ///
    /// As [`Message::parse`], and [`ErrorObject::batch_too_large`] for a batch with more
    /// than `max_batch_len` entries.
    pub fn parse_limited(bytes: &'a [u8], max_batch_len: usize) -> Result<Self, ErrorObject> {
        match read(bytes, max_batch_len) {
            Ok(Top::Single(entry)) => Ok(Message::Single(entry)),
            Ok(Top::Batch(entries)) => Ok(Message::Batch(entries)),
            Err(error) => Err(refusal(error)),
        }
    }
}

/// The engine's read of a message's bytes: [`Message::parse_limited`] without the
/// [`Message`] (a [`ParseError`], the empty batch among them, is answered with its
/// [`refusal`]). The engine matches the single entry where the parser wrote it; made
/// into a `Message` it was copied whole at once (64 bytes written by narrower stores,
/// read back by 16-byte loads that store forwarding cannot serve: about 6 ns a call,
/// BENCHMARKS.md, "Issue 28, item 3, third round").
#[inline]
pub(crate) fn read(bytes: &[u8], max_batch_len: usize) -> Result<Top<Entry<'_>>, ParseError> {
    fields::parse(bytes, max_batch_len, Entry::from_member)
}

/// The error answered, with `id: null`, for a message [`read`] could not read.
pub(crate) fn refusal(error: ParseError) -> ErrorObject {
    match error {
        ParseError::Syntax => ErrorObject::parse_error(),
        ParseError::BatchTooLarge => ErrorObject::batch_too_large(),
        ParseError::EmptyBatch => ErrorObject::invalid_request(),
    }
}

impl<'a> Entry<'a> {
    /// Inlined where the member is read, and the entry returned whole (not as an
    /// `Option` unwrapped by the caller): built in place rather than returned and copied
    /// (BENCHMARKS.md, "Issue 30: the batch ratio, second round").
    #[inline]
    pub(crate) fn from_member(member: Member<'a>) -> Self {
        match member {
            Member::Object(fields) => Self::from_fields(fields),
            Member::Other => Self::invalid(),
        }
    }

    fn invalid() -> Self {
        Entry::Invalid(ErrorObject::invalid_request())
    }

    fn from_fields(f: Fields<'a>) -> Self {
        if f.duplicate || !fields::is_version_2(&f.jsonrpc) {
            return Self::invalid();
        }
        let Some(Str(Some(method))) = f.method else {
            return Self::invalid();
        };
        let params = match f.params {
            None => None,
            Some(raw) => match raw.get().as_bytes().first() {
                Some(b'[' | b'{') => Some(raw),
                Some(b'n') => None,
                _ => return Self::invalid(),
            },
        };
        let Some(raw) = f.id else {
            return Entry::Notification(Notification { method, params });
        };
        // Answers echo the id: one of any length would make every error a copy.
        if raw.len() > MAX_ID_LEN {
            return Self::invalid();
        }
        match Id::from_json(raw) {
            Some(id) => Entry::Request(Request { id, method, params }),
            None => Self::invalid(),
        }
    }
}

impl Serialize for Request<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Request", 4)?;
        s.serialize_field("jsonrpc", "2.0")?;
        s.serialize_field("method", &self.method)?;
        if let Some(params) = self.params {
            s.serialize_field("params", params)?;
        }
        s.serialize_field("id", &self.id)?;
        s.end()
    }
}

impl Serialize for Notification<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Notification", 3)?;
        s.serialize_field("jsonrpc", "2.0")?;
        s.serialize_field("method", &self.method)?;
        if let Some(params) = self.params {
            s.serialize_field("params", params)?;
        }
        s.end()
    }
}
