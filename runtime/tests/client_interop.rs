//! Wire compatibility with jsonrpsee, the main Rust peer, over HTTP on loopback: the
//! rpcsmith client against a jsonrpsee server, and a jsonrpsee client against the
//! rpcsmith server.

mod client_support;

use jsonrpsee::core::client::ClientT as _;
use jsonrpsee::core::params::BatchRequestBuilder;
use jsonrpsee::http_client::HttpClientBuilder;
use jsonrpsee::rpc_params;
use jsonrpsee::server::{RpcModule, Server as Peer};
use jsonrpsee::types::ErrorObjectOwned;
use rpcsmith::client::{Client, DeclaredError, Error, Handle};
use rpcsmith::http;
use rpcsmith::protocol::ErrorObject;
use std::time::Duration;

#[derive(Debug, PartialEq)]
struct ByZero(i64);

impl DeclaredError for ByZero {
    fn from_object(error: ErrorObject) -> Result<Self, ErrorObject> {
        let dividend = error
            .data
            .as_deref()
            .and_then(|d| serde_json::from_str(d.get()).ok());
        match (error.code, dividend) {
            (1, Some(dividend)) => Ok(ByZero(dividend)),
            _ => Err(error),
        }
    }
}

async fn jsonrpsee_server() -> (String, jsonrpsee::server::ServerHandle) {
    let server = Peer::builder()
        .build("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = server.local_addr().expect("local address");
    let mut module = RpcModule::new(());
    module
        .register_method("add", |params, _, _| {
            let (a, b): (i64, i64) = params.parse()?;
            Ok::<i64, ErrorObjectOwned>(a + b)
        })
        .expect("registered");
    module
        .register_method("divide", |params, _, _| {
            let (a, b): (i64, i64) = params.parse()?;
            match b {
                0 => Err(ErrorObjectOwned::owned(1, "division by zero", Some(a))),
                _ => Ok(a / b),
            }
        })
        .expect("registered");
    module
        .register_method("log", |_, _, _| ())
        .expect("registered");
    (format!("http://{addr}"), server.start(module))
}

#[tokio::test]
async fn the_rpcsmith_client_talks_to_a_jsonrpsee_server() {
    let (url, handle) = jsonrpsee_server().await;
    let client = Client::builder()
        .timeout(Duration::from_secs(5))
        .build(http::Client::new(&url).expect("valid URL"));
    assert_eq!(
        client
            .request::<i64, _>("add", &[40, 2])
            .await
            .expect("answered"),
        42
    );
    let declared = client
        .request_declared::<i64, ByZero, _>("divide", &[7, 0])
        .await;
    assert!(
        matches!(declared, Err(Error::Declared(ByZero(7)))),
        "{declared:?}"
    );
    let unknown = client.request::<i64, _>("nope", &()).await;
    assert!(
        matches!(&unknown, Err(Error::Undeclared(e)) if e.code == -32601),
        "{unknown:?}"
    );
    client
        .notify("log", &["x"])
        .await
        .expect("a notification is accepted");

    let mut batch = client.batch();
    let sum: Handle<i64> = batch.request("add", &[1, 2]);
    batch.notify("log", &["in a batch"]).expect("encodable");
    let quotient: Handle<i64, ByZero> = batch.request_declared("divide", &[1, 0]);
    let mut replies = batch.send().await.expect("answered");
    assert!(matches!(
        replies.take(quotient),
        Err(Error::Declared(ByZero(1)))
    ));
    assert_eq!(replies.take(sum).expect("answered"), 3);
    let _ = handle.stop();
    handle.stopped().await;
}

#[tokio::test]
async fn a_jsonrpsee_client_talks_to_the_rpcsmith_server() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let url = format!("http://{}", listener.local_addr().expect("local address"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let service = http::Service::new(client_support::server());
    let serving = tokio::spawn(http::serve(listener, service, async {
        let _ = stopped.await;
    }));

    let client = HttpClientBuilder::default().build(&url).expect("valid URL");
    let sum: i64 = client
        .request("add", rpc_params![1, 2, 3])
        .await
        .expect("answered");
    assert_eq!(sum, 6);
    let difference: i64 = client
        .request("subtract", rpc_params![42, 23])
        .await
        .expect("answered");
    assert_eq!(difference, 19);
    client
        .notification("update", rpc_params![1])
        .await
        .expect("204 is accepted");
    let unknown = client.request::<i64, _>("nope", rpc_params![]).await;
    match unknown {
        Err(jsonrpsee::core::ClientError::Call(error)) => assert_eq!(error.code(), -32601),
        other => panic!("expected a call error, got {other:?}"),
    }
    let mut batch = BatchRequestBuilder::new();
    batch.insert("add", rpc_params![1, 1]).expect("encodable");
    batch.insert("add", rpc_params![2, 2]).expect("encodable");
    let answers = client.batch_request::<i64>(batch).await.expect("answered");
    let sums: Vec<i64> = answers.into_ok().expect("all succeed").collect();
    assert_eq!(sums, [2, 4]);

    let _ = stop.send(());
    serving.await.expect("serve ends");
}
