//! How a decode error of a call's answer cites the schema it failed: the method's place in
//! a generated module's table of places.

use crate::protocol::mismatch::{self, Places};

/// A method's place in a generated module's table of places, if the client has one (see
/// [`Client::places`]): how a decode error of its answers cites the schema.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cite(pub(super) Option<(&'static Places, Under)>);

/// The method a [`Cite`] cites under: its pointer, already looked up, or its wire name,
/// looked up only when an error is cited ([`Client::request_static`]).
#[derive(Debug, Clone, Copy)]
pub(super) enum Under {
    Found(Option<&'static str>),
    Wire(&'static str),
}

impl Cite {
    /// `mismatch` with its schema cited under the method, with its position.
    pub(super) fn cite(self, mismatch: mismatch::Mismatch) -> mismatch::Mismatch {
        match self.0 {
            Some((places, Under::Found(method))) => places.cite(method, mismatch),
            Some((places, Under::Wire(wire))) => places.cite(places.method(wire), mismatch),
            None => mismatch,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name kept for a decode error cites the same place as one looked up at the call.
    #[test]
    fn a_kept_name_cites_as_a_name_looked_up_at_once() {
        static PLACES: Places = Places::new(
            "api.json",
            "get_block\t#/methods/0\nget_tx\t#/methods/1\n",
            "#/methods/0/result/schema/properties/tx\t12\t9\n\
             #/methods/1/result/schema\t40\t7\t#/methods/0/result/schema/properties/tx\n",
        );
        #[derive(Debug, serde::Deserialize)]
        #[serde(rename(deserialize = "Tx @ #/methods/0/result/schema/properties/tx"))]
        struct Tx {
            #[expect(dead_code, reason = "only its type is read")]
            hash: String,
        }
        let mismatch = || mismatch::from_slice::<Tx>(br#"{"hash": 5}"#).expect_err("no string");
        for (wire, cited) in [
            ("get_tx", Some("#/methods/1/result/schema at api.json:40:7")),
            (
                "get_block",
                Some("#/methods/0/result/schema/properties/tx at api.json:12:9"),
            ),
            (
                "nope",
                Some("#/methods/0/result/schema/properties/tx at api.json:12:9"),
            ),
        ] {
            let kept = Cite(Some((&PLACES, Under::Wire(wire)))).cite(mismatch());
            let found = Cite(Some((&PLACES, Under::Found(PLACES.method(wire))))).cite(mismatch());
            assert_eq!(kept.schema(), cited, "{wire}");
            assert_eq!(kept.to_string(), found.to_string(), "{wire}");
        }
        assert_eq!(
            Cite(None).cite(mismatch()).schema(),
            Some("#/methods/0/result/schema/properties/tx")
        );
    }
}
