//! Request metadata carried inside the params: a `_meta` member of object params, the
//! convention the Model Context Protocol uses for data about a call rather than its
//! arguments (trace context, progress tokens).
//!
//! JSON-RPC 2.0 gives a request exactly four members and nothing for metadata, so where
//! the transport has no headers (WebSocket, byte streams) metadata rides in the params:
//!
//! ```json
//! {"jsonrpc":"2.0","id":1,"method":"add","params":{"_meta":{"traceparent":"00-…-01"},"a":1,"b":2}}
//! ```
//!
//! Only object params have room for it: params by position, or none, carry no `_meta`
//! (adding one would change the call's arguments). Params that already have a `_meta`
//! object (MCP's progress token) get the fields added to it.

use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::BTreeMap;

/// The string members of `params`' `_meta` object, when params are an object that has
/// one (members whose value is not a string are left out).
pub(crate) fn read_meta(params: &RawValue) -> Option<BTreeMap<String, String>> {
    #[derive(Deserialize)]
    struct Params<'a> {
        #[serde(rename = "_meta", borrow)]
        meta: Option<&'a RawValue>,
    }
    if !params.get().starts_with('{') {
        return None;
    }
    let meta = serde_json::from_str::<Params<'_>>(params.get())
        .ok()?
        .meta?;
    let members: BTreeMap<String, serde_json::Value> = serde_json::from_str(meta.get()).ok()?;
    Some(
        members
            .into_iter()
            .filter_map(|(name, value)| match value {
                serde_json::Value::String(value) => Some((name, value)),
                _ => None,
            })
            .collect(),
    )
}

/// `message` (one request or notification, serialised) with `fields` added to the
/// `_meta` member of its params (which is made when there is none; a member of the same
/// name already there is replaced), or `None` when it has no room for them: a batch,
/// params by position or none, a `_meta` that is not an object, or bytes that are not a
/// JSON-RPC call. Everything else in `message` is kept byte for byte.
pub(crate) fn insert_meta(message: &[u8], fields: &BTreeMap<String, String>) -> Option<Vec<u8>> {
    #[derive(Deserialize)]
    struct Call<'a> {
        #[serde(borrow)]
        params: Option<&'a RawValue>,
    }
    #[derive(Deserialize)]
    struct Params<'a> {
        #[serde(rename = "_meta", borrow)]
        meta: Option<&'a RawValue>,
    }
    // A struct reads an array too: a batch must not pass for its first call.
    if message.trim_ascii_start().first() != Some(&b'{') {
        return None;
    }
    let params = serde_json::from_slice::<Call<'_>>(message).ok()?.params?;
    let text = params.get();
    if !text.starts_with('{') {
        return None;
    }
    let mut out = Vec::with_capacity(message.len() + 64);
    match serde_json::from_str::<Params<'_>>(text).ok()?.meta {
        None => {
            // Where the params' `{` is in `message`: the raw value borrows from it.
            let open = offset(message, text)?;
            let empty = text[1..].trim_start().starts_with('}');
            out.extend_from_slice(message.get(..=open)?);
            out.extend_from_slice(br#""_meta":"#);
            serde_json::to_writer(&mut out, fields).ok()?;
            if !empty {
                out.push(b',');
            }
            out.extend_from_slice(&message[open + 1..]);
        }
        Some(meta) => {
            let mut members: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(meta.get()).ok()?;
            for (name, value) in fields {
                members.insert(name.clone(), serde_json::Value::String(value.clone()));
            }
            let start = offset(message, meta.get())?;
            out.extend_from_slice(message.get(..start)?);
            serde_json::to_writer(&mut out, &members).ok()?;
            out.extend_from_slice(message.get(start + meta.get().len()..)?);
        }
    }
    Some(out)
}

/// Where `part`, a slice of `whole`, starts in it.
fn offset(whole: &[u8], part: &str) -> Option<usize> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    (start + part.len() <= whole.len()).then_some(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields() -> BTreeMap<String, String> {
        BTreeMap::from([("traceparent".to_owned(), "00-ab-cd-01".to_owned())])
    }

    #[test]
    fn meta_goes_into_object_params_only() {
        let cases: [(&str, Option<&str>); 9] = [
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}"#,
                Some(
                    r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"traceparent":"00-ab-cd-01"},"a":1}}"#,
                ),
            ),
            (
                r#"{"jsonrpc":"2.0","method":"m","params":{ }}"#,
                Some(
                    r#"{"jsonrpc":"2.0","method":"m","params":{"_meta":{"traceparent":"00-ab-cd-01"} }}"#,
                ),
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1,2]}"#,
                None,
            ),
            (r#"{"jsonrpc":"2.0","id":1,"method":"m"}"#, None),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{}}}"#,
                Some(
                    r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"traceparent":"00-ab-cd-01"}}}"#,
                ),
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"b": 2, "_meta": {"traceparent":"old"}, "a": 1}}"#,
                Some(
                    r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"b": 2, "_meta": {"traceparent":"00-ab-cd-01"}, "a": 1}}"#,
                ),
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":2}}"#,
                None,
            ),
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"m","params":{}}]"#,
                None,
            ),
            ("not json", None),
        ];
        for (message, expected) in cases {
            let out = insert_meta(message.as_bytes(), &fields());
            let out = out.as_deref().map(|out| std::str::from_utf8(out).unwrap());
            assert_eq!(out, expected, "{message}");
        }
    }

    #[test]
    fn meta_is_read_back() {
        let message = insert_meta(
            br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}"#,
            &fields(),
        )
        .unwrap();
        let call: serde_json::Value = serde_json::from_slice(&message).unwrap();
        let params = serde_json::value::to_raw_value(&call["params"]).unwrap();
        assert_eq!(read_meta(&params), Some(fields()));
        let positional = serde_json::value::to_raw_value(&[1, 2]).unwrap();
        assert_eq!(read_meta(&positional), None);
        let odd = RawValue::from_string(r#"{"_meta":{"n":1,"s":"x"}}"#.to_owned()).unwrap();
        assert_eq!(
            read_meta(&odd),
            Some(BTreeMap::from([("s".to_owned(), "x".to_owned())]))
        );
    }
}
