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

/// Scalars (anything that is not an object or an array) are "other": `self.other()`.
macro_rules! other_values {
    () => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(self.other())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(self.other())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(self.other())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(self.other())
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(self.other())
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(self.other())
        }
    };
}

/// The top-level members of one JSON object; `duplicate` when a known key came twice.
#[derive(Default)]
pub(crate) struct Fields<'a> {
    pub(crate) jsonrpc: Option<Str<'a>>,
    pub(crate) method: Option<Str<'a>>,
    pub(crate) params: Option<&'a RawValue>,
    /// The id's JSON text, as a raw value's (read by hand when it is an integer or a
    /// plain string, see [`super::envelope`]).
    pub(crate) id: Option<&'a str>,
    pub(crate) result: Option<&'a RawValue>,
    pub(crate) error: Option<&'a RawValue>,
    pub(crate) duplicate: bool,
}

/// One message, or one batch member: an object's fields, or anything else.
pub(crate) enum Member<'a> {
    Object(Fields<'a>),
    Other,
}

/// A whole message: a batch (array) or a single member, each member converted to `T`.
pub(crate) enum Top<T> {
    Single(T),
    Batch(Vec<T>),
}

/// A member's key: one of the six the protocol names, or any other.
///
/// Read by hand rather than derived, like [`Str`] and [`read_fields`], so that it can be
/// marked for inlining: since the reader has a second user (`TwoWay`), the compiler
/// had made the key, the string and the loop over members calls of their own per member,
/// about 50 instructions a message more than when they were one function.
pub(super) enum Key {
    Jsonrpc,
    Method,
    Params,
    Id,
    Result,
    Error,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    #[inline(always)]
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_identifier(KeyVisitor)
    }
}

struct KeyVisitor;

impl Visitor<'_> for KeyVisitor {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    #[inline(always)]
    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(Key::of(key))
    }
}

impl Key {
    /// The key named `key` (unescaped).
    #[inline(always)]
    pub(super) fn of(key: &str) -> Key {
        match key {
            "jsonrpc" => Key::Jsonrpc,
            "method" => Key::Method,
            "params" => Key::Params,
            "id" => Key::Id,
            "result" => Key::Result,
            "error" => Key::Error,
            _ => Key::Other,
        }
    }
}

/// Why [`parse`] failed.
pub(crate) enum ParseError {
    /// Not valid JSON.
    Syntax,
    /// A batch with more members than allowed.
    BatchTooLarge,
    /// An empty array: neither a batch of calls nor one of responses.
    EmptyBatch,
}

/// Reads `bytes` in one pass, converting each member as it is read; batches longer than
/// `max_batch` stop the parse early.
///
/// The bytes are checked to be UTF-8 once, up front (JSON text must be), so that serde_json
/// reads from a `&str` and does not validate every key and raw value again.
pub(crate) fn parse<'a, T>(
    bytes: &'a [u8],
    max_batch: usize,
    convert: impl Make<'a, Made = T>,
) -> Result<Top<T>, ParseError> {
    let text = std::str::from_utf8(bytes).map_err(|_| ParseError::Syntax)?;
    parse_text(text, max_batch, convert)
}

/// [`parse`] of text checked as UTF-8 already (a WebSocket text message): not checked
/// again.
///
/// The common message is read by hand ([`super::envelope`]); any other, through serde.
#[inline]
pub(crate) fn parse_text<'a, T>(
    text: &'a str,
    max_batch: usize,
    convert: impl Make<'a, Made = T>,
) -> Result<Top<T>, ParseError> {
    match super::envelope::read(text, max_batch, convert) {
        Some(top) => Ok(top),
        None => parse_by_serde(text, max_batch, convert),
    }
}

/// [`parse_text`] through serde's visitors, whatever the message.
pub(super) fn parse_by_serde<'a, T>(
    text: &'a str,
    max_batch: usize,
    convert: impl Make<'a, Made = T>,
) -> Result<Top<T>, ParseError> {
    let too_large = Cell::new(false);
    let seed = TopSeed {
        max_batch,
        too_large: &too_large,
        convert,
        input_len: text.len(),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let top = seed
        .deserialize(&mut de)
        .and_then(|top| de.end().map(|()| top));
    match top {
        Ok(Top::Batch(members)) if members.is_empty() => Err(ParseError::EmptyBatch),
        Ok(top) => Ok(top),
        Err(_) if too_large.get() => Err(ParseError::BatchTooLarge),
        Err(_) => recover(text, max_batch, convert),
    }
}

/// After a failed parse: valid JSON that serde_json still refuses to read as a value (a
/// number out of `f64` range, like `1e400`, where a scalar was read) is not a request, but
/// it is not a parse error either. Only text that skips as JSON gets here; each batch
/// member is then read on its own.
#[cold]
fn recover<'a, T>(
    text: &'a str,
    max_batch: usize,
    convert: impl Make<'a, Made = T>,
) -> Result<Top<T>, ParseError> {
    if serde_json::from_str::<IgnoredAny>(text).is_err() {
        return Err(ParseError::Syntax);
    }
    if !text.trim_start().starts_with('[') {
        return Ok(Top::Single(convert.make(Member::Other)));
    }
    let too_large = Cell::new(false);
    let seed = RawMembers {
        max_batch,
        too_large: &too_large,
    };
    match seed.deserialize(&mut serde_json::Deserializer::from_str(text)) {
        Ok(members) => {
            let read = |raw: &'a RawValue| serde_json::from_str(raw.get()).unwrap_or(Member::Other);
            Ok(Top::Batch(
                members
                    .into_iter()
                    .map(|raw| convert.make(read(raw)))
                    .collect(),
            ))
        }
        Err(_) if too_large.get() => Err(ParseError::BatchTooLarge),
        Err(_) => Err(ParseError::Syntax),
    }
}

/// A batch's members as raw JSON, refusing more than `max_batch` of them as they come.
struct RawMembers<'c> {
    max_batch: usize,
    too_large: &'c Cell<bool>,
}

impl<'de> DeserializeSeed<'de> for RawMembers<'_> {
    type Value = Vec<&'de RawValue>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RawMembers<'_> {
    type Value = Vec<&'de RawValue>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a batch")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        while let Some(member) = seq.next_element::<&'de RawValue>()? {
            if members.len() == self.max_batch {
                self.too_large.set(true);
                return Err(de::Error::custom("batch too large"));
            }
            members.push(member);
        }
        Ok(members)
    }
}

/// A member that should be a string: its text (borrowed unless it has escapes), or `None`
/// when it is another kind of value. Read directly, without capturing raw JSON.
pub(crate) struct Str<'a>(pub(crate) Option<Cow<'a, str>>);

/// Whether `jsonrpc` is present and exactly the string `"2.0"`.
pub(crate) fn is_version_2(jsonrpc: &Option<Str<'_>>) -> bool {
    matches!(jsonrpc, Some(Str(Some(version))) if version == "2.0")
}

struct StrVisitor;

impl StrVisitor {
    fn other<'de>(self) -> Str<'de> {
        Str(None)
    }
}

impl<'de> Deserialize<'de> for Str<'de> {
    #[inline(always)]
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrVisitor)
    }
}

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Str<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Str<'de>, E> {
        Ok(Str(Some(Cow::Borrowed(v))))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Str<'de>, E> {
        Ok(Str(Some(Cow::Owned(v))))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Str<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Str(None))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Str<'de>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Str(None))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Str<'de>, E> {
        Ok(self.other())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Str<'de>, E> {
        Ok(self.other())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Str<'de>, E> {
        Ok(self.other())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Str<'de>, E> {
        Ok(self.other())
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Str<'de>, E> {
        Ok(Str(Some(Cow::Owned(v.to_owned()))))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Str<'de>, E> {
        Ok(self.other())
    }
}

struct TopSeed<'c, F> {
    max_batch: usize,
    too_large: &'c Cell<bool>,
    convert: F,
    input_len: usize,
}

impl<'de, F: Make<'de>> DeserializeSeed<'de> for TopSeed<'_, F> {
    type Value = Top<F::Made>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// The shortest call a batch can hold, `{"jsonrpc":"2.0","method":"a"}`, is 30 bytes:
/// sizing the batch's vector from the input length avoids regrowing it.
const MIN_MEMBER_LEN: usize = 30;

/// The room to make for the members of a batch read from `input_len` bytes, of at most
/// `max_batch` members: as many as the shortest member could fill.
#[inline]
pub(super) fn batch_capacity(input_len: usize, max_batch: usize) -> usize {
    (input_len / MIN_MEMBER_LEN + 1).min(max_batch)
}

impl<'de, F: Make<'de>> Visitor<'de> for TopSeed<'_, F> {
    type Value = Top<F::Made>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::with_capacity(batch_capacity(self.input_len, self.max_batch));
        loop {
            if members.len() == self.max_batch {
                if seq.next_element::<IgnoredAny>()?.is_some() {
                    self.too_large.set(true);
                    return Err(de::Error::custom("batch too large"));
                }
                break;
            }
            let pushed = Pushed {
                convert: self.convert,
                into: &mut members,
            };
            if seq.next_element_seed(pushed)?.is_none() {
                break;
            }
        }
        Ok(Top::Batch(members))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        read_fields(map).map(|f| Top::Single(self.convert.make(Member::Object(f))))
    }

    other_values!();
}

struct MemberVisitor;

impl MemberVisitor {
    fn other<'de>(self) -> Member<'de> {
        Member::Other
    }
}

impl<F> TopSeed<'_, F> {
    fn other<'de>(self) -> Top<F::Made>
    where
        F: Make<'de>,
    {
        Top::Single(self.convert.make(Member::Other))
    }
}

/// Converts a member into what the caller keeps: any `Fn(Member) -> T + Copy`
/// (`Entry::from_member`, `Response::from_member`). A type of its own per caller, not a
/// function pointer, so that the conversion is inlined where the member is read.
pub(crate) trait Make<'a>: Copy {
    /// What a member becomes.
    type Made;
    /// Converts one member.
    fn make(self, member: Member<'a>) -> Self::Made;
}

impl<'a, T, F: Fn(Member<'a>) -> T + Copy> Make<'a> for F {
    type Made = T;
    #[inline(always)]
    fn make(self, member: Member<'a>) -> T {
        self(member)
    }
}

/// One batch member, read, converted and pushed onto the batch in one step: the
/// member's fields are converted where they were read, and the result goes straight
/// into the vector, rather than being returned (as a [`Member`], then as what it became)
/// through serde's layers, each a copy, and reloaded at once: copies whose loads store
/// forwarding cannot serve (BENCHMARKS.md, "Issue 30: the batch ratio, second round").
struct Pushed<'v, T, F> {
    convert: F,
    into: &'v mut Vec<T>,
}

impl<'de, F: Make<'de>> DeserializeSeed<'de> for Pushed<'_, F::Made, F> {
    type Value = ();
    #[inline(always)]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, F: Make<'de>> Visitor<'de> for Pushed<'_, F::Made, F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        self.other();
        Ok(())
    }

    #[inline(always)]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        let fields = read_fields(map)?;
        self.into.push(self.convert.make(Member::Object(fields)));
        Ok(())
    }

    other_values!();
}

impl<T, F> Pushed<'_, T, F> {
    fn other<'de>(self)
    where
        F: Make<'de, Made = T>,
    {
        self.into.push(self.convert.make(Member::Other));
    }
}

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

    other_values!();
}

#[inline(always)]
fn read_fields<'de, A: MapAccess<'de>>(mut map: A) -> Result<Fields<'de>, A::Error> {
    let mut f = Fields::default();
    while let Some(key) = map.next_key::<Key>()? {
        let duplicate = match f.slot(key) {
            Slot::Str(slot) => slot.replace(map.next_value::<Str<'de>>()?).is_some(),
            Slot::Raw(slot) => slot.replace(map.next_value::<&'de RawValue>()?).is_some(),
            Slot::Id(slot) => {
                let raw = map.next_value::<&'de RawValue>()?;
                slot.replace(raw.get()).is_some()
            }
            Slot::Skip => {
                map.next_value::<IgnoredAny>()?;
                false
            }
        };
        f.duplicate |= duplicate;
    }
    Ok(f)
}

/// Where a member's value goes: a string's slot, a raw value's, the id's (its JSON
/// text), or nowhere (a member the protocol does not name).
pub(super) enum Slot<'f, 'a> {
    Str(&'f mut Option<Str<'a>>),
    Raw(&'f mut Option<&'a RawValue>),
    Id(&'f mut Option<&'a str>),
    Skip,
}

impl<'a> Fields<'a> {
    /// The slot of the member named by `key`.
    #[inline(always)]
    pub(super) fn slot(&mut self, key: Key) -> Slot<'_, 'a> {
        match key {
            Key::Jsonrpc => Slot::Str(&mut self.jsonrpc),
            Key::Method => Slot::Str(&mut self.method),
            Key::Params => Slot::Raw(&mut self.params),
            Key::Id => Slot::Id(&mut self.id),
            Key::Result => Slot::Raw(&mut self.result),
            Key::Error => Slot::Raw(&mut self.error),
            Key::Other => Slot::Skip,
        }
    }
}
