//! The careful re-reading: the value's [`Tree`] walked by a deserializer of its own, which
//! knows where it is (the JSON pointer of every value it hands out) and gets serde's
//! complaints as data ([`Fault`]) rather than text; and which reads `-0` as the integer 0
//! wherever an integer is asked for.

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};

use super::fault::{Fault, Hint, Kind};
use super::terms;
use super::tree::Tree;

/// Decodes `T` from `tree`.
pub(super) fn decode<'de, T: de::Deserialize<'de>>(tree: &'de Tree) -> Result<T, Fault> {
    T::deserialize(Node(tree)).map_err(|fault| fault.placed(tree, Hint::Any))
}

/// A value of the tree, as a deserializer.
#[derive(Clone, Copy)]
struct Node<'de>(&'de Tree);

impl<'de> Node<'de> {
    /// Hands the value to `visitor` as what it is, the fault placed here.
    fn any<V: Visitor<'de>>(self, visitor: V, hint: Hint) -> Result<V::Value, Fault> {
        self.visit(visitor).map_err(|f| f.placed(self.0, hint))
    }

    fn visit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fault> {
        match self.0 {
            Tree::Null => visitor.visit_unit(),
            Tree::Bool(b) => visitor.visit_bool(*b),
            Tree::Unsigned(n) => visitor.visit_u64(*n),
            Tree::Signed(n) => visitor.visit_i64(*n),
            Tree::Float(f) => visitor.visit_f64(*f),
            Tree::String(s) => visitor.visit_borrowed_str(s),
            Tree::Array(elements) => {
                let mut seq = Elements {
                    elements: elements.iter(),
                    index: 0,
                };
                let value = visitor.visit_seq(&mut seq)?;
                match seq.elements.len() {
                    0 => Ok(value),
                    _ => Err(Fault::new(
                        Kind::Length {
                            expected: Some(terms::array_of(seq.index)),
                            len: elements.len(),
                        },
                        None,
                    )),
                }
            }
            Tree::Object(members) => visitor.visit_map(Members {
                members: members.iter(),
                value: None,
            }),
        }
    }

    /// An integer is asked for: `-0` is 0.
    fn integer<V: Visitor<'de>>(self, visitor: V, serde: &'static str) -> Result<V::Value, Fault> {
        if self.0.is_negative_zero() {
            return visitor
                .visit_u64::<Fault>(0)
                .map_err(|f| f.placed(self.0, Hint::Serde(serde)));
        }
        self.any(visitor, Hint::Serde(serde))
    }

    /// A `RawValue` (serde_json's private newtype) is asked for: serde_json reads the
    /// value written back as JSON.
    fn raw<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, Fault> {
        let json = serde_json::to_vec(self.0).map_err(de::Error::custom)?;
        let mut de = serde_json::Deserializer::from_reader(json.as_slice());
        de.deserialize_newtype_struct(name, visitor)
            .map_err(|_| Fault::new(Kind::Expected(Some(String::from("any value"))), None))
    }
}

macro_rules! integers {
    ($($method:ident $serde:literal)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fault> {
                self.integer(visitor, $serde)
            }
        )*
    };
}

macro_rules! hinted {
    ($($method:ident $serde:literal)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fault> {
                self.any(visitor, Hint::Serde($serde))
            }
        )*
    };
}

impl<'de> Deserializer<'de> for Node<'de> {
    type Error = Fault;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fault> {
        self.any(visitor, Hint::Any)
    }

    integers! {
        deserialize_i8 "i8" deserialize_i16 "i16" deserialize_i32 "i32" deserialize_i64 "i64"
        deserialize_i128 "i128" deserialize_u8 "u8" deserialize_u16 "u16" deserialize_u32 "u32"
        deserialize_u64 "u64" deserialize_u128 "u128"
    }

    hinted! {
        deserialize_f32 "f32" deserialize_f64 "f64" deserialize_bool "a boolean"
        deserialize_char "a character" deserialize_str "a string" deserialize_string "a string"
        deserialize_bytes "a string" deserialize_byte_buf "a string" deserialize_unit "unit"
        deserialize_seq "a sequence" deserialize_identifier "a string"
    }

    /// A map: also how serde decodes a struct with a flattened member, whose name then
    /// comes only in what its visitor expects (`struct Tx @ #/…`).
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fault> {
        let expecting = (&visitor as &dyn de::Expected).to_string();
        self.any(visitor, Hint::Serde("a map"))
            .map_err(|f| f.in_type_expecting(&expecting))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fault> {
        match self.0 {
            Tree::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
        .map_err(|f| f.placed(self.0, Hint::Any))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Fault> {
        self.any(visitor, Hint::Serde("unit"))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Fault> {
        if name.starts_with("$serde_json::private::") {
            return self.raw(name, visitor);
        }
        visitor
            .visit_newtype_struct(self)
            .map_err(|f| f.placed(self.0, Hint::Any))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Fault> {
        self.any(visitor, Hint::Serde("a sequence"))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Fault> {
        self.any(visitor, Hint::Serde("a sequence"))
    }

    /// An object: serde would also take an array of the members' values, which no JSON
    /// Schema `object` matches, so the message says what the schema wants.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Fault> {
        if let Tree::Array(_) = self.0 {
            let expected = Kind::Expected(Some(String::from("an object")));
            return Err(Fault::new(expected, None)
                .placed(self.0, Hint::Any)
                .in_type(name));
        }
        self.any(visitor, Hint::Serde("a map"))
            .map_err(|f| f.in_type(name))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Fault> {
        let result = match self.0 {
            Tree::String(s) => visitor.visit_enum(BorrowedStrDeserializer::new(s)),
            Tree::Object(members) if members.len() == 1 => {
                let (key, value) = &members[0];
                visitor.visit_enum(Variant { key, value })
            }
            _ => Err(Fault::new(Kind::Expected(None), None)),
        };
        result.map_err(|f| f.placed(self.0, Hint::OneOf(variants)).in_type(name))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Fault> {
        visitor.visit_unit()
    }
}

/// The elements of an array.
struct Elements<'de> {
    elements: std::slice::Iter<'de, Tree>,
    /// The index of the next element.
    index: usize,
}

impl<'de> SeqAccess<'de> for Elements<'de> {
    type Error = Fault;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Fault> {
        let Some(element) = self.elements.next() else {
            return Ok(None);
        };
        let index = self.index;
        self.index += 1;
        seed.deserialize(Node(element))
            .map(Some)
            .map_err(|f| f.within(itoa::Buffer::new().format(index), element))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.elements.len())
    }
}

/// The members of an object, in their order.
struct Members<'de> {
    members: std::slice::Iter<'de, (String, Tree)>,
    /// The member whose key was read and whose value is next.
    value: Option<&'de (String, Tree)>,
}

impl<'de> MapAccess<'de> for Members<'de> {
    type Error = Fault;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Fault> {
        let Some(member) = self.members.next() else {
            return Ok(None);
        };
        self.value = Some(member);
        seed.deserialize(BorrowedStrDeserializer::new(&member.0))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Fault> {
        let Some((key, value)) = self.value.take() else {
            return Err(de::Error::custom(
                "a member's value was asked for before its key",
            ));
        };
        seed.deserialize(Node(value))
            .map_err(|f| f.within(key, value))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.members.len())
    }
}

/// An enum given as an object of one member: the variant and its content.
struct Variant<'de> {
    key: &'de str,
    value: &'de Tree,
}

impl<'de> EnumAccess<'de> for Variant<'de> {
    type Error = Fault;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), Fault> {
        let variant = seed.deserialize(BorrowedStrDeserializer::new(self.key))?;
        Ok((variant, self))
    }
}

impl<'de> VariantAccess<'de> for Variant<'de> {
    type Error = Fault;

    fn unit_variant(self) -> Result<(), Fault> {
        <() as de::Deserialize>::deserialize(Node(self.value))
            .map_err(|f| f.within(self.key, self.value))
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, Fault> {
        seed.deserialize(Node(self.value))
            .map_err(|f| f.within(self.key, self.value))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Fault> {
        Node(self.value)
            .deserialize_seq(visitor)
            .map_err(|f| f.within(self.key, self.value))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Fault> {
        Node(self.value)
            .deserialize_map(visitor)
            .map_err(|f| f.within(self.key, self.value))
    }
}
