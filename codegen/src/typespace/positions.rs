//! Where each place a generated type cites is written: the table that decode errors read
//! (`rpcsmith::protocol::mismatch::Places`), kept apart from the types themselves.
//!
//! Generated names and decoding names carry a place as a JSON pointer only, so a document
//! reformatted (whitespace only) generates the same types; the `line:col` of each place,
//! and the pointer of each method (to find the place under the method called), are
//! collected here while converting, and written once as the module's `PLACES` table.

use std::collections::BTreeMap;

/// The positions of the places a document's types cite, and its methods' pointers.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Positions {
    /// The document's file name, for places written `#/…`.
    pub(crate) file: String,
    /// Each method's wire name and place (`#/methods/3`), sorted by name.
    pub(crate) methods: BTreeMap<String, String>,
    /// Each place (`#/…` or `other.json#/…`) and its 1-based line and column.
    pub(crate) places: BTreeMap<String, (usize, usize)>,
}
