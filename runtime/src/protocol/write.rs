//! Writing messages straight into a byte buffer, with no intermediate `serde_json::Value`.

use serde_json::value::RawValue;

use super::{ErrorObject, Id};

/// Appends `s` as a JSON string (quoted and escaped) to `out`.
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0x00..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        start = i + 1;
        if escape.is_empty() {
            let hex = [
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 15)],
            ];
            out.extend_from_slice(&hex);
        } else {
            out.extend_from_slice(escape);
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

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
