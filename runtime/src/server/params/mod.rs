//! Decoding a call's params into the typed arguments of its handler, as generated
//! dispatchers do (through [`crate::__private`]). Not a public API: it changes with the
//! generator.
//!
//! Params are decoded straight from the raw bytes of the message, in one pass:
//! [`decode`] reads an array or an object into the typed value of each declared param
//! (no `Value`, no intermediate raw text). When that pass fails, the params are read
//! again the careful way, [`Params::parse`] splitting them into the raw JSON text of each
//! param and [`Params::required`] deserializing one at a time, so that every failure is
//! the same `-32602` naming the param, whichever came first; a param's own failure is
//! worded by [`mismatch`] (the JSON path inside the param, JSON types, a short quote:
//! ``invalid param `order` at /items/1/id: expected an integer, found a string "7"``),
//! which also reads a `-0` where an integer is expected as 0.
//!
//! A param that does not decode cites its schema at the place written under the method
//! called, with its `file:line:col`, when the dispatcher gives its [`Site`] (the
//! module's [`Places`](crate::protocol::mismatch::Places) table and the method's wire
//! name) with the params ([`CallParams::at`]): `(schema #/methods/3/params/0/schema at
//! api.json:80:21)`. The table is read only for the error.
//!
//! A member named `_meta` in params by name is metadata about the call (trace context,
//! as the Model Context Protocol carries it), not an argument: it is skipped unless the
//! method declares a param of that name.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor,
};
use serde_json::value::RawValue;

use crate::protocol::constraint::{Rules, Validate};
use crate::protocol::{ErrorObject, mismatch};

mod call;

use call::cited;
pub use call::{CallParams, Site};

/// The params member that carries metadata about a call rather than an argument.
const META: &str = "_meta";

/// Which JSON shapes of params a method accepts (its `paramStructure`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Structure {
    /// An object keyed by param name.
    ByName,
    /// An array in declaration order.
    ByPosition,
    /// Either.
    Either,
}

/// The params of one call, split by declared param: the raw JSON of each, or `None`
/// where it was not given (or given as `null`). Named only inside this module (it
/// appears in [`ParamList`]'s hidden method, so it is `pub` but unreachable).
#[derive(Debug)]
pub struct Params<'a> {
    values: Vec<Option<&'a RawValue>>,
    names: &'static [&'static str],
    site: Option<Site<'a>>,
}

impl<'a> Params<'a> {
    /// Splits `raw` (the call's `params`, `None` when absent) for a method whose params
    /// are `names`, in declaration order.
    ///
    /// # Errors
    ///
    /// `-32602` when the params are a shape the method does not accept, an array has
    /// more elements than the method has params, or an object has a member that is no
    /// param or is given twice.
    pub fn parse(
        raw: Option<&'a RawValue>,
        structure: Structure,
        names: &'static [&'static str],
    ) -> Result<Self, ErrorObject> {
        let mut values = vec![None; names.len()];
        let Some(raw) = raw else {
            return Ok(Params {
                values,
                names,
                site: None,
            });
        };
        let mut parts = Parts {
            values: &mut values,
            names,
            structure,
        };
        let mut de = serde_json::Deserializer::from_str(raw.get());
        de.deserialize_any(&mut parts).map_err(|e| {
            let text = e.to_string();
            let message = text.split(" at line ").next().unwrap_or(&text);
            ErrorObject::invalid_params(message.to_owned())
        })?;
        Ok(Params {
            values,
            names,
            site: None,
        })
    }

    /// These params, their decode errors cited at `site` (see [`Site`]).
    #[must_use]
    pub fn at(mut self, site: Option<Site<'a>>) -> Self {
        self.site = site;
        self
    }

    /// Decodes the required param at `index`.
    ///
    /// # Errors
    ///
    /// `-32602` naming the param when it is missing or does not decode as `T`.
    pub fn required<T: DeserializeOwned>(&self, index: usize) -> Result<T, ErrorObject> {
        match self.values.get(index).copied().flatten() {
            Some(raw) => self.decode(index, raw),
            None => T::deserialize(NullDeserializer)
                .map_err(|_: de::value::Error| self.fail(index, "missing param")),
        }
    }

    /// Decodes the optional param at `index`; `None` when absent or `null`.
    ///
    /// # Errors
    ///
    /// `-32602` naming the param when it does not decode as `T`.
    pub fn optional<T: DeserializeOwned>(&self, index: usize) -> Result<Option<T>, ErrorObject> {
        match self.values.get(index).copied().flatten() {
            Some(raw) => self.decode(index, raw).map(Some),
            None => Ok(None),
        }
    }

    fn decode<T: DeserializeOwned>(&self, index: usize, raw: &RawValue) -> Result<T, ErrorObject> {
        mismatch::from_str(raw.get()).map_err(|e| {
            let name = self.names.get(index).copied().unwrap_or("?");
            let e = cited(self.site, e);
            ErrorObject::invalid_params(format!("invalid param `{name}`{}", e.after_subject()))
        })
    }

    fn fail(&self, index: usize, what: &str) -> ErrorObject {
        let name = self.names.get(index).copied().unwrap_or("?");
        ErrorObject::invalid_params(format!("{what} `{name}`"))
    }
}

/// Lets a required param whose type accepts `null` (an `Option`) be left out.
struct NullDeserializer;

impl<'de> Deserializer<'de> for NullDeserializer {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// The visitor that splits params into their slots.
struct Parts<'v, 'a> {
    values: &'v mut Vec<Option<&'a RawValue>>,
    names: &'static [&'static str],
    structure: Structure,
}

impl<'de: 'a, 'a> Visitor<'de> for &mut Parts<'_, 'a> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.structure {
            Structure::ByName => "params as an object",
            Structure::ByPosition => "params as an array",
            Structure::Either => "params as an array or an object",
        })
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if self.structure == Structure::ByName {
            return Err(de::Error::custom("params must be an object (by name)"));
        }
        let mut index = 0;
        while let Some(value) = seq.next_element::<&'de RawValue>()? {
            let Some(slot) = self.values.get_mut(index) else {
                let n = self.names.len();
                return Err(de::Error::custom(format!(
                    "too many params: the method takes {n}, got more"
                )));
            };
            *slot = (value.get() != "null").then_some(value);
            index += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        if self.structure == Structure::ByPosition {
            return Err(de::Error::custom("params must be an array (by position)"));
        }
        let mut seen = vec![false; self.names.len()];
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            let Some(index) = self.names.iter().position(|n| *n == key) else {
                if key == META {
                    map.next_value::<de::IgnoredAny>()?;
                    continue;
                }
                let key = mismatch::shorten(&key);
                return Err(de::Error::custom(format!("unknown param `{key}`")));
            };
            let value: &'de RawValue = map.next_value()?;
            if std::mem::replace(&mut seen[index], true) {
                return Err(de::Error::custom(format!("duplicate param `{key}`")));
            }
            self.values[index] = (value.get() != "null").then_some(value);
        }
        Ok(())
    }
}

impl<'de: 'a, 'a> de::DeserializeSeed<'de> for &mut Parts<'_, 'a> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// An object key, borrowed when it has no escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a param name")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// Checks decoded params against the constraints of their schemas (see
/// [`crate::protocol::constraint`]), as generated dispatchers do before the handler
/// runs.
///
/// # Errors
///
/// `-32602` naming the param, the JSON path inside it and the keyword
/// (``invalid param `amount`: 5 is less than the minimum 10``), with `data`
/// `{"param", "path", "keyword"}`.
pub fn check<P: Validate>(params: &P) -> Result<(), ErrorObject> {
    params
        .validate(&Rules::NONE)
        .map_err(|violation| violation.to_error_object())
}

/// Decodes the whole params of a call (`None` when absent, read as `{}`) as one value:
/// for a method whose one param is in fact its params object (the generator's
/// params-object override), named `name` in messages, its schema cited at the params'
/// site.
///
/// # Errors
///
/// `-32602` when the params are not an object, or do not decode as `T` (the message
/// names `name` and what is wrong inside it).
pub fn decode_whole<T: DeserializeOwned>(
    params: CallParams<'_>,
    name: &'static str,
) -> Result<T, ErrorObject> {
    let CallParams { raw, site } = params;
    let text = raw.map_or("{}", RawValue::get);
    if !text.trim_start().starts_with('{') {
        return Err(ErrorObject::invalid_params(format!(
            "params must be an object (`{name}`)"
        )));
    }
    mismatch::from_str(text).map_err(|e| {
        let e = cited(site, e);
        ErrorObject::invalid_params(format!("invalid param `{name}`{}", e.after_subject()))
    })
}

/// Decodes the params of a call (`None` when absent) of a method whose params are
/// `names`, into `P`: their types in declaration order, as nested pairs ending in `()`
/// (`(A, (B, ()))` for two params).
///
/// A param given as `null`, or not given, decodes as its type would from `null` (`None`
/// for an `Option`); an array may leave out trailing params, an object any.
///
/// # Errors
///
/// `-32602` naming the param that is missing, unknown, given twice or of the wrong type,
/// or saying that the params are a shape the method does not accept or too many: the
/// messages of the careful pass (`Params::parse` and `Params::required`), a param's
/// schema cited at the params' site (see [`CallParams`]).
pub fn decode<P: ParamList>(
    params: CallParams<'_>,
    structure: Structure,
    names: &'static [&'static str],
) -> Result<P, ErrorObject> {
    // The site is read only when the params do not decode: taken apart here, it was
    // copied on every call, a reload of words the dispatcher had just written
    // (BENCHMARKS.md, "Issue 28, item 3, third round").
    let raw = params.raw;
    let decoded = match raw {
        None => P::finish(P::EMPTY),
        Some(raw) => {
            let visitor = OnePass::<P> {
                names,
                structure,
                params: PhantomData,
            };
            let mut de = serde_json::Deserializer::from_str(raw.get());
            de.deserialize_any(visitor).ok().flatten()
        }
    };
    match decoded {
        Some(params) => Ok(params),
        None => P::from_params(&Params::parse(raw, structure, names)?.at(params.site), 0),
    }
}

/// The types of a method's params in declaration order, as nested pairs ending in `()`:
/// what [`decode`] reads params into. Implemented for every such list.
pub trait ParamList: Sized {
    /// One slot per param: `None` while not given, `Some(None)` when given as `null`.
    #[doc(hidden)]
    type Slots;
    /// Slots with nothing given.
    #[doc(hidden)]
    const EMPTY: Self::Slots;

    /// Reads the next elements of an array into the slots, until the array or the slots
    /// end; elements left over are left for the deserializer to refuse.
    #[doc(hidden)]
    fn elements<'de, A: SeqAccess<'de>>(
        slots: &mut Self::Slots,
        seq: &mut A,
    ) -> Result<(), A::Error>;

    /// Reads an object member's value into slot `index`; an error when the slot is
    /// already filled.
    #[doc(hidden)]
    fn member<'de, A: MapAccess<'de>>(
        slots: &mut Self::Slots,
        index: usize,
        map: &mut A,
    ) -> Result<(), A::Error>;

    /// The params, each missing one decoded from `null`; `None` when one cannot be.
    #[doc(hidden)]
    fn finish(slots: Self::Slots) -> Option<Self>;

    /// The params decoded the careful way, from `params` starting at param `index`.
    #[doc(hidden)]
    fn from_params(params: &Params<'_>, index: usize) -> Result<Self, ErrorObject>;
}

impl ParamList for () {
    type Slots = ();
    const EMPTY: () = ();

    fn elements<'de, A: SeqAccess<'de>>(_: &mut (), _: &mut A) -> Result<(), A::Error> {
        Ok(())
    }

    fn member<'de, A: MapAccess<'de>>(_: &mut (), _: usize, _: &mut A) -> Result<(), A::Error> {
        Err(de::Error::custom("no such param"))
    }

    fn finish((): ()) -> Option<()> {
        Some(())
    }

    fn from_params(_: &Params<'_>, _: usize) -> Result<(), ErrorObject> {
        Ok(())
    }
}

impl<T: DeserializeOwned, Rest: ParamList> ParamList for (T, Rest) {
    type Slots = (Option<Option<T>>, Rest::Slots);
    const EMPTY: Self::Slots = (None, Rest::EMPTY);

    fn elements<'de, A: SeqAccess<'de>>(
        slots: &mut Self::Slots,
        seq: &mut A,
    ) -> Result<(), A::Error> {
        match seq.next_element_seed(Slot(PhantomData::<T>))? {
            Some(value) => {
                slots.0 = Some(value);
                Rest::elements(&mut slots.1, seq)
            }
            None => Ok(()),
        }
    }

    fn member<'de, A: MapAccess<'de>>(
        slots: &mut Self::Slots,
        index: usize,
        map: &mut A,
    ) -> Result<(), A::Error> {
        if index > 0 {
            return Rest::member(&mut slots.1, index - 1, map);
        }
        if slots.0.is_some() {
            return Err(de::Error::custom("duplicate param"));
        }
        slots.0 = Some(map.next_value_seed(Slot(PhantomData::<T>))?);
        Ok(())
    }

    fn finish((slot, rest): Self::Slots) -> Option<Self> {
        let value = match slot.flatten() {
            Some(value) => value,
            None => T::deserialize(NullDeserializer).ok()?,
        };
        Some((value, Rest::finish(rest)?))
    }

    fn from_params(params: &Params<'_>, index: usize) -> Result<Self, ErrorObject> {
        let value = params.required(index)?;
        Ok((value, Rest::from_params(params, index + 1)?))
    }
}

/// One param's value: `None` for `null`, else the value decoded as `T`.
struct Slot<T>(PhantomData<T>);

impl<'de, T: DeserializeOwned> DeserializeSeed<'de> for Slot<T> {
    type Value = Option<T>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<T>, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, T: DeserializeOwned> Visitor<'de> for Slot<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a param")
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<T>, D::Error> {
        T::deserialize(deserializer).map(Some)
    }
}

/// [`decode`]'s one pass. Any failure only says "not this way": [`Params`] then finds
/// the message.
struct OnePass<P> {
    names: &'static [&'static str],
    structure: Structure,
    params: PhantomData<P>,
}

impl<'de, P: ParamList> Visitor<'de> for OnePass<P> {
    /// `None` when a param given cannot be decoded.
    type Value = Option<P>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("params")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<P>, A::Error> {
        if self.structure == Structure::ByName {
            return Err(de::Error::custom("by name"));
        }
        let mut slots = P::EMPTY;
        // Elements left over (more than the method has params) need no check here:
        // serde_json fails an array that the visitor leaves unfinished, and the careful
        // pass then words the `-32602`.
        P::elements(&mut slots, &mut seq)?;
        Ok(P::finish(slots))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<P>, A::Error> {
        if self.structure == Structure::ByPosition {
            return Err(de::Error::custom("by position"));
        }
        let mut slots = P::EMPTY;
        while let Some(index) = map.next_key_seed(ParamIndex(self.names))? {
            match index {
                Some(index) => P::member(&mut slots, index, &mut map)?,
                None => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
        Ok(P::finish(slots))
    }
}

/// An object key read as the index of the param it names; `None` for an undeclared
/// `_meta`, skipped.
struct ParamIndex(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for ParamIndex {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for ParamIndex {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a param name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Option<usize>, E> {
        match self.0.iter().position(|name| *name == key) {
            Some(index) => Ok(Some(index)),
            None if key == META => Ok(None),
            None => Err(de::Error::custom("unknown param")),
        }
    }
}

#[cfg(test)]
mod tests;
