//! The JSON-RPC 2.0 specification's examples, over the server engine.

mod spec;

use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Metadata, Reply, Server, encode};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// The methods the specification's examples call, written as a generated dispatcher would:
/// params decoded from the borrowed bytes, then an owned future.
struct SpecMethods;

#[derive(Deserialize)]
#[serde(untagged)]
enum SubtractParams {
    Positional(i64, i64),
    Named { minuend: i64, subtrahend: i64 },
}

fn decode<'a, T: Deserialize<'a>>(params: Option<&'a RawValue>) -> Result<T, ErrorObject> {
    serde_json::from_str(params.map_or("null", RawValue::get))
        .map_err(|e| ErrorObject::invalid_params(e.to_string()))
}

impl Dispatch for SpecMethods {
    fn call(&self, method: &str, params: Option<&RawValue>, _cx: Context) -> Reply {
        match method {
            "subtract" => match decode(params) {
                Ok(SubtractParams::Positional(a, b)) => {
                    Reply::future(async move { encode(&(a - b)) })
                }
                Ok(SubtractParams::Named {
                    minuend,
                    subtrahend,
                }) => Reply::future(async move { encode(&(minuend - subtrahend)) }),
                Err(e) => Reply::err(e),
            },
            "sum" => match decode::<Vec<i64>>(params) {
                Ok(v) => Reply::future(async move { encode(&v.iter().sum::<i64>()) }),
                Err(e) => Reply::err(e),
            },
            "get_data" => Reply::ok(&("hello", 5)),
            "update" | "notify_hello" | "notify_sum" => Reply::ok(&()),
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

fn json(text: &[u8]) -> Value {
    serde_json::from_slice(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text:?}"))
}

#[tokio::test]
async fn every_spec_example_over_the_engine() {
    let server = Server::builder(SpecMethods).build();
    for example in spec::EXAMPLES {
        let got = server
            .handle(example.request.as_bytes(), Metadata::default())
            .await;
        assert_eq!(
            got.as_deref().map(json),
            example.response.map(|r| json(r.as_bytes())),
            "{}",
            example.name
        );
    }
}

#[tokio::test]
async fn every_spec_example_over_one_connection() {
    let server = Server::builder(SpecMethods).build();
    let connection = server.connection(Metadata::default());
    for example in spec::EXAMPLES {
        let got = connection.handle(example.request.as_bytes()).await;
        assert_eq!(
            got.as_deref().map(json),
            example.response.map(|r| json(r.as_bytes())),
            "{}",
            example.name
        );
    }
    assert_eq!(connection.in_flight(), 0);
}

#[tokio::test]
async fn answers_are_compact_and_byte_exact() {
    let server = Server::builder(SpecMethods).build();
    let cases: &[(&str, &str)] = &[
        (
            r#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#,
            r#"{"jsonrpc":"2.0","result":19,"id":1}"#,
        ),
        (
            r#"[{"jsonrpc":"2.0","method":"get_data","id":"9"}]"#,
            r#"[{"jsonrpc":"2.0","result":["hello",5],"id":"9"}]"#,
        ),
        (
            r#"[1,{"jsonrpc":"2.0","method":"update"},{"jsonrpc":"2.0","method":"x","id":null}]"#,
            concat!(
                r#"[{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null},"#,
                r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":null}]"#
            ),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"subtract","params":["a"],"id":2}"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"data did not match any variant of untagged enum SubtractParams"},"id":2}"#,
        ),
    ];
    for (request, response) in cases {
        let got = server.handle(request.as_bytes(), Metadata::default()).await;
        assert_eq!(
            got.as_deref().map(String::from_utf8_lossy),
            Some((*response).into()),
            "{request}"
        );
    }
}

/// An id longer than [`MAX_ID_LEN`](rpcsmith::protocol::MAX_ID_LEN) is not echoed: a
/// client cannot make the server copy megabytes into every answer.
#[tokio::test]
async fn an_absurdly_long_id_is_an_invalid_request() {
    let server = Server::builder(SpecMethods).build();
    let id = format!(r#""{}""#, "x".repeat(100_000));
    let request = format!(r#"{{"jsonrpc":"2.0","method":"get_data","id":{id}}}"#);
    let got = server
        .handle(request.as_bytes(), Metadata::default())
        .await
        .unwrap();
    assert_eq!(
        String::from_utf8(got).unwrap(),
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}"#
    );
}

#[tokio::test]
async fn ids_are_echoed_byte_for_byte() {
    let server = Server::builder(SpecMethods).build();
    for id in [
        "1",
        "-1",
        "-0",
        "0.0",
        "1.50",
        "1e400",
        "-2.5E-3",
        "9007199254740993",
        "123456789012345678901234567890",
        r#""""#,
        r#""a \"quoted\" \\ \/ \u00e9 \ud83d\ude00 \n""#,
        "null",
    ] {
        let request = format!(r#"{{"jsonrpc":"2.0","method":"get_data","id":{id}}}"#);
        let got = server
            .handle(request.as_bytes(), Metadata::default())
            .await
            .unwrap();
        let expected = format!(r#"{{"jsonrpc":"2.0","result":["hello",5],"id":{id}}}"#);
        assert_eq!(String::from_utf8(got).unwrap(), expected);
    }
}
