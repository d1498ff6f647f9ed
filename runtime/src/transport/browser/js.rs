//! What the browser transports share: the global `fetch`, and JavaScript errors as
//! [`TransportError`]s.

use wasm_bindgen::prelude::*;

use crate::client::{TransportError, TransportErrorKind};

#[wasm_bindgen]
extern "C" {
    /// The global `fetch` (a window's or a worker's).
    #[wasm_bindgen(js_name = fetch)]
    pub(super) fn fetch(request: &web_sys::Request) -> js_sys::Promise;
}

/// `object[name]`, or `undefined`.
pub(super) fn field(object: &JsValue, name: &str) -> JsValue {
    js_sys::Reflect::get(object, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

/// What a JavaScript error says (its `message`, else its text).
fn describe(error: &JsValue) -> String {
    field(error, "message")
        .as_string()
        .or_else(|| error.as_string())
        .unwrap_or_else(|| "a JavaScript error".to_owned())
}

fn error(kind: TransportErrorKind, what: &str, error: &JsValue) -> TransportError {
    TransportError::new(kind, format!("{what}: {}", describe(error)))
}

/// The browser refused to set up a request (a bad URL, a header it forbids).
pub(super) fn config(e: JsValue) -> TransportError {
    error(
        TransportErrorKind::Config,
        "the browser refused the request",
        &e,
    )
}

/// The request did not reach the server, or its answer did not come back (network,
/// CORS: the browser says no more than that).
pub(super) fn connect(e: JsValue) -> TransportError {
    error(TransportErrorKind::Connect, "fetch failed", &e)
}

/// Reading the answer failed.
pub(super) fn io(e: JsValue) -> TransportError {
    error(
        TransportErrorKind::Io,
        "reading the HTTP response body failed",
        &e,
    )
}
