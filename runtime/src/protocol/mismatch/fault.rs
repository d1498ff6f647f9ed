//! Why a value did not decode, as data ([`Fault`]): what serde said (through
//! [`de::Error`]'s constructors, which carry the expected type and the value found
//! apart), where (the JSON pointer, built as the fault passes out of each value), and
//! what the value there was; written in the document's terms by `Display`.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{self, Expected, Unexpected};

use super::terms;
use super::tree::Tree;

/// Why a value did not decode, as data: what serde said, where, and what was there.
#[derive(Debug)]
pub(super) struct Fault {
    /// JSON pointer tokens (escaped), innermost first.
    path: Vec<String>,
    kind: Kind,
    /// What the value was, in JSON terms.
    found: Option<String>,
    /// Whether the value the fault is about has been found (the innermost value that
    /// saw it pass): only that one fills in `found` and the expected type.
    placed: bool,
    /// Which schema says so and which variant came nearest, once known (boxed: most
    /// faults never know, and a fault is passed up by value through every level).
    about: Option<Box<About>>,
}

/// What a fault may know about the document's side of it.
#[derive(Debug, Default)]
struct About {
    /// The schema that says so: the place of the innermost generated type the fault
    /// passed out of (`#/components/schemas/Tx at api.json:12:5`), from its serde name.
    schema: Option<Cow<'static, str>>,
    /// For a value no variant of an untagged enum fits: which variant came nearest, of
    /// which enum (its schema's place).
    nearest: Option<Nearest>,
}

/// The variant of an untagged enum that came nearest to a value.
#[derive(Debug)]
pub(super) struct Nearest {
    /// The variant's name.
    pub(super) variant: &'static str,
    /// How many variants were tried.
    pub(super) of: usize,
    /// The enum's schema's place, when known.
    pub(super) schema: Option<&'static str>,
}

/// What separates a generated type's Rust name from its schema's place in the serde name
/// the generator gives it for decoding (`Pet @ #/components/schemas/Pet at api.json:12:5`).
pub(crate) const SCHEMA_MARK: &str = " @ ";

/// The schema's place in a generated type's serde name, if it carries one.
pub(super) fn schema_of(name: &'static str) -> Option<&'static str> {
    name.split_once(SCHEMA_MARK).map(|(_, place)| place)
}

/// What went wrong.
#[derive(Debug)]
pub(super) enum Kind {
    /// A value of the wrong type or outside the allowed ones: the expected type in JSON
    /// terms, `None` until known.
    Expected(Option<String>),
    /// An array of the wrong length.
    Length {
        expected: Option<String>,
        len: usize,
    },
    /// A required member left out.
    Missing(&'static str),
    /// A member a closed object does not have (its name cut short).
    Unknown(String),
    /// A member given twice.
    Duplicate(&'static str),
    /// A string that is none of the allowed values.
    Variant(&'static [&'static str]),
    /// A value that matches none of an untagged enum's alternatives.
    NoAlternative,
    /// A type's own words (`5 is not one of 1, 2`).
    Other(String),
}

/// What the deserializer was asked for: the expected type when serde's words for it are
/// unknown, and the allowed values of an enum.
#[derive(Clone, Copy)]
pub(super) enum Hint {
    /// Nothing more than a value.
    Any,
    /// Serde's words for the type, as [`terms::expected`] knows them.
    Serde(&'static str),
    /// The values an enum allows.
    OneOf(&'static [&'static str]),
}

/// How many characters of a type's own words a message keeps.
const OWN_WORDS: usize = 200;

impl Fault {
    pub(super) fn new(kind: Kind, found: Option<String>) -> Self {
        Fault {
            path: Vec::new(),
            kind,
            found,
            placed: false,
            about: None,
        }
    }

    /// The fault, having passed out of the type whose serde name is `name`: the first
    /// generated type it passes out of is the schema that says so.
    pub(super) fn in_type(self, name: &'static str) -> Self {
        match schema_of(name) {
            Some(place) => self.in_schema(Cow::Borrowed(place)),
            None => self,
        }
    }

    /// [`in_type`](Self::in_type) for a type known only by what its visitor expects
    /// (`struct Tx @ #/…`).
    pub(super) fn in_type_expecting(self, expecting: &str) -> Self {
        match expecting.split_once(SCHEMA_MARK) {
            Some((_, place)) => self.in_schema(Cow::Owned(place.to_owned())),
            None => self,
        }
    }

    fn in_schema(mut self, place: Cow<'static, str>) -> Self {
        let about = self.about.get_or_insert_default();
        if about.schema.is_none() {
            about.schema = Some(place);
        }
        self
    }

    /// How near the value came to fitting: deeper faults are nearer, and at one depth a
    /// fault about a member is nearer than one about the kind of value.
    pub(super) fn nearness(&self) -> (usize, bool) {
        (self.path.len(), !matches!(self.kind, Kind::Expected(_)))
    }

    /// The fault of the variant that came nearest, as that of the untagged enum itself.
    pub(super) fn tried_as(mut self, nearest: Nearest) -> Self {
        let about = self.about.get_or_insert_default();
        if about.nearest.is_none() {
            about.nearest = Some(nearest);
        }
        self
    }

    /// The schema that says so, if known.
    pub(super) fn schema(&self) -> Option<&str> {
        self.about.as_ref()?.schema.as_deref()
    }

    /// Which variant of which untagged enum came nearest, in words.
    pub(super) fn nearest(&self) -> Option<String> {
        let nearest = self.about.as_ref()?.nearest.as_ref();
        nearest.map(|n| {
            let of = match n.schema {
                Some(place) => format!("of {place}"),
                None => String::from("of its enum"),
            };
            format!("nearest of {} variants: `{}` {of}", n.of, n.variant)
        })
    }

    /// The fault, its value found: `node` when the fault is about it.
    pub(super) fn placed(mut self, node: &Tree, hint: Hint) -> Self {
        if std::mem::replace(&mut self.placed, true) {
            return self;
        }
        if self.found.is_none() {
            self.found = Some(describe(node));
        }
        match (&mut self.kind, hint) {
            (Kind::Expected(expected), Hint::OneOf(values)) => {
                *expected = Some(terms::one_of(values));
            }
            (Kind::Expected(expected @ None), Hint::Serde(words)) => {
                *expected = terms::expected(words);
            }
            _ => {}
        }
        self
    }

    /// The fault of a value inside another: `token` is the value's key or index.
    pub(super) fn within(self, token: &str, node: &Tree) -> Self {
        let mut fault = self.placed(node, Hint::Any);
        fault.path.push(pointer_token(token));
        fault
    }

    /// The JSON pointer of the value the fault is about (`""` for the whole value).
    pub(super) fn path(&self) -> String {
        self.path
            .iter()
            .rev()
            .fold(String::new(), |mut path, token| {
                path.push('/');
                path.push_str(token);
                path
            })
    }
}

/// Why, in the document's terms: `expected an integer, found a string "x"`.
impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let expected = match &self.kind {
            Kind::Expected(expected) => expected.as_deref().unwrap_or("a value of another kind"),
            Kind::Length { expected, len } => {
                let expected = expected.as_deref().unwrap_or("another length");
                return write!(f, "expected {expected}, found {}", terms::array_of(*len));
            }
            Kind::Missing(name) => return write!(f, "missing member `{name}`"),
            Kind::Unknown(name) => return write!(f, "unknown member `{name}`"),
            Kind::Duplicate(name) => return write!(f, "duplicate member `{name}`"),
            Kind::Variant(values) => &terms::one_of(values),
            Kind::NoAlternative => "a value matching one of its schemas",
            Kind::Other(words) => return f.write_str(words),
        };
        match &self.found {
            Some(found) => write!(f, "expected {expected}, found {found}"),
            None => write!(f, "expected {expected}"),
        }
    }
}

impl std::error::Error for Fault {}

thread_local! {
    /// A fault handed over ([`hand_over`]) for the next error this thread makes.
    static HANDED: Cell<Option<Fault>> = const { Cell::new(None) };
}

/// Makes the error `make` returns from `fault` itself, when that error is a [`Fault`]
/// (the careful re-reading is deserializing); another error type gets `make`'s own.
///
/// serde hands a deserializer's errors over only as text (`de::Error::custom` takes a
/// `Display`, the error type being generic), so a fault known as data would come back
/// as words. It goes beside them instead: held for the one `custom` call `make` makes,
/// taken by it when the error is a `Fault`, and taken back after, so nothing is left
/// for a later error.
pub(super) fn hand_over<E>(fault: Fault, make: impl FnOnce() -> E) -> E {
    HANDED.set(Some(fault));
    let error = make();
    HANDED.take();
    error
}

impl de::Error for Fault {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        if let Some(fault) = HANDED.take() {
            return fault;
        }
        let words = msg.to_string();
        if words.starts_with("data did not match any variant of untagged enum") {
            return Fault::new(Kind::NoAlternative, None);
        }
        let words = match words.char_indices().nth(OWN_WORDS) {
            Some((end, _)) => format!("{}…", &words[..end]),
            None => words,
        };
        Fault::new(Kind::Other(words), None)
    }

    fn invalid_type(unexpected: Unexpected<'_>, expected: &dyn Expected) -> Self {
        let expected = terms::expected(&expected.to_string());
        Fault::new(Kind::Expected(expected), terms::found(&unexpected))
    }

    fn invalid_value(unexpected: Unexpected<'_>, expected: &dyn Expected) -> Self {
        Self::invalid_type(unexpected, expected)
    }

    fn invalid_length(len: usize, expected: &dyn Expected) -> Self {
        let expected = terms::expected(&expected.to_string());
        Fault::new(Kind::Length { expected, len }, None)
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        let found = format!("a string {}", terms::quote(variant));
        Fault::new(Kind::Variant(expected), Some(found))
    }

    fn unknown_field(field: &str, _expected: &'static [&'static str]) -> Self {
        Fault::new(Kind::Unknown(terms::shorten(field)), None)
    }

    fn missing_field(field: &'static str) -> Self {
        Fault::new(Kind::Missing(field), None)
    }

    fn duplicate_field(field: &'static str) -> Self {
        Fault::new(Kind::Duplicate(field), None)
    }
}

/// A value in JSON terms: `a string "abc"`, `an integer 5`, `an object`.
fn describe(node: &Tree) -> String {
    match node {
        Tree::Null => String::from("null"),
        Tree::Bool(b) => format!("a boolean {b}"),
        Tree::Unsigned(n) => format!("an integer {n}"),
        Tree::Signed(n) => format!("an integer {n}"),
        Tree::Float(f) => format!("a number {}", terms::number(*f)),
        Tree::String(s) => format!("a string {}", terms::quote(s)),
        Tree::Array(_) => String::from("an array"),
        Tree::Object(_) => String::from("an object"),
    }
}

/// A JSON pointer token (RFC 6901) for a key or index, cut to a short prefix.
fn pointer_token(key: &str) -> String {
    terms::shorten(key).replace('~', "~0").replace('/', "~1")
}
