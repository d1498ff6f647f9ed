//! Writing calls whose params are any `Serialize` value, serialised straight into the
//! message buffer (no intermediate `RawValue` or `Value`).

use serde::Serialize;
use serde::ser::Error as _;

use super::escape::write_str;

/// Appends a request (`id` given) or a notification (`id` absent) to `out`, its params
/// serialised by serde straight into `out`; keys in the order of [`write_request`].
///
/// Params that serialise to `null` (`()`, `None`) are left out of the message, as
/// JSON-RPC has no null params. A pre-serialised
/// [`RawValue`](serde_json::value::RawValue) is copied verbatim.
///
/// # Errors
///
/// The params failed to serialise, or serialised to something other than an array,
/// an object or `null`. `out` is then left as it was.
///
/// [`write_request`]: super::write_request
pub fn write_typed_call<P: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    id: Option<u64>,
    method: &str,
    params: &P,
) -> Result<(), serde_json::Error> {
    let start = out.len();
    out.extend_from_slice(br#"{"jsonrpc":"2.0","method":"#);
    write_str(out, method);
    let before_params = out.len();
    out.extend_from_slice(br#","params":"#);
    let params_start = out.len();
    if let Err(error) = super::number::to_writer(&mut *out, params) {
        out.truncate(start);
        return Err(error);
    }
    let first = out[params_start..]
        .iter()
        .find(|byte| !byte.is_ascii_whitespace());
    match first {
        Some(b'[' | b'{') => {}
        Some(b'n') => out.truncate(before_params),
        _ => {
            out.truncate(start);
            return Err(serde_json::Error::custom(
                "params must serialise to an array, an object or nothing",
            ));
        }
    }
    if let Some(id) = id {
        out.extend_from_slice(br#","id":"#);
        out.extend_from_slice(itoa::Buffer::new().format(id).as_bytes());
    }
    out.push(b'}');
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    fn written<P: Serialize + ?Sized>(id: Option<u64>, params: &P) -> Result<String, String> {
        let mut out = b"x".to_vec();
        match write_typed_call(&mut out, id, "m\"", params) {
            Ok(()) => Ok(String::from_utf8_lossy(&out[1..]).into_owned()),
            Err(error) => {
                assert_eq!(out, b"x", "left as it was");
                Err(error.to_string())
            }
        }
    }

    #[test]
    fn params_by_position_by_name_and_none() {
        assert_eq!(
            written(Some(7), &(1, "a")).as_deref(),
            Ok(r#"{"jsonrpc":"2.0","method":"m\"","params":[1,"a"],"id":7}"#)
        );
        let mut map = std::collections::BTreeMap::new();
        map.insert("a", 1);
        assert_eq!(
            written(None, &map).as_deref(),
            Ok(r#"{"jsonrpc":"2.0","method":"m\"","params":{"a":1}}"#)
        );
        assert_eq!(
            written(Some(u64::MAX), &()).as_deref(),
            Ok(r#"{"jsonrpc":"2.0","method":"m\"","id":18446744073709551615}"#)
        );
        assert_eq!(
            written(None, &None::<u8>).as_deref(),
            Ok(r#"{"jsonrpc":"2.0","method":"m\""}"#)
        );
    }

    #[test]
    fn raw_params_are_copied_verbatim() {
        let raw = RawValue::from_string("[1, 2.50]".to_owned()).expect("valid JSON");
        assert_eq!(
            written(Some(1), &*raw).as_deref(),
            Ok(r#"{"jsonrpc":"2.0","method":"m\"","params":[1, 2.50],"id":1}"#)
        );
    }

    #[test]
    fn scalar_params_are_refused() {
        for error in [
            written(Some(1), &5),
            written(Some(1), &"s"),
            written(None, &true),
        ] {
            assert!(error.is_err(), "{error:?}");
        }
    }
}
