//! Support for generated code: decoding params into typed arguments, and turning
//! handler results into answers. Not a public API: it changes with the generator.
//!
//! Params are decoded straight from the raw bytes of the message: [`Params::parse`]
//! splits an array or an object into the raw JSON text of each declared param (borrowed,
//! no `Value`), and [`Params::required`]/[`Params::optional`] deserialize one each. Every
//! failure is a `-32602` naming the param.

use std::borrow::Cow;
use std::convert::Infallible;
use std::fmt;

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::protocol::ErrorObject;
use crate::server::{CallResult, encode};

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
/// where it was not given (or given as `null`).
#[derive(Debug)]
pub struct Params<'a> {
    values: Vec<Option<&'a RawValue>>,
    names: &'static [&'static str],
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
            return Ok(Params { values, names });
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
        Ok(Params { values, names })
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
        serde_json::from_str(raw.get()).map_err(|e| {
            let text = e.to_string();
            let why = text.split(" at line ").next().unwrap_or(&text);
            let name = self.names.get(index).copied().unwrap_or("?");
            ErrorObject::invalid_params(format!("invalid param `{name}`: {why}"))
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

/// What a generated server trait's handler fails with: one of the method's declared
/// errors, or any error object.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Failure<E = Infallible> {
    /// A declared error, answered with its declared code, message and data.
    Declared(E),
    /// Any other error, answered as it is.
    Object(ErrorObject),
}

impl<E> From<ErrorObject> for Failure<E> {
    fn from(error: ErrorObject) -> Self {
        Failure::Object(error)
    }
}

impl<E: fmt::Display> fmt::Display for Failure<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Declared(e) => e.fmt(f),
            Failure::Object(e) => e.fmt(f),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for Failure<E> {}

/// Turns a handler's result into the call's answer.
///
/// # Errors
///
/// The declared error as its error object, the error object as it is, or `-32603` when
/// the result fails to serialize.
pub fn answer<R, E>(result: Result<R, Failure<E>>) -> CallResult
where
    R: Serialize,
    E: Into<ErrorObject>,
{
    match result {
        Ok(value) => encode(&value),
        Err(Failure::Declared(e)) => Err(e.into()),
        Err(Failure::Object(e)) => Err(e),
    }
}

/// An error object with `data` serialized from `data` (left out if it fails to).
pub fn error_with_data<D: Serialize + ?Sized>(
    code: i64,
    message: &'static str,
    data: &D,
) -> ErrorObject {
    let mut error = ErrorObject::new(code, message);
    error.data = serde_json::value::to_raw_value(data).ok();
    error
}

/// Decodes the `data` of an error object as `D`; `None` when it does not decode (or
/// there is none and `D` does not accept `null`).
pub fn error_data<D: DeserializeOwned>(error: &ErrorObject) -> Option<D> {
    let raw = error.data.as_deref().map_or("null", RawValue::get);
    serde_json::from_str(raw).ok()
}

impl From<Infallible> for ErrorObject {
    fn from(never: Infallible) -> Self {
        match never {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: &[&str] = &["a", "b"];

    fn raw(json: &str) -> Box<RawValue> {
        RawValue::from_string(json.to_owned()).unwrap()
    }

    fn parse<'a>(raw: &'a RawValue, s: Structure) -> Result<Params<'a>, ErrorObject> {
        Params::parse(Some(raw), s, NAMES)
    }

    #[test]
    fn positional_and_named_params_fill_the_same_slots() {
        for json in ["[1, 2]", r#"{"b": 2, "a": 1}"#] {
            let r = raw(json);
            let p = parse(&r, Structure::Either).unwrap();
            assert_eq!(p.required::<i64>(0).unwrap(), 1);
            assert_eq!(p.optional::<i64>(1).unwrap(), Some(2));
        }
        let r = raw("[1]");
        let p = parse(&r, Structure::ByPosition).unwrap();
        assert_eq!(p.optional::<i64>(1).unwrap(), None);
        let none = Params::parse(None, Structure::ByName, NAMES).unwrap();
        assert_eq!(none.optional::<i64>(0).unwrap(), None);
        assert_eq!(none.required::<Option<i64>>(1).unwrap(), None);
    }

    #[test]
    fn failures_name_the_param() {
        let message = |json: &str, s: Structure| {
            let r = raw(json);
            let p = match parse(&r, s) {
                Ok(p) => p,
                Err(e) => return e.message.into_owned(),
            };
            let e = p
                .required::<i64>(0)
                .and(p.required::<String>(1))
                .unwrap_err();
            assert_eq!(e.code, -32602);
            e.message.into_owned()
        };
        assert_eq!(message("[1]", Structure::Either), "missing param `b`");
        assert_eq!(
            message(r#"{"b":"x"}"#, Structure::Either),
            "missing param `a`"
        );
        assert_eq!(
            message(r#"[1, 2]"#, Structure::Either),
            "invalid param `b`: invalid type: integer `2`, expected a string"
        );
        assert_eq!(
            message(r#"[1, "x", 3]"#, Structure::Either),
            "too many params: the method takes 2, got more"
        );
        assert_eq!(
            message(r#"{"a":1,"c":2}"#, Structure::Either),
            "unknown param `c`"
        );
        assert_eq!(
            message(r#"{"a":1,"a":2}"#, Structure::Either),
            "duplicate param `a`"
        );
        assert_eq!(
            message("[1]", Structure::ByName),
            "params must be an object (by name)"
        );
        assert_eq!(
            message("{}", Structure::ByPosition),
            "params must be an array (by position)"
        );
    }

    #[test]
    fn handler_failures_become_error_objects() {
        let declared: CallResult =
            answer::<u8, ErrorObject>(Err(Failure::Declared(ErrorObject::new(5, "five"))));
        assert_eq!(declared.unwrap_err().code, 5);
        let other = answer::<u8, Infallible>(Err(ErrorObject::new(7, "seven").into()));
        assert_eq!(other.unwrap_err().code, 7);
        assert_eq!(answer::<u8, Infallible>(Ok(3)).unwrap().json(), "3");
        let e = error_with_data(1, "m", &[1, 2]);
        assert_eq!(error_data::<Vec<u8>>(&e), Some(vec![1, 2]));
        assert_eq!(error_data::<String>(&e), None);
    }
}
