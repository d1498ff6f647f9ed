//! Where a generated module's schemas are written in its document, read only when a
//! decode error is reported.
//!
//! A generated type's decoding name carries one place, its schema's JSON pointer
//! (`#/components/schemas/Tx`); no file position, so that a document reformatted
//! (whitespace only) generates the same types. The module's [`Places`] table holds the
//! rest, keyed by JSON pointer: the `line:col` of each place, the other places an
//! identical schema is written (a bundled document writes a transaction under every
//! method that returns one), and the pointer of each method. A client given the table
//! ([`Client::places`](crate::client::Client::places)) cites, for a result that does not
//! decode, the place under the method that was called, with its position:
//! `(schema #/methods/67/result/schema/oneOf/1 at openrpc.json:40127:17)`, where the
//! type's own name says `#/methods/0/…` (the first method that reached the schema).
//!
//! The table is text, one entry a line, fields separated by tabs, each list sorted by its
//! first field (byte order) and searched by halves in place:
//!
//! - methods: `wire name \t pointer` (`eth_call\t#/methods/3`);
//! - places: `pointer \t line \t column`, and for each type whose schema is written
//!   again at that place, `\t` the type's own place
//!   (`#/methods/9/result/schema\t40\t7\t#/methods/1/result/schema`); line and column
//!   are empty where the position is not known.
//!
//! Text, not a slice of tuples: the compiler reads one string literal where it would
//! check and evaluate thousands of constant expressions (for the 240 methods and 604 places
//! of corpus D19, 2.6 M compiler instructions against 122 M: BENCHMARKS.md, "Issue 30:
//! compile cost … (branch `compile`)").

use std::cmp::Ordering;
use std::sync::OnceLock;

use super::Mismatch;

/// A generated module's table of places (see the module docs).
#[derive(Debug)]
pub struct Places {
    file: &'static str,
    methods: &'static str,
    places: &'static str,
    /// `methods` split into `(wire name, pointer)`, on first use: a client given a
    /// borrowed method name looks it up on every call.
    index: OnceLock<Box<[(&'static str, &'static str)]>>,
}

impl Places {
    /// A table: the document's file name (for places written `#/…`); the methods and the
    /// places, as text in the module docs' form.
    pub const fn new(file: &'static str, methods: &'static str, places: &'static str) -> Self {
        Places {
            file,
            methods,
            places,
            index: OnceLock::new(),
        }
    }

    /// The pointer of method `wire` (`#/methods/3`): looked up when an error is cited, or
    /// once per call where only a borrowed name is known then, so that an error needs no
    /// copy of the name.
    pub fn method(&self, wire: &str) -> Option<&'static str> {
        let index = self.index.get_or_init(|| {
            lines(self.methods)
                .filter_map(|line| line.split_once('\t'))
                .collect()
        });
        let found = index.binary_search_by(|(w, _)| (*w).cmp(wire)).ok()?;
        Some(index[found].1)
    }

    /// `mismatch` with its schema cited at the place under the method whose pointer is
    /// `method` (from [`method`](Self::method)) where there is one, and with that place's
    /// `file:line:col`.
    pub fn cite(&self, method: Option<&str>, mut mismatch: Mismatch) -> Mismatch {
        let Some(schema) = mismatch.schema.take() else {
            return mismatch;
        };
        let (place, fields) = match self.under(method, &schema) {
            Some(found) => found,
            None => match find(self.places, &schema) {
                Some((_, fields)) => (schema.as_str(), Some(fields)),
                None => (schema.as_str(), None),
            },
        };
        mismatch.schema = Some(match fields.and_then(position) {
            Some((line, column)) => {
                let file = match place.split_once('#') {
                    Some((file, _)) if !file.is_empty() => file,
                    _ => self.file,
                };
                format!("{place} at {file}:{line}:{column}")
            }
            None => place.to_owned(),
        });
        mismatch
    }

    /// The place of `schema` (a type's own place) under the method whose pointer is
    /// `method`, with the rest of its line: its own place when under the method, else
    /// the first place under the method where its schema is written again.
    fn under<'s>(
        &self,
        method: Option<&str>,
        schema: &'s str,
    ) -> Option<(&'s str, Option<&'static str>)> {
        let method = method?;
        let inside = |place: &str| {
            place
                .strip_prefix(method)
                .is_some_and(|rest| rest.starts_with('/'))
        };
        if inside(schema) {
            return Some((schema, find(self.places, schema).map(|(_, f)| f)));
        }
        let start = lower_bound(self.places, &format!("{method}/"));
        lines(&self.places[start..])
            .filter_map(|line| line.split_once('\t'))
            .take_while(|(place, _)| inside(place))
            .find(|(_, fields)| fields.split('\t').skip(2).any(|own| own == schema))
            .map(|(place, fields)| (place, Some(fields)))
    }
}

/// The `(line, column)` of a place's line, from its fields after the pointer.
fn position(fields: &str) -> Option<(u32, u32)> {
    let mut fields = fields.split('\t');
    let line = fields.next()?.parse().ok()?;
    let column = fields.next()?.parse().ok()?;
    Some((line, column))
}

/// The lines of `text`, without their `\n`.
fn lines(text: &'static str) -> impl Iterator<Item = &'static str> {
    text.split_terminator('\n')
}

/// The line of sorted `text` whose first field is `key`: that field and the rest after
/// its tab.
fn find(text: &'static str, key: &str) -> Option<(&'static str, &'static str)> {
    let start = lower_bound(text, key);
    let line = lines(&text[start..]).next()?;
    line.split_once('\t').filter(|(first, _)| *first == key)
}

/// Where the first line of sorted `text` whose first field is not below `key` starts
/// (`text.len()` when there is none): halves of the text, each cut at a line's start.
fn lower_bound(text: &str, key: &str) -> usize {
    let bytes = text.as_bytes();
    // Both always at a line's start (or the end): after a `\n`, a character's start.
    let (mut low, mut high) = (0, text.len());
    while low < high {
        let middle = low + (high - low) / 2;
        let start = bytes[low..middle]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(low, |i| low + i + 1);
        let end = bytes[start..high]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(high, |i| start + i + 1);
        let line = &text[start..end];
        let first = line.split(['\t', '\n']).next().unwrap_or_default();
        match first.cmp(key) {
            Ordering::Less => low = end,
            Ordering::Equal | Ordering::Greater => high = start,
        }
    }
    low
}

#[cfg(test)]
mod tests {
    use super::*;

    static PLACES: Places = Places::new(
        "api.json",
        "get_block\t#/methods/0\nget_tx\t#/methods/1\n",
        "#/methods/0/result/schema/properties/tx\t12\t9\n\
         #/methods/1/result/schema\t40\t7\t#/methods/0/result/schema/properties/tx\n\
         other.json#/components/schemas/Id\t3\t5\n",
    );

    fn mismatch(schema: &str) -> Mismatch {
        Mismatch {
            path: "/hash".into(),
            reason: "expected a string, found an integer 5".into(),
            schema: Some(schema.into()),
            nearest: None,
        }
    }

    #[test]
    fn cites_the_place_under_the_method_called_with_its_position() {
        let shared = "#/methods/0/result/schema/properties/tx";
        let called = PLACES.cite(PLACES.method("get_tx"), mismatch(shared));
        assert_eq!(
            called.to_string(),
            "at /hash: expected a string, found an integer 5 \
             (schema #/methods/1/result/schema at api.json:40:7)"
        );
        let first = PLACES.cite(PLACES.method("get_block"), mismatch(shared));
        assert_eq!(
            first.schema(),
            Some("#/methods/0/result/schema/properties/tx at api.json:12:9")
        );
    }

    #[test]
    fn other_files_and_unknown_places_keep_what_they_have() {
        let other = PLACES.cite(None, mismatch("other.json#/components/schemas/Id"));
        assert_eq!(
            other.schema(),
            Some("other.json#/components/schemas/Id at other.json:3:5")
        );
        let unknown = PLACES.cite(PLACES.method("nope"), mismatch("#/nowhere"));
        assert_eq!(unknown.schema(), Some("#/nowhere"));
    }

    /// Every line of a sorted text is found by its first field, whatever the lengths of
    /// the lines around it; a key between lines, before the first or after the last is
    /// not, and a key that only begins a line's field is not that line.
    #[test]
    fn a_sorted_text_is_searched_by_halves() {
        let keys: Vec<String> = (0..200)
            .map(|i| format!("#/methods/{i}{}", "/x".repeat(i % 7)))
            .collect();
        let mut sorted = keys.clone();
        sorted.sort();
        let text: &'static str = sorted
            .iter()
            .map(|k| format!("{k}\t{}\t1\n", k.len()))
            .collect::<String>()
            .leak();
        for key in &keys {
            assert_eq!(
                find(text, key),
                Some((key.as_str(), &*format!("{}\t1", key.len()))),
                "{key}"
            );
        }
        for absent in [
            "",
            "#",
            "#/methods/1/",
            "#/methods/5/x/x/x",
            "~",
            "#/methods/99/y",
        ] {
            assert_eq!(find(text, absent), None, "{absent}");
        }
        assert_eq!(find("", "a"), None);
        assert_eq!(find("a\t1\n", "a"), Some(("a", "1")));
        assert_eq!(lower_bound(text, "~"), text.len());
        assert_eq!(lower_bound(text, ""), 0);
    }

    #[test]
    fn a_place_written_again_is_found_under_each_method() {
        static MANY: Places = Places::new(
            "api.json",
            "a\t#/methods/0\nb\t#/methods/1\nc\t#/methods/10\n",
            "#/methods/0/result/schema\t1\t1\n\
             #/methods/1/params/0/schema\t2\t2\t#/methods/0/result/schema\n\
             #/methods/1/result/schema\t3\t3\t#/methods/0/result/schema\n\
             #/methods/10/result/schema\t4\t4\t#/methods/0/result/schema\n",
        );
        let cited = |method| {
            MANY.cite(MANY.method(method), mismatch("#/methods/0/result/schema"))
                .schema()
                .map(str::to_owned)
        };
        assert_eq!(
            cited("a").as_deref(),
            Some("#/methods/0/result/schema at api.json:1:1")
        );
        // The first in order of the places under `#/methods/1`, not under `#/methods/10`.
        assert_eq!(
            cited("b").as_deref(),
            Some("#/methods/1/params/0/schema at api.json:2:2")
        );
        assert_eq!(
            cited("c").as_deref(),
            Some("#/methods/10/result/schema at api.json:4:4")
        );
        assert_eq!(MANY.method("d"), None);
    }
}
