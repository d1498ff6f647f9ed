//! A hand-written dispatcher for the client and transport tests: the methods of the
//! JSON-RPC 2.0 specification's examples, plus a few to probe timing and metadata.

#![allow(dead_code, unreachable_pub)]

use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Reply, Server};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::time::Duration;

/// The test dispatcher.
pub struct Methods;

#[derive(Deserialize)]
#[serde(untagged)]
enum Subtract {
    Position(i64, i64),
    Name { minuend: i64, subtrahend: i64 },
}

fn params<'a, T: Deserialize<'a>>(params: Option<&'a RawValue>) -> Result<T, Reply> {
    serde_json::from_str(params.map_or("null", RawValue::get))
        .map_err(|error| Reply::err(ErrorObject::invalid_params(error.to_string())))
}

impl Dispatch for Methods {
    fn call(&self, method: &str, raw: Option<&RawValue>, context: Context) -> Reply {
        let reply = match method {
            "subtract" => params::<Subtract>(raw).map(|p| match p {
                Subtract::Position(a, b)
                | Subtract::Name {
                    minuend: a,
                    subtrahend: b,
                } => Reply::ok(&(a - b)),
            }),
            "sum" | "add" => params::<Vec<i64>>(raw).map(|v| Reply::ok(&v.iter().sum::<i64>())),
            "get_data" => Ok(Reply::ok(&("hello", 5))),
            "update" | "notify_hello" | "log" => Ok(Reply::ok(&())),
            "echo" => params::<Box<RawValue>>(raw).map(|v| Reply::ok(&v)),
            "sleep" => params::<(u64, i64)>(raw).map(|(ms, value)| {
                Reply::future(async move {
                    // The handler's own duration: what a test of slow handlers runs.
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    rpcsmith::server::encode(&value)
                })
            }),
            "whoami" => Ok(whoami(&context)),
            _ => Ok(Reply::err(ErrorObject::method_not_found())),
        };
        reply.unwrap_or_else(|refusal| refusal)
    }
}

/// The peer, the `authorization` header and the `String` extension the call saw.
fn whoami(context: &Context) -> Reply {
    let peer = context.peer().map(|peer| peer.ip().to_string());
    let auth = context
        .headers()
        .and_then(|headers| headers.get("authorization"))
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let tag = context.metadata().extensions.get::<String>().cloned();
    Reply::ok(&(peer, auth, tag))
}

/// A server engine with the test dispatcher and default limits.
pub fn server() -> Server {
    Server::builder(Methods).build()
}
