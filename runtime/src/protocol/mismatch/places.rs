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

use super::Mismatch;

/// A generated module's table of places (see the module docs). Every list is sorted by
/// its first element (the generator writes them so), and searched by halves.
#[derive(Debug)]
pub struct Places {
    file: &'static str,
    methods: &'static [(&'static str, &'static str)],
    sites: &'static [(&'static str, &'static [&'static str])],
    positions: &'static [(&'static str, u32, u32)],
}

impl Places {
    /// A table: the document's file name (for places written `#/…`); each method's wire
    /// name and pointer; each type's place and the other places its schema is written;
    /// each place's line and column (1-based).
    pub const fn new(
        file: &'static str,
        methods: &'static [(&'static str, &'static str)],
        sites: &'static [(&'static str, &'static [&'static str])],
        positions: &'static [(&'static str, u32, u32)],
    ) -> Self {
        Places {
            file,
            methods,
            sites,
            positions,
        }
    }

    /// The index of method `wire` in the table, looked up once per call so that an error
    /// needs no copy of the name.
    pub fn method(&self, wire: &str) -> Option<usize> {
        self.methods.binary_search_by(|(w, _)| (*w).cmp(wire)).ok()
    }

    /// `mismatch` with its schema cited at the place under method `method` (an index from
    /// [`method`](Self::method)) where there is one, and with that place's `file:line:col`.
    pub fn cite(&self, method: Option<usize>, mut mismatch: Mismatch) -> Mismatch {
        let Some(schema) = mismatch.schema.take() else {
            return mismatch;
        };
        let place = self.under(method, &schema).unwrap_or(&schema);
        mismatch.schema = Some(match self.position(place) {
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

    /// The place among `schema`'s own and its other places that is under `method`.
    fn under(&self, method: Option<usize>, schema: &str) -> Option<&'static str> {
        let (_, prefix) = self.methods.get(method?)?;
        let index = self
            .sites
            .binary_search_by(|(s, _)| (*s).cmp(schema))
            .ok()?;
        let (own, others) = self.sites[index];
        let inside = |place: &&str| {
            place
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with('/'))
        };
        std::iter::once(own)
            .chain(others.iter().copied())
            .find(inside)
    }

    /// The `(line, column)` of `place`.
    fn position(&self, place: &str) -> Option<(u32, u32)> {
        let index = self
            .positions
            .binary_search_by(|(p, _, _)| (*p).cmp(place))
            .ok()?;
        let (_, line, column) = self.positions[index];
        Some((line, column))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static PLACES: Places = Places::new(
        "api.json",
        &[("get_block", "#/methods/0"), ("get_tx", "#/methods/1")],
        &[(
            "#/methods/0/result/schema/properties/tx",
            &["#/methods/1/result/schema"],
        )],
        &[
            ("#/methods/0/result/schema/properties/tx", 12, 9),
            ("#/methods/1/result/schema", 40, 7),
            ("other.json#/components/schemas/Id", 3, 5),
        ],
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
}
