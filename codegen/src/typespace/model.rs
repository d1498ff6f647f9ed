//! The language-neutral model of types: what a schema means, before any Rust is written.

use serde_json::Value;

/// Index of a named type in a [`super::TypeSpace`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct TypeId(pub(crate) usize);

/// Integer widths, chosen from `format` or from `minimum`/`maximum`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Int {
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `i128`
    I128,
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `u128`
    U128,
}

/// A use of a type: what a field, parameter, result or variant holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Ty {
    /// Any JSON value (`true`, `{}`, or a fallback).
    Value,
    /// A JSON object with any members (`{"type": "object"}` and nothing else).
    Object,
    /// `null` only.
    Unit,
    /// `true` or `false`.
    Bool,
    /// A string.
    String,
    /// An integer of a width.
    Int(Int),
    /// A JSON number that may have a fraction, kept exactly as written
    /// (`serde_json::Number`): one beyond `f64`'s 2^53 keeps every digit. Chosen by
    /// [`Shape::exact_numbers`](super::Shape::exact_numbers); [`Ty::Float`] otherwise.
    Number,
    /// A JSON number that may have a fraction, as `f64` (the default for `type: number`):
    /// what a handler adds and compares. The runtime writes an integral one within ±2^53
    /// as an integer (`100`, never `100.0`), so values keep their text.
    Float,
    /// A named type of the type space.
    Named(TypeId),
    /// Absent or `null`.
    Option(Box<Ty>),
    /// A JSON array of any length.
    Vec(Box<Ty>),
    /// A JSON array of exactly this length, all elements alike.
    Array(Box<Ty>, usize),
    /// A JSON array of fixed length, element types by position.
    Tuple(Vec<Ty>),
    /// A JSON object whose members all hold one type (keys sorted on output).
    Map(Box<Ty>),
    /// Heap indirection, inserted to break a cycle of by-value containment.
    Box(Box<Ty>),
}

impl Ty {
    /// The variant name of an untagged variant holding this type when it is unnamed
    /// (`String`, `Integer`, …).
    pub(crate) fn word(&self) -> &'static str {
        match self {
            Ty::Value => "Value",
            Ty::Object => "Object",
            Ty::Unit => "Null",
            Ty::Bool => "Bool",
            Ty::String => "String",
            Ty::Int(_) => "Integer",
            Ty::Number | Ty::Float => "Number",
            Ty::Vec(_) => "Array",
            Ty::Array(..) | Ty::Tuple(_) => "Tuple",
            Ty::Map(_) => "Map",
            Ty::Option(inner) | Ty::Box(inner) => inner.word(),
            Ty::Named(_) => "Type",
        }
    }

    /// Wraps in `Option` unless it already is one (`Option<Option<T>>` collapses).
    pub(crate) fn optional(self) -> Ty {
        match self {
            Ty::Option(_) => self,
            other => Ty::Option(Box::new(other)),
        }
    }
}

/// The validation keywords that apply where a type is used: checked by generated code
/// (see `render/checks.rs`) unless generation was told not to.
///
/// Every place a type is used has one: a named type (the keywords of its own schema), a
/// struct field, a param, a method result, an enum variant's payload. An array's items,
/// a tuple's elements and a map's values have theirs nested inside. The keywords of a
/// place are those written there, then those of the schemas it is made of (a `$ref`
/// target that is not a component, `allOf` members), the first written winning; a
/// component's keywords stay with the named type it becomes.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Validation {
    /// `format`
    pub(crate) format: Option<String>,
    /// `pattern`
    pub(crate) pattern: Option<String>,
    /// `minimum` (inclusive)
    pub(crate) minimum: Option<f64>,
    /// `exclusiveMinimum` as a number (draft 6 on), or `minimum` with
    /// `exclusiveMinimum: true` (draft 4).
    pub(crate) exclusive_minimum: Option<f64>,
    /// `maximum` (inclusive)
    pub(crate) maximum: Option<f64>,
    /// `exclusiveMaximum` as a number (draft 6 on), or `maximum` with
    /// `exclusiveMaximum: true` (draft 4).
    pub(crate) exclusive_maximum: Option<f64>,
    /// `multipleOf`
    pub(crate) multiple_of: Option<f64>,
    /// `minLength`
    pub(crate) min_length: Option<u64>,
    /// `maxLength`
    pub(crate) max_length: Option<u64>,
    /// `minItems`
    pub(crate) min_items: Option<u64>,
    /// `maxItems`
    pub(crate) max_items: Option<u64>,
    /// `uniqueItems: true`
    pub(crate) unique_items: bool,
    /// `minProperties`
    pub(crate) min_properties: Option<u64>,
    /// `maxProperties`
    pub(crate) max_properties: Option<u64>,
    /// `const`
    pub(crate) constant: Option<Value>,
    /// The keywords of an array's items (`items` as one schema).
    pub(crate) items: Option<Box<Validation>>,
    /// The keywords of a tuple's elements, by position (`items` as a list, or
    /// `prefixItems`); empty when none has any.
    pub(crate) prefix_items: Vec<Validation>,
    /// The keywords of a map's values (`additionalProperties` or `patternProperties`).
    pub(crate) values: Option<Box<Validation>>,
    /// The pattern every key of a map matches: its `patternProperties` (several as one
    /// alternation) beside `additionalProperties: false`.
    pub(crate) keys: Option<String>,
}

impl Validation {
    /// Reads the validation keywords written in one schema object (not those of the
    /// schemas inside it).
    pub(crate) fn of(schema: &Value) -> Validation {
        let f = |k: &str| schema.get(k).and_then(Value::as_f64);
        let u = |k: &str| schema.get(k).and_then(Value::as_u64);
        let text = |k: &str| schema.get(k).and_then(Value::as_str).map(str::to_owned);
        // Draft 4 writes an exclusive bound as the bound and a boolean flag.
        let bound = |bound: &str, flag: &str| match schema.get(flag) {
            Some(Value::Bool(true)) => (None, f(bound)),
            Some(Value::Number(n)) => (f(bound), n.as_f64()),
            _ => (f(bound), None),
        };
        let (minimum, exclusive_minimum) = bound("minimum", "exclusiveMinimum");
        let (maximum, exclusive_maximum) = bound("maximum", "exclusiveMaximum");
        Validation {
            format: text("format"),
            pattern: text("pattern"),
            minimum,
            exclusive_minimum,
            maximum,
            exclusive_maximum,
            multiple_of: f("multipleOf"),
            min_length: u("minLength"),
            max_length: u("maxLength"),
            min_items: u("minItems"),
            max_items: u("maxItems"),
            unique_items: schema.get("uniqueItems") == Some(&Value::Bool(true)),
            min_properties: u("minProperties"),
            max_properties: u("maxProperties"),
            constant: schema.get("const").cloned(),
            items: None,
            prefix_items: Vec::new(),
            values: None,
            keys: None,
        }
    }

    /// Whether no keyword is kept (here or nested).
    pub(crate) fn is_empty(&self) -> bool {
        *self == Validation::default()
    }

    /// Takes each keyword `self` lacks from `other` (the first written wins).
    pub(crate) fn fill_from(&mut self, other: Validation) {
        fn fill<T>(mine: &mut Option<T>, theirs: Option<T>) {
            if mine.is_none() {
                *mine = theirs;
            }
        }
        fill(&mut self.format, other.format);
        fill(&mut self.pattern, other.pattern);
        fill(&mut self.minimum, other.minimum);
        fill(&mut self.exclusive_minimum, other.exclusive_minimum);
        fill(&mut self.maximum, other.maximum);
        fill(&mut self.exclusive_maximum, other.exclusive_maximum);
        fill(&mut self.multiple_of, other.multiple_of);
        fill(&mut self.min_length, other.min_length);
        fill(&mut self.max_length, other.max_length);
        fill(&mut self.min_items, other.min_items);
        fill(&mut self.max_items, other.max_items);
        self.unique_items |= other.unique_items;
        fill(&mut self.min_properties, other.min_properties);
        fill(&mut self.max_properties, other.max_properties);
        fill(&mut self.constant, other.constant);
        fill(&mut self.items, other.items);
        if self.prefix_items.is_empty() {
            self.prefix_items = other.prefix_items;
        }
        fill(&mut self.values, other.values);
        fill(&mut self.keys, other.keys);
    }
}

/// Text shown to the reader of generated code.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Docs {
    /// `title` and `description`, joined.
    pub(crate) text: Option<String>,
    /// `deprecated: true`.
    pub(crate) deprecated: bool,
}

impl Docs {
    /// Reads `title`, `description` and `deprecated` of a schema object.
    pub(crate) fn of(schema: &Value) -> Docs {
        let title = schema.get("title").and_then(Value::as_str);
        let description = schema.get("description").and_then(Value::as_str);
        let text = match (title, description) {
            (Some(t), Some(d)) if !d.trim().is_empty() && t.trim() != d.trim() => {
                Some(format!("{}\n\n{}", t.trim(), d.trim()))
            }
            (_, Some(d)) if !d.trim().is_empty() => Some(d.trim().to_owned()),
            (Some(t), _) if !t.trim().is_empty() => Some(t.trim().to_owned()),
            _ => None,
        };
        Docs {
            text,
            deprecated: schema.get("deprecated") == Some(&Value::Bool(true)),
        }
    }
}

/// A member of a struct.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Field {
    /// The name on the wire.
    pub(crate) wire: String,
    /// The type held (for an optional field, the `Option`).
    pub(crate) ty: Ty,
    /// Listed in `required`.
    pub(crate) required: bool,
    /// Optional, and its type takes `null` (`["string", "null"]`, any value, `null`):
    /// `ty` is then `Option<T>` of that type unchanged (`Option<Option<String>>`), a
    /// member `null` decodes as `Some` of `T`'s null and absence as `None`, so both
    /// re-encode as they came.
    pub(crate) keeps_null: bool,
    /// Docs of the property schema.
    pub(crate) docs: Docs,
    /// The `default` of the property, shown in the docs.
    pub(crate) default: Option<Value>,
    /// Validation keywords of the property schema.
    pub(crate) validation: Validation,
    /// Other names the member is accepted under on decode (set by an override: `data`
    /// for `input`); it is always written under `wire`.
    pub(crate) aliases: Vec<String>,
    /// Where the property schema is written (`#/components/schemas/Tx/properties/input`),
    /// empty for a required member no property describes.
    pub(crate) origin: String,
}

/// A record with named members.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Struct {
    /// Known properties, in document order.
    pub(crate) fields: Vec<Field>,
    /// `additionalProperties: false`: unknown members are an error on decode.
    pub(crate) deny_unknown: bool,
    /// Other members, kept in a flattened map of this type.
    pub(crate) extra: Option<Ty>,
    /// Types merged in whole (an `allOf` member that is not a plain object).
    pub(crate) flattened: Vec<Ty>,
}

/// How an enum is written on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tagging {
    /// `{"Variant": payload}` or `"Variant"`.
    External,
    /// `{"tag": "Variant", …fields}`.
    Internal(String),
    /// `{"tag": "Variant", "content": payload}` (`content` absent for a unit variant).
    Adjacent {
        /// The member naming the variant.
        tag: String,
        /// The member holding the payload.
        content: String,
    },
    /// The payload alone; the first variant that decodes wins.
    Untagged,
}

/// What a variant carries.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Payload {
    /// Nothing (a string value, or a tag alone).
    Unit,
    /// One value.
    Newtype(Ty),
    /// Named members (internally tagged variants).
    Struct(Struct),
}

/// One variant of an enum.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Variant {
    /// The wire name (the tag value or key); `None` for untagged variants.
    pub(crate) wire: Option<String>,
    /// A name hint for the variant, re-cased and de-duplicated when rendered.
    pub(crate) hint: VariantHint,
    /// What it carries.
    pub(crate) payload: Payload,
    /// Docs of the branch.
    pub(crate) docs: Docs,
    /// Validation keywords of the branch (for a payload).
    pub(crate) validation: Validation,
}

/// Where a variant's Rust name comes from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum VariantHint {
    /// A fixed word (a wire name, `String`, `Integer`, …).
    Word(String),
    /// The name of a named type, once names are settled.
    Type(TypeId),
}

/// A sum type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Enum {
    /// Wire form.
    pub(crate) tagging: Tagging,
    /// Variants, in the order tried on decode.
    pub(crate) variants: Vec<Variant>,
}

/// The shape of a named type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// A record.
    Struct(Struct),
    /// A sum of variants.
    Enum(Enum),
    /// Integer values (`enum: [1, 2]`), written as numbers.
    IntEnum(Vec<i64>),
    /// A name for another type (`type X = …`).
    Alias(Ty),
    /// A wrapper struct around another type (used where an alias would be cyclic).
    Newtype(Ty),
    /// No value is valid (the `false` schema).
    Never,
}

/// A type that gets a Rust name.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TypeDef {
    /// The final name (settled once every type is known, by rank of its candidates).
    pub(crate) name: String,
    /// Name candidates, best first: `(rank, base)`; lower rank wins the name.
    pub(crate) candidates: Vec<(u8, String)>,
    /// The JSON pointer (and file) it came from, for docs and diagnostics.
    pub(crate) origin: String,
    /// Where decode errors say the schema is: `origin` (`#/components/schemas/Pet`), no
    /// file position (see the type space's docs).
    pub(crate) place: String,
    /// Docs.
    pub(crate) docs: Docs,
    /// Validation keywords of the schema.
    pub(crate) validation: Validation,
    /// The shape.
    pub(crate) kind: Kind,
    /// Set by an override: the existing Rust type used instead of generating this one.
    pub(crate) replaced_by: Option<String>,
    /// Set by overrides: derives added to the generated type (`schemars::JsonSchema`).
    pub(crate) derives: Vec<String>,
    /// The other places an identical schema is written (`file#pointer`), which share
    /// this type.
    pub(crate) sites: Vec<String>,
}
