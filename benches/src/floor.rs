//! The floor of the in-process and batch scenarios: `add(a, b)` answered by a hand-written
//! parse-once dispatcher, what a competent person writes with serde_json and no framework.
//!
//! It does the same JSON-RPC work as a framework, minimally: reads the message once into a
//! borrowed struct (method name borrowed, params and id as `&RawValue`), checks
//! `"jsonrpc": "2.0"` and the id's kind, matches the method, decodes the params, computes,
//! and writes the response (the id echoed as sent) into one buffer; a batch is read as a
//! list of raw members, each answered in order; notifications get no answer; errors get
//! their JSON-RPC code. Over HTTP, `serve` puts it behind the same bare hyper server as
//! the fixed-answer floor.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// One call, borrowed from the message.
#[derive(Deserialize)]
struct Call<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
}

const PARSE_ERROR: &str =
    r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#;
const INVALID_REQUEST: &str =
    r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}"#;

/// The answer to one message (a call or a batch), or `None` when nothing is answered
/// (a notification, or a batch of them).
pub(crate) fn handle(message: &[u8]) -> Option<Vec<u8>> {
    let first = message.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') {
        return batch(message);
    }
    let mut out = Vec::with_capacity(64);
    match serde_json::from_slice::<Call<'_>>(message) {
        Err(error) if error.is_syntax() || error.is_eof() => {
            out.extend_from_slice(PARSE_ERROR.as_bytes());
        }
        call => answer(call.ok(), &mut out),
    }
    (!out.is_empty()).then_some(out)
}

fn batch(message: &[u8]) -> Option<Vec<u8>> {
    let Ok(members) = serde_json::from_slice::<Vec<&RawValue>>(message) else {
        return Some(PARSE_ERROR.as_bytes().to_vec());
    };
    if members.is_empty() {
        return Some(INVALID_REQUEST.as_bytes().to_vec());
    }
    let mut out = Vec::with_capacity(members.len() * 40 + 2);
    out.push(b'[');
    for raw in members {
        let mark = out.len();
        if mark > 1 {
            out.push(b',');
        }
        let body = out.len();
        answer(serde_json::from_str(raw.get()).ok(), &mut out);
        if out.len() == body {
            out.truncate(mark);
        }
    }
    if out.len() == 1 {
        return None;
    }
    out.push(b']');
    Some(out)
}

/// Answers one call (`None`: not a call object) into `out`; writes nothing for a
/// notification.
fn answer(call: Option<Call<'_>>, out: &mut Vec<u8>) {
    let call = match call {
        Some(call) if call.jsonrpc == "2.0" && call.id.is_none_or(valid_id) => call,
        _ => return out.extend_from_slice(INVALID_REQUEST.as_bytes()),
    };
    let outcome = match &*call.method {
        "add" => add(call.params),
        _ => Err((-32601, "Method not found")),
    };
    let Some(id) = call.id else { return };
    out.extend_from_slice(br#"{"jsonrpc":"2.0","#);
    match outcome {
        Ok(sum) => {
            out.extend_from_slice(br#""result":"#);
            let _ = serde_json::to_writer(&mut *out, &sum);
        }
        Err((code, message)) => {
            out.extend_from_slice(br#""error":{"code":"#);
            let _ = serde_json::to_writer(&mut *out, &code);
            out.extend_from_slice(br#","message":"#);
            let _ = serde_json::to_writer(&mut *out, message);
            out.push(b'}');
        }
    }
    out.extend_from_slice(br#","id":"#);
    out.extend_from_slice(id.get().as_bytes());
    out.push(b'}');
}

/// A string, a number, or null.
fn valid_id(id: &RawValue) -> bool {
    matches!(
        id.get().as_bytes().first(),
        Some(b'"' | b'-' | b'0'..=b'9' | b'n')
    )
}

fn add(params: Option<&RawValue>) -> Result<i64, (i64, &'static str)> {
    let params = params.map_or("null", RawValue::get);
    match serde_json::from_str::<(i64, i64)>(params) {
        Ok((a, b)) => a.checked_add(b).ok_or((-32602, "Invalid params: overflow")),
        Err(_) => Err((-32602, "Invalid params")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api;

    fn text(answer: Option<Vec<u8>>) -> String {
        String::from_utf8(answer.expect("an answer")).unwrap()
    }

    #[test]
    fn answers_calls_and_batches_as_a_server_does() {
        api::check_answer(&handle(api::call(1).as_bytes()).unwrap(), 1).unwrap();
        api::check_answer(&handle(api::batch(100).as_bytes()).unwrap(), 100).unwrap();
        assert_eq!(
            text(handle(
                br#"{"jsonrpc":"2.0","method":"add","params":[1,2],"id":"x"}"#
            )),
            r#"{"jsonrpc":"2.0","result":3,"id":"x"}"#
        );
    }

    #[test]
    fn answers_errors_with_their_codes() {
        let code = |body: &[u8]| {
            let value: serde_json::Value = serde_json::from_slice(&handle(body).unwrap()).unwrap();
            value["error"]["code"].as_i64()
        };
        assert_eq!(code(b"{"), Some(-32700));
        assert_eq!(
            code(br#"{"jsonrpc":"1.0","method":"add","id":1}"#),
            Some(-32600)
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","method":"add","id":{}}"#),
            Some(-32600)
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","method":"sub","id":1}"#),
            Some(-32601)
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","method":"add","params":[1],"id":1}"#),
            Some(-32602)
        );
        assert_eq!(code(b"[]"), Some(-32600));
    }

    #[test]
    fn notifications_get_no_answer() {
        assert!(handle(br#"{"jsonrpc":"2.0","method":"add","params":[1,2]}"#).is_none());
        let batch = br#"[{"jsonrpc":"2.0","method":"add","params":[1,2]},{"jsonrpc":"2.0","method":"add","params":[1,2],"id":7}]"#;
        assert_eq!(
            text(handle(batch)),
            r#"[{"jsonrpc":"2.0","result":3,"id":7}]"#
        );
        assert!(handle(br#"[{"jsonrpc":"2.0","method":"add","params":[1,2]}]"#).is_none());
    }
}
