//! Reading and writing a generated object type (a JSON Schema `object` with known
//! properties) as generic code: the generated type names its members, `object!` writes
//! its `Deserialize` and its `Serialize` from them. Reached through
//! [`crate::__private`]; not a public API: it changes with the generator.
//!
//! What serde's derives write per struct, this writes once: a member's name is read by
//! [`Members`] (generic over the format only) and matched by the type's own `match`, a
//! value is read by [`read_member`] (or [`read_present`], which keeps a `null` apart
//! from absence), a member's absence settled, a member counted and written: each member
//! is [`required`], [`optional`] or [`present`] (optional, and a `null` kept apart from
//! absence), a module of those steps. A type then compiles only its `visit_map` and its `serialize`: no field enum
//! with its three visitors, no `visit_seq` (a JSON array is not an object: it is
//! refused, where the derive read its elements as the fields in order), and no serde
//! attribute on the type or its fields. Every error reads as the derive's: `missing
//! field`, `duplicate field`, `unknown field …, expected one of …`, and `invalid type:
//! …, expected struct …`; a value is written as the derive writes it (an absent optional
//! member left out).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeStruct};

/// Reads a member's name: borrowed from the input where the format lends it (an owned
/// copy only for a name with escapes, or from a reader), or, for a format that names
/// members by their place, the name at that place in `names`. The type's own `match` on
/// the name then reads the member, as serde's derived field visitor would find it.
///
/// `None` for a place beyond `names` (an error when `DENY`: the schema says
/// `additionalProperties: false`; an unknown name is the type's `match` to refuse).
#[derive(Clone, Copy)]
pub struct Members<const DENY: bool> {
    names: &'static [&'static str],
}

impl<const DENY: bool> Members<DENY> {
    /// The members `names`, in the order of their places.
    pub const fn new(names: &'static [&'static str]) -> Self {
        Members { names }
    }
}

impl<'de, const DENY: bool> DeserializeSeed<'de> for Members<DENY> {
    type Value = Option<Cow<'de, str>>;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de, const DENY: bool> Visitor<'de> for Members<DENY> {
    type Value = Option<Cow<'de, str>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    #[inline]
    fn visit_borrowed_str<E: de::Error>(self, name: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(name)))
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(name.to_owned())))
    }

    fn visit_string<E: de::Error>(self, name: String) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(name)))
    }

    fn visit_bytes<E: de::Error>(self, name: &[u8]) -> Result<Self::Value, E> {
        Ok(Some(String::from_utf8_lossy(name).into_owned().into()))
    }

    fn visit_u64<E: de::Error>(self, index: u64) -> Result<Self::Value, E> {
        match usize::try_from(index).ok().and_then(|i| self.names.get(i)) {
            Some(name) => Ok(Some(Cow::Borrowed(name))),
            None if DENY => Err(E::invalid_value(
                de::Unexpected::Unsigned(index),
                &"the index of a field",
            )),
            None => Ok(None),
        }
    }
}

/// The error of a member `name` the object does not have, when it refuses unknown
/// members (`names` are those it has).
#[cold]
pub fn unknown_member<E: de::Error>(name: &str, names: &'static [&'static str]) -> E {
    E::unknown_field(name, names)
}

/// Reads the value of the member `name` into `slot`.
///
/// # Errors
///
/// The value's error, or `duplicate field` when the member was read already.
#[inline]
pub fn read_member<'de, A, T>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: serde::Deserialize<'de>,
{
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// Reads the value of the member `name`, `null` included, into `slot` as `Some` (a
/// member that keeps `null` apart from its absence: `Option<Option<T>>`).
///
/// # Errors
///
/// As [`read_member`].
#[inline]
pub fn read_present<'de, A, T>(
    map: &mut A,
    slot: &mut Option<Option<T>>,
    name: &'static str,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: serde::Deserialize<'de>,
{
    let mut value = None;
    if slot.is_none() {
        read_member(map, &mut value, name)?;
        *slot = Some(value);
        return Ok(());
    }
    Err(de::Error::duplicate_field(name))
}

/// How a member the object must have is read, settled and written.
pub mod required {
    use serde::de;

    pub use super::read_member as read;

    /// The member's value.
    ///
    /// # Errors
    ///
    /// `missing field` when the object did not have it.
    #[inline]
    pub fn settle<T, E: de::Error>(slot: Option<T>, name: &'static str) -> Result<T, E> {
        slot.ok_or_else(|| E::missing_field(name))
    }

    /// How many members the value writes: always one.
    #[inline]
    pub fn count<T>(_value: &T) -> usize {
        1
    }

    /// Writes the member.
    ///
    /// # Errors
    ///
    /// The value's error.
    #[inline]
    pub fn write<S, T>(state: &mut S, name: &'static str, value: &T) -> Result<(), S::Error>
    where
        S: super::SerializeStruct,
        T: super::Serialize,
    {
        state.serialize_field(name, value)
    }
}

/// How an optional member is read, settled and written: `null` reads as its absence.
pub mod optional {
    pub use super::read_member as read;

    /// The member's value: its default (`None`) when the object did not have it.
    ///
    /// # Errors
    ///
    /// None: the signature is `required::settle`'s, so the macro writes both alike.
    #[inline]
    pub fn settle<T: Default, E>(slot: Option<T>, _name: &'static str) -> Result<T, E> {
        Ok(slot.unwrap_or_default())
    }

    /// How many members the value writes: none when it is absent (`None`).
    #[inline]
    pub fn count<T>(value: &Option<T>) -> usize {
        usize::from(value.is_some())
    }

    /// Writes the member, or leaves it out when it is absent (`None`).
    ///
    /// # Errors
    ///
    /// The value's error.
    #[inline]
    pub fn write<S, T>(state: &mut S, name: &'static str, value: &Option<T>) -> Result<(), S::Error>
    where
        S: super::SerializeStruct,
        T: super::Serialize,
    {
        match value {
            Some(value) => state.serialize_field(name, value),
            None => state.skip_field(name),
        }
    }
}

/// How an optional member that keeps `null` apart from its absence is read, settled and
/// written (`Some(None)` as `null`).
pub mod present {
    pub use super::optional::{count, settle, write};
    pub use super::read_present as read;
}

/// Writes a generated object type's `Serialize` and `Deserialize`.
///
/// ```text
/// object!(Pet from "#/components/schemas/Pet" {
///     id = "id" required,
///     name = "name" required,
///     tag = "tag" optional,
///     parent = "parent" present,
/// });
/// object!(Strict from "#/components/schemas/Strict" deny_unknown_fields { .. });
/// object!(Plain { .. });
/// ```
///
/// The type, then `from` the place of its schema (optional): decoding names the type
/// `Pet @ #/components/schemas/Pet`, which errors show (`expected struct Pet @ …`) and
/// the runtime's decode errors read the schema's place from (written under its Rust
/// name). `deny_unknown_fields` refuses a member not listed, as serde's attribute of that
/// name does. Then each member: `field: "json name" kind`, the kind being `required`,
/// `optional` (`null` reads as absent; absent is `None` and is left out when written) or
/// `present` (an `Option<Option<_>>`: `null` is `Some(None)`, kept apart from absence):
/// the module of [`crate::__private`] that reads, settles, counts and writes it.
///
/// ```
/// #[derive(Debug, PartialEq)]
/// pub struct Pet {
///     pub name: String,
///     pub tag: Option<String>,
/// }
/// rpcsmith::__private::object!(Pet from "#/components/schemas/Pet" deny_unknown_fields {
///     name = "name" required,
///     tag = "tag" optional,
/// });
///
/// let pet: Pet = serde_json::from_str(r#"{"name": "Tom"}"#).unwrap();
/// assert_eq!(pet, Pet { name: "Tom".into(), tag: None });
/// assert_eq!(serde_json::to_string(&pet).unwrap(), r#"{"name":"Tom"}"#);
/// let error = serde_json::from_str::<Pet>("7").unwrap_err().to_string();
/// assert!(error.contains("expected struct Pet @ #/components/schemas/Pet"), "{error}");
/// assert!(serde_json::from_str::<Pet>(r#"{"name": "a", "age": 1}"#).is_err());
/// ```
#[macro_export]
#[doc(hidden)]
macro_rules! __object {
    ($ty:ident from $place:literal deny_unknown_fields { $($members:tt)* }) => {
        $crate::__object!(@impl $ty, ::std::concat!(::std::stringify!($ty), " @ ", $place), true, { $($members)* });
    };
    ($ty:ident from $place:literal { $($members:tt)* }) => {
        $crate::__object!(@impl $ty, ::std::concat!(::std::stringify!($ty), " @ ", $place), false, { $($members)* });
    };
    ($ty:ident deny_unknown_fields { $($members:tt)* }) => {
        $crate::__object!(@impl $ty, ::std::stringify!($ty), true, { $($members)* });
    };
    ($ty:ident { $($members:tt)* }) => {
        $crate::__object!(@impl $ty, ::std::stringify!($ty), false, { $($members)* });
    };
    (@impl $ty:ident, $decoding:expr, $deny:literal,
     { $($field:ident = $name:literal $kind:ident),* $(,)? }) => {
        impl $crate::__private::serde::Serialize for $ty {
            #[allow(unused_mut)]
            fn serialize<S>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error>
            where
                S: $crate::__private::serde::Serializer,
            {
                let len = 0 $( + $crate::__private::$kind::count(&self.$field) )*;
                let mut state = $crate::__private::serde::Serializer::serialize_struct(
                    serializer,
                    ::std::stringify!($ty),
                    len,
                )?;
                $( $crate::__private::$kind::write(&mut state, $name, &self.$field)?; )*
                $crate::__private::serde::ser::SerializeStruct::end(state)
            }
        }

        impl<'de> $crate::__private::serde::Deserialize<'de> for $ty {
            fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
            where
                D: $crate::__private::serde::Deserializer<'de>,
            {
                const MEMBERS: &[&str] = &[$($name),*];
                struct Object;
                impl<'de> $crate::__private::serde::de::Visitor<'de> for Object {
                    type Value = $ty;

                    fn expecting(
                        &self,
                        f: &mut ::std::fmt::Formatter<'_>,
                    ) -> ::std::fmt::Result {
                        f.write_str(::std::concat!("struct ", $decoding))
                    }

                    #[allow(unused_mut)]
                    fn visit_map<A>(self, mut map: A) -> ::std::result::Result<$ty, A::Error>
                    where
                        A: $crate::__private::serde::de::MapAccess<'de>,
                    {
                        $( let mut $field = ::std::option::Option::None; )*
                        // One `match` on each member's name: no number or key per member
                        // for the compiler to check (BENCHMARKS.md, "Issue 30: compile
                        // time of the generated module").
                        let members = $crate::__private::Members::<$deny>::new(MEMBERS);
                        while let ::std::option::Option::Some(name) = map.next_key_seed(members)? {
                            match name.as_deref() {
                                $( ::std::option::Option::Some($name) =>
                                    $crate::__private::$kind::read(&mut map, &mut $field, $name)?, )*
                                ::std::option::Option::Some(name) if $deny => {
                                    return ::std::result::Result::Err(
                                        $crate::__private::unknown_member(name, MEMBERS),
                                    );
                                }
                                _ => {
                                    map.next_value::<$crate::__private::serde::de::IgnoredAny>()?;
                                }
                            }
                        }
                        ::std::result::Result::Ok($ty {
                            $( $field: $crate::__private::$kind::settle::<_, A::Error>($field, $name)?, )*
                        })
                    }
                }
                deserializer.deserialize_struct($decoding, MEMBERS, Object)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[derive(Debug, PartialEq)]
    struct Pet {
        name: String,
        r#type: Option<String>,
        tag: Option<Option<u8>>,
    }
    crate::__object!(Pet from "#/components/schemas/Pet" deny_unknown_fields {
        name = "name" required,
        r#type = "type" optional,
        tag = "tag" present,
    });

    #[derive(Debug, PartialEq)]
    struct Open {
        id: u8,
    }
    crate::__object!(Open { id = "id" required });

    fn pet(text: &str) -> Result<Pet, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn members_by_name_in_any_order_absent_null_and_present() {
        let full = pet(r#"{"tag": 1, "type": "cat", "name": "Tom"}"#).unwrap();
        assert_eq!(full.name, "Tom");
        assert_eq!(full.r#type.as_deref(), Some("cat"));
        assert_eq!(full.tag, Some(Some(1)));
        let bare = pet(r#"{"name": "Tom", "type": null}"#).unwrap();
        assert_eq!((bare.r#type, bare.tag), (None, None));
        assert_eq!(
            pet(r#"{"name": "Tom", "tag": null}"#).unwrap().tag,
            Some(None)
        );
        // An escaped name is read unescaped; a `Value` hands owned names.
        assert_eq!(pet(r#"{"n\u0061me": "Tom"}"#).unwrap().name, "Tom");
        let value = json!({"name": "Tom", "tag": 2});
        let from_value: Pet = serde_json::from_value(value).unwrap();
        assert_eq!(from_value.tag, Some(Some(2)));
    }

    #[test]
    fn errors_read_as_serde_derives_do() {
        assert!(
            pet(r#"{"type": "cat"}"#)
                .unwrap_err()
                .starts_with("missing field `name`")
        );
        assert!(
            pet(r#"{"name": "a", "name": "b"}"#)
                .unwrap_err()
                .starts_with("duplicate field `name`")
        );
        assert!(
            pet(r#"{"name": "a", "tag": null, "tag": 2}"#)
                .unwrap_err()
                .starts_with("duplicate field `tag`")
        );
        assert!(
            pet(r#"{"name": "a", "age": 3}"#)
                .unwrap_err()
                .starts_with("unknown field `age`, expected one of `name`, `type`, `tag`")
        );
        assert!(pet(r#""Tom""#).unwrap_err().starts_with(
            r#"invalid type: string "Tom", expected struct Pet @ #/components/schemas/Pet"#
        ));
        // An array is not an object (serde's derive would read it as the fields in order).
        assert!(
            pet(r#"["Tom", null, 1]"#)
                .unwrap_err()
                .starts_with("invalid type: sequence, expected struct Pet")
        );
        assert!(
            pet(r#"{"name": 7}"#)
                .unwrap_err()
                .starts_with("invalid type: integer `7`")
        );
    }

    #[test]
    fn the_runtimes_decode_errors_name_the_schema() {
        let unknown = crate::protocol::mismatch::from_str::<Pet>(r#"{"name": "a", "age": 3}"#)
            .unwrap_err()
            .to_string();
        assert_eq!(
            unknown,
            "unknown member `age` (schema #/components/schemas/Pet)"
        );
        let array = crate::protocol::mismatch::from_str::<Pet>(r#"["a"]"#)
            .unwrap_err()
            .to_string();
        assert!(array.contains("expected an object"), "{array}");
        assert!(array.contains("#/components/schemas/Pet"), "{array}");
    }

    #[derive(Debug, PartialEq)]
    struct Head {
        parent: Option<u8>,
    }
    crate::__object!(Head deny_unknown_fields { parent = "parent" required });

    #[test]
    fn a_required_nullable_member_must_be_there_null_or_not() {
        let null: Head = serde_json::from_str(r#"{"parent": null}"#).unwrap();
        assert_eq!(null, Head { parent: None });
        let missing = serde_json::from_str::<Head>("{}").unwrap_err().to_string();
        assert!(missing.starts_with("missing field `parent`"), "{missing}");
    }

    #[test]
    fn written_as_the_derive_writes_absent_optional_members_left_out() {
        let full = Pet {
            name: "Tom".into(),
            r#type: Some("cat".into()),
            tag: Some(Some(1)),
        };
        assert_eq!(
            serde_json::to_string(&full).unwrap(),
            r#"{"name":"Tom","type":"cat","tag":1}"#
        );
        let bare = Pet {
            name: "Tom".into(),
            r#type: None,
            tag: None,
        };
        assert_eq!(serde_json::to_string(&bare).unwrap(), r#"{"name":"Tom"}"#);
        // A member that keeps `null` writes it; a required nullable one always is there.
        let null = Pet {
            tag: Some(None),
            ..bare
        };
        assert_eq!(
            serde_json::to_value(&null).unwrap(),
            json!({"name": "Tom", "tag": null})
        );
        assert_eq!(
            serde_json::to_string(&Head { parent: None }).unwrap(),
            r#"{"parent":null}"#
        );
        // What is written reads back as the same value.
        for pet in [full, null] {
            let text = serde_json::to_string(&pet).unwrap();
            assert_eq!(serde_json::from_str::<Pet>(&text).unwrap(), pet);
        }
    }

    #[test]
    fn the_length_given_the_serializer_counts_the_members_written() {
        // serde_json closes an object at once when told it has no members: a wrong count
        // would show as broken JSON.
        #[derive(Debug, PartialEq)]
        struct Sparse {
            a: Option<u8>,
            b: Option<u8>,
        }
        crate::__object!(Sparse deny_unknown_fields { a = "a" optional, b = "b" optional });
        let cases = [
            (Sparse { a: None, b: None }, "{}"),
            (
                Sparse {
                    a: None,
                    b: Some(2),
                },
                r#"{"b":2}"#,
            ),
            (
                Sparse {
                    a: Some(1),
                    b: Some(2),
                },
                r#"{"a":1,"b":2}"#,
            ),
        ];
        for (value, text) in cases {
            assert_eq!(serde_json::to_string(&value).unwrap(), text);
            assert_eq!(
                serde_json::to_string_pretty(&value)
                    .unwrap()
                    .replace([' ', '\n'], ""),
                text
            );
        }
    }

    /// An object with no members at all: its enum of members has no variant.
    #[derive(Debug, PartialEq)]
    struct Nothing {}
    crate::__object!(Nothing deny_unknown_fields {});

    #[test]
    fn an_object_without_members_reads_and_writes_as_empty() {
        assert_eq!(serde_json::from_str::<Nothing>("{}").unwrap(), Nothing {});
        let error = serde_json::from_str::<Nothing>(r#"{"a": 1}"#).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("unknown field `a`, there are no fields")
        );
        assert_eq!(serde_json::to_string(&Nothing {}).unwrap(), "{}");
    }

    #[test]
    fn a_format_that_names_members_by_their_place_finds_them() {
        use serde::Deserialize as _;
        use serde::de::value::{Error, MapDeserializer};
        let by_place = |members: Vec<(u64, &'static str)>| {
            Pet::deserialize(MapDeserializer::<_, Error>::new(members.into_iter()))
                .map_err(|e| e.to_string())
        };
        // (serde's value deserializers read no `Option`: only `name`, the first, is given.)
        assert_eq!(by_place(vec![(0, "Tom")]).unwrap().name, "Tom");
        let twice = by_place(vec![(0, "Tom"), (0, "Tim")]).unwrap_err();
        assert_eq!(twice, "duplicate field `name`");
        let beyond = by_place(vec![(0, "Tom"), (3, "x")]).unwrap_err();
        assert_eq!(
            beyond,
            "invalid value: integer `3`, expected the index of a field"
        );
    }

    #[test]
    fn unknown_members_are_skipped_unless_refused() {
        let open: Open = serde_json::from_str(r#"{"x": [1, {"y": 2}], "id": 4}"#).unwrap();
        assert_eq!(open, Open { id: 4 });
    }
}
