//! `-32602` and `Error::Decode` messages in the document's terms, through a generated
//! dispatcher and client (`documents/orders.json`): the JSON type expected and found, the
//! param and the JSON path inside it, a short prefix of a huge value; and `-0` taken as
//! the integer it is.

use std::convert::Infallible;

use rpcsmith::client::Error;
use rpcsmith::server::{Context, Failure, Metadata, Server};
use rpcsmith::transport::memory;
use rpcsmith_services::orders::{OrdersClient, OrdersDispatcher, OrdersServer, types};
use serde_json::{Value, json};

/// Answers the total quantity (plus the priority), and echoes values as they are.
struct Orders;

impl OrdersServer for Orders {
    async fn place(
        &self,
        _cx: Context,
        order: types::Order,
        priority: Option<u8>,
    ) -> Result<i64, Failure> {
        let total: i64 = order.items.iter().map(|item| i64::from(item.qty)).sum();
        Ok(total + i64::from(priority.unwrap_or(0)))
    }

    async fn echo(&self, _cx: Context, value: Value) -> Result<Value, Failure> {
        Ok(value)
    }
}

fn server() -> Server {
    Server::new(OrdersDispatcher::new(Orders))
}

/// Sends `place` with `params` to the engine as bytes; the bytes of the answer.
async fn place(params: &str) -> String {
    let message = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"place","params":{params}}}"#);
    let answer = server()
        .handle(message.as_bytes(), Metadata::default())
        .await
        .expect("a call is answered");
    String::from_utf8(answer).expect("UTF-8")
}

/// The `-32602` message the engine answers `place` with.
async fn refused(params: &str) -> String {
    let answer: Value = serde_json::from_str(&place(params).await).expect("JSON");
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    answer["error"]["message"]
        .as_str()
        .expect("a message")
        .to_owned()
}

#[tokio::test]
async fn invalid_params_are_described_in_json_terms_over_the_engine() {
    let cases = [
        (
            r#"{"order":"x"}"#,
            r#"invalid param `order`: expected an object, found a string "x" (schema #/components/schemas/Order at orders.json:28:7)"#,
        ),
        (
            r#"{"order":{"items":[{"id":1,"qty":1},{"id":"7","qty":1}],"color":"red"}}"#,
            r#"invalid param `order` at /items/1/id: expected an integer, found a string "7" (schema #/components/schemas/Item at orders.json:38:7)"#,
        ),
        (
            r#"{"order":{"items":[],"color":"blue"}}"#,
            r#"invalid param `order` at /color: expected one of "red", "green", found a string "blue" (schema #/components/schemas/Order/properties/color at orders.json:34:11)"#,
        ),
        (
            r#"{"order":{"items":[{"id":1}],"color":"red"}}"#,
            "invalid param `order` at /items/0: missing member `qty` (schema #/components/schemas/Item at orders.json:38:7)",
        ),
        (
            r#"{"order":{"items":[],"color":"red","size":3}}"#,
            "invalid param `order`: unknown member `size` (schema #/components/schemas/Order at orders.json:28:7)",
        ),
        (
            r#"{"order":{"items":[],"color":"red"},"priority":256}"#,
            "invalid param `priority`: expected an integer between 0 and 255, found an integer 256",
        ),
        (
            r#"{"order":{"items":[],"color":"red"},"priority":true}"#,
            "invalid param `priority`: expected an integer between 0 and 255, found a boolean true",
        ),
    ];
    for (params, message) in cases {
        assert_eq!(refused(params).await, message, "{params}");
    }
}

#[tokio::test]
async fn no_message_names_rust() {
    let orders = [
        r#""x""#,
        "1",
        "-1",
        "1.5",
        "1e300",
        "true",
        "null",
        "[]",
        "[1, 2]",
        "{}",
        r#"{"items": {}, "color": "red"}"#,
        r#"{"items": [[]], "color": 1}"#,
        r#"{"items": [{"id": [], "qty": {}}], "color": "red"}"#,
        r#"{"items": [{"id": 1.5, "qty": -0.5}], "color": "red", "note": 7}"#,
        r#"{"items": [{"id": 1, "qty": 1, "qty": 2}], "color": "red"}"#,
        r#"{"items": [], "color": "red", "color": "green"}"#,
    ];
    let priorities = ["-1", "65536", "1e3", r#""1""#, "[]", "{}"];
    let mut params: Vec<String> = orders
        .iter()
        .map(|o| format!(r#"{{"order":{o}}}"#))
        .collect();
    params.extend(
        priorities
            .iter()
            .map(|p| format!(r#"{{"order":{{"items":[],"color":"red"}},"priority":{p}}}"#)),
    );
    params.extend(["[]", r#"[{"items":[],"color":"red"}]"#, r#"{"x":1}"#].map(String::from));
    let forbidden = [
        "i64",
        "u8",
        "u64",
        "f64",
        "struct ",
        "enum ",
        "::",
        "Order",
        "Item",
        "Color",
        "Params",
        "sequence",
        "map",
        "Option",
        "Vec",
        "String",
        "panic",
        ".rs",
        "line ",
        "column",
        "invalid type",
        "invalid value",
    ];
    for params in params {
        let message = refused(&params).await;
        // The schema that says so is named by its place in the document, whose component
        // keys may read like the Rust types named after them.
        let message = match message.split_once(" (schema #/components/schemas/") {
            Some((before, _)) => before.to_owned(),
            None => message,
        };
        for word in forbidden {
            assert!(!message.contains(word), "{params}: {message} names {word}");
        }
    }
    // Objects are objects: an array of the members' values is no object.
    assert_eq!(
        refused(r#"{"order":{"items":[[]],"color":"red"}}"#).await,
        "invalid param `order` at /items/0: expected an object, found an array (schema #/components/schemas/Item at orders.json:38:7)"
    );
}

#[tokio::test]
async fn a_huge_value_is_quoted_by_a_short_prefix() {
    let huge = "\u{e9}".repeat(100_000);
    let params = format!(r#"{{"order":{{"items":[{{"id":"{huge}","qty":1}}],"color":"red"}}}}"#);
    let answer = place(&params).await;
    let prefix = "\u{e9}".repeat(32);
    let message = format!(
        r#"invalid param `order` at /items/0/id: expected an integer, found a string \"{prefix}…\" (schema #/components/schemas/Item at orders.json:38:7)"#
    );
    assert_eq!(
        answer,
        format!(r#"{{"jsonrpc":"2.0","error":{{"code":-32602,"message":"{message}"}},"id":1}}"#)
    );
    // A huge member name is cut the same way, as a param and inside one.
    let key = "k".repeat(100_000);
    let short = "k".repeat(32);
    assert_eq!(
        refused(&format!(r#"{{"{key}":1}}"#)).await,
        format!("unknown param `{short}…`")
    );
    let order = format!(r#"{{"order":{{"items":[],"color":"red","{key}":1}}}}"#);
    assert_eq!(
        refused(&order).await,
        format!(
            "invalid param `order`: unknown member `{short}…` (schema #/components/schemas/Order at orders.json:28:7)"
        )
    );
}

#[tokio::test]
async fn negative_zero_is_an_integer_param() {
    let order = r#"{"items":[{"id":-0,"qty":-0},{"id":-0,"qty":2}],"color":"green"}"#;
    for params in [
        format!(r#"{{"order":{order},"priority":-0}}"#),
        format!(r#"{{"priority":-0,"order":{order}}}"#),
    ] {
        assert_eq!(
            place(&params).await,
            r#"{"jsonrpc":"2.0","result":2,"id":1}"#,
            "{params}"
        );
    }
}

#[tokio::test]
async fn the_client_sees_the_same_messages() {
    let client = OrdersClient::new(memory::connect(server()));
    let bad = json!({"order": {"items": [{"id": 1, "qty": -1}], "color": "red"}});
    match client.inner().request::<i64, _>("place", &bad).await {
        Err(Error::Undeclared(e)) => assert_eq!(
            (e.code, &*e.message),
            (
                -32602,
                "invalid param `order` at /items/0/qty: expected an integer between 0 and 255, found an integer -1 (schema #/components/schemas/Item at orders.json:38:7)"
            )
        ),
        other => panic!("expected -32602, got {other:?}"),
    }
}

/// Has `echo` answer `value`, decoded as an order; the path and message of the error.
async fn echoed(client: &OrdersClient, value: Value) -> (String, String) {
    match client
        .inner()
        .request::<types::Order, _>("echo", &[value])
        .await
    {
        Err(Error::Decode(mismatch)) => {
            let path = mismatch.path().to_owned();
            (path, Error::<Infallible>::Decode(mismatch).to_string())
        }
        other => panic!("expected a decode error, got {other:?}"),
    }
}

#[tokio::test]
async fn results_that_do_not_fit_say_where_and_why() {
    let client = OrdersClient::new(memory::connect(server()));
    let item = json!({"items": [{"id": 1, "qty": "x"}], "color": "red"});
    let (path, message) = echoed(&client, item).await;
    assert_eq!(path, "/items/0/qty");
    assert_eq!(
        message,
        r#"could not decode result at /items/0/qty: expected an integer between 0 and 255, found a string "x" (schema #/components/schemas/Item at orders.json:38:7)"#
    );
    let (path, message) = echoed(&client, json!("x".repeat(100_000))).await;
    assert_eq!(path, "");
    assert_eq!(
        message,
        format!(
            r#"could not decode result: expected an object, found a string "{}…" (schema #/components/schemas/Order at orders.json:28:7)"#,
            "x".repeat(32)
        )
    );
    let color = json!({"items": [], "color": "y".repeat(100_000)});
    let (path, message) = echoed(&client, color).await;
    assert_eq!(path, "/color");
    assert_eq!(
        message,
        format!(
            r#"could not decode result at /color: expected one of "red", "green", found a string "{}…" (schema #/components/schemas/Order/properties/color at orders.json:34:11)"#,
            "y".repeat(32)
        )
    );
    // `-0` in a result is an integer too.
    let zero: i64 = client
        .inner()
        .request("echo", &[json!(-0.0)])
        .await
        .unwrap();
    assert_eq!(zero, 0);
}
