//! JSON-RPC over HTTP through the browser's `fetch`: a request/response
//! [`Transport`], each message one `POST`.

use bytes::Bytes;
use http::HeaderMap;
use http::header::{HeaderName, HeaderValue};
use send_wrapper::SendWrapper;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortController, Headers, ReadableStreamDefaultReader, Request, RequestInit, Response,
};

use super::js;
use crate::client::{Delivery, SendFuture, Transport, TransportError, TransportErrorKind};

/// The largest response body a [`Fetch`] reads unless told otherwise: 10 MiB, as the
/// native HTTP client.
pub const DEFAULT_MAX_RESPONSE_SIZE: usize = 10 * 1024 * 1024;

/// A [`Transport`] that `POST`s each message to one URL with the browser's `fetch`.
///
/// The browser's rules apply: a URL on another origin needs the server's CORS
/// consent (`http::Cors` on an rpcsmith server), and the browser, not this client,
/// decides on cookies, proxies and TLS. A call whose future is dropped (its timeout
/// passed) aborts its `fetch`.
#[derive(Debug, Clone)]
pub struct Fetch {
    url: String,
    headers: HeaderMap,
    max_response_size: usize,
}

impl Fetch {
    /// A transport posting to `url` (absolute, or relative to the page).
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            headers: HeaderMap::new(),
            max_response_size: DEFAULT_MAX_RESPONSE_SIZE,
        }
    }

    /// Adds `name: value` to every request (a header the browser allows a page to
    /// set: not `Host`, `Cookie` and the like, which it drops).
    pub fn header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.append(name, value);
        self
    }

    /// Refuses response bodies over `bytes` (the default is
    /// [`DEFAULT_MAX_RESPONSE_SIZE`]): the read stops there and the calls fail.
    pub fn max_response_size(mut self, bytes: usize) -> Self {
        self.max_response_size = bytes;
        self
    }

    async fn post(&self, message: Bytes, headers: HeaderMap) -> Result<Delivery, TransportError> {
        let abort = Abort::new()?;
        let request = self.request(&message, &headers, &abort.controller)?;
        let response: Response = JsFuture::from(js::fetch(&request))
            .await
            .map_err(js::connect)?
            .dyn_into()
            .map_err(js::connect)?;
        let status = response.status();
        let is_json = response
            .headers()
            .get("content-type")
            .ok()
            .flatten()
            .is_some_and(|kind| kind.to_ascii_lowercase().contains("json"));
        let body = read_body(&response, self.max_response_size).await?;
        abort.disarm();
        reply(status, is_json, body)
    }

    /// The `POST` of `message`, with the transport's headers and `extra`.
    fn request(
        &self,
        message: &[u8],
        extra: &HeaderMap,
        abort: &AbortController,
    ) -> Result<Request, TransportError> {
        let headers = Headers::new().map_err(js::config)?;
        headers
            .set("content-type", "application/json")
            .map_err(js::config)?;
        for (name, value) in self.headers.iter().chain(extra) {
            let value = value.to_str().map_err(|_| {
                TransportError::new(TransportErrorKind::Config, "a header value is not text")
            })?;
            headers.append(name.as_str(), value).map_err(js::config)?;
        }
        let init = RequestInit::new();
        init.set_method("POST");
        init.set_headers(&headers);
        init.set_body(&js_sys::Uint8Array::from(message));
        init.set_signal(Some(&abort.signal()));
        Request::new_with_str_and_init(&self.url, &init).map_err(js::config)
    }
}

/// Aborts its `fetch` when dropped before [`disarm`](Abort::disarm): the call was
/// given up.
struct Abort {
    controller: AbortController,
    armed: bool,
}

impl Abort {
    fn new() -> Result<Self, TransportError> {
        Ok(Self {
            controller: AbortController::new().map_err(js::config)?,
            armed: true,
        })
    }

    fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for Abort {
    fn drop(&mut self) {
        if self.armed {
            self.controller.abort();
        }
    }
}

/// Reads `response`'s body chunk by chunk, refusing it once it passes `limit`.
async fn read_body(response: &Response, limit: usize) -> Result<Bytes, TransportError> {
    let Some(stream) = response.body() else {
        return Ok(Bytes::new());
    };
    let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
    let mut body = Vec::new();
    loop {
        let chunk = JsFuture::from(reader.read()).await.map_err(js::io)?;
        if js::field(&chunk, "done").as_bool() == Some(true) {
            return Ok(Bytes::from(body));
        }
        let bytes = js_sys::Uint8Array::new(&js::field(&chunk, "value"));
        if body.len() + bytes.length() as usize > limit {
            // Stops the download; the error it may report changes nothing.
            let _ = reader.cancel();
            return Err(TransportError::new(
                TransportErrorKind::Io,
                "the HTTP response body is over the size limit",
            ));
        }
        let start = body.len();
        body.resize(start + bytes.length() as usize, 0);
        bytes.copy_to(&mut body[start..]);
    }
}

/// What an exchange's status and body say (as the native HTTP client reads them).
fn reply(status: u16, is_json: bool, body: Bytes) -> Result<Delivery, TransportError> {
    if (200..300).contains(&status) {
        return Ok(if body.is_empty() || status == 204 {
            Delivery::NoAnswer
        } else {
            Delivery::Answer(body)
        });
    }
    // A refusal the server explains in JSON-RPC (413 with an error body) is an answer.
    if is_json && !body.is_empty() {
        return Ok(Delivery::Answer(body));
    }
    Err(TransportError::from_http_status(status))
}

impl Transport for Fetch {
    fn is_request_response(&self) -> bool {
        true
    }

    fn carries_headers(&self) -> bool {
        true
    }

    fn send(&self, message: Bytes) -> SendFuture<'_> {
        self.send_with_headers(message, HeaderMap::new())
    }

    fn send_with_headers(&self, message: Bytes, headers: HeaderMap) -> SendFuture<'_> {
        // The browser's futures are `!Send`; a page runs on one thread.
        Box::pin(SendWrapper::new(self.post(message, headers)))
    }
}
