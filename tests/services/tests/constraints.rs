//! Constraint checks end to end (`documents/constraints.json`): the generated dispatcher
//! refuses params that break their schema with `-32602` before the handler runs, naming
//! the param, the JSON path and the keyword; a client built with `validate_params(true)`
//! refuses to send them; a module generated with `validation(false)` checks nothing.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rpcsmith::client::{Client, Error};
use rpcsmith::server::{Context, Failure, Server};
use rpcsmith::transport::memory::Link;
use rpcsmith_services::{constraints, constraints_unchecked};
use serde_json::{Value, json};

/// Counts the calls that reach a handler.
#[derive(Clone, Default)]
struct Counting(Arc<AtomicUsize>);

impl Counting {
    fn calls(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// The same counting handlers for the server trait of either module.
macro_rules! counting_server {
    ($module:ident :: $trait:ident) => {
        impl $module::$trait for Counting {
            async fn transfer(
                &self,
                _cx: Context,
                _amount: u16,
                to: $module::types::Account,
                _memo: Option<String>,
                _at: Option<String>,
            ) -> Result<String, Failure> {
                self.0.fetch_add(1, Ordering::SeqCst);
                Ok(to.id)
            }

            async fn tag(
                &self,
                _cx: Context,
                labels: Vec<String>,
                _scores: Option<BTreeMap<String, f64>>,
                _version: Option<$module::types::TagVersion>,
            ) -> Result<i64, Failure> {
                self.0.fetch_add(1, Ordering::SeqCst);
                Ok(labels.len() as i64)
            }
        }
    };
}

counting_server!(constraints::ConstraintsServer);
counting_server!(constraints_unchecked::ConstraintsUncheckedServer);

fn checked() -> (Client, Counting) {
    let counting = Counting::default();
    let server = Server::new(constraints::ConstraintsDispatcher::new(counting.clone()));
    (Client::new(Link::new(server)), counting)
}

/// The error a raw call gets: `(code, message, data)`.
async fn refused(client: &Client, method: &str, params: Value) -> (i64, String, Value) {
    match client.request::<Value, _>(method, &params).await {
        Err(Error::Undeclared(e)) => (e.code, e.message.to_string(), e.data_as().unwrap()),
        other => panic!("{method} {params}: {other:?}"),
    }
}

fn account() -> Value {
    json!({"id": "0x0123abcd", "name": "bob", "limits": [{"max": 100}]})
}

#[tokio::test]
async fn the_server_refuses_each_constraint_naming_param_path_and_keyword() {
    let (client, counting) = checked();
    let cases = [
        (
            "transfer",
            json!({"amount": 5, "to": account()}),
            "invalid param `amount`: 5 is less than the minimum 10",
            json!({"param": "amount", "path": "", "keyword": "minimum"}),
        ),
        (
            "transfer",
            json!({"amount": 12, "to": account()}),
            "invalid param `amount`: 12 is not a multiple of the multipleOf 5",
            json!({"param": "amount", "path": "", "keyword": "multipleOf"}),
        ),
        (
            "transfer",
            json!({"amount": 10, "to": {"id": "0x0123abcZ"}}),
            "invalid param `to` at /id: \"0x0123abcZ\" does not match the pattern \"^0x[0-9a-f]{8}$\"",
            json!({"param": "to", "path": "/id", "keyword": "pattern"}),
        ),
        (
            "transfer",
            json!({"amount": 10, "to": {"id": "0x0123abcd", "limits": [{"max": 1}, {"max": 101}]}}),
            "invalid param `to` at /limits/1/max: 101 is greater than the maximum 100",
            json!({"param": "to", "path": "/limits/1/max", "keyword": "maximum"}),
        ),
        (
            "transfer",
            json!({"amount": 10, "to": account(), "memo": "a-b"}),
            "invalid param `memo`: \"a-b\" does not match the pattern \"^\\\\w*$\"",
            json!({"param": "memo", "path": "", "keyword": "pattern"}),
        ),
        (
            "transfer",
            json!({"amount": 10, "to": account(), "at": "2024-02-30T00:00:00Z"}),
            "invalid param `at`: \"2024-02-30T00:00:00Z\" is not of the format \"date-time\"",
            json!({"param": "at", "path": "", "keyword": "format"}),
        ),
        (
            "tag",
            json!([["ab", "ab"]]),
            "invalid param `labels`: items 0 and 1 are equal, against uniqueItems",
            json!({"param": "labels", "path": "", "keyword": "uniqueItems"}),
        ),
        (
            "tag",
            json!([["ab", "c"]]),
            "invalid param `labels` at /1: \"c\" is shorter than the minLength 2",
            json!({"param": "labels", "path": "/1", "keyword": "minLength"}),
        ),
        (
            "tag",
            json!([["ab"], {"x": 0}]),
            "invalid param `scores` at /x: 0 is not greater than the exclusiveMinimum 0",
            json!({"param": "scores", "path": "/x", "keyword": "exclusiveMinimum"}),
        ),
        (
            "tag",
            json!([["ab"], {"x": 1, "y": 1, "z": 1}]),
            "invalid param `scores`: 3 members, more than the maxProperties 2",
            json!({"param": "scores", "path": "", "keyword": "maxProperties"}),
        ),
    ];
    for (method, params, message, data) in cases {
        let (code, text, found) = refused(&client, method, params).await;
        assert_eq!((code, text.as_str(), &found), (-32602, message, &data));
    }
    assert_eq!(counting.calls(), 0, "no refused call reaches its handler");
}

#[tokio::test]
async fn params_at_the_boundaries_reach_the_handler() {
    let (client, counting) = checked();
    let calls = [
        (
            "transfer",
            json!({"amount": 10, "to": account(), "memo": "abcdefgh"}),
        ),
        (
            "transfer",
            json!({"amount": 1000, "to": account(), "at": "2024-02-29T23:59:60Z"}),
        ),
        (
            "tag",
            json!([["ab", "cd", "ef"], {"x": 0.001, "y": 1}, "v1"]),
        ),
    ];
    for (method, params) in calls {
        let answer: Result<Value, _> = client.request(method, &params).await;
        assert!(answer.is_ok(), "{method} {params}: {answer:?}");
    }
    assert_eq!(counting.calls(), 3);
}

#[tokio::test]
async fn an_opted_in_client_refuses_to_send_what_breaks_the_schema() {
    // The server checks nothing: whatever the client sends reaches the handler.
    let counting = Counting::default();
    let dispatcher = constraints_unchecked::ConstraintsUncheckedDispatcher::new(counting.clone());
    let server = Server::new(dispatcher);
    let strict = Client::builder()
        .validate_params(true)
        .build(Link::new(server.clone()));
    let client = constraints::ConstraintsClient::new(strict);
    let to = constraints::types::Account {
        id: "0x0123abcd".to_owned(),
        name: Some("toolong".to_owned()),
        limits: None,
    };
    let error = client
        .transfer(15, to.clone(), None, None)
        .await
        .unwrap_err();
    let Error::Invalid(violation) = &error else {
        panic!("{error:?}");
    };
    assert_eq!(
        error.to_string(),
        "invalid param `to` at /name: \"toolong\" is longer than the maxLength 3"
    );
    assert_eq!(
        (
            violation.param_name(),
            violation.pointer().as_str(),
            violation.keyword()
        ),
        (Some("to"), "/name", "maxLength")
    );
    assert_eq!(counting.calls(), 0, "nothing was sent");

    // By default a client sends as it is told, and the unchecked server takes it.
    let lax = constraints::ConstraintsClient::new(Client::new(Link::new(server)));
    assert_eq!(
        lax.transfer(15, to, None, None).await.unwrap(),
        "0x0123abcd"
    );
    assert_eq!(counting.calls(), 1);
}
