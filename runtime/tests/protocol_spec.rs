//! The wire model against the JSON-RPC 2.0 specification's examples, both directions,
//! with no engine involved: parse each request, answer it with a tiny evaluator written on
//! the protocol module alone, and compare; parse each response and write it back.

mod spec;

use rpcsmith::protocol::{
    Entry, ErrorObject, Id, Message, Request, Response, Responses, write_error, write_notification,
    write_request, write_result,
};
use serde_json::Value;
use serde_json::value::RawValue;

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("test data is not JSON ({e}): {text}"))
}

/// The methods the specification's examples call.
fn evaluate(request: &Request<'_>) -> Result<Box<RawValue>, ErrorObject> {
    let params: Value = request.params.map_or(Value::Null, |p| json(p.get()));
    let result = match (&*request.method, &params) {
        ("subtract", Value::Array(a)) => {
            serde_json::json!(a[0].as_i64().unwrap() - a[1].as_i64().unwrap())
        }
        ("subtract", Value::Object(o)) => {
            serde_json::json!(o["minuend"].as_i64().unwrap() - o["subtrahend"].as_i64().unwrap())
        }
        ("sum", Value::Array(a)) => {
            serde_json::json!(a.iter().map(|v| v.as_i64().unwrap()).sum::<i64>())
        }
        ("get_data", _) => serde_json::json!(["hello", 5]),
        _ => return Err(ErrorObject::method_not_found()),
    };
    Ok(serde_json::value::to_raw_value(&result).unwrap())
}

fn answer(entry: &Entry<'_>, out: &mut Vec<u8>) -> bool {
    match entry {
        Entry::Request(r) => match evaluate(r) {
            Ok(result) => write_result(out, &r.id, &result),
            Err(e) => write_error(out, &r.id, &e),
        },
        Entry::Notification(_) => return false,
        Entry::Invalid(e) => write_error(out, &Id::NULL, e),
    }
    true
}

fn serve(request: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    match Message::parse(request) {
        Err(e) => write_error(&mut out, &Id::NULL, &e),
        Ok(Message::Single(entry)) => {
            if !answer(&entry, &mut out) {
                return None;
            }
        }
        Ok(Message::Batch(entries)) => {
            out.push(b'[');
            for entry in &entries {
                if out.len() > 1 {
                    out.push(b',');
                }
                if !answer(entry, &mut out) && out.last() == Some(&b',') {
                    out.pop();
                }
            }
            if out.len() == 1 {
                return None;
            }
            out.push(b']');
        }
    }
    Some(out)
}

#[test]
fn every_spec_example_is_answered_as_the_spec_says() {
    for example in spec::EXAMPLES {
        let got = serve(example.request.as_bytes());
        let got = got.map(|bytes| json(std::str::from_utf8(&bytes).unwrap()));
        assert_eq!(got, example.response.map(json), "{}", example.name);
    }
}

#[test]
fn every_spec_request_writes_back_to_itself() {
    for example in spec::EXAMPLES {
        let Ok(message) = Message::parse(example.request.as_bytes()) else {
            continue;
        };
        let (entries, originals) = match message {
            Message::Single(e) => (vec![e], vec![json(example.request)]),
            Message::Batch(es) => match json(example.request) {
                Value::Array(vs) => (es, vs),
                _ => unreachable!("a batch parses from an array"),
            },
        };
        for (entry, original) in entries.iter().zip(originals) {
            let mut out = Vec::new();
            let via_serde = match entry {
                Entry::Request(r) => {
                    write_request(&mut out, &r.id, &r.method, r.params);
                    serde_json::to_value(r).unwrap()
                }
                Entry::Notification(n) => {
                    write_notification(&mut out, &n.method, n.params);
                    serde_json::to_value(n).unwrap()
                }
                Entry::Invalid(_) => continue,
            };
            assert_eq!(
                json(std::str::from_utf8(&out).unwrap()),
                original,
                "{}",
                example.name
            );
            assert_eq!(via_serde, original, "{}", example.name);
        }
    }
}

fn write_response(r: &Response<'_>, out: &mut Vec<u8>) {
    match &r.payload {
        Ok(result) => write_result(out, &r.id, result),
        Err(error) => write_error(out, &r.id, error),
    }
}

#[test]
fn every_spec_response_parses_and_writes_back_to_itself() {
    for example in spec::EXAMPLES {
        let Some(text) = example.response else {
            continue;
        };
        let (responses, original) = match Responses::parse(text.as_bytes()).unwrap() {
            Responses::Single(r) => (vec![r], vec![json(text)]),
            Responses::Batch(rs) => match json(text) {
                Value::Array(vs) => (rs, vs),
                _ => unreachable!("a batch parses from an array"),
            },
        };
        assert_eq!(responses.len(), original.len(), "{}", example.name);
        for (response, original) in responses.iter().zip(original) {
            let mut out = Vec::new();
            write_response(response, &mut out);
            assert_eq!(
                json(std::str::from_utf8(&out).unwrap()),
                original,
                "{}",
                example.name
            );
            assert_eq!(
                serde_json::to_value(response).unwrap(),
                original,
                "{}",
                example.name
            );
        }
    }
}

/// Inputs that are valid JSON but not requests, each with the reason it is invalid.
#[test]
fn invalid_requests() {
    let cases = [
        ("42", "a number"),
        (r#""x""#, "a string"),
        ("null", "null"),
        ("true", "a boolean"),
        (r#"{"method":1}"#, "method not a string"),
        (
            r#"{"jsonrpc":"2.0","method":1,"id":1}"#,
            "method not a string",
        ),
        (r#"{"jsonrpc":"2.0","id":1}"#, "no method"),
        (r#"{"method":"m","id":1}"#, "no jsonrpc"),
        (r#"{"jsonrpc":"1.0","method":"m","id":1}"#, "jsonrpc 1.0"),
        (r#"{"jsonrpc":2.0,"method":"m","id":1}"#, "jsonrpc a number"),
        (
            r#"{"jsonrpc":"2.0","method":"m","params":"bar","id":1}"#,
            "params a string",
        ),
        (
            r#"{"jsonrpc":"2.0","method":"m","params":7,"id":1}"#,
            "params a number",
        ),
        (
            r#"{"jsonrpc":"2.0","method":"m","params":true}"#,
            "params a boolean",
        ),
        (r#"{"jsonrpc":"2.0","method":"m","id":{}}"#, "id an object"),
        (r#"{"jsonrpc":"2.0","method":"m","id":[1]}"#, "id an array"),
        (
            r#"{"jsonrpc":"2.0","method":"m","id":true}"#,
            "id a boolean",
        ),
        (
            r#"{"jsonrpc":"2.0","method":"m","method":"n","id":1}"#,
            "method twice",
        ),
    ];
    for (input, why) in cases {
        match Message::parse(input.as_bytes()) {
            Ok(Message::Single(Entry::Invalid(e))) => assert_eq!(e.code, -32600, "{why}"),
            other => panic!("{why}: {input} gave {other:?}"),
        }
    }
}

#[test]
fn valid_requests_with_unusual_shapes() {
    let cases = [
        (
            r#"{"jsonrpc":"2.0","method":"m","params":null,"id":1}"#,
            "m",
            None,
        ),
        (
            r#"{"id":1,"params":[],"method":"m","jsonrpc":"2.0"}"#,
            "m",
            Some("[]"),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"a\"b\u0041","id":null,"x":{"y":[1]}}"#,
            "a\"bA",
            None,
        ),
        (r#"{"jsonrpc":"2\u002e0","method":"m","id":1}"#, "m", None),
        (
            " \n{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":1}\n ",
            "m",
            None,
        ),
    ];
    for (input, method, params) in cases {
        match Message::parse(input.as_bytes()) {
            Ok(Message::Single(Entry::Request(r))) => {
                assert_eq!(r.method, method, "{input}");
                assert_eq!(r.params.map(RawValue::get), params, "{input}");
            }
            other => panic!("{input} gave {other:?}"),
        }
    }
}

#[test]
fn ids_are_kept_byte_for_byte() {
    for id in [
        "1",
        "-1",
        "-0",
        "1.50",
        "1e400",
        "-2.5E-3",
        "9007199254740993",
        "123456789012345678901234567890",
        r#""""#,
        r#""a \"quoted\" \\ \u00e9 \ud83d\ude00""#,
        "null",
    ] {
        let input = format!(r#"{{"jsonrpc":"2.0","method":"m","id":{id}}}"#);
        let Ok(Message::Single(Entry::Request(r))) = Message::parse(input.as_bytes()) else {
            panic!("{input} is a request");
        };
        let mut out = Vec::new();
        write_error(&mut out, &r.id, &ErrorObject::method_not_found());
        let expected = format!(
            r#"{{"jsonrpc":"2.0","error":{{"code":-32601,"message":"Method not found"}},"id":{id}}}"#
        );
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }
}

#[test]
fn an_id_longer_than_the_limit_is_an_invalid_request() {
    use rpcsmith::protocol::MAX_ID_LEN;
    let string_id = |len: usize| format!(r#""{}""#, "a".repeat(len - 2));
    let number_id = |len: usize| "9".repeat(len);
    for id in [string_id(MAX_ID_LEN), number_id(MAX_ID_LEN)] {
        let input = format!(r#"{{"jsonrpc":"2.0","method":"m","id":{id}}}"#);
        assert!(
            matches!(Message::parse(input.as_bytes()), Ok(Message::Single(Entry::Request(r))) if r.id.as_json() == id),
            "an id of exactly {MAX_ID_LEN} bytes is kept"
        );
    }
    for id in [
        string_id(MAX_ID_LEN + 1),
        number_id(MAX_ID_LEN + 1),
        string_id(100_000),
    ] {
        let request = format!(r#"{{"jsonrpc":"2.0","method":"m","id":{id}}}"#);
        assert_eq!(
            serve(request.as_bytes()).map(String::from_utf8),
            Some(Ok(
                r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}"#
                    .to_owned()
            )),
            "id of {} bytes",
            id.len()
        );
        let batch = format!(r#"[{request},{{"jsonrpc":"2.0","method":"m","id":1}}]"#);
        let Ok(Message::Batch(entries)) = Message::parse(batch.as_bytes()) else {
            panic!("a batch");
        };
        assert!(matches!(&entries[0], Entry::Invalid(e) if e.code == -32600));
        assert!(matches!(&entries[1], Entry::Request(_)), "only that member");
    }
}

#[test]
fn batch_limit_stops_the_parse() {
    let batch = format!("[{}1]", "1,".repeat(10));
    assert!(
        matches!(Message::parse_limited(batch.as_bytes(), 11), Ok(Message::Batch(b)) if b.len() == 11)
    );
    assert_eq!(
        Message::parse_limited(batch.as_bytes(), 10)
            .unwrap_err()
            .code,
        -32010
    );
    // The limit stops reading before a later syntax error is seen; below it, syntax wins.
    assert_eq!(
        Message::parse_limited(b"[1,2,", 1).unwrap_err().code,
        -32010
    );
    assert_eq!(Message::parse_limited(b"[1,", 5).unwrap_err().code, -32700);
    assert_eq!(Message::parse(b"{} x").unwrap_err().code, -32700);
}

#[test]
fn invalid_responses_are_decode_errors() {
    for input in [
        "",
        "[]",
        "42",
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"jsonrpc":"2.0","result":1}"#,
        r#"{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"m"},"id":1}"#,
        r#"{"jsonrpc":"2.0","error":{"code":"x","message":"m"},"id":1}"#,
        r#"{"jsonrpc":"1.0","result":1,"id":1}"#,
        r#"{"jsonrpc":"2.0","result":1,"id":[1]}"#,
    ] {
        assert!(Responses::parse(input.as_bytes()).is_err(), "{input}");
    }
    let r = Response::parse(br#"{"jsonrpc":"2.0","result":null,"id":"7"}"#).unwrap();
    assert_eq!(r.payload.unwrap().get(), "null");
    assert_eq!(r.id.as_str().as_deref(), Some("7"));
}

/// Nested values are skipped without recursion, so depth cannot overflow the stack; deep
/// but valid JSON is read like any other.
#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    for depth in [200, 100_000] {
        let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        match Message::parse(nested.as_bytes()) {
            Ok(Message::Batch(entries)) => {
                assert!(matches!(&entries[..], [Entry::Invalid(e)] if e.code == -32600));
            }
            other => panic!("{depth}: {other:?}"),
        }
        let params = format!(r#"{{"jsonrpc":"2.0","method":"m","params":{nested},"id":1}}"#);
        match Message::parse(params.as_bytes()) {
            Ok(Message::Single(Entry::Request(r))) => {
                assert_eq!(r.params.map(|p| p.get().len()), Some(2 * depth));
            }
            other => panic!("{depth}: {other:?}"),
        }
        let unclosed = "[".repeat(depth);
        assert_eq!(
            Message::parse(unclosed.as_bytes()).unwrap_err().code,
            -32700
        );
    }
}

#[test]
fn invalid_utf8_is_a_parse_error() {
    assert_eq!(
        Message::parse(b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}")
            .unwrap_err()
            .code,
        -32700
    );
    assert!(Responses::parse(b"[\xc3]").unwrap_err().is_syntax());
}

/// Numbers beyond `f64` are valid JSON: where a request was expected they make an invalid
/// request, not a parse error; inside params or an id they are kept as text.
#[test]
fn huge_numbers_are_valid_json() {
    let invalid = |input: &str| match Message::parse(input.as_bytes()) {
        Ok(Message::Single(Entry::Invalid(e))) => e.code == -32600,
        _ => false,
    };
    assert!(invalid("1e400"));
    assert!(invalid("-1e400"));
    assert!(invalid(r#"{"jsonrpc":"2.0","method":1e400,"id":1}"#));
    assert!(invalid(r#"{"jsonrpc":1e400,"method":"m","id":1}"#));
    let batch = r#"[{"jsonrpc":"2.0","method":"m","id":1}, 1e400, {"method":1e999}]"#;
    match Message::parse(batch.as_bytes()) {
        Ok(Message::Batch(entries)) => {
            assert!(matches!(&entries[0], Entry::Request(r) if r.id.as_json() == "1"));
            assert!(matches!(&entries[1], Entry::Invalid(e) if e.code == -32600));
            assert!(matches!(&entries[2], Entry::Invalid(e) if e.code == -32600));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        Message::parse_limited(b"[1e400,1,1]", 2).unwrap_err().code,
        -32010
    );
    assert_eq!(Message::parse(b"[1e400,").unwrap_err().code, -32700);
    let kept = r#"{"jsonrpc":"2.0","method":"m","params":[1e400],"id":1e400}"#;
    match Message::parse(kept.as_bytes()) {
        Ok(Message::Single(Entry::Request(r))) => {
            assert_eq!(r.params.map(RawValue::get), Some("[1e400]"));
            assert_eq!(r.id.as_json(), "1e400");
        }
        other => panic!("{other:?}"),
    }
}
