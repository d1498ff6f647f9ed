//! Dispatchers for the symmetric-connection tests: a server whose handlers push to and
//! call back their caller, and a client side that answers those calls.

#![allow(dead_code, unreachable_pub)]

use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Reply, Server, encode};
use rpcsmith::transport::peer::remote;
use serde_json::value::RawValue;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::mpsc;

/// Every test waits at most this long for anything.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// How often a state the runtime gives no event for is looked at again.
pub const POLL: Duration = Duration::from_millis(5);

fn decode<'a, T: serde::Deserialize<'a>>(params: Option<&'a RawValue>) -> Result<T, Reply> {
    serde_json::from_str(params.map_or("null", RawValue::get))
        .map_err(|e| Reply::err(ErrorObject::invalid_params(e.to_string())))
}

/// The server side. `hang` never answers; `started` counts its calls, `aborted` its
/// futures dropped unfinished. `hold` never answers either, and reports to `events`:
/// `"started"` when it starts, `"dropped"` when its future is dropped; so does any
/// unknown method (`"unknown <name>"`).
#[derive(Clone, Default)]
pub struct ServerSide {
    pub aborted: Arc<AtomicUsize>,
    pub started: Arc<AtomicUsize>,
    pub notified: Option<mpsc::UnboundedSender<String>>,
    pub events: Option<mpsc::UnboundedSender<String>>,
}

impl ServerSide {
    /// A server side reporting to the returned receiver (see [`ServerSide::events`]).
    pub fn with_events() -> (Self, mpsc::UnboundedReceiver<String>) {
        let (sender, receiver) = mpsc::unbounded_channel();
        let server = ServerSide {
            events: Some(sender),
            ..ServerSide::default()
        };
        (server, receiver)
    }

    fn report(&self, event: String) {
        if let Some(events) = &self.events {
            let _ = events.send(event);
        }
    }
}

/// Reports `"dropped"` when dropped: a handler's future given up before it finished.
struct DropSignal(Option<mpsc::UnboundedSender<String>>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        if let Some(events) = &self.0 {
            let _ = events.send("dropped".to_owned());
        }
    }
}

/// The next event, waiting at most [`PATIENCE`].
pub async fn next_event(events: &mut mpsc::UnboundedReceiver<String>) -> String {
    tokio::time::timeout(PATIENCE, events.recv())
        .await
        .expect("an event in time")
        .expect("the server side is alive")
}

/// Counts a handler future dropped before it finished.
struct DropCount(Arc<AtomicUsize>);

impl Drop for DropCount {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl Dispatch for ServerSide {
    fn call(&self, method: &str, params: Option<&RawValue>, cx: Context) -> Reply {
        let reply = match method {
            "add" => decode::<(i64, i64)>(params).map(|(a, b)| Reply::ok(&(a + b))),
            "aborted" => Ok(Reply::ok(&self.aborted.load(Ordering::SeqCst))),
            "started" => Ok(Reply::ok(&self.started.load(Ordering::SeqCst))),
            // The value of header `x-test` on the connection's (upgrade) request.
            "header" => Ok(Reply::ok(
                &cx.headers()
                    .and_then(|h| h.get("x-test"))
                    .and_then(|v| v.to_str().ok()),
            )),
            "echo" => decode::<serde_json::Value>(params).map(|v| Reply::ok(&v)),
            "hang" => {
                self.started.fetch_add(1, Ordering::SeqCst);
                let guard = DropCount(Arc::clone(&self.aborted));
                Ok(Reply::future(async move {
                    std::future::pending::<()>().await;
                    drop(guard);
                    encode(&())
                }))
            }
            "hold" => {
                self.report("started".to_owned());
                let guard = DropSignal(self.events.clone());
                Ok(Reply::future(async move {
                    std::future::pending::<()>().await;
                    drop(guard);
                    encode(&())
                }))
            }
            // Pushes `pushed` with the params to the caller, then answers.
            "push" => Ok(push(params, cx)),
            // Starts a task that pushes `pushed` with 0, 1, 2... to the caller until a
            // push fails, then reports `"push failed: <error>"`; answers at once.
            "pushing" => Ok(pushing(cx, self.events.clone())),
            // Asks the caller to `double` the number, answers with the result.
            "ask" => decode::<(i64,)>(params).map(|(n,)| ask(n, cx)),
            "note" => {
                if let Some(sender) = &self.notified {
                    let _ = sender.send(params.map_or(String::new(), |p| p.get().to_owned()));
                }
                Ok(Reply::ok(&()))
            }
            _ => {
                self.report(format!("unknown {method}"));
                Err(Reply::err(ErrorObject::method_not_found()))
            }
        };
        reply.unwrap_or_else(|reply| reply)
    }
}

fn push(params: Option<&RawValue>, cx: Context) -> Reply {
    let params = params.map(|p| p.get().to_owned());
    Reply::future(async move {
        let client = remote(&cx).ok_or_else(ErrorObject::internal_error)?;
        let raw = params.map(RawValue::from_string).transpose();
        let raw = raw.map_err(|_| ErrorObject::internal_error())?;
        client
            .notify("pushed", &raw)
            .await
            .map_err(|_| ErrorObject::internal_error())?;
        encode(&"pushed")
    })
}

fn pushing(cx: Context, events: Option<mpsc::UnboundedSender<String>>) -> Reply {
    let Some(client) = remote(&cx) else {
        return Reply::err(ErrorObject::internal_error());
    };
    tokio::spawn(async move {
        // A steady trickle, one push per tick, until pushing fails.
        let mut ticks = tokio::time::interval(POLL);
        let mut n = 0_u64;
        let error = loop {
            ticks.tick().await;
            if let Err(error) = client.notify("pushed", &[n]).await {
                break error;
            }
            n += 1;
        };
        if let Some(events) = events {
            let _ = events.send(format!("push failed: {error:?}"));
        }
    });
    Reply::ok(&"pushing")
}

fn ask(n: i64, cx: Context) -> Reply {
    Reply::future(async move {
        let client = remote(&cx).ok_or_else(ErrorObject::internal_error)?;
        let doubled: i64 = client
            .request("double", &[n])
            .await
            .map_err(|e| ErrorObject::new(1, e.to_string()))?;
        encode(&doubled)
    })
}

/// The client side: answers `double`, reports `pushed` notifications.
pub struct ClientSide {
    pub pushed: mpsc::UnboundedSender<String>,
}

impl Dispatch for ClientSide {
    fn call(&self, method: &str, params: Option<&RawValue>, _: Context) -> Reply {
        match method {
            "double" => match decode::<(i64,)>(params) {
                Ok((n,)) => Reply::ok(&(2 * n)),
                Err(reply) => reply,
            },
            "pushed" => {
                let _ = self
                    .pushed
                    .send(params.map_or(String::new(), |p| p.get().to_owned()));
                Reply::ok(&())
            }
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

/// A client-side server and the receiver of what the far side pushes.
pub fn client_side() -> (Server, mpsc::UnboundedReceiver<String>) {
    let (pushed, receiver) = mpsc::unbounded_channel();
    (Server::new(ClientSide { pushed }), receiver)
}

/// Waits for `condition` up to [`PATIENCE`], looking every [`POLL`]: for states the
/// runtime gives no event for (a hub's connections, a client's pending calls).
pub async fn eventually(mut condition: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let mut ticks = tokio::time::interval(POLL);
    loop {
        if condition() {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        ticks.tick().await;
    }
}
