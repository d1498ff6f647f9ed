//! The HTTP server transport with the real server engine, on a loopback port: the
//! specification's examples with their status codes, refusals, metadata, and the
//! client over real HTTP; connections, HTTP/2 and shutdown in `connections.rs`.

#[path = "../client_support/mod.rs"]
mod client_support;
mod connections;
#[path = "../spec/mod.rs"]
mod spec;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{HeaderMap, Method, Request, StatusCode};
use hyper_util::client::legacy::Client as Pool;
use hyper_util::rt::{TokioExecutor, TokioIo};
use rpcsmith::client::{Client, Error, Handle};
use rpcsmith::http::{self, NoResponse, Serve, Service};
use rpcsmith::protocol::{ErrorObject, code};
use rpcsmith::server::{Context, Dispatch, Reply, Server, encode};
use serde_json::Value;
use serde_json::value::RawValue;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tower::ServiceExt as _;

/// Every test waits at most this long for anything.
const PATIENCE: Duration = Duration::from_secs(10);

struct Running {
    addr: SocketAddr,
    stop: oneshot::Sender<()>,
    serving: JoinHandle<()>,
}

impl Running {
    async fn stop(self) {
        let _ = self.stop.send(());
        tokio::time::timeout(Duration::from_secs(5), self.serving)
            .await
            .expect("serve returns after shutdown")
            .expect("serve does not panic");
    }

    fn client(&self) -> Client {
        Client::new(http::Client::new(&format!("http://{}", self.addr)).expect("valid URL"))
    }
}

type Shutdown = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

async fn start(service: Service) -> Running {
    start_with(move |listener, shutdown| http::serve(listener, service, shutdown)).await
}

/// Runs what `run` makes of a loopback listener and a shutdown signal.
async fn start_with<F, R>(run: F) -> Running
where
    F: FnOnce(TcpListener, Shutdown) -> R,
    R: std::future::Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("local address");
    let (stop, stopped) = oneshot::channel::<()>();
    let shutdown: Shutdown = Box::pin(async {
        let _ = stopped.await;
    });
    let serving = tokio::spawn(run(listener, shutdown));
    Running {
        addr,
        stop,
        serving,
    }
}

async fn post(
    addr: SocketAddr,
    method: Method,
    content_type: &str,
    body: Vec<u8>,
) -> (StatusCode, HeaderMap, Bytes) {
    let pool: Pool<_, Full<Bytes>> = Pool::builder(TokioExecutor::new()).build_http();
    let mut request = Request::new(Full::new(Bytes::from(body)));
    *request.method_mut() = method;
    *request.uri_mut() = format!("http://{addr}/").parse().expect("uri");
    if !content_type.is_empty() {
        request
            .headers_mut()
            .insert("content-type", content_type.parse().expect("header"));
    }
    let response = pool.request(request).await.expect("the server answers");
    let (parts, body) = response.into_parts();
    let body = body.collect().await.expect("the body is read").to_bytes();
    (parts.status, parts.headers, body)
}

fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("a JSON body")
}

#[tokio::test]
async fn every_spec_example_over_http_with_its_status() {
    let running = start(Service::new(client_support::server())).await;
    for example in spec::EXAMPLES {
        let (status, headers, body) = post(
            running.addr,
            Method::POST,
            "application/json",
            example.request.as_bytes().to_vec(),
        )
        .await;
        match example.response {
            Some(expected) => {
                assert_eq!(status, StatusCode::OK, "{}", example.name);
                assert_eq!(
                    headers["content-type"], "application/json",
                    "{}",
                    example.name
                );
                assert_eq!(json(&body), json(expected.as_bytes()), "{}", example.name);
            }
            None => {
                assert_eq!(status, StatusCode::NO_CONTENT, "{}", example.name);
                assert!(body.is_empty(), "{}: no body, not even null", example.name);
            }
        }
    }
    running.stop().await;
}

/// The client side of the same table: each example sent as it is written through the
/// HTTP client transport, its answer and the server's status compared.
#[tokio::test]
async fn every_spec_example_through_the_http_client_transport() {
    use rpcsmith::client::{Delivery, Transport};
    let (statuses, mut status) = tokio::sync::mpsc::unbounded_channel();
    let service = tower::ServiceBuilder::new()
        .map_response(move |response: hyper::Response<http::ResponseBody>| {
            let _ = statuses.send(response.status());
            response
        })
        .service(Service::new(client_support::server()));
    let running =
        start_with(move |listener, shutdown| http::serve(listener, service, shutdown)).await;
    let transport = http::Client::new(&format!("http://{}", running.addr)).expect("valid URL");
    for example in spec::EXAMPLES {
        let delivery = transport
            .send(Bytes::from_static(example.request.as_bytes()))
            .await
            .unwrap_or_else(|error| panic!("{}: {error}", example.name));
        let status = status.recv().await.expect("the server answered");
        match (example.response, delivery) {
            (Some(expected), Delivery::Answer(answer)) => {
                assert_eq!(status, StatusCode::OK, "{}", example.name);
                assert_eq!(json(&answer), json(expected.as_bytes()), "{}", example.name);
            }
            (None, Delivery::NoAnswer) => {
                assert_eq!(status, StatusCode::NO_CONTENT, "{}", example.name);
            }
            (expected, delivery) => panic!(
                "{}: expected {expected:?}, the transport delivered {delivery:?}",
                example.name
            ),
        }
    }
    running.stop().await;
}

#[tokio::test]
async fn notifications_can_be_answered_202() {
    let running =
        start(Service::new(client_support::server()).no_response_status(NoResponse::Accepted))
            .await;
    let notification =
        br#"[{"jsonrpc":"2.0","method":"update"},{"jsonrpc":"2.0","method":"log","params":[1]}]"#;
    let (status, _, body) = post(
        running.addr,
        Method::POST,
        "application/json",
        notification.to_vec(),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert!(body.is_empty());
    running
        .client()
        .notify("update", &[1])
        .await
        .expect("the client takes 202");
    running.stop().await;
}

#[tokio::test]
async fn refusals_405_415_413() {
    let running = start(Service::new(client_support::server()).max_request_size(1024)).await;
    let call = br#"{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}"#.to_vec();

    let (status, headers, body) =
        post(running.addr, Method::GET, "application/json", Vec::new()).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(headers["allow"], "POST");
    assert_eq!(json(&body)["id"], Value::Null);

    let (status, _, body) = post(running.addr, Method::POST, "text/plain", call.clone()).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(json(&body)["error"]["code"], -32600);
    let (status, _, _) = post(running.addr, Method::POST, "", call.clone()).await;
    assert_eq!(
        status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "no content type at all"
    );
    let (status, _, body) = post(
        running.addr,
        Method::POST,
        "application/json; charset=utf-8",
        call,
    )
    .await;
    assert_eq!(
        (status, json(&body)["result"].clone()),
        (StatusCode::OK, Value::from(3))
    );

    let numbers = vec![1; 600];
    let large = serde_json::to_vec(
        &serde_json::json!({"jsonrpc":"2.0","method":"sum","params":numbers,"id":1}),
    )
    .expect("serialisable");
    assert!(large.len() > 1024);
    let (status, headers, body) = post(running.addr, Method::POST, "application/json", large).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(headers["content-type"], "application/json");
    let refusal = json(&body);
    assert_eq!(
        (refusal["error"]["code"].clone(), refusal["id"].clone()),
        (Value::from(-32007), Value::Null)
    );

    let client = running.client();
    let refused = client.request::<i64, _>("sum", &numbers).await;
    assert!(
        matches!(&refused, Err(Error::Undeclared(e)) if e.code == -32007),
        "{refused:?}"
    );
    assert_eq!(
        client
            .request::<i64, _>("sum", &[1, 2])
            .await
            .expect("small is fine"),
        3
    );
    running.stop().await;
}

#[tokio::test]
async fn a_body_without_content_length_is_limited_while_reading() {
    let service = Service::new(client_support::server()).max_request_size(64);
    let chunks: Vec<_> = (0..3)
        .map(|_| {
            Ok::<_, std::convert::Infallible>(hyper::body::Frame::data(Bytes::from(vec![b' '; 48])))
        })
        .collect();
    let body = http_body_util::StreamBody::new(futures_util::stream::iter(chunks));
    let mut request = Request::new(body);
    *request.method_mut() = Method::POST;
    request
        .headers_mut()
        .insert("content-type", "application/json".parse().expect("header"));
    let response = service.oneshot(request).await.expect("infallible");
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
}

#[tokio::test]
async fn headers_peer_and_extensions_reach_the_handler() {
    let running = start(Service::new(client_support::server())).await;
    let transport = http::Client::builder(format!("http://{}", running.addr))
        .header("authorization", "Bearer abc")
        .build()
        .expect("valid");
    let seen: (Option<String>, Option<String>, Option<String>) = Client::new(transport)
        .request("whoami", &())
        .await
        .expect("answered");
    assert_eq!(
        seen,
        (
            Some("127.0.0.1".to_owned()),
            Some("Bearer abc".to_owned()),
            None
        )
    );
    running.stop().await;

    // Mounted as a plain tower service, a layer's extension reaches the handler.
    let service = Service::new(client_support::server());
    let mut request = Request::new(Full::new(Bytes::from_static(
        br#"{"jsonrpc":"2.0","method":"whoami","id":1}"#,
    )));
    *request.method_mut() = Method::POST;
    request
        .headers_mut()
        .insert("content-type", "application/json".parse().expect("header"));
    request.extensions_mut().insert(String::from("user-42"));
    let response = service.oneshot(request).await.expect("infallible");
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    assert_eq!(
        json(&body)["result"],
        serde_json::json!([null, null, "user-42"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_over_one_http_client_are_correlated() {
    let running = start(Service::new(client_support::server())).await;
    let client = running.client();
    let calls: Vec<_> = (0..200_i64)
        .map(|n| tokio::spawn(client.request::<i64, _>("sleep", &((n % 7) as u64, n))))
        .collect();
    for (n, call) in calls.into_iter().enumerate() {
        assert_eq!(call.await.expect("task").expect("answered"), n as i64);
    }
    assert_eq!(client.pending(), 0);
    let mut batch = client.batch();
    let slow: Handle<i64> = batch.request("sleep", &(30, 1));
    let fast: Handle<i64> = batch.request("sleep", &(0, 2));
    let mut replies = batch.send().await.expect("answered");
    assert_eq!(
        (
            replies.take(fast).expect("fast"),
            replies.take(slow).expect("slow")
        ),
        (2, 1)
    );
    running.stop().await;
}

#[tokio::test]
async fn http2_with_prior_knowledge() {
    let running = start(Service::new(client_support::server())).await;
    let transport = http::Client::builder(format!("http://{}", running.addr))
        .http2_only(true)
        .build()
        .expect("valid");
    let client = Client::new(transport);
    assert_eq!(
        client
            .request::<i64, _>("add", &[20, 22])
            .await
            .expect("answered"),
        42
    );
    running.stop().await;
}

/// A dispatcher whose `wait` reports it started and answers once the gate opens, and
/// whose `where` answers the caller's port and the request's HTTP version (put in the
/// extensions by a layer): which connection, and which protocol, carried the call.
struct Gated {
    started: tokio::sync::mpsc::UnboundedSender<()>,
    gate: tokio::sync::watch::Receiver<bool>,
}

impl Dispatch for Gated {
    fn call(&self, method: &str, _: Option<&RawValue>, cx: Context) -> Reply {
        match method {
            "wait" => {
                let _ = self.started.send(());
                let mut gate = self.gate.clone();
                Reply::future(async move {
                    let _ = gate.wait_for(|open| *open).await;
                    encode(&"done")
                })
            }
            "where" => {
                let version = cx.metadata().extensions.get::<hyper::Version>();
                Reply::ok(&(cx.peer().map(|peer| peer.port()), format!("{version:?}")))
            }
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

/// Serves [`Gated`] (its `wait` calls held until the returned sender says `true`).
async fn start_gated() -> (
    Running,
    tokio::sync::mpsc::UnboundedReceiver<()>,
    tokio::sync::watch::Sender<bool>,
) {
    let (started, started_rx) = tokio::sync::mpsc::unbounded_channel();
    let (open, gate) = tokio::sync::watch::channel(false);
    let service = tower::ServiceBuilder::new()
        .map_request(|mut request: Request<hyper::body::Incoming>| {
            let version = request.version();
            request.extensions_mut().insert(version);
            request
        })
        .service(Service::new(Server::new(Gated { started, gate })));
    let running =
        start_with(move |listener, shutdown| http::serve(listener, service, shutdown)).await;
    (running, started_rx, open)
}

#[tokio::test]
async fn a_layered_service_is_served_and_its_extensions_reach_the_handler() {
    let layered = tower::ServiceBuilder::new()
        .map_request(|mut request: Request<hyper::body::Incoming>| {
            request
                .extensions_mut()
                .insert(String::from("from a layer"));
            request
        })
        .service(Service::new(client_support::server()));
    let running =
        start_with(move |listener, shutdown| http::serve(listener, layered, shutdown)).await;
    let seen: (Option<String>, Option<String>, Option<String>) = running
        .client()
        .request("whoami", &())
        .await
        .expect("answered");
    assert_eq!(
        seen,
        (
            Some("127.0.0.1".to_owned()),
            None,
            Some("from a layer".to_owned())
        )
    );
    running.stop().await;
}
