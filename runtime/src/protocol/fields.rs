//! One pass over a message: each member's top-level fields captured as borrowed raw JSON.
//!
//! Requests and responses share this reader; deciding what the fields mean is left to
//! [`super::message`] and [`super::response`]. Nothing here fails on well-formed JSON of the
//! wrong shape: only syntax errors (and the batch limit) stop the parse.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// Scalars (and anything else that is not an object or array) are "other".
macro_rules! other_values {
    ($value:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
}

/// The top-level members of one JSON object; `duplicate` when a known key came twice.
#[derive(Default)]
pub(crate) struct Fields<'a> {
    pub(crate) jsonrpc: Option<&'a RawValue>,
    pub(crate) method: Option<&'a RawValue>,
    pub(crate) params: Option<&'a RawValue>,
    pub(crate) id: Option<&'a RawValue>,
    pub(crate) result: Option<&'a RawValue>,
    pub(crate) error: Option<&'a RawValue>,
    pub(crate) duplicate: bool,
}

/// One message, or one batch member: an object's fields, or anything else.
pub(crate) enum Member<'a> {
    Object(Fields<'a>),
    Other,
}

/// A whole message: a batch (array) or a single member.
pub(crate) enum Top<'a> {
    Single(Member<'a>),
    Batch(Vec<Member<'a>>),
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Key {
    Jsonrpc,
    Method,
    Params,
    Id,
    Result,
    Error,
    #[serde(other)]
    Other,
}

/// Why [`parse`] failed.
pub(crate) enum ParseError {
    /// Not valid JSON.
    Syntax,
    /// A batch with more members than allowed.
    BatchTooLarge,
}

/// Reads `bytes` in one pass; batches longer than `max_batch` stop the parse early.
pub(crate) fn parse(bytes: &[u8], max_batch: usize) -> Result<Top<'_>, ParseError> {
    let too_large = Cell::new(false);
    let seed = TopSeed {
        max_batch,
        too_large: &too_large,
    };
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let top = seed
        .deserialize(&mut de)
        .and_then(|top| de.end().map(|()| top));
    match top {
        Ok(top) => Ok(top),
        Err(_) if too_large.get() => Err(ParseError::BatchTooLarge),
        Err(_) => Err(ParseError::Syntax),
    }
}

/// Decodes a raw JSON string, borrowing when it has no escapes; `None` if not a string.
pub(crate) fn raw_str(raw: &RawValue) -> Option<Cow<'_, str>> {
    let json = raw.get();
    let inner = json.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        serde_json::from_str::<String>(json).ok().map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(inner))
    }
}

/// Whether `jsonrpc` is present and exactly the string `"2.0"`.
pub(crate) fn is_version_2(jsonrpc: Option<&RawValue>) -> bool {
    jsonrpc.is_some_and(|raw| raw.get() == "\"2.0\"" || raw_str(raw).as_deref() == Some("2.0"))
}

struct TopSeed<'c> {
    max_batch: usize,
    too_large: &'c Cell<bool>,
}

impl<'de> DeserializeSeed<'de> for TopSeed<'_> {
    type Value = Top<'de>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Top<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopSeed<'_> {
    type Value = Top<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Top<'de>, A::Error> {
        let mut members = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(self.max_batch));
        while let Some(member) = seq.next_element::<Member<'de>>()? {
            if members.len() == self.max_batch {
                self.too_large.set(true);
                return Err(de::Error::custom("batch too large"));
            }
            members.push(member);
        }
        Ok(Top::Batch(members))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Top<'de>, A::Error> {
        read_fields(map).map(|f| Top::Single(Member::Object(f)))
    }

    other_values!(Top::Single(Member::Other));
}

struct MemberVisitor;

impl<'de> Deserialize<'de> for Member<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MemberVisitor)
    }
}

impl<'de> Visitor<'de> for MemberVisitor {
    type Value = Member<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Member<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Member::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Member<'de>, A::Error> {
        read_fields(map).map(Member::Object)
    }

    other_values!(Member::Other);
}

fn read_fields<'de, A: MapAccess<'de>>(mut map: A) -> Result<Fields<'de>, A::Error> {
    let mut f = Fields::default();
    while let Some(key) = map.next_key::<Key>()? {
        let slot = match key {
            Key::Jsonrpc => &mut f.jsonrpc,
            Key::Method => &mut f.method,
            Key::Params => &mut f.params,
            Key::Id => &mut f.id,
            Key::Result => &mut f.result,
            Key::Error => &mut f.error,
            Key::Other => {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
        };
        let value = map.next_value::<&'de RawValue>()?;
        f.duplicate |= slot.replace(value).is_some();
    }
    Ok(f)
}
