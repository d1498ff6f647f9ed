//! Where a call's params come from: the raw params and, from a generated dispatcher, the
//! place under the method called where their schemas are written ([`Site`]), which a
//! decode error cites.

use std::borrow::Borrow;

use serde_json::value::RawValue;

use crate::protocol::mismatch::{Mismatch, Places};

/// Where a call's params are described: the generated module's table of places and the
/// wire name of the method called. A param's decode error cites its schema there.
#[derive(Debug, Clone, Copy)]
pub struct Site<'a> {
    places: &'static Places,
    method: &'a str,
}

impl<'a> Site<'a> {
    /// The params of `method` (its wire name), whose schemas `places` locates.
    pub fn new(places: &'static Places, method: &'a str) -> Self {
        Site { places, method }
    }

    /// `mismatch` citing its schema under the method, with its position.
    fn cite(self, mismatch: Mismatch) -> Mismatch {
        self.places.cite(self.places.method(self.method), mismatch)
    }
}

/// A call's params as a generated params struct's `decode` takes them: the raw params
/// (`None` when absent) and, from a generated dispatcher, where their schemas are written,
/// so that a param that does not decode cites its schema under the method called, with
/// its `file:line:col`.
///
/// `Some(&raw).into()` makes one without that place (a `&RawValue` or a
/// `&Box<RawValue>`); `CallParams::default()` stands for absent params:
///
/// ```
/// use rpcsmith::server::CallParams;
///
/// /// The params of `divide`.
/// pub struct DivideParams {
///     pub dividend: i64,
///     pub divisor: i64,
/// }
/// rpcsmith::__private::decode_params!(DivideParams by_name_or_position { dividend = "a", divisor = "b" });
///
/// let raw = rpcsmith::__private::serde_json::value::RawValue::from_string("[7, 2]".to_owned()).unwrap();
/// let params = DivideParams::decode(Some(&raw).into()).unwrap();
/// assert_eq!((params.dividend, params.divisor), (7, 2));
/// let missing = DivideParams::decode(CallParams::default()).err().unwrap();
/// assert_eq!(missing.message, "missing param `a`");
/// ```
///
/// One type rather than a second function beside `decode` for the dispatcher: each
/// function of a params struct costs the compiler, and a generic `decode` taking either
/// cost 0.9 % of corpus D19's compile in instructions (BENCHMARKS.md, "Issue 30: compile
/// cost … (branch `compile`)").
#[derive(Debug, Clone, Copy, Default)]
pub struct CallParams<'a> {
    pub(super) raw: Option<&'a RawValue>,
    pub(super) site: Option<Site<'a>>,
}

impl<'a> CallParams<'a> {
    /// The params `raw` of a call of `method` (its wire name), whose schemas `places`
    /// (a generated module's `PLACES`) locates: what a generated dispatcher passes.
    pub fn at(raw: Option<&'a RawValue>, places: &'static Places, method: &'a str) -> Self {
        CallParams {
            raw,
            site: Some(Site::new(places, method)),
        }
    }
}

/// `Some(&raw)` of a `RawValue` or of what holds one (a `Box<RawValue>`), without a place.
impl<'a, T: Borrow<RawValue> + ?Sized> From<Option<&'a T>> for CallParams<'a> {
    fn from(raw: Option<&'a T>) -> Self {
        CallParams {
            raw: raw.map(Borrow::borrow),
            site: None,
        }
    }
}

/// `mismatch` cited at `site` when there is one.
pub(super) fn cited(site: Option<Site<'_>>, mismatch: Mismatch) -> Mismatch {
    match site {
        Some(site) => site.cite(mismatch),
        None => mismatch,
    }
}
