#![allow(dead_code, reason = "each test crate uses a different part")]

//! A test dispatcher with methods that finish at once, later, never, or panic.

use std::sync::Mutex;
use std::time::Duration;

use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Reply, encode};
use serde_json::Value;
use serde_json::value::RawValue;

/// Records every method it is asked to run.
#[derive(Default)]
pub(crate) struct TestMethods {
    pub(crate) seen: Mutex<Vec<String>>,
    pub(crate) document: Option<&'static str>,
}

fn first_u64(params: Option<&RawValue>) -> Result<u64, ErrorObject> {
    serde_json::from_str::<(u64,)>(params.map_or("null", RawValue::get))
        .map(|(n,)| n)
        .map_err(|e| ErrorObject::invalid_params(e.to_string()))
}

impl Dispatch for TestMethods {
    fn call(&self, method: &str, params: Option<&RawValue>, cx: Context) -> Reply {
        self.seen.lock().unwrap().push(method.to_owned());
        match method {
            "add" => match serde_json::from_str::<(i64, i64)>(params.map_or("null", RawValue::get))
            {
                Ok((a, b)) => Reply::future(async move { encode(&(a + b)) }),
                Err(e) => Reply::err(ErrorObject::invalid_params(e.to_string())),
            },
            // Answers after `ms` milliseconds, with `ms`.
            "sleep" => match first_u64(params) {
                Ok(ms) => Reply::future(async move {
                    // The handler's own duration, what timing tests measure (on a
                    // paused clock: no real time passes).
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    encode(&ms)
                }),
                Err(e) => Reply::err(e),
            },
            "never" => Reply::future(std::future::pending()),
            "panic_now" => panic!("secret panic text"),
            "panic_later" => Reply::future(async {
                tokio::task::yield_now().await;
                panic!("secret panic text")
            }),
            "echo" => {
                Reply::ok(&params.map_or(Value::Null, |p| serde_json::from_str(p.get()).unwrap()))
            }
            "big" => Reply::ok(&"x".repeat(1000)),
            "context" => Reply::ok(&serde_json::json!({
                "method": cx.method(),
                "id": cx.id().map(|id| id.as_json().to_owned()),
                "peer": cx.peer().map(|p| p.to_string()),
                "user": cx.extensions().get::<User>().map(|u| u.0),
                "transport": cx.metadata().extensions.get::<User>().map(|u| u.0),
            })),
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }

    fn document(&self) -> Option<&str> {
        self.document
    }
}

/// A typed extension, as an auth layer would insert.
#[derive(Clone)]
pub(crate) struct User(pub(crate) &'static str);

pub(crate) fn request(method: &str, params: &str, id: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":{params},"id":{id}}}"#)
}

pub(crate) fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap_or_else(|e| panic!("not JSON ({e}): {bytes:?}"))
}

/// The error code of a single error response.
pub(crate) fn error_code(bytes: &[u8]) -> i64 {
    json(bytes)["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {}", json(bytes)))
}
