//! How numbers are written: an integral `f64` as an integer, so that a value read from
//! `100` is written back as `100`, not `100.0`.
//!
//! Generated code types a schema's `type: number` as `f64` (what a handler adds and
//! compares). serde_json writes every `f64` with a fraction part (`100.0`) and a NaN or
//! an infinity as `null`. Every JSON text the runtime writes (params, results, items,
//! error data) goes through [`Integral`] instead, which changes only `f64`s:
//!
//! | value | written |
//! |---|---|
//! | integral, within ±2^53 (`100.0`, `-7.0`, `9007199254740992.0`) | as an integer: `100`, `-7`, `9007199254740992` |
//! | `-0.0` | `-0.0` (an integer would lose the sign) |
//! | with a fraction, or beyond ±2^53 (`0.5`, `1e300`) | as serde_json writes it: `0.5`, `1e+300` |
//! | NaN, ±infinity | refused: an error (JSON has no such number; serde_json would write `null`) |
//!
//! Within ±2^53 every integer is exactly an `f64`, so the integer written is the value;
//! beyond, the `f64` stands for a range of integers and is written as a float. Nothing
//! else changes: integers, strings, maps and the order of members are written as the
//! inner serializer writes them.
//!
//! [`Integral`] is a [`Serializer`] that wraps another: one adapter of serde's data model,
//! rather than a `serialize_with` on every field, param and variant holding an `f64`
//! (nested in `Option`, `Vec`, maps and tuples), which the generated code would have to
//! spell out at each place. No published crate offers this adapter.

use serde::ser::{
    self, Serialize, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant,
    SerializeTuple, SerializeTupleStruct, SerializeTupleVariant, Serializer,
};

/// The largest magnitude below which every integer is exactly an `f64`: 2^53.
const EXACT: f64 = 9_007_199_254_740_992.0;

/// Writes `value` as JSON into `out`, integral `f64`s as integers (see the module docs).
///
/// # Errors
///
/// When `value` fails to serialize, or holds a NaN or an infinity.
pub fn to_writer<W: std::io::Write, T: Serialize + ?Sized>(
    out: W,
    value: &T,
) -> Result<(), serde_json::Error> {
    value.serialize(Integral(&mut serde_json::Serializer::new(out)))
}

/// `value` as a [`serde_json::Value`], integral `f64`s as integers (see the module docs).
///
/// # Errors
///
/// When `value` fails to serialize, or holds a NaN or an infinity.
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<serde_json::Value, serde_json::Error> {
    value.serialize(Integral(serde_json::value::Serializer))
}

/// `value` as raw JSON text, integral `f64`s as integers (see the module docs).
///
/// # Errors
///
/// When `value` fails to serialize, or holds a NaN or an infinity.
pub fn to_raw_value<T: Serialize + ?Sized>(
    value: &T,
) -> Result<Box<serde_json::value::RawValue>, serde_json::Error> {
    let mut out = Vec::with_capacity(64);
    to_writer(&mut out, value)?;
    // serde_json wrote it: valid UTF-8 and valid JSON.
    let text = String::from_utf8(out).map_err(ser::Error::custom)?;
    serde_json::value::RawValue::from_string(text)
}

/// The integer an `f64` is written as, when it is one (see the module docs).
#[inline]
pub(crate) fn integral(v: f64) -> Option<i64> {
    let exact = v.trunc() == v && v.abs() <= EXACT;
    (exact && !(v == 0.0 && v.is_sign_negative())).then_some(v as i64)
}

/// A [`Serializer`] that writes integral `f64`s as integers and refuses NaN and the
/// infinities, and passes everything else to the serializer it wraps.
#[derive(Debug)]
pub struct Integral<S>(pub S);

/// A value whose serialization goes through [`Integral`] (a member, an element).
struct Wrap<'a, T: ?Sized>(&'a T);

impl<T: Serialize + ?Sized> Serialize for Wrap<'_, T> {
    #[inline]
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(Integral(serializer))
    }
}

/// Forwards a method that writes a scalar unchanged.
macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[inline]
        fn $method(self $(, $arg: $ty)*) -> Result<S::Ok, S::Error> {
            self.0.$method($($arg),*)
        }
    )*};
}

impl<S: Serializer> Serializer for Integral<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Integral<S::SerializeSeq>;
    type SerializeTuple = Integral<S::SerializeTuple>;
    type SerializeTupleStruct = Integral<S::SerializeTupleStruct>;
    type SerializeTupleVariant = Integral<S::SerializeTupleVariant>;
    type SerializeMap = Integral<S::SerializeMap>;
    type SerializeStruct = Integral<S::SerializeStruct>;
    type SerializeStructVariant = Integral<S::SerializeStructVariant>;

    forward! {
        serialize_bool(v: bool);
        serialize_i8(v: i8);
        serialize_i16(v: i16);
        serialize_i32(v: i32);
        serialize_i64(v: i64);
        serialize_i128(v: i128);
        serialize_u8(v: u8);
        serialize_u16(v: u16);
        serialize_u32(v: u32);
        serialize_u64(v: u64);
        serialize_u128(v: u128);
        serialize_f32(v: f32);
        serialize_char(v: char);
        serialize_str(v: &str);
        serialize_bytes(v: &[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(name: &'static str);
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str);
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<S::Ok, S::Error> {
        match integral(v) {
            Some(n) => self.0.serialize_i64(n),
            None if v.is_finite() => self.0.serialize_f64(v),
            None => Err(ser::Error::custom(format!(
                "{v} has no JSON form (a number must be finite)"
            ))),
        }
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.0.serialize_some(&Wrap(value))
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_struct(name, &Wrap(value))
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0
            .serialize_newtype_variant(name, index, variant, &Wrap(value))
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        self.0.serialize_seq(len).map(Integral)
    }

    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        self.0.serialize_tuple(len).map(Integral)
    }

    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        self.0.serialize_tuple_struct(name, len).map(Integral)
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        self.0
            .serialize_tuple_variant(name, index, variant, len)
            .map(Integral)
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        self.0.serialize_map(len).map(Integral)
    }

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        self.0.serialize_struct(name, len).map(Integral)
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        self.0
            .serialize_struct_variant(name, index, variant, len)
            .map(Integral)
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// Implements a compound serializer whose elements go through [`Integral`].
macro_rules! compound {
    ($trait:ident, $method:ident($($key:ident: $key_ty:ty),*)) => {
        impl<S: $trait> $trait for Integral<S> {
            type Ok = S::Ok;
            type Error = S::Error;

            #[inline]
            fn $method<T: Serialize + ?Sized>(
                &mut self,
                $($key: $key_ty,)*
                value: &T,
            ) -> Result<(), S::Error> {
                self.0.$method($($key,)* &Wrap(value))
            }

            #[inline]
            fn end(self) -> Result<S::Ok, S::Error> {
                self.0.end()
            }
        }
    };
}

compound!(SerializeSeq, serialize_element());
compound!(SerializeTuple, serialize_element());
compound!(SerializeTupleStruct, serialize_field());
compound!(SerializeTupleVariant, serialize_field());
compound!(SerializeStruct, serialize_field(key: &'static str));
compound!(SerializeStructVariant, serialize_field(key: &'static str));

impl<S: SerializeMap> SerializeMap for Integral<S> {
    type Ok = S::Ok;
    type Error = S::Error;

    #[inline]
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), S::Error> {
        self.0.serialize_key(&Wrap(key))
    }

    #[inline]
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), S::Error> {
        self.0.serialize_value(&Wrap(value))
    }

    #[inline]
    fn end(self) -> Result<S::Ok, S::Error> {
        self.0.end()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;

    fn text<T: Serialize + ?Sized>(value: &T) -> String {
        let mut out = Vec::new();
        to_writer(&mut out, value).expect("writes");
        String::from_utf8(out).expect("UTF-8")
    }

    #[test]
    fn integral_floats_are_written_as_integers_within_2_pow_53() {
        assert_eq!(text(&100.0_f64), "100");
        assert_eq!(text(&-7.0_f64), "-7");
        assert_eq!(text(&0.0_f64), "0");
        assert_eq!(text(&EXACT), "9007199254740992");
        assert_eq!(text(&-EXACT), "-9007199254740992");
        // Beyond 2^53 a float stands for a range of integers: written as a float.
        assert_eq!(text(&(EXACT * 2.0)), "1.8014398509481984e+16");
        assert_eq!(text(&1e300_f64), "1e+300");
        assert_eq!(text(&0.5_f64), "0.5");
        assert_eq!(text(&-0.0_f64), "-0.0");
    }

    #[test]
    fn nan_and_infinities_are_refused() {
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut out = Vec::new();
            let error = to_writer(&mut out, &v).expect_err("refused");
            assert!(error.to_string().contains("has no JSON form"), "{error}");
            assert!(to_value(&Some(vec![v])).is_err());
        }
    }

    #[test]
    fn nested_floats_are_written_the_same_way() {
        let mut map = BTreeMap::new();
        map.insert("a".to_owned(), vec![Some(1.0_f64), None, Some(2.5)]);
        assert_eq!(text(&map), r#"{"a":[1,null,2.5]}"#);
        assert_eq!(text(&(1.0_f64, "x", [3.0_f64; 2])), r#"[1,"x",[3,3]]"#);
        assert_eq!(to_value(&map).unwrap(), json!({"a": [1, null, 2.5]}));
        // A value read from `100` is the same `Value` once written again.
        let read: f64 = serde_json::from_str("100").unwrap();
        assert_eq!(
            to_value(&read).unwrap(),
            serde_json::from_str::<serde_json::Value>("100").unwrap()
        );
        assert_eq!(to_raw_value(&[4.0_f64]).unwrap().get(), "[4]");
    }

    #[test]
    fn everything_else_is_written_as_serde_json_writes_it() {
        let value = json!({"b": [1, "two", {"c": null, "d": 1.5, "e": true}], "a": u64::MAX});
        assert_eq!(text(&value), serde_json::to_string(&value).unwrap());
        let raw = serde_json::value::RawValue::from_string("[1.0, 2]".to_owned()).unwrap();
        assert_eq!(text(&raw), "[1.0, 2]");
    }
}
