//! The HTTP client transport against a raw hyper server whose answers each test
//! scripts: reordered and incomplete batches, refusals, statuses, timeouts; how it keeps
//! and reuses connections in `connections.rs`.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rpcsmith::client::{Client, Error, Handle, TransportErrorKind};
use rpcsmith::http;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};

mod connections;

/// Every wait on an event is bounded by this.
const PATIENCE: Duration = Duration::from_secs(10);

/// What the scripted server answers: status, content type and body.
type Answer = (StatusCode, &'static str, String);

struct Raw {
    addr: SocketAddr,
    connections: Arc<AtomicUsize>,
    /// How many of its connections have ended.
    closed: Arc<watch::Sender<usize>>,
}

impl Raw {
    fn new(addr: SocketAddr) -> Self {
        Raw {
            addr,
            connections: Arc::new(AtomicUsize::new(0)),
            closed: Arc::new(watch::channel(0).0),
        }
    }

    /// Waits until `count` of its connections have ended.
    async fn closed(&self, count: usize) {
        let mut closed = self.closed.subscribe();
        tokio::time::timeout(PATIENCE, closed.wait_for(|n| *n >= count))
            .await
            .expect("the connections end in time")
            .expect("the server is alive");
    }
}

/// Serves `script` on a loopback port: it gets the request body (parsed) and headers.
async fn raw_server<F>(script: F) -> Raw
where
    F: Fn(Value, &hyper::HeaderMap) -> Answer + Send + Sync + 'static,
{
    gated_server(watch::channel(true).1, script).await
}

/// As [`raw_server`], holding each answer (after `script` has run) while `gate` is false.
async fn gated_server<F>(gate: watch::Receiver<bool>, script: F) -> Raw
where
    F: Fn(Value, &hyper::HeaderMap) -> Answer + Send + Sync + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let raw = Raw::new(listener.local_addr().expect("local address"));
    let counter = Arc::clone(&raw.connections);
    let closed = Arc::clone(&raw.closed);
    let script = Arc::new(script);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            let script = Arc::clone(&script);
            let gate = gate.clone();
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let script = Arc::clone(&script);
                let mut gate = gate.clone();
                async move {
                    let headers = request.headers().clone();
                    let body = request.into_body().collect().await?.to_bytes();
                    let value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    let (status, content_type, body) = script(value, &headers);
                    // The test holds the gate open, or closed for as long as it needs.
                    let _ = gate.wait_for(|open| *open).await;
                    let mut response = Response::new(Full::new(Bytes::from(body)));
                    *response.status_mut() = status;
                    if !content_type.is_empty() {
                        response
                            .headers_mut()
                            .insert("content-type", content_type.parse().expect("header"));
                    }
                    Ok::<_, hyper::Error>(response)
                }
            });
            let closed = Arc::clone(&closed);
            tokio::spawn(async move {
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
                closed.send_modify(|n| *n += 1);
            });
        }
    });
    raw
}

/// A script answering `add` with [`sum`] that reports each call's params on `arrived`
/// before its answer is held at the gate.
fn reporting_sum(
    arrived: mpsc::UnboundedSender<Value>,
) -> impl Fn(Value, &hyper::HeaderMap) -> Answer + Send + Sync + 'static {
    move |body, _| {
        let _ = arrived.send(body["params"].clone());
        ok(sum(&body))
    }
}

/// Waits until the server has received `count` more calls.
async fn arrivals(arrived: &mut mpsc::UnboundedReceiver<Value>, count: usize) {
    for _ in 0..count {
        tokio::time::timeout(PATIENCE, arrived.recv())
            .await
            .expect("the calls reach the server in time")
            .expect("the server is alive");
    }
}

fn client(raw: &Raw) -> Client {
    let transport = http::Client::new(&format!("http://{}/", raw.addr)).expect("valid URL");
    Client::builder()
        .timeout(Duration::from_secs(5))
        .build(transport)
}

fn ok(body: Value) -> Answer {
    (StatusCode::OK, "application/json", body.to_string())
}

/// Answers `add` calls (one or a batch) with the sum of their params.
fn sum(call: &Value) -> Value {
    let total: i64 = call["params"]
        .as_array()
        .map_or(0, |p| p.iter().filter_map(Value::as_i64).sum());
    json!({"jsonrpc": "2.0", "result": total, "id": call["id"]})
}

#[tokio::test]
async fn batch_handles_read_any_order_while_the_server_answers_reversed() {
    let raw = raw_server(|body, _| {
        let calls = body.as_array().cloned().unwrap_or_default();
        let answers: Vec<Value> = calls
            .iter()
            .rev()
            .filter(|c| c.get("id").is_some())
            .map(sum)
            .collect();
        ok(Value::Array(answers))
    })
    .await;
    let client = client(&raw);
    let mut batch = client.batch();
    let handles: Vec<Handle<i64>> = (0..5).map(|n| batch.request("add", &[n, 100])).collect();
    batch.notify("log", &["between"]).expect("encodable");
    let last: Handle<String> = batch.request("add", &[1]);
    let mut replies = batch.send().await.expect("answered");
    match replies.take(last) {
        Err(error @ Error::Decode(_)) => assert_eq!(
            error.to_string(),
            "could not decode result: expected a string, found an integer 1"
        ),
        other => panic!("1 is not a string: {other:?}"),
    }
    for (n, handle) in handles.into_iter().enumerate().rev() {
        assert_eq!(replies.take(handle).expect("answered"), n as i64 + 100);
    }
}

#[tokio::test]
async fn an_entry_the_server_left_out_gets_missing_response() {
    let raw = raw_server(|body, _| {
        let calls = body.as_array().cloned().unwrap_or_default();
        ok(Value::Array(calls.iter().skip(1).map(sum).collect()))
    })
    .await;
    let client = client(&raw);
    let mut batch = client.batch();
    let first: Handle<i64> = batch.request("add", &[1]);
    let second: Handle<i64> = batch.request("add", &[2]);
    let mut replies = batch.send().await.expect("answered");
    assert_eq!(replies.take(second).expect("answered"), 2);
    assert!(matches!(replies.take(first), Err(Error::MissingResponse)));
}

#[tokio::test]
async fn a_null_id_error_goes_to_the_calls_of_its_exchange() {
    let refusal =
        r#"{"jsonrpc":"2.0","error":{"code":-32007,"message":"Request too large"},"id":null}"#;
    let raw = raw_server(move |_, _| {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            "application/json",
            refusal.to_owned(),
        )
    })
    .await;
    let client = client(&raw);
    let single = client.request::<i64, _>("add", &[1]).await;
    assert!(
        matches!(&single, Err(Error::Undeclared(e)) if e.code == -32007),
        "{single:?}"
    );
    let mut batch = client.batch();
    let handles: Vec<Handle<i64>> = (0..3).map(|n| batch.request("add", &[n])).collect();
    let mut replies = batch.send().await.expect("answered");
    for handle in handles {
        let entry = replies.take(handle);
        assert!(
            matches!(&entry, Err(Error::Undeclared(e)) if e.code == -32007),
            "{entry:?}"
        );
    }
    let notified = client.notify("log", &["x"]).await;
    assert!(
        matches!(&notified, Err(Error::Undeclared(e)) if e.code == -32007),
        "{notified:?}"
    );
}

#[tokio::test]
async fn a_null_id_error_in_a_batch_answer_fills_only_the_unanswered() {
    let raw = raw_server(|body, _| {
        let first = body.as_array().and_then(|calls| calls.first()).map(sum).unwrap_or(Value::Null);
        let refused = json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null});
        ok(json!([first, refused]))
    })
    .await;
    let client = client(&raw);
    let mut batch = client.batch();
    let first: Handle<i64> = batch.request("add", &[4]);
    let second: Handle<i64> = batch.request("add", &[5]);
    let mut replies = batch.send().await.expect("answered");
    assert_eq!(replies.take(first).expect("answered"), 4);
    assert!(matches!(replies.take(second), Err(Error::Undeclared(e)) if e.code == -32600));
}

#[tokio::test]
async fn a_malformed_member_of_a_batch_answer_fails_only_the_calls_left_unanswered() {
    let raw = raw_server(|body, _| {
        let calls = body.as_array().cloned().unwrap_or_default();
        let mut answers: Vec<Value> = calls.iter().map(sum).collect();
        // The second call's answer has both a result and an error, the fourth is not
        // an object: neither can be read, so nothing says which calls they answer.
        if let Some(second) = answers.get_mut(1) {
            second["error"] = json!({"code": 1, "message": "m"});
        }
        answers.push(json!(42));
        answers.swap(3, 4);
        ok(Value::Array(answers))
    })
    .await;
    let client = client(&raw);
    let mut batch = client.batch();
    let handles: Vec<Handle<i64>> = (0..4).map(|n| batch.request("add", &[n, 10])).collect();
    let mut replies = batch.send().await.expect("answered");
    let outcomes: Vec<_> = handles.into_iter().map(|h| replies.take(h)).collect();
    assert!(matches!(outcomes[0], Ok(10)), "{outcomes:?}");
    assert!(
        matches!(&outcomes[1], Err(Error::InvalidResponse(why)) if why.contains("exactly one")),
        "{outcomes:?}"
    );
    assert!(matches!(outcomes[2], Ok(12)), "{outcomes:?}");
    assert!(matches!(outcomes[3], Ok(13)), "{outcomes:?}");
}

#[tokio::test]
async fn statuses_without_a_json_rpc_body() {
    let raw = raw_server(|body, _| match body["method"].as_str() {
        Some("nothing") => (StatusCode::NO_CONTENT, "", String::new()),
        Some("accepted") => (StatusCode::ACCEPTED, "", String::new()),
        Some("garbage") => (StatusCode::OK, "application/json", "hello".to_owned()),
        _ => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "text/plain",
            "boom".to_owned(),
        ),
    })
    .await;
    let client = client(&raw);
    let missing = client.request::<i64, _>("nothing", &()).await;
    assert!(
        matches!(missing, Err(Error::MissingResponse)),
        "{missing:?}"
    );
    client
        .notify("nothing", &())
        .await
        .expect("204 answers a notification");
    client
        .notify("accepted", &())
        .await
        .expect("202 answers a notification");
    let garbage = client.request::<i64, _>("garbage", &()).await;
    assert!(
        matches!(garbage, Err(Error::InvalidResponse(_))),
        "{garbage:?}"
    );
    match client.request::<i64, _>("fail", &()).await {
        Err(Error::Transport(error)) => {
            assert_eq!(error.kind(), TransportErrorKind::Status);
            assert!(error.to_string().contains("500"), "{error}");
        }
        other => panic!("expected a status error, got {other:?}"),
    }
}

#[tokio::test]
async fn custom_headers_are_sent_with_every_call() {
    let raw = raw_server(|body, headers| {
        let auth = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("none");
        let content_type = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("none");
        ok(json!({"jsonrpc": "2.0", "result": [auth, content_type], "id": body["id"]}))
    })
    .await;
    let transport = http::Client::builder(format!("http://{}", raw.addr))
        .header("authorization", "Bearer token")
        .build()
        .expect("valid");
    let client = Client::new(transport);
    let seen: (String, String) = client
        .request::<(String, String), _>("whoami", &())
        .await
        .expect("answered");
    assert_eq!(
        seen,
        ("Bearer token".to_owned(), "application/json".to_owned())
    );
}

#[tokio::test]
async fn a_header_given_several_times_is_sent_with_every_value() {
    let raw = raw_server(|body, headers| {
        let values = |name: &str| -> Vec<String> {
            headers
                .get_all(name)
                .iter()
                .filter_map(|v| v.to_str().ok().map(str::to_owned))
                .collect()
        };
        let seen = json!([values("x-tag"), values("content-type"), values("accept")]);
        ok(json!({"jsonrpc": "2.0", "result": seen, "id": body["id"]}))
    })
    .await;
    let mut more = hyper::HeaderMap::new();
    more.append("x-tag", "c".parse().expect("a value"));
    more.append("x-tag", "d".parse().expect("a value"));
    let transport = http::Client::builder(format!("http://{}", raw.addr))
        .header("x-tag", "a")
        .header("x-tag", "b")
        .headers(more)
        .header("accept", "application/json, text/plain")
        .build()
        .expect("valid");
    let client = Client::new(transport);
    let seen: Value = client.request("whoami", &()).await.expect("answered");
    assert_eq!(
        seen,
        json!([
            ["a", "b", "c", "d"],
            ["application/json"],
            ["application/json, text/plain"]
        ]),
        "every value, in order; a header the client sets by default is replaced, not doubled"
    );
}

// On two worker threads: a connection is back in the client's pool before its call
// returns, so the next call finds it.
#[tokio::test]
async fn a_slow_answer_times_out_and_a_dropped_call_leaves_nothing() {
    // The server holds every answer: the call's real timeout is what ends it.
    let (_gate, held) = watch::channel(false);
    let (reported, mut arrived) = mpsc::unbounded_channel();
    let raw = gated_server(held, reporting_sum(reported)).await;
    let client = client(&raw).with_timeout(Duration::from_millis(50));
    let late = client.request::<i64, _>("add", &[1]).await;
    assert!(matches!(late, Err(Error::Timeout)), "{late:?}");
    assert_eq!(client.pending(), 0);
    let mut call = Box::pin(
        client
            .with_timeout(Duration::from_secs(5))
            .request::<i64, _>("add", &[2]),
    );
    // The call is pending once the server has it (the first call's may arrive first).
    let second =
        async { while arrived.recv().await.expect("the server is alive") != json!([2]) {} };
    tokio::select! {
        _ = &mut call => panic!("the server holds its answers"),
        () = second => {}
    }
    assert_eq!(client.pending(), 1);
    drop(call);
    assert_eq!(client.pending(), 0);
}

/// A server that reads the first connection's request and closes it without an
/// answer, then answers every later connection with [`sum`].
async fn hanging_up_server() -> SocketAddr {
    use tokio::io::AsyncReadExt;
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("local address");
    tokio::spawn(async move {
        let (mut first, _) = listener.accept().await.expect("a first connection");
        let mut request = Vec::new();
        let mut buffer = [0; 1024];
        // The whole request: its head, then as many bytes as it announced.
        while !request_is_complete(&request) {
            let read = first.read(&mut buffer).await.expect("read");
            assert!(read > 0, "the client hung up first");
            request.extend_from_slice(&buffer[..read]);
        }
        drop(first);
        while let Ok((stream, _)) = listener.accept().await {
            let service = hyper::service::service_fn(|request: Request<Incoming>| async {
                let body = request.into_body().collect().await?.to_bytes();
                let call: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let answer = Full::new(Bytes::from(sum(&call).to_string()));
                let mut response = Response::new(answer);
                response
                    .headers_mut()
                    .insert("content-type", "application/json".parse().expect("header"));
                Ok::<_, hyper::Error>(response)
            });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service),
            );
        }
    });
    addr
}

fn request_is_complete(request: &[u8]) -> bool {
    let text = String::from_utf8_lossy(request);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return false;
    };
    let length = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse::<usize>().ok())
        .unwrap_or(0);
    body.len() >= length
}

#[tokio::test]
async fn a_server_that_hangs_up_mid_call_is_a_transport_error_and_the_client_goes_on() {
    let addr = hanging_up_server().await;
    let client = Client::builder()
        .timeout(Duration::from_secs(10))
        .build(http::Client::new(&format!("http://{addr}")).expect("valid URL"));
    match client.request::<i64, _>("add", &[1, 2]).await {
        Err(Error::Transport(error)) => assert_eq!(error.kind(), TransportErrorKind::Io, "{error}"),
        other => panic!("expected an I/O transport error, got {other:?}"),
    }
    assert!(!client.is_closed(), "over HTTP the client is not closed");
    let sum: i64 = client
        .request("add", &[3, 4])
        .await
        .expect("a new connection");
    assert_eq!(sum, 7);
}

#[tokio::test]
async fn a_refused_connection_is_a_connect_error() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    drop(listener);
    let client = Client::new(http::Client::new(&format!("http://{addr}")).expect("valid"));
    match client.request::<i64, _>("add", &()).await {
        Err(Error::Transport(error)) => assert_eq!(error.kind(), TransportErrorKind::Connect),
        other => panic!("expected a connect error, got {other:?}"),
    }
}

#[tokio::test]
async fn an_answer_over_the_response_limit_is_a_transport_error() {
    let raw = raw_server(|body, _| {
        ok(json!({"jsonrpc": "2.0", "result": "x".repeat(4096), "id": body["id"]}))
    })
    .await;
    let transport = http::Client::builder(format!("http://{}", raw.addr))
        .max_response_size(1024)
        .build()
        .expect("valid");
    let client = Client::new(transport);
    match client.request::<String, _>("big", &()).await {
        Err(Error::Transport(error)) => assert_eq!(error.kind(), TransportErrorKind::Io),
        other => panic!("expected a transport error, got {other:?}"),
    }
    let roomy = Client::new(http::Client::new(&format!("http://{}", raw.addr)).expect("valid"));
    assert_eq!(
        roomy
            .request::<String, _>("big", &())
            .await
            .expect("answered")
            .len(),
        4096
    );
}

// Linux drops connection attempts to a listener whose backlog is full (other systems
// may refuse them instead).
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_connection_that_cannot_be_made_in_time_is_a_connect_error() {
    // A listener that never accepts, its backlog full: the kernel drops further
    // connection attempts, so connecting hangs until the connect timeout.
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind("127.0.0.1:0".parse().expect("address"))
        .expect("bind");
    let address = socket.local_addr().expect("address");
    let listener = socket.listen(1).expect("listen");
    let mut queued = Vec::new();
    let filled = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let attempt = tokio::net::TcpStream::connect(address);
            // Wall-clock time is the only sign of a dropped connection attempt: one that
            // has not completed in half a second (loopback takes microseconds) is.
            match tokio::time::timeout(Duration::from_millis(500), attempt).await {
                Ok(Ok(stream)) => queued.push(stream),
                Ok(Err(error)) => panic!("connecting failed: {error}"),
                Err(_) => break,
            }
        }
    })
    .await;
    assert!(
        filled.is_ok(),
        "the backlog never filled: {} queued",
        queued.len()
    );
    // The real connect timeout under test; the attempt could never complete.
    let transport = http::Client::builder(format!("http://{address}"))
        .connect_timeout(Some(Duration::from_millis(200)))
        .build()
        .expect("valid");
    let client = Client::builder()
        .timeout(Duration::from_secs(10))
        .build(transport);
    match client.request::<i64, _>("add", &()).await {
        Err(Error::Transport(error)) => {
            assert_eq!(error.kind(), TransportErrorKind::Connect, "{error}")
        }
        other => panic!("expected a connect error, got {other:?}"),
    }
    drop(listener);
}
