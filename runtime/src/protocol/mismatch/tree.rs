//! A JSON value as written: members in their order, a member given twice kept twice, `-0`
//! kept apart from `0`. What the careful re-reading walks ([`serde_json::Value`] would
//! sort members and drop duplicates, so a struct given a member twice would decode).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// One JSON value.
#[derive(Debug)]
pub(super) enum Tree {
    Null,
    Bool(bool),
    /// A non-negative integer.
    Unsigned(u64),
    /// A negative integer.
    Signed(i64),
    /// Any other number (a fraction, an exponent, `-0`, beyond 64 bits).
    Float(f64),
    String(String),
    Array(Vec<Tree>),
    Object(Vec<(String, Tree)>),
}

impl Tree {
    /// `-0`, which JSON Schema counts as the integer 0 and serde_json reads as `-0.0`.
    pub(super) fn is_negative_zero(&self) -> bool {
        matches!(*self, Tree::Float(f) if f == 0.0 && f.is_sign_negative())
    }
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TreeVisitor)
    }
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = Tree;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Tree, E> {
        Ok(Tree::Null)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Tree, E> {
        Ok(Tree::Bool(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Tree, E> {
        Ok(Tree::Unsigned(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Tree, E> {
        Ok(if v < 0 {
            Tree::Signed(v)
        } else {
            Tree::Unsigned(v.unsigned_abs())
        })
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Tree, E> {
        Ok(Tree::Float(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Tree, E> {
        Ok(Tree::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Tree, E> {
        Ok(Tree::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tree, A::Error> {
        let mut elements = Vec::new();
        while let Some(element) = seq.next_element()? {
            elements.push(element);
        }
        Ok(Tree::Array(elements))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tree, A::Error> {
        let mut members = Vec::new();
        while let Some(member) = map.next_entry()? {
            members.push(member);
        }
        Ok(Tree::Object(members))
    }
}

/// Written back as JSON: for a `RawValue` inside the type being decoded.
impl Serialize for Tree {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Tree::Null => serializer.serialize_unit(),
            Tree::Bool(b) => serializer.serialize_bool(*b),
            Tree::Unsigned(n) => serializer.serialize_u64(*n),
            Tree::Signed(n) => serializer.serialize_i64(*n),
            Tree::Float(f) => serializer.serialize_f64(*f),
            Tree::String(s) => serializer.serialize_str(s),
            Tree::Array(elements) => {
                let mut seq = serializer.serialize_seq(Some(elements.len()))?;
                elements.iter().try_for_each(|e| seq.serialize_element(e))?;
                seq.end()
            }
            Tree::Object(members) => {
                let mut map = serializer.serialize_map(Some(members.len()))?;
                members
                    .iter()
                    .try_for_each(|(k, v)| map.serialize_entry(k, v))?;
                map.end()
            }
        }
    }
}
