//! The wire error object and its codes.

use std::borrow::Cow;
use std::convert::Infallible;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// Error codes: the ones the JSON-RPC 2.0 specification defines, and the ones rpcsmith's
/// engines use from the implementation-defined range `-32000..=-32099`.
///
/// The implementation-defined codes match jsonrpsee's where both define the same
/// condition, so clients of either read them alike.
pub mod code {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal JSON-RPC error (also: a handler panicked).
    pub const INTERNAL_ERROR: i64 = -32603;
    /// A rate limit refused the call; its `data` says when to retry:
    /// `{"retryAfterMs": N}`. The code EIP-1474 names "limit exceeded", which Ethereum
    /// providers answer on rate limits.
    pub const RATE_LIMITED: i64 = -32005;
    /// The request is larger than the server accepts; checked before parsing.
    pub const REQUEST_TOO_LARGE: i64 = -32007;
    /// The response would be larger than the server sends.
    pub const RESPONSE_TOO_LARGE: i64 = -32008;
    /// Too many calls in flight on this connection.
    pub const SERVER_BUSY: i64 = -32009;
    /// The batch has more entries than the server accepts.
    pub const BATCH_TOO_LARGE: i64 = -32010;
    /// The handler did not finish within the server's time limit.
    pub const TIMEOUT: i64 = -32012;
    /// The call was cancelled before it finished.
    pub const CANCELLED: i64 = -32013;
    /// Too many subscriptions: the connection's push subscriptions, or the server's pull
    /// streams, are at their limit.
    pub const TOO_MANY_SUBSCRIPTIONS: i64 = -32014;
    /// A proxy could not get an answer from its upstream (unreachable, closed, or an
    /// answer that is not JSON-RPC).
    pub const UPSTREAM_UNAVAILABLE: i64 = -32015;
    /// An access rule refused the call: the caller may not call this method.
    pub const ACCESS_DENIED: i64 = -32016;
    /// A signed request's signature, timestamp or nonce did not hold (feature `sign`;
    /// see `protocol::sign` for the messages).
    pub const SIGNATURE_REFUSED: i64 = -32017;
    /// The caller's deadline (sent with the call, see `protocol::deadline`) passed
    /// before the handler finished, or before the call arrived: the handler was
    /// cancelled, or never ran.
    pub const DEADLINE_EXCEEDED: i64 = -32018;
}

/// A JSON-RPC error object: `{"code": …, "message": …, "data": …}`.
///
/// It owns its contents, so it can travel anywhere; `data` is kept as raw JSON.
///
/// ```
/// use rpcsmith::protocol::{code, ErrorObject};
///
/// let e = ErrorObject::method_not_found();
/// assert_eq!(e.code, code::METHOD_NOT_FOUND);
/// assert_eq!(serde_json::to_string(&e).unwrap(), r#"{"code":-32601,"message":"Method not found"}"#);
/// ```
#[derive(Clone, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code; see [`code`].
    pub code: i64,
    /// A short description of the error.
    pub message: Cow<'static, str>,
    /// Additional information, as raw JSON; omitted when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Box<RawValue>>,
}

impl ErrorObject {
    /// An error with a code and a message and no data.
    pub fn new(code: i64, message: impl Into<Cow<'static, str>>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// An error with a code, a message, and `data` serialized from `data` (left out
    /// when it fails to serialize).
    ///
    /// ```
    /// use rpcsmith::protocol::ErrorObject;
    ///
    /// let e = ErrorObject::with_data(1, "Insufficient funds", &[7, 3]);
    /// assert_eq!(e.data_as::<Vec<u8>>(), Some(vec![7, 3]));
    /// assert_eq!(e.data_as::<String>(), None);
    /// ```
    pub fn with_data<D: Serialize + ?Sized>(
        code: i64,
        message: impl Into<Cow<'static, str>>,
        data: &D,
    ) -> Self {
        let mut error = Self::new(code, message);
        error.data = super::number::to_raw_value(data).ok();
        error
    }

    /// The `data` decoded as `D`; `None` when it does not decode (or there is none and
    /// `D` does not accept `null`).
    pub fn data_as<D: DeserializeOwned>(&self) -> Option<D> {
        let raw = self.data.as_deref().map_or("null", RawValue::get);
        serde_json::from_str(raw).ok()
    }

    const fn fixed(code: i64, message: &'static str) -> Self {
        ErrorObject {
            code,
            message: Cow::Borrowed(message),
            data: None,
        }
    }

    /// `-32700 Parse error`.
    pub const fn parse_error() -> Self {
        Self::fixed(code::PARSE_ERROR, "Parse error")
    }
    /// `-32600 Invalid Request`.
    pub const fn invalid_request() -> Self {
        Self::fixed(code::INVALID_REQUEST, "Invalid Request")
    }
    /// `-32601 Method not found`.
    pub const fn method_not_found() -> Self {
        Self::fixed(code::METHOD_NOT_FOUND, "Method not found")
    }
    /// `-32602` with a message saying what is wrong with the params.
    pub fn invalid_params(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(code::INVALID_PARAMS, message)
    }
    /// `-32603 Internal error`, with no detail (details belong in the server's logs).
    pub const fn internal_error() -> Self {
        Self::fixed(code::INTERNAL_ERROR, "Internal error")
    }
    /// [`code::REQUEST_TOO_LARGE`].
    pub const fn request_too_large() -> Self {
        Self::fixed(code::REQUEST_TOO_LARGE, "Request too large")
    }
    /// [`code::RESPONSE_TOO_LARGE`].
    pub const fn response_too_large() -> Self {
        Self::fixed(code::RESPONSE_TOO_LARGE, "Response too large")
    }
    /// [`code::BATCH_TOO_LARGE`].
    pub const fn batch_too_large() -> Self {
        Self::fixed(code::BATCH_TOO_LARGE, "Batch too large")
    }
    /// [`code::SERVER_BUSY`].
    pub const fn server_busy() -> Self {
        Self::fixed(code::SERVER_BUSY, "Server busy")
    }
    /// [`code::TIMEOUT`].
    pub const fn timeout() -> Self {
        Self::fixed(code::TIMEOUT, "Request timed out")
    }
    /// [`code::CANCELLED`].
    pub const fn cancelled() -> Self {
        Self::fixed(code::CANCELLED, "Request cancelled")
    }
    /// [`code::DEADLINE_EXCEEDED`].
    pub const fn deadline_exceeded() -> Self {
        Self::fixed(code::DEADLINE_EXCEEDED, "Deadline exceeded")
    }

    /// The code of an error refusing a subscription past a limit: [`code::TOO_MANY_SUBSCRIPTIONS`].
    pub const TOO_MANY_SUBSCRIPTIONS: i64 = code::TOO_MANY_SUBSCRIPTIONS;

    /// [`code::TOO_MANY_SUBSCRIPTIONS`], with a message naming the limit reached.
    ///
    /// ```
    /// use rpcsmith::protocol::ErrorObject;
    ///
    /// let e = ErrorObject::too_many_subscriptions("too many subscriptions on this connection (limit 2)");
    /// assert_eq!(e.code, ErrorObject::TOO_MANY_SUBSCRIPTIONS);
    /// ```
    pub fn too_many_subscriptions(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(code::TOO_MANY_SUBSCRIPTIONS, message)
    }

    /// [`code::UPSTREAM_UNAVAILABLE`].
    pub const fn upstream_unavailable() -> Self {
        Self::fixed(code::UPSTREAM_UNAVAILABLE, "Upstream unavailable")
    }
}

impl PartialEq for ErrorObject {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code
            && self.message == other.message
            && self.data.as_deref().map(RawValue::get) == other.data.as_deref().map(RawValue::get)
    }
}

impl Eq for ErrorObject {}

impl fmt::Debug for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ErrorObject")
            .field("code", &self.code)
            .field("message", &self.message)
            .field("data", &self.data.as_deref().map(RawValue::get))
            .finish()
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ErrorObject {}

/// What a method that declares no errors ([`Infallible`] ones) fails with never
/// happens; this lets generic code turn any declared error into an error object.
impl From<Infallible> for ErrorObject {
    fn from(never: Infallible) -> Self {
        match never {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_data() {
        let json = r#"{"code":-32000,"message":"x \"y\"","data":{"a":[1, 2]}}"#;
        let e: ErrorObject = serde_json::from_str(json).unwrap();
        assert_eq!(e.code, -32000);
        assert_eq!(e.message, "x \"y\"");
        assert_eq!(
            e.data.as_deref().map(RawValue::get),
            Some(r#"{"a":[1, 2]}"#)
        );
        assert_eq!(serde_json::to_string(&e).unwrap(), json);
    }

    #[test]
    fn data_is_serialized_and_decoded() {
        let e = ErrorObject::with_data(1, "m", &[1, 2]);
        assert_eq!(e.data_as::<Vec<u8>>(), Some(vec![1, 2]));
        assert_eq!(e.data_as::<String>(), None);
    }

    #[test]
    fn implementation_codes_are_in_the_reserved_range() {
        for c in [
            code::REQUEST_TOO_LARGE,
            code::RESPONSE_TOO_LARGE,
            code::SERVER_BUSY,
            code::BATCH_TOO_LARGE,
            code::TIMEOUT,
            code::CANCELLED,
            code::TOO_MANY_SUBSCRIPTIONS,
            code::UPSTREAM_UNAVAILABLE,
            code::RATE_LIMITED,
            code::ACCESS_DENIED,
        ] {
            assert!((-32099..=-32000).contains(&c), "{c}");
        }
    }
}
