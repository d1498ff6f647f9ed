//! Property tests: no input makes the engine panic, and every answer is a valid response
//! or a non-empty array of valid responses.

mod support;

use std::sync::LazyLock;

use proptest::prelude::*;
use rpcsmith::server::{Limits, Metadata, Server};
use serde_json::Value;
use support::TestMethods;

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
});

static SERVER: LazyLock<Server> = LazyLock::new(|| {
    let mut limits = Limits::default();
    limits.max_batch_len = 16;
    limits.max_request_size = 4096;
    Server::builder(TestMethods::default())
        .limits(limits)
        .build()
});

fn handle(input: &[u8]) -> Option<Vec<u8>> {
    RUNTIME.block_on(SERVER.handle(input, Metadata::default()))
}

/// Panics (fails the case) unless `value` is a valid response object.
fn check_response(value: &Value) {
    let object = value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"));
    assert_eq!(object.get("jsonrpc"), Some(&Value::from("2.0")), "{value}");
    let id = object.get("id").unwrap_or_else(|| panic!("no id: {value}"));
    assert!(id.is_null() || id.is_number() || id.is_string(), "{value}");
    match (object.get("result"), object.get("error")) {
        (Some(_), None) => {}
        (None, Some(error)) => {
            assert!(error["code"].is_i64(), "{value}");
            assert!(error["message"].is_string(), "{value}");
        }
        _ => panic!("needs exactly one of result and error: {value}"),
    }
    assert!(
        object
            .keys()
            .all(|k| ["jsonrpc", "id", "result", "error"].contains(&k.as_str()))
    );
}

fn check_answer(input: &[u8], answer: Option<Vec<u8>>) {
    let Some(answer) = answer else { return };
    let value: Value = serde_json::from_slice(&answer)
        .unwrap_or_else(|e| panic!("answer to {input:?} is not JSON ({e})"));
    match &value {
        Value::Array(responses) => {
            assert!(!responses.is_empty(), "empty array answered to {input:?}");
            responses.iter().for_each(check_response);
        }
        _ => check_response(&value),
    }
}

/// Fragments that, joined at random, reach deep into the parser and the engine.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just(",".to_owned()),
        Just(":".to_owned()),
        Just(r#""jsonrpc":"2.0""#.to_owned()),
        Just(r#""jsonrpc":"1.0""#.to_owned()),
        Just(r#""method":"add""#.to_owned()),
        Just(r#""method":"sleep""#.to_owned()),
        Just(r#""method":"panic_now""#.to_owned()),
        Just(r#""method":"panic_later""#.to_owned()),
        Just(r#""method":"rpc.discover""#.to_owned()),
        Just(r#""method":1"#.to_owned()),
        Just(r#""params":[1,2]"#.to_owned()),
        Just(r#""params":{"a":1}"#.to_owned()),
        Just(r#""params":"x""#.to_owned()),
        Just(r#""params":null"#.to_owned()),
        Just(r#""id":1"#.to_owned()),
        Just(r#""id":"a\"b""#.to_owned()),
        Just(r#""id":null"#.to_owned()),
        Just(r#""id":[1]"#.to_owned()),
        Just(r#""id":1e400"#.to_owned()),
        Just(r#"{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}"#.to_owned()),
        Just(r#"{"jsonrpc":"2.0","method":"add","params":[1,2]}"#.to_owned()),
        Just(r#"{"jsonrpc":"2.0","method":"sleep","params":[1],"id":2}"#.to_owned()),
        Just(r#"{"jsonrpc":"2.0","method":"panic_later","id":3}"#.to_owned()),
        Just("1".to_owned()),
        Just("null".to_owned()),
        Just("\"".to_owned()),
        "[ -~]{0,4}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn any_bytes_get_a_valid_answer(input in proptest::collection::vec(any::<u8>(), 0..256)) {
        let answer = handle(&input);
        check_answer(&input, answer);
    }

    #[test]
    fn near_valid_messages_get_a_valid_answer(parts in proptest::collection::vec(fragment(), 0..24)) {
        let input = parts.concat();
        let answer = handle(input.as_bytes());
        check_answer(input.as_bytes(), answer);
    }

    #[test]
    fn batches_of_valid_calls_answer_every_request_in_order(
        ids in proptest::collection::vec(proptest::option::of(0u64..1000), 1..16)
    ) {
        let calls: Vec<String> = ids.iter().map(|id| match id {
            Some(id) => format!(r#"{{"jsonrpc":"2.0","method":"sleep","params":[{}],"id":{id}}}"#, id % 3),
            None => r#"{"jsonrpc":"2.0","method":"add","params":[1,2]}"#.to_owned(),
        }).collect();
        let input = format!("[{}]", calls.join(","));
        let answer = handle(input.as_bytes());
        let expected: Vec<u64> = ids.iter().flatten().copied().collect();
        if expected.is_empty() {
            prop_assert!(answer.is_none());
        } else {
            let value: Value = serde_json::from_slice(&answer.unwrap()).unwrap();
            let got: Vec<u64> = value.as_array().unwrap().iter().map(|r| r["id"].as_u64().unwrap()).collect();
            prop_assert_eq!(got, expected);
        }
    }
}
