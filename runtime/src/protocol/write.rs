//! Writing messages straight into a byte buffer, with no intermediate `serde_json::Value`.

use serde_json::value::RawValue;

use super::escape::write_str;
use super::{ErrorObject, Id};

/// Appends a success response, `{"jsonrpc":"2.0","result":…,"id":…}`, to `out`.
///
/// ```
/// use rpcsmith::protocol::{write_result, Id};
/// use serde_json::value::RawValue;
///
/// let mut out = Vec::new();
/// let result: &RawValue = serde_json::from_str("19").unwrap();
/// write_result(&mut out, &Id::number(1), result);
/// assert_eq!(out, br#"{"jsonrpc":"2.0","result":19,"id":1}"#);
/// ```
pub fn write_result(out: &mut Vec<u8>, id: &Id<'_>, result: &RawValue) {
    out.extend_from_slice(RESULT_PREFIX);
    out.extend_from_slice(result.get().as_bytes());
    write_id_and_close(out, id);
}

/// Appends an error response, `{"jsonrpc":"2.0","error":{…},"id":…}`, to `out`.
///
/// ```
/// use rpcsmith::protocol::{write_error, ErrorObject, Id};
///
/// let mut out = Vec::new();
/// write_error(&mut out, &Id::NULL, &ErrorObject::parse_error());
/// assert_eq!(
///     out,
///     br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#
/// );
/// ```
pub fn write_error(out: &mut Vec<u8>, id: &Id<'_>, error: &ErrorObject) {
    out.extend_from_slice(br#"{"jsonrpc":"2.0","error":{"code":"#);
    out.extend_from_slice(itoa::Buffer::new().format(error.code).as_bytes());
    out.extend_from_slice(br#","message":"#);
    write_str(out, &error.message);
    if let Some(data) = &error.data {
        out.extend_from_slice(br#","data":"#);
        out.extend_from_slice(data.get().as_bytes());
    }
    out.push(b'}');
    write_id_and_close(out, id);
}

/// Appends a request, `{"jsonrpc":"2.0","method":…,"params":…,"id":…}`, to `out`;
/// `params` is omitted when `None`.
///
/// ```
/// use rpcsmith::protocol::{write_request, Id};
///
/// let mut out = Vec::new();
/// let params = serde_json::from_str("[42,23]").unwrap();
/// write_request(&mut out, &Id::number(1), "subtract", Some(params));
/// assert_eq!(out, br#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#);
/// ```
pub fn write_request(out: &mut Vec<u8>, id: &Id<'_>, method: &str, params: Option<&RawValue>) {
    write_call(out, method, params);
    write_id_and_close(out, id);
}

/// Appends a notification, `{"jsonrpc":"2.0","method":…,"params":…}`, to `out`;
/// `params` is omitted when `None`.
///
/// ```
/// use rpcsmith::protocol::write_notification;
///
/// let mut out = Vec::new();
/// write_notification(&mut out, "foobar", None);
/// assert_eq!(out, br#"{"jsonrpc":"2.0","method":"foobar"}"#);
/// ```
pub fn write_notification(out: &mut Vec<u8>, method: &str, params: Option<&RawValue>) {
    write_call(out, method, params);
    out.push(b'}');
}

fn write_call(out: &mut Vec<u8>, method: &str, params: Option<&RawValue>) {
    out.extend_from_slice(br#"{"jsonrpc":"2.0","method":"#);
    write_str(out, method);
    if let Some(params) = params {
        out.extend_from_slice(br#","params":"#);
        out.extend_from_slice(params.get().as_bytes());
    }
}

/// What a success response starts with, up to its result.
pub(crate) const RESULT_PREFIX: &[u8] = br#"{"jsonrpc":"2.0","result":"#;

/// Ends a response or request: `,"id":…}`.
pub(crate) fn write_id_and_close(out: &mut Vec<u8>, id: &Id<'_>) {
    out.extend_from_slice(br#","id":"#);
    out.extend_from_slice(id.as_json().as_bytes());
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_serde_json() {
        for s in [
            "",
            "plain",
            "q\"b\\s/",
            "\n\r\t\u{8}\u{c}\u{0}\u{1f}",
            "é✓😀",
            "\u{7f}",
        ] {
            let mut out = Vec::new();
            write_str(&mut out, s);
            assert_eq!(out, serde_json::to_vec(s).unwrap(), "{s:?}");
        }
    }

    #[test]
    fn error_with_data() {
        let mut out = Vec::new();
        let mut e = ErrorObject::new(-32000, "boom \"x\"");
        e.data = Some(serde_json::value::to_raw_value(&[1, 2]).unwrap());
        write_error(&mut out, &Id::string("a"), &e);
        assert_eq!(
            out,
            br#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"boom \"x\"","data":[1,2]},"id":"a"}"#
        );
    }
}
