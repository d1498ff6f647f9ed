//! Client middleware against real servers: retries of idempotent methods only (a
//! loopback HTTP server that fails the first attempts), the backoff between them (paused
//! Tokio time), credentials refreshed once for any number of refused calls, per-method
//! and per-call timeouts, and the client's `tracing` spans.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use rpcsmith::client::{
    Authorize, Backoff, Client, Credentials, Delivery, Error, Exchange, RefreshFuture, Retry,
    SendFuture, Transport, TransportError, TransportErrorKind,
};
use rpcsmith::http;
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Reply, Server};
use rpcsmith::transport::memory::Link;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

// ---- a loopback HTTP server that fails on purpose ----

/// What the test server saw and how it answers.
#[derive(Default)]
struct Seen {
    /// Attempts, by method.
    attempts: Mutex<HashMap<String, usize>>,
    /// How many first attempts of each method fail (`/flaky/*`).
    failures: usize,
    /// The bearer token `/auth/*` accepts.
    token: RwLock<String>,
    /// How many calls `/auth/*` refused.
    refused: watch::Sender<usize>,
}

async fn start(failures: usize, token: &str) -> (String, Arc<Seen>) {
    let seen = Arc::new(Seen {
        failures,
        token: RwLock::new(token.to_owned()),
        ..Seen::default()
    });
    let app = axum::Router::new()
        .route("/flaky/{how}", axum::routing::post(flaky))
        .route("/auth/{how}", axum::routing::post(auth))
        .with_state(Arc::clone(&seen));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, seen)
}

fn answer(id: &Value, payload: Value) -> Response {
    let mut body = json!({ "jsonrpc": "2.0", "id": id });
    body.as_object_mut()
        .unwrap()
        .extend(payload.as_object().unwrap().clone());
    (
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// `/flaky/status` fails the first attempts with a bare 503, `/flaky/code` with a
/// JSON-RPC error -32005; then the result is the attempt's number.
async fn flaky(
    State(seen): State<Arc<Seen>>,
    axum::extract::Path(how): axum::extract::Path<String>,
    body: Bytes,
) -> Response {
    let call: Value = serde_json::from_slice(&body).unwrap();
    let method = call["method"].as_str().unwrap().to_owned();
    let attempt = {
        let mut attempts = seen.attempts.lock().unwrap();
        let n = attempts.entry(method).or_default();
        *n += 1;
        *n
    };
    if attempt > seen.failures {
        return answer(&call["id"], json!({ "result": attempt }));
    }
    match how.as_str() {
        "status" => (StatusCode::SERVICE_UNAVAILABLE, "busy").into_response(),
        _ => answer(
            &call["id"],
            json!({ "error": { "code": -32005, "message": "try later" } }),
        ),
    }
}

/// `/auth/status` refuses a wrong bearer token with a bare 401, `/auth/code` with a
/// JSON-RPC error -32001; an accepted call's result is its method.
async fn auth(
    State(seen): State<Arc<Seen>>,
    axum::extract::Path(how): axum::extract::Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let call: Value = serde_json::from_slice(&body).unwrap();
    let expected = format!("Bearer {}", seen.token.read().unwrap());
    if headers.get(header::AUTHORIZATION).map(|v| v.as_bytes()) == Some(expected.as_bytes()) {
        return answer(&call["id"], json!({ "result": call["method"] }));
    }
    seen.refused.send_modify(|n| *n += 1);
    match how.as_str() {
        "status" => (StatusCode::UNAUTHORIZED, "who are you").into_response(),
        _ => answer(
            &call["id"],
            json!({ "error": { "code": -32001, "message": "unauthorized" } }),
        ),
    }
}

fn attempts(seen: &Seen, method: &str) -> usize {
    seen.attempts
        .lock()
        .unwrap()
        .get(method)
        .copied()
        .unwrap_or(0)
}

fn no_wait() -> Backoff {
    Backoff::exponential(Duration::ZERO, Duration::ZERO)
}

// ---- retry ----

#[tokio::test]
async fn idempotent_methods_are_retried_and_others_are_not() {
    let (url, seen) = start(2, "").await;
    let transport = http::Client::new(&format!("{url}/flaky/status")).unwrap();
    let retry = Retry::idempotent(["get"]).max_retries(3).backoff(no_wait());
    let client = Client::builder().middleware(retry).build(transport);

    let attempt: usize = client.request("get", &()).await.unwrap();
    assert_eq!(attempt, 3, "two 503s, then the answer");
    assert_eq!(attempts(&seen, "get"), 3);

    let error = client.request::<usize, _>("set", &()).await.unwrap_err();
    let Error::Transport(error) = error else {
        panic!("{error:?}")
    };
    assert_eq!(error.http_status(), Some(503));
    assert_eq!(attempts(&seen, "set"), 1, "not idempotent: sent once");
}

#[tokio::test]
async fn retries_stop_at_the_limit_and_on_listed_codes_only() {
    let (url, seen) = start(3, "").await;
    let transport = http::Client::new(&format!("{url}/flaky/code")).unwrap();
    let retry = Retry::idempotent(["get", "peek"])
        .max_retries(2)
        .backoff(no_wait())
        .code(-32005);
    let client = Client::builder().middleware(retry).build(transport);
    // Three failures, two retries: the third failure is the answer.
    let error = client.request::<usize, _>("get", &()).await.unwrap_err();
    assert!(
        matches!(&error, Error::Undeclared(object) if object.code == -32005),
        "{error:?}"
    );
    assert_eq!(attempts(&seen, "get"), 3);

    // A code nobody listed is not retried.
    let strict = Retry::idempotent(["peek"]).backoff(no_wait());
    let transport = http::Client::new(&format!("{url}/flaky/code")).unwrap();
    let client = Client::builder().middleware(strict).build(transport);
    assert!(client.request::<usize, _>("peek", &()).await.is_err());
    assert_eq!(attempts(&seen, "peek"), 1);
}

/// A transport that refuses to connect `failures` times, then answers each call with
/// the number of its attempt; it notes when each attempt came (Tokio's clock). Scripted
/// rather than a socket: the waits between attempts are what is tested, on paused
/// time, which real sockets would race.
struct Refusing {
    failures: usize,
    attempts: Arc<Mutex<Vec<Instant>>>,
}

impl Transport for Refusing {
    fn is_request_response(&self) -> bool {
        true
    }

    fn send(&self, message: Bytes) -> SendFuture<'_> {
        Box::pin(async move {
            let attempt = {
                let mut attempts = self.attempts.lock().unwrap();
                attempts.push(Instant::now());
                attempts.len()
            };
            if attempt <= self.failures {
                return Err(TransportError::new(TransportErrorKind::Connect, "refused"));
            }
            let call: Value = serde_json::from_slice(&message).unwrap();
            let answer = json!({ "jsonrpc": "2.0", "id": call["id"], "result": attempt });
            Ok(Delivery::Answer(answer.to_string().into()))
        })
    }
}

fn refusing(
    failures: usize,
    retry: Retry,
    timeout: Duration,
) -> (Client, Arc<Mutex<Vec<Instant>>>) {
    let attempts = Arc::new(Mutex::new(Vec::new()));
    let transport = Refusing {
        failures,
        attempts: Arc::clone(&attempts),
    };
    let client = Client::builder()
        .timeout(timeout)
        .middleware(retry)
        .build(transport);
    (client, attempts)
}

fn gaps(attempts: &Mutex<Vec<Instant>>) -> Vec<Duration> {
    let attempts = attempts.lock().unwrap();
    attempts.windows(2).map(|pair| pair[1] - pair[0]).collect()
}

#[tokio::test(start_paused = true)]
async fn backoff_doubles_up_to_its_cap() {
    let ms = Duration::from_millis;
    let backoff = Backoff::exponential(ms(100), ms(250));
    let retry = Retry::idempotent(["get"]).max_retries(5).backoff(backoff);
    let (client, attempts) = refusing(3, retry, Duration::from_secs(30));
    let attempt: usize = client.request("get", &()).await.unwrap();
    assert_eq!(attempt, 4);
    assert_eq!(gaps(&attempts), [ms(100), ms(200), ms(250)]);
}

#[tokio::test(start_paused = true)]
async fn retries_happen_within_the_calls_timeout() {
    let ms = Duration::from_millis;
    let retry = Retry::idempotent(["get"])
        .max_retries(10)
        .backoff(Backoff::exponential(ms(100), ms(100)));
    let (client, attempts) = refusing(100, retry, ms(350));
    let started = Instant::now();
    let error = client.request::<usize, _>("get", &()).await.unwrap_err();
    assert!(matches!(error, Error::Timeout), "{error:?}");
    assert_eq!(started.elapsed(), ms(350));
    assert_eq!(
        attempts.lock().unwrap().len(),
        4,
        "at 0, 100, 200 and 300 ms"
    );
}

#[tokio::test(start_paused = true)]
async fn seeded_jitter_repeats_and_stays_within_half_and_all() {
    let ms = Duration::from_millis;
    let run = || async {
        let backoff = Backoff::exponential(ms(100), ms(800)).jitter_seed(42);
        let retry = Retry::idempotent(["get"]).max_retries(4).backoff(backoff);
        let (client, attempts) = refusing(4, retry, Duration::from_secs(30));
        let _: usize = client.request("get", &()).await.unwrap();
        gaps(&attempts)
    };
    let first = run().await;
    assert_eq!(first, run().await, "the same seed, the same waits");
    for (gap, full) in first.iter().zip([100, 200, 400, 800]) {
        assert!(
            *gap >= ms(full / 2) && *gap <= ms(full),
            "{gap:?} of {full} ms"
        );
    }
    let unjittered = [100, 200, 400, 800].map(ms);
    assert_ne!(first, unjittered, "the waits were drawn");
}

// ---- credentials ----

/// A bearer token; `refresh` waits until the server has refused `together` calls (so
/// that they all fail before it ends), then takes the server's new token.
struct Token {
    current: RwLock<String>,
    next: String,
    refreshes: AtomicUsize,
    refused: watch::Receiver<usize>,
    together: usize,
}

#[derive(Clone)]
struct SharedToken(Arc<Token>);

impl Credentials for SharedToken {
    fn apply(&self, exchange: &mut Exchange) {
        let value = format!("Bearer {}", self.0.current.read().unwrap());
        let value = value.parse().unwrap();
        exchange.headers_mut().insert(header::AUTHORIZATION, value);
    }

    fn refresh(&self) -> RefreshFuture<'_> {
        Box::pin(async move {
            let mut refused = self.0.refused.clone();
            refused.wait_for(|n| *n >= self.0.together).await?;
            self.0.refreshes.fetch_add(1, Ordering::SeqCst);
            *self.0.current.write().unwrap() = self.0.next.clone();
            Ok(())
        })
    }
}

fn token(seen: &Seen, next: &str, together: usize) -> SharedToken {
    SharedToken(Arc::new(Token {
        current: RwLock::new("stale".to_owned()),
        next: next.to_owned(),
        refreshes: AtomicUsize::new(0),
        refused: seen.refused.subscribe(),
        together,
    }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_refusals_refresh_the_token_once() {
    const CALLS: usize = 8;
    let (url, seen) = start(0, "fresh").await;
    let token = token(&seen, "fresh", CALLS);
    let transport = http::Client::new(&format!("{url}/auth/status")).unwrap();
    let client = Client::builder()
        .middleware(Authorize::new(token.clone()))
        .build(transport);
    let calls = (0..CALLS).map(|n| {
        let client = client.clone();
        tokio::spawn(async move { client.request::<String, _>(&format!("m{n}"), &()).await })
    });
    for (n, call) in futures_util::future::join_all(calls)
        .await
        .into_iter()
        .enumerate()
    {
        assert_eq!(call.unwrap().unwrap(), format!("m{n}"));
    }
    assert_eq!(
        token.0.refreshes.load(Ordering::SeqCst),
        1,
        "one refresh for all"
    );
    assert_eq!(
        *seen.refused.borrow(),
        CALLS,
        "each refused once, then accepted"
    );

    // The new token holds: no refusal, no refresh.
    let _: String = client.request("again", &()).await.unwrap();
    assert_eq!(token.0.refreshes.load(Ordering::SeqCst), 1);
    assert_eq!(*seen.refused.borrow(), CALLS);
}

#[tokio::test]
async fn a_declared_auth_error_refreshes_and_a_second_refusal_is_returned() {
    let (url, seen) = start(0, "fresh").await;
    let transport = http::Client::new(&format!("{url}/auth/code")).unwrap();
    let token = token(&seen, "fresh", 1);
    let authorize = Authorize::new(token.clone()).code(-32001);
    let client = Client::builder().middleware(authorize).build(transport);
    let method: String = client.request("whoami", &()).await.unwrap();
    assert_eq!(method, "whoami");
    assert_eq!(token.0.refreshes.load(Ordering::SeqCst), 1);

    // A refresh that brings a token the server still refuses: one refresh, one more
    // attempt, then the refusal.
    let transport = http::Client::new(&format!("{url}/auth/status")).unwrap();
    let wrong = token_after(&seen, "still wrong");
    let client = Client::builder()
        .middleware(Authorize::new(wrong.clone()))
        .build(transport);
    let refused_before = *seen.refused.borrow();
    let Error::Transport(error) = client.request::<String, _>("m", &()).await.unwrap_err() else {
        panic!("a transport error")
    };
    assert_eq!(error.http_status(), Some(401));
    assert_eq!(wrong.0.refreshes.load(Ordering::SeqCst), 1);
    assert_eq!(*seen.refused.borrow(), refused_before + 2);
}

/// A token whose refresh brings `next` as soon as the server refused one more call.
fn token_after(seen: &Seen, next: &str) -> SharedToken {
    let together = *seen.refused.borrow() + 1;
    token(seen, next, together)
}

#[tokio::test]
async fn a_failed_refresh_fails_the_call_with_a_credentials_error() {
    struct Broken;
    impl Credentials for Broken {
        fn apply(&self, _: &mut Exchange) {}
        fn refresh(&self) -> RefreshFuture<'_> {
            Box::pin(async { Err("the token endpoint is down".into()) })
        }
    }
    let (url, _seen) = start(0, "fresh").await;
    let transport = http::Client::new(&format!("{url}/auth/status")).unwrap();
    let client = Client::builder()
        .middleware(Authorize::new(Broken))
        .build(transport);
    let Error::Transport(error) = client.request::<String, _>("m", &()).await.unwrap_err() else {
        panic!("a transport error")
    };
    assert_eq!(error.kind(), TransportErrorKind::Credentials);
}

// ---- timeouts ----

/// `slow` never answers; `add` adds.
struct Slow;

impl Dispatch for Slow {
    fn call(&self, method: &str, params: Option<&RawValue>, _: Context) -> Reply {
        match method {
            "slow" => Reply::future(std::future::pending()),
            "add" => {
                let (a, b): (i64, i64) = serde_json::from_str(params.unwrap().get()).unwrap();
                Reply::ok(&(a + b))
            }
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

#[tokio::test(start_paused = true)]
async fn timeouts_by_method_and_by_call() {
    let client = Client::builder()
        .timeout(Duration::from_secs(30))
        .method_timeout("slow", Duration::from_secs(2))
        .build(Link::new(Server::builder(Slow).build()));
    let waited = |client: Client| async move {
        let started = Instant::now();
        let error = client.request::<(), _>("slow", &()).await.unwrap_err();
        assert!(matches!(error, Error::Timeout), "{error:?}");
        started.elapsed()
    };
    assert_eq!(
        waited(client.clone()).await,
        Duration::from_secs(2),
        "the method's"
    );
    let per_call = client.with_timeout(Duration::from_secs(5));
    assert_eq!(waited(per_call).await, Duration::from_secs(5), "the call's");
    let sum: i64 = client.request("add", &[1, 2]).await.unwrap();
    assert_eq!(sum, 3, "other methods keep the client's");
}

// ---- spans ----

mod capture {
    //! A `tracing` layer that keeps the fields of every span that closed.

    use std::collections::BTreeMap;
    use std::fmt;
    use std::sync::{Arc, Mutex};
    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing_subscriber::layer::{Context, Layer};
    use tracing_subscriber::registry::LookupSpan;

    /// A closed span: its name, target and fields (as text).
    #[derive(Debug, Clone)]
    pub(crate) struct Closed {
        pub(crate) name: &'static str,
        pub(crate) target: String,
        pub(crate) fields: BTreeMap<String, String>,
    }

    #[derive(Clone, Default)]
    pub(crate) struct Capture(pub(crate) Arc<Mutex<Vec<Closed>>>);

    struct Fields(BTreeMap<String, String>);

    impl Visit for Fields {
        fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
            self.0.insert(field.name().to_owned(), format!("{value:?}"));
        }

        fn record_str(&mut self, field: &Field, value: &str) {
            self.0.insert(field.name().to_owned(), value.to_owned());
        }
    }

    impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
        fn on_new_span(&self, attributes: &Attributes<'_>, id: &Id, context: Context<'_, S>) {
            let mut fields = Fields(BTreeMap::new());
            attributes.record(&mut fields);
            context.span(id).unwrap().extensions_mut().insert(fields);
        }

        fn on_record(&self, id: &Id, values: &Record<'_>, context: Context<'_, S>) {
            let span = context.span(id).unwrap();
            let mut extensions = span.extensions_mut();
            values.record(extensions.get_mut::<Fields>().unwrap());
        }

        fn on_close(&self, id: Id, context: Context<'_, S>) {
            let span = context.span(&id).unwrap();
            let fields = span.extensions_mut().remove::<Fields>().unwrap().0;
            self.0.lock().unwrap().push(Closed {
                name: span.name(),
                target: span.metadata().target().to_owned(),
                fields,
            });
        }
    }
}

#[tokio::test]
async fn client_spans_carry_method_id_and_outcome() {
    use tracing_subscriber::layer::SubscriberExt;
    let capture = capture::Capture::default();
    let _default =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    let client = Client::new(Link::new(Server::builder(Slow).build()));
    let _: i64 = client.request("add", &[1, 2]).await.unwrap();
    let _ = client.request::<(), _>("missing", &()).await.unwrap_err();
    client.notify("add", &[3, 4]).await.unwrap();
    let mut batch = client.batch();
    let _: rpcsmith::client::Handle<i64> = batch.request("add", &[5, 6]);
    let _: rpcsmith::client::Handle<i64> = batch.request("add", &[7, 8]);
    batch.send().await.unwrap();

    let spans: Vec<BTreeMap<String, String>> = capture
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|span| span.target.starts_with("rpcsmith::client") && span.name == "call")
        .map(|span| span.fields.clone())
        .collect();
    let expected = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        let mut fields: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        fields.insert("otel.kind".to_owned(), "client".to_owned());
        fields
    };
    assert_eq!(
        spans,
        [
            expected(&[("method", "add"), ("id", "1"), ("outcome", "ok")]),
            expected(&[
                ("method", "missing"),
                ("id", "2"),
                ("outcome", "error"),
                ("code", "-32601")
            ]),
            expected(&[("method", "add"), ("outcome", "ok")]),
            expected(&[("method", "batch"), ("entries", "2"), ("outcome", "ok")]),
        ]
    );
}
