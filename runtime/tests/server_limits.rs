//! Limits, panics and timeouts.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rpcsmith::protocol::code;
use rpcsmith::server::{Context, Dispatch, Limits, Metadata, Reply, Server, encode};
use serde_json::value::RawValue;
use support::{TestMethods, error_code, json, request};

fn server(limits: Limits) -> Server {
    Server::builder(TestMethods::default())
        .limits(limits)
        .build()
}

#[tokio::test]
async fn request_size_is_checked_before_parsing() {
    let mut limits = Limits::default();
    limits.max_request_size = 100;
    let server = server(limits);
    let fits = request("echo", &format!("[\"{}\"]", "x".repeat(46)), 1);
    assert_eq!(fits.len(), 100);
    let answer = server
        .handle(fits.as_bytes(), Metadata::default())
        .await
        .unwrap();
    assert!(json(&answer)["result"].is_array());

    // One byte over, and not even JSON: the size is what is reported, with `id: null`.
    let too_big = [b'{'; 101];
    let answer = server.handle(&too_big, Metadata::default()).await.unwrap();
    assert_eq!(error_code(&answer), code::REQUEST_TOO_LARGE);
    assert!(json(&answer)["id"].is_null());
}

#[tokio::test]
async fn batch_length_is_limited() {
    let mut limits = Limits::default();
    limits.max_batch_len = 2;
    let server = server(limits);
    let call = request("add", "[1,2]", 1);
    let two = format!("[{call},{call}]");
    let answer = server
        .handle(two.as_bytes(), Metadata::default())
        .await
        .unwrap();
    assert_eq!(json(&answer).as_array().map(Vec::len), Some(2));
    let three = format!("[{call},{call},{call}]");
    let answer = server
        .handle(three.as_bytes(), Metadata::default())
        .await
        .unwrap();
    assert_eq!(error_code(&answer), code::BATCH_TOO_LARGE);
    assert!(json(&answer)["id"].is_null());
}

#[tokio::test]
async fn response_size_is_limited() {
    let mut limits = Limits::default();
    limits.max_response_size = 900;
    let server = server(limits);
    let answer = server
        .handle(request("big", "[]", 4).as_bytes(), Metadata::default())
        .await
        .unwrap();
    assert_eq!(error_code(&answer), code::RESPONSE_TOO_LARGE);
    assert_eq!(json(&answer)["id"], 4);

    // Each response fits, the batch does not.
    let echo = request("echo", &format!("[\"{}\"]", "y".repeat(300)), 1);
    let batch = format!("[{echo},{echo},{echo}]");
    let answer = server
        .handle(batch.as_bytes(), Metadata::default())
        .await
        .unwrap();
    assert_eq!(error_code(&answer), code::RESPONSE_TOO_LARGE);
}

/// Counts its calls; every method answers 100 bytes of text: `later` after yielding
/// once (so its call is still pending on its first poll), any other at once.
struct Chunks(Arc<AtomicUsize>);

impl Dispatch for Chunks {
    fn call(&self, method: &str, _: Option<&RawValue>, _: Context) -> Reply {
        self.0.fetch_add(1, Ordering::SeqCst);
        let chunk = "z".repeat(100);
        match method {
            "later" => Reply::future(async move {
                tokio::task::yield_now().await;
                encode(&chunk)
            }),
            _ => Reply::ok(&chunk),
        }
    }
}

/// A batch of 1,024 calls of `method`, served with `max_response_size`: the answer,
/// and how many calls ran.
async fn chunks(method: &str, max_response_size: usize) -> (Vec<u8>, usize) {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut limits = Limits::default();
    limits.max_response_size = max_response_size;
    let server = Server::builder(Chunks(Arc::clone(&calls)))
        .limits(limits)
        .build();
    let entries: Vec<String> = (0..1024).map(|id| request(method, "[]", id)).collect();
    let batch = format!("[{}]", entries.join(","));
    let answer = server.handle(batch.as_bytes(), Metadata::default()).await;
    (
        answer.expect("calls are answered"),
        calls.load(Ordering::SeqCst),
    )
}

#[tokio::test]
async fn a_batch_stops_as_soon_as_its_answer_outgrows_the_limit() {
    for method in ["now", "later"] {
        // About 15 answers fit in 2,000 bytes; at most `batch_concurrency` (64) calls
        // start before the first one finishes.
        let (answer, ran) = chunks(method, 2_000).await;
        assert_eq!(error_code(&answer), code::RESPONSE_TOO_LARGE, "{method}");
        assert!(json(&answer)["id"].is_null());
        assert!(
            ran < 100,
            "{method}: {ran} of 1,024 calls ran for an answer too large after 15"
        );
    }
}

#[tokio::test]
async fn a_batch_answer_exactly_at_the_limit_is_sent() {
    for method in ["now", "later"] {
        let (whole, ran) = chunks(method, usize::MAX).await;
        assert_eq!(
            (json(&whole).as_array().map(Vec::len), ran),
            (Some(1024), 1024)
        );
        let (answer, _) = chunks(method, whole.len()).await;
        assert_eq!(answer, whole, "{method}: the limit is inclusive");
        let (answer, _) = chunks(method, whole.len() - 1).await;
        assert_eq!(error_code(&answer), code::RESPONSE_TOO_LARGE, "{method}");
    }
}

#[tokio::test(start_paused = true)]
async fn calls_in_flight_per_connection_are_limited() {
    let mut limits = Limits::default();
    limits.max_in_flight = 1;
    let server = server(limits);
    let connection = server.connection(Metadata::default());
    let slow = request("sleep", "[100]", 1);
    let fast = request("add", "[1,2]", 2);
    let (slow_answer, fast_answer) = tokio::join!(connection.handle(slow.as_bytes()), async {
        // Until the slow call is in flight (each yield lets it run).
        for _ in 0..1_000 {
            if connection.in_flight() > 0 {
                break;
            }
            tokio::task::yield_now().await;
        }
        assert_eq!(connection.in_flight(), 1);
        connection.handle(fast.as_bytes()).await
    });
    assert_eq!(json(&slow_answer.unwrap())["result"], 100);
    assert_eq!(error_code(&fast_answer.unwrap()), code::SERVER_BUSY);
    assert_eq!(connection.in_flight(), 0);

    // Another connection has its own limit.
    let other = server.connection(Metadata::default());
    let (a, b) = tokio::join!(
        connection.handle(slow.as_bytes()),
        other.handle(slow.as_bytes())
    );
    assert_eq!(json(&a.unwrap())["result"], 100);
    assert_eq!(json(&b.unwrap())["result"], 100);
}

#[tokio::test(start_paused = true)]
async fn in_flight_limit_applies_inside_a_batch() {
    let mut limits = Limits::default();
    limits.max_in_flight = 2;
    let server = server(limits);
    let batch = format!(
        "[{},{},{},{}]",
        request("sleep", "[10]", 1),
        request("sleep", "[10]", 2),
        request("sleep", "[10]", 3),
        r#"{"jsonrpc":"2.0","method":"sleep","params":[10]}"#
    );
    let answer = json(
        &server
            .handle(batch.as_bytes(), Metadata::default())
            .await
            .unwrap(),
    );
    assert_eq!(answer[0]["result"], 10);
    assert_eq!(answer[1]["result"], 10);
    assert_eq!(answer[2]["error"]["code"], code::SERVER_BUSY);
    assert_eq!(
        answer.as_array().map(Vec::len),
        Some(3),
        "the busy notification is dropped"
    );
}

#[tokio::test(start_paused = true)]
async fn slow_handlers_time_out() {
    let mut limits = Limits::default();
    limits.handler_timeout = Some(Duration::from_millis(50)); // on the paused clock
    let server = server(limits);
    let started = tokio::time::Instant::now();
    let answer = server
        .handle(request("never", "[]", 7).as_bytes(), Metadata::default())
        .await;
    let answer = answer.unwrap();
    assert_eq!(error_code(&answer), code::TIMEOUT);
    assert_eq!(json(&answer)["id"], 7);
    assert_eq!(started.elapsed(), Duration::from_millis(50)); // paused clock: exact

    let within = server
        .handle(request("sleep", "[40]", 8).as_bytes(), Metadata::default())
        .await;
    assert_eq!(json(&within.unwrap())["result"], 40);

    let batch = format!(
        "[{},{}]",
        request("never", "[]", 1),
        request("sleep", "[5]", 2)
    );
    let answer = json(
        &server
            .handle(batch.as_bytes(), Metadata::default())
            .await
            .unwrap(),
    );
    assert_eq!(answer[0]["error"]["code"], code::TIMEOUT);
    assert_eq!(answer[1]["result"], 5);
}

#[tokio::test(start_paused = true)]
async fn no_timeout_when_disabled() {
    let mut limits = Limits::default();
    limits.handler_timeout = None;
    let server = server(limits);
    let hour = request("sleep", "[3600000]", 1);
    let answer = server
        .handle(hour.as_bytes(), Metadata::default())
        .await
        .unwrap();
    assert_eq!(json(&answer)["result"], 3_600_000);
}

#[tokio::test]
async fn panics_become_internal_errors_without_their_text() {
    let server = server(Limits::default());
    for method in ["panic_now", "panic_later"] {
        let answer = server
            .handle(request(method, "[]", 3).as_bytes(), Metadata::default())
            .await;
        let answer = answer.unwrap();
        assert_eq!(error_code(&answer), code::INTERNAL_ERROR, "{method}");
        assert_eq!(json(&answer)["error"]["message"], "Internal error");
        assert!(
            !String::from_utf8_lossy(&answer).contains("secret"),
            "{method}"
        );
    }
    let batch = format!(
        "[{},{},{}]",
        request("panic_now", "[]", 1),
        request("panic_later", "[]", 2),
        request("add", "[2,3]", 3)
    );
    let answer = json(
        &server
            .handle(batch.as_bytes(), Metadata::default())
            .await
            .unwrap(),
    );
    assert_eq!(answer[0]["error"]["code"], code::INTERNAL_ERROR);
    assert_eq!(answer[1]["error"]["code"], code::INTERNAL_ERROR);
    assert_eq!(answer[2]["result"], 5);
    // A panicking notification is answered by nothing at all.
    let note = br#"{"jsonrpc":"2.0","method":"panic_later"}"#;
    assert!(server.handle(note, Metadata::default()).await.is_none());
}

#[test]
fn defaults_are_safe() {
    let limits = Limits::default();
    assert_eq!(limits.max_request_size, 10 << 20);
    assert_eq!(limits.max_batch_len, 1024);
    assert!(limits.max_in_flight > 0 && limits.batch_concurrency > 0);
    assert_eq!(limits.handler_timeout, Some(Duration::from_secs(60)));
}
