//! Why a JSON value did not decode into its type, in the document's terms.
//!
//! [`from_str`] and [`from_slice`] decode like `serde_json`'s functions of the same
//! names, straight from the text, at the same cost. Only when that fails is the value
//! read again, the careful way (a tree of the value walked by a deserializer that knows
//! where it is), to say what went wrong as a [`Mismatch`]: where (a JSON pointer) and
//! why, in JSON's words rather than Rust's.
//!
//! | what went wrong | [`Mismatch::reason`] |
//! |---|---|
//! | a value of the wrong type | ``expected an integer, found a string "abc"`` |
//! | a number outside its type's width | `expected an integer between 0 and 255, found an integer 300` |
//! | a string none of an enum's values | ``expected one of "red", "green", found a string "blue"`` |
//! | a value none of a `oneOf`'s alternatives | ``expected a value matching one of its schemas, found a string "x"`` |
//! | an array of the wrong length | `expected an array of 2 elements, found an array of 3 elements` |
//! | a required member left out | ``missing member `id` `` |
//! | a member a closed object does not have | ``unknown member `x` `` |
//! | a member given twice | ``duplicate member `id` `` |
//!
//! Where the type was generated from a document, the message also names the schema that
//! says so, the innermost generated type the value at fault sits in, by JSON pointer
//! (`(schema #/components/schemas/Tx)`); and for a value
//! that no variant of an untagged enum fits, why the nearest variant failed rather than
//! that none matched (see [`untagged`]):
//! ``at /transactions/0: missing member `blockTimestamp` (schema …); nearest of 2
//! variants: `FullTransactions` of #/…``.
//!
//! The expected type is named as JSON Schema would (`an integer`, `a non-negative
//! integer`, `a number`, `a boolean`, `a string`, `an array`, `an object`, `null`); what
//! was found likewise, a string quoted as JSON and cut after 32 characters with `…`, so
//! that a huge value never makes a huge message. No Rust type, file path or panic text
//! ever appears. [`Mismatch::path`] is the JSON pointer of the value at fault inside
//! the whole (`/items/3/id`; empty for the whole value), its tokens cut likewise.
//!
//! A JSON `-0` is an integer for JSON Schema, and decodes as 0 where an integer is
//! expected (serde_json reads it as the float `-0.0`, which integer types refuse; the
//! careful reading accepts it, so only such values pay for a second reading). `-0.0`
//! reads the same (serde_json cannot tell the two apart, and JSON Schema counts both as
//! integers); any other number with a fraction or an exponent stays refused.

mod fault;
mod places;
mod reread;
mod terms;
mod tree;
pub mod untagged;

use std::fmt;

use serde::de::DeserializeOwned;

pub use places::Places;
pub(crate) use terms::shorten;
use tree::Tree;

/// Why a JSON value did not decode into its type: where, and why in JSON terms.
///
/// `Display` writes the reason, preceded by `at <path>: ` when the value at fault is
/// inside the whole: `at /items/3/id: expected an integer, found a string "abc"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    path: String,
    reason: String,
    schema: Option<String>,
    nearest: Option<String>,
}

impl Mismatch {
    /// The JSON pointer of the value at fault (`/items/3/id`), empty when it is the whole
    /// value.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Why the value at [`path`](Self::path) did not decode: ``expected an integer,
    /// found a string "abc"``, ``missing member `id` ``.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The schema that says so, where the type is generated: its JSON pointer
    /// (`#/components/schemas/Tx`), as the generator wrote it.
    pub fn schema(&self) -> Option<&str> {
        self.schema.as_deref()
    }

    /// For a value no variant of an untagged enum fits, the variant that came nearest
    /// (whose fault [`path`](Self::path) and [`reason`](Self::reason) tell):
    /// ``nearest of 2 variants: `Full` of #/components/schemas/Txs at api.json:40:7``.
    pub fn nearest(&self) -> Option<&str> {
        self.nearest.as_deref()
    }

    /// The mismatch after a subject: ``: <reason>``, or `` at <path>: <reason>`` when
    /// the path is not empty (``invalid param `a` at /id: expected …``).
    pub(crate) fn after_subject(&self) -> AfterSubject<'_> {
        AfterSubject(self)
    }

    /// The reason, then the schema and the nearest variant where known.
    fn write_reason(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)?;
        if let Some(schema) = &self.schema {
            write!(f, " (schema {schema})")?;
        }
        if let Some(nearest) = &self.nearest {
            write!(f, "; {nearest}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.path.is_empty() {
            write!(f, "at {}: ", self.path)?;
        }
        self.write_reason(f)
    }
}

impl std::error::Error for Mismatch {}

/// [`Mismatch::after_subject`].
pub(crate) struct AfterSubject<'a>(&'a Mismatch);

impl fmt::Display for AfterSubject<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.path.as_str() {
            "" => f.write_str(": ")?,
            path => write!(f, " at {path}: ")?,
        }
        self.0.write_reason(f)
    }
}

/// Decodes `T` from JSON text.
///
/// # Errors
///
/// [`Mismatch`] when `json` is not a `T` (or not JSON).
#[inline]
pub fn from_str<T: DeserializeOwned>(json: &str) -> Result<T, Mismatch> {
    serde_json::from_str(json).or_else(|_| carefully(json.as_bytes()))
}

/// Decodes `T` from JSON bytes.
///
/// The bytes are checked as UTF-8 once, whole, and then read as text: serde_json's
/// reading of bytes checks each string on its own, which for a 118 KB block of some
/// 6,000 strings cost 3.5 times the one check (542,000 instructions a block against
/// 155,000, by callgrind).
///
/// # Errors
///
/// [`Mismatch`] when `json` is not a `T` (or not JSON).
#[inline]
pub fn from_slice<T: DeserializeOwned>(json: &[u8]) -> Result<T, Mismatch> {
    match std::str::from_utf8(json) {
        Ok(text) => from_str(text),
        // Not UTF-8: serde_json's reading of bytes says where.
        Err(_) => serde_json::from_slice(json).or_else(|_| carefully(json)),
    }
}

/// The careful reading, after the fast one failed: `T` after all when the failure was a
/// `-0` where an integer is expected, else what is wrong and where.
#[cold]
#[inline(never)]
fn carefully<T: DeserializeOwned>(json: &[u8]) -> Result<T, Mismatch> {
    let tree: Tree = serde_json::from_slice(json).map_err(|e| {
        let text = e.to_string();
        let reason = text.split(" at line ").next().unwrap_or(&text);
        Mismatch {
            path: String::new(),
            reason: format!("not valid JSON: {reason}"),
            schema: None,
            nearest: None,
        }
    })?;
    reread::decode(&tree).map_err(|fault| Mismatch {
        path: fault.path(),
        reason: fault.to_string(),
        schema: fault.schema().map(str::to_owned),
        nearest: fault.nearest(),
    })
}

#[cfg(test)]
mod tests;
