//! The runtime alone, without the generator: `cargo run -p rpcsmith --example http_add`.
//!
//! Serves a hand-written `add(a, b)` dispatcher (what `rpcsmith-build` generates for a
//! document, written by hand) over HTTP on a loopback port, then calls it through the
//! untyped client: a single call, a typed batch, a notification, and errors (one the
//! method declares, one it does not). Exits 0 when every answer is the one expected;
//! `.ci/run` runs it. For the generated path, see `cargo run -p petstore`.

use rpcsmith::client::{Client, DeclaredError, Error, Handle};
use rpcsmith::http;
use rpcsmith::protocol::{ErrorObject, mismatch};
use rpcsmith::server::{Context, Dispatch, Reply, Server};
use serde_json::value::RawValue;
use tokio::net::TcpListener;

/// The error code `add` declares when the sum does not fit an `i64`.
const OVERFLOW: i64 = 1;

/// A dispatcher written by hand, as the generator will write one.
struct Calculator;

impl Dispatch for Calculator {
    fn call(&self, method: &str, params: Option<&RawValue>, _context: Context) -> Reply {
        match method {
            "add" => match mismatch::from_str::<(i64, i64)>(params.map_or("null", RawValue::get)) {
                Ok((a, b)) => match a.checked_add(b) {
                    Some(sum) => Reply::ok(&sum),
                    None => Reply::err(ErrorObject::new(OVERFLOW, "the sum does not fit an i64")),
                },
                // Why, in JSON terms: "at /1: expected an integer, found a string …".
                Err(error) => Reply::err(ErrorObject::invalid_params(format!(
                    "invalid params: {error}"
                ))),
            },
            "log" => {
                println!("server: log {}", params.map_or("", RawValue::get));
                Reply::ok(&())
            }
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

/// The errors `add` declares, as a generated client would type them.
#[derive(Debug)]
enum AddError {
    Overflow,
}

impl DeclaredError for AddError {
    fn from_object(error: ErrorObject) -> Result<Self, ErrorObject> {
        match error.code {
            OVERFLOW => Ok(AddError::Overflow),
            _ => Err(error),
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder(Calculator).build();
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(http::serve(listener, http::Service::new(server), async {
        let _ = stopped.await;
    }));
    println!("serving add(a, b) on {url}");

    let client = Client::new(http::Client::new(&url)?);

    let sum: i64 = client.request("add", &[2, 3]).await?;
    println!("add(2, 3) = {sum}");
    check(sum == 5, "add(2, 3) should be 5")?;

    let mut batch = client.batch();
    let small: Handle<i64> = batch.request("add", &[1, 2]);
    batch.notify("log", &["inside a batch"])?;
    let large: Handle<i64> = batch.request("add", &[1_000, 2_000]);
    let mut replies = batch.send().await?;
    let (large, small) = (replies.take(large)?, replies.take(small)?);
    println!("batch: add(1, 2) = {small}, add(1000, 2000) = {large}");
    check((small, large) == (3, 3_000), "the batch's sums")?;

    client.notify("log", &["hello from the client"]).await?;
    println!("notification sent (HTTP 204, no body)");

    match client
        .request_declared::<i64, AddError, _>("add", &[i64::MAX, 1])
        .await
    {
        Err(Error::Declared(AddError::Overflow)) => {
            println!("add(i64::MAX, 1) failed as declared: overflow")
        }
        other => return Err(format!("expected the declared overflow error, got {other:?}").into()),
    }
    match client.request::<i64, _>("multiply", &[2, 3]).await {
        Err(Error::Undeclared(error)) => println!("multiply(2, 3) failed: {error}"),
        other => return Err(format!("expected method not found, got {other:?}").into()),
    }

    let _ = stop.send(());
    serving.await?;
    println!("server stopped");
    Ok(())
}

fn check(ok: bool, what: &str) -> Result<(), Box<dyn std::error::Error>> {
    if ok {
        Ok(())
    } else {
        Err(format!("wrong answer: {what}").into())
    }
}
