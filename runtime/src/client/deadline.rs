//! A call's deadline on its way out: where it rides (see
//! [`protocol::deadline`](crate::protocol::deadline)).

use std::collections::BTreeMap;
use std::time::SystemTime;

use bytes::Bytes;
use http::{HeaderName, HeaderValue};

use super::{Exchange, Transport};
use crate::protocol::{deadline, meta};

/// Puts `at` on `exchange`: as a header when the transport carries headers, else in the
/// params' `_meta` (when they have room for it; see `protocol::meta`).
pub(super) fn attach(exchange: &mut Exchange, at: SystemTime, transport: &dyn Transport) {
    let Some(text) = deadline::format(at) else {
        return;
    };
    if transport.carries_headers() {
        if let Ok(value) = HeaderValue::try_from(text) {
            exchange
                .headers_mut()
                .insert(HeaderName::from_static(deadline::HEADER), value);
        }
        return;
    }
    let fields = BTreeMap::from([(deadline::META.to_owned(), text)]);
    if let Some(message) = meta::insert_meta(exchange.message(), &fields) {
        exchange.set_message(Bytes::from(message));
    }
}
