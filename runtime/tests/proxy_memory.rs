//! The proxy over in-memory links: what it forwards and how byte for byte, upstream
//! errors as they came, a timeout and a closed upstream, `rpc.discover` forwarded by
//! registering the proxy as its provider, and middleware in front (a gateway). The end
//! to end tests with real processes and sockets are in `tests/services/tests/proxy.rs`.

mod support;

use std::sync::Arc;
use std::time::Duration;

use rpcsmith::client::Client;
use rpcsmith::protocol::ErrorObject;
use rpcsmith::proxy::Proxy;
use rpcsmith::server::{
    BoxFuture, Call, CallResult, Context, Dispatch, Encoded, Metadata, Middleware, Next, Reply,
    Server,
};
use rpcsmith::transport::memory::Link;
use serde_json::value::RawValue;
use support::TestMethods;

const DOC: &str = r#"{"openrpc":"1.3.2","info":{"title":"upstream","version":"1"},"methods":[]}"#;

/// A front server proxying to `upstream` over memory, `rpc.discover` forwarded too.
fn front(upstream: Client) -> Server {
    let proxy = Proxy::new(upstream);
    Server::builder(proxy.clone())
        .system("rpc.discover", proxy)
        .build()
}

async fn answer(server: &Server, message: &str) -> Option<String> {
    let answer = server.handle(message.as_bytes(), Metadata::default()).await;
    answer.map(|bytes| String::from_utf8(bytes).unwrap())
}

#[tokio::test]
async fn calls_batches_and_notifications_cross_byte_for_byte() {
    let upstream = Arc::new(TestMethods {
        document: Some(DOC),
        ..Default::default()
    });
    let server = front(Client::new(Link::new(Server::new(upstream.clone()))));
    // The params reach the upstream as written, and its result comes back as written:
    // spaces, `1.50`, `2e3` and `\u00e9` untouched.
    let raw = front(Client::new(Link::new(Server::new(RawEcho))));
    let echoed = answer(
        &raw,
        r#"{"jsonrpc":"2.0","method":"echo","params":{"b" : [1.50, 2e3],"a":"\u00e9"},"id":"k"}"#,
    )
    .await;
    assert_eq!(
        echoed.as_deref(),
        Some(r#"{"jsonrpc":"2.0","result":{"b" : [1.50, 2e3],"a":"\u00e9"},"id":"k"}"#)
    );
    let batch = concat!(
        r#"[{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1},"#,
        r#"{"jsonrpc":"2.0","method":"add","params":[5,5]},"#,
        r#"{"jsonrpc":"2.0","method":"nope","id":2}]"#
    );
    assert_eq!(
        answer(&server, batch).await.as_deref(),
        Some(concat!(
            r#"[{"jsonrpc":"2.0","result":3,"id":1},"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":2}]"#
        ))
    );
    // A notification alone: no answer, but the upstream got it.
    let notification = r#"{"jsonrpc":"2.0","method":"add","params":[7,7]}"#;
    assert_eq!(answer(&server, notification).await, None);
    assert_eq!(
        *upstream.seen.lock().unwrap(),
        ["add", "add", "nope", "add"]
    );
    // `rpc.discover` is the upstream's document.
    let discovered = answer(
        &server,
        r#"{"jsonrpc":"2.0","method":"rpc.discover","id":3}"#,
    )
    .await;
    assert_eq!(
        discovered,
        Some(format!(r#"{{"jsonrpc":"2.0","result":{DOC},"id":3}}"#))
    );
}

/// Answers its params' text as its result, untouched.
struct RawEcho;

impl Dispatch for RawEcho {
    fn call(&self, _: &str, params: Option<&RawValue>, _: Context) -> Reply {
        match params {
            Some(params) => Reply::ready(Ok(Encoded::from_raw(params))),
            None => Reply::ok(&()),
        }
    }
}

/// Fails with an error object carrying data.
struct Failing;

impl Dispatch for Failing {
    fn call(&self, _: &str, _: Option<&RawValue>, _: Context) -> Reply {
        let data = RawValue::from_string(r#"{"why": [1, 2]}"#.to_owned()).unwrap();
        let mut error = ErrorObject::new(-32050, "Refused upstream");
        error.data = Some(data);
        Reply::err(error)
    }
}

#[tokio::test]
async fn upstream_errors_arrive_as_they_came() {
    let server = front(Client::new(Link::new(Server::new(Failing))));
    let refused = answer(&server, r#"{"jsonrpc":"2.0","method":"x","id":1}"#).await;
    assert_eq!(
        refused.as_deref(),
        Some(
            r#"{"jsonrpc":"2.0","error":{"code":-32050,"message":"Refused upstream","data":{"why": [1, 2]}},"id":1}"#
        )
    );
}

#[tokio::test(start_paused = true)]
async fn a_slow_upstream_times_out() {
    let upstream = Client::builder()
        .timeout(Duration::from_secs(1))
        .build(Link::new(Server::new(TestMethods::default())));
    let server = front(upstream);
    let slow = answer(&server, r#"{"jsonrpc":"2.0","method":"never","id":1}"#).await;
    assert_eq!(
        slow.as_deref(),
        Some(r#"{"jsonrpc":"2.0","error":{"code":-32012,"message":"Request timed out"},"id":1}"#)
    );
}

#[tokio::test]
async fn a_closed_upstream_is_32015() {
    let (upstream, peer) = closed_peer().await;
    let server = front(upstream);
    let gone = answer(
        &server,
        r#"{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}"#,
    )
    .await;
    assert_eq!(
        gone.as_deref(),
        Some(
            r#"{"jsonrpc":"2.0","error":{"code":-32015,"message":"Upstream unavailable"},"id":1}"#
        )
    );
    drop(peer);
}

/// A peer's client whose connection has ended (the other end of a duplex closed).
async fn closed_peer() -> (Client, rpcsmith::transport::peer::Peer) {
    use rpcsmith::transport::peer::Peer;
    use rpcsmith::transport::stream::Codec;
    let (ours, theirs) = tokio::io::duplex(1024);
    drop(theirs);
    let (reader, writer) = tokio::io::split(ours);
    let peer = Peer::builder().framed(Codec::Newline, reader, writer);
    peer.closed().await;
    (peer.client().clone(), peer)
}

/// Refuses calls without `authorization`: the proxy as a gateway.
struct Gate;

impl Middleware for Gate {
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, CallResult> {
        if call.context.metadata().headers.is_none() {
            return Box::pin(async { Err(ErrorObject::new(-32001, "Unauthorized")) });
        }
        next.run(call)
    }
}

#[tokio::test]
async fn middleware_in_front_makes_a_gateway() {
    let upstream = Arc::new(TestMethods::default());
    let link = Link::new(Server::new(upstream.clone()));
    let server = Server::builder(Proxy::new(Client::new(link)))
        .middleware(Gate)
        .build();
    let refused = answer(
        &server,
        r#"{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}"#,
    )
    .await;
    assert_eq!(
        refused.as_deref(),
        Some(r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"Unauthorized"},"id":1}"#)
    );
    assert!(upstream.seen.lock().unwrap().is_empty());
}
