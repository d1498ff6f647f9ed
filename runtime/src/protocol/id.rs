//! The request id: a number, a string or null, kept as its original JSON text.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, Error as _};
use serde::ser::{Error as _, Serialize, Serializer};
use serde_json::value::RawValue;

use super::escape::write_str;

/// A JSON-RPC request id: a number, a string or `null`.
///
/// The id keeps the exact JSON text it was read from, so a server echoes any number
/// (negative, fractional, with an exponent, beyond 2^53, even `1e400`) and any string
/// (escapes included) byte for byte. Two ids are equal when their JSON text is equal:
/// `1` and `1.0` are different ids.
///
/// ```
/// use rpcsmith::protocol::{Id, IdKind};
///
/// let id: Id<'_> = serde_json::from_str("123456789012345678901234567890").unwrap();
/// assert_eq!(id.kind(), IdKind::Number);
/// assert_eq!(id.as_json(), "123456789012345678901234567890");
/// assert_eq!(Id::number(7).as_u64(), Some(7));
/// assert_eq!(Id::string("a\"b").as_json(), r#""a\"b""#);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Id<'a> {
    /// Valid JSON text of a number, a string or `null`; guaranteed by every constructor.
    json: Cow<'a, str>,
}

/// What kind of JSON value an [`Id`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IdKind {
    /// `null`.
    Null,
    /// A JSON number, of any size or precision.
    Number,
    /// A JSON string.
    String,
}

impl<'a> Id<'a> {
    /// The `null` id, used in error responses whose request id could not be read.
    pub const NULL: Id<'static> = Id {
        json: Cow::Borrowed("null"),
    };

    /// A numeric id.
    pub fn number(n: u64) -> Id<'static> {
        let mut buf = itoa::Buffer::new();
        Id {
            json: Cow::Owned(buf.format(n).to_owned()),
        }
    }

    /// A string id; the text is escaped as JSON.
    pub fn string(s: &str) -> Id<'static> {
        let mut out = Vec::with_capacity(s.len() + 2);
        write_str(&mut out, s);
        // `write_str` only writes valid UTF-8 (the input's and ASCII escapes).
        Id {
            json: Cow::Owned(String::from_utf8_lossy(&out).into_owned()),
        }
    }

    /// Reads an id from raw JSON; `None` when the value is an object, an array or a boolean.
    pub fn from_raw(raw: &'a RawValue) -> Option<Self> {
        Self::from_json(raw.get())
    }

    /// [`from_raw`](Self::from_raw) of a raw value's text.
    pub(crate) fn from_json(json: &'a str) -> Option<Self> {
        match json.as_bytes().first()? {
            b'"' | b'n' | b'-' | b'0'..=b'9' => Some(Id {
                json: Cow::Borrowed(json),
            }),
            _ => None,
        }
    }

    /// An id from JSON text already known to be a number, a string or `null` (text an `Id`
    /// produced).
    pub(crate) fn from_trusted(json: &'a str) -> Self {
        Id {
            json: Cow::Borrowed(json),
        }
    }

    /// Which kind of value this id is.
    pub fn kind(&self) -> IdKind {
        match self.json.as_bytes().first() {
            Some(b'"') => IdKind::String,
            Some(b'n') | None => IdKind::Null,
            Some(_) => IdKind::Number,
        }
    }

    /// Whether this is the `null` id.
    pub fn is_null(&self) -> bool {
        self.kind() == IdKind::Null
    }

    /// The id's exact JSON text, as received (`"abc"` with its quotes, `1.50`, `null`).
    pub fn as_json(&self) -> &str {
        &self.json
    }

    /// The id as a `u64`, when it is a number written as one (`7`, not `7.0`).
    pub fn as_u64(&self) -> Option<u64> {
        self.json.parse().ok()
    }

    /// The id as an `i64`, when it is a number written as one.
    pub fn as_i64(&self) -> Option<i64> {
        self.json.parse().ok()
    }

    /// The id as text, when it is a string (escapes decoded).
    pub fn as_str(&self) -> Option<Cow<'_, str>> {
        let inner = self.json.strip_prefix('"')?.strip_suffix('"')?;
        if inner.contains('\\') {
            serde_json::from_str::<String>(&self.json)
                .ok()
                .map(Cow::Owned)
        } else {
            Some(Cow::Borrowed(inner))
        }
    }

    /// An id that owns its text, so it can outlive the bytes it was read from.
    pub fn into_owned(self) -> Id<'static> {
        Id {
            json: Cow::Owned(self.json.into_owned()),
        }
    }
}

impl fmt::Debug for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Id({})", self.json)
    }
}

impl fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.json)
    }
}

impl Serialize for Id<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let raw: &RawValue = serde_json::from_str(&self.json).map_err(S::Error::custom)?;
        raw.serialize(serializer)
    }
}

/// Reads an id borrowed from the input; works with `serde_json::from_slice`/`from_str`,
/// not with readers (the id's text must be borrowed from the input).
impl<'de> Deserialize<'de> for Id<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = <&'de RawValue>::deserialize(deserializer)?;
        Id::from_raw(raw).ok_or_else(|| D::Error::custom("id must be a number, a string or null"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Option<Id<'_>> {
        Id::from_raw(serde_json::from_str(json).ok()?)
    }

    #[test]
    fn keeps_original_text() {
        for json in [
            "1",
            "-0",
            "1.50",
            "1e400",
            "-1.5E-7",
            "123456789012345678901234567890",
            r#""a\"b\\c\u0041""#,
            r#""""#,
            "null",
        ] {
            assert_eq!(
                parse(json).map(|id| id.as_json().to_owned()).as_deref(),
                Some(json)
            );
        }
    }

    #[test]
    fn rejects_structured_and_boolean_ids() {
        for json in ["{}", "[1]", "true", "false"] {
            assert!(parse(json).is_none(), "{json}");
        }
    }

    #[test]
    fn kinds_and_accessors() {
        assert_eq!(Id::NULL.kind(), IdKind::Null);
        assert_eq!(Id::number(u64::MAX).as_u64(), Some(u64::MAX));
        assert_eq!(parse("-3").and_then(|id| id.as_i64()), Some(-3));
        assert_eq!(parse("3.0").and_then(|id| id.as_u64()), None);
        let id = Id::string("tab\there \u{1}");
        assert_eq!(id.as_json(), r#""tab\there \u0001""#);
        assert_eq!(id.as_str().as_deref(), Some("tab\there \u{1}"));
        assert_eq!(id.kind(), IdKind::String);
    }

    #[test]
    fn serde_round_trip() {
        let id: Id<'_> = serde_json::from_str("1.50").unwrap();
        assert_eq!(serde_json::to_string(&id).unwrap(), "1.50");
        assert!(serde_json::from_str::<Id<'_>>("[1]").is_err());
    }
}
