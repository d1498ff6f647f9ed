//! MCP's Streamable HTTP to the letter, and against hostile clients: `Host`, the
//! endpoint path, bodies that are not JSON, batches by revision, cancellation through
//! the transport, priming events, strict `Last-Event-ID`, sessions that count only
//! once started and are bounded per peer with eviction, calls in flight bounded, and
//! the replay bytes of every session together bounded (read from the service's own
//! counters).

mod sse_support;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use rpcsmith::http::{PeerAddr, Service, Streaming};
use serde_json::{Value, json};
use sse_support::{HUNG_DROPPED, HUNG_NOTIFY, Raw, start, tools};
use std::sync::atomic::Ordering;
use std::time::Duration;
use tower::ServiceExt as _;

fn call(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string()
}

fn init(revision: &str) -> String {
    call(0, "initialize", json!({"protocolVersion": revision}))
}

/// A session of `revision` started over `raw`; its id.
async fn session(raw: &Raw, revision: &str) -> String {
    let answer = raw.post(&init(revision), None, true).await;
    assert_eq!(answer.status, 200);
    answer.header("mcp-session-id").expect("a session id")
}

#[tokio::test]
async fn a_loopback_listener_answers_only_loopback_hosts_and_its_path() {
    let service = Service::new(tools())
        .path("/mcp")
        .streaming(Streaming::mcp());
    let address = start(service).await;
    let raw = Raw::at(address, "/mcp");
    let headers = |host: &'static str| {
        vec![
            ("host", host),
            ("accept", "application/json, text/event-stream"),
        ]
    };
    let evil = raw
        .send(
            hyper::Method::POST,
            &headers("evil.example"),
            &init("2025-11-25"),
        )
        .await;
    assert_eq!(evil.status, 403);
    assert_eq!(
        evil.json().await,
        json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"Host not allowed"},"id":null})
    );
    for good in ["localhost", "127.0.0.1:1234", "[::1]"] {
        let answer = raw
            .send(hyper::Method::POST, &headers(good), &init("2025-11-25"))
            .await;
        assert_eq!(answer.status, 200, "{good}");
    }
    let elsewhere = Raw::at(address, "/other")
        .post(&init("2025-11-25"), None, true)
        .await;
    assert_eq!(elsewhere.status, 404);
    assert_eq!(
        elsewhere.json().await,
        json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"Not found"},"id":null})
    );
}

#[tokio::test]
async fn a_body_that_is_not_json_is_400_and_batches_follow_the_revision() {
    let address = start(Service::new(tools()).streaming(Streaming::mcp())).await;
    let raw = Raw::new(address);
    let new = session(&raw, "2025-06-18").await;
    let junk = raw.post("{oops", Some(&new), true).await;
    assert_eq!(junk.status, 400);
    assert_eq!(
        junk.json().await,
        json!({"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null})
    );
    let batch = format!("[{}]", call(1, "echo", json!([1])));
    let refused = raw.post(&batch, Some(&new), true).await;
    assert_eq!(refused.status, 400);
    assert_eq!(
        refused.json().await["error"]["message"],
        "Batches are not supported in protocol revision 2025-06-18"
    );
    let old = session(&raw, "2025-03-26").await;
    let answered = raw.post(&batch, Some(&old), true).await;
    assert_eq!(answered.status, 200);
    assert_eq!(
        answered.json().await,
        json!([{"jsonrpc":"2.0","result":[1],"id":1}])
    );
}

/// Held by each test that runs `hang` handlers, so that the count of those dropped is
/// its own.
static HANGING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Waits until `count` `hang` handlers have been dropped in all.
async fn dropped(count: usize) {
    loop {
        let notified = HUNG_NOTIFY.notified();
        if HUNG_DROPPED.load(Ordering::SeqCst) >= count {
            return;
        }
        notified.await;
    }
}

#[tokio::test]
async fn a_cancelled_call_is_dropped_and_not_answered() {
    let _alone = HANGING.lock().await;
    let address = start(Service::new(tools()).streaming(Streaming::mcp())).await;
    let raw = Raw::new(address);
    let id = session(&raw, "2025-06-18").await;
    let before = HUNG_DROPPED.load(Ordering::SeqCst);
    // As an event stream: its first event is out, then it hangs.
    let answer = raw
        .post(&call(7, "hang", json!([1])), Some(&id), true)
        .await;
    let mut stream = answer.into_stream();
    assert_eq!(
        stream.next().await.expect("progress")["params"]["progress"],
        0
    );
    // Another session cannot cancel it.
    let other = session(&raw, "2025-06-18").await;
    let cancel =
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}})
            .to_string();
    assert_eq!(raw.post(&cancel, Some(&other), true).await.status, 202);
    assert_eq!(raw.post(&cancel, Some(&id), true).await.status, 202);
    dropped(before + 1).await;
    assert!(
        stream.next().await.is_none(),
        "the stream ends, with no response"
    );
    assert_eq!(
        HUNG_DROPPED.load(Ordering::SeqCst),
        before + 1,
        "the other session's cancel did nothing"
    );
}

#[tokio::test]
async fn priming_events_open_the_streams_of_revisions_that_have_them() {
    let address = start(Service::new(tools()).streaming(Streaming::mcp())).await;
    let raw = Raw::new(address);
    let id = session(&raw, "2025-11-25").await;
    let answer = raw
        .post(&call(1, "progress", json!([1])), Some(&id), true)
        .await;
    let mut stream = answer.into_stream();
    let priming = stream.next_event().await.expect("priming");
    assert_eq!(
        (priming.data.as_str(), priming.retry.as_deref()),
        ("", Some("1000"))
    );
    let stream_number = priming.id.split('-').next().unwrap().to_owned();
    assert_eq!(priming.id, format!("{stream_number}-0"));
    assert_eq!(
        stream.next().await.expect("progress")["params"]["progress"],
        0
    );
    assert_eq!(stream.next().await.expect("answer")["result"], "done");
    let get = raw.get(&id, None).await.into_stream().next_event().await;
    assert_eq!(
        get.map(|e| (e.id, e.retry)),
        Some(("0-0".to_owned(), Some("1000".to_owned())))
    );
    // An older revision's streams are not primed.
    let old = session(&raw, "2025-06-18").await;
    let answer = raw
        .post(&call(1, "progress", json!([1])), Some(&old), true)
        .await;
    let first = answer.into_stream().next_event().await.expect("progress");
    assert_eq!(
        (first.json()["params"]["progress"].clone(), first.retry),
        (json!(0), None)
    );
}

#[tokio::test]
async fn last_event_id_is_strict_and_a_read_stream_is_not_taken_over() {
    let address = start(Service::new(tools()).streaming(Streaming::mcp())).await;
    let raw = Raw::new(address);
    let id = session(&raw, "2025-06-18").await;
    // (Spaces around a header's value are not part of it in HTTP: `parse_event_id`'s
    // unit test has ` 1-1 ` as bytes.)
    for malformed in ["-1", "+1-+1", "1 -1", "1- 1", "1-1-1", "x"] {
        let answer = raw.get(&id, Some(malformed)).await;
        assert_eq!(answer.status, 400, "{malformed:?}");
        assert_eq!(
            answer.json().await["error"]["message"],
            "Malformed Last-Event-ID"
        );
    }
    let unknown = raw.get(&id, Some("0-999999")).await;
    assert_eq!(unknown.status, 400);
    assert_eq!(
        unknown.json().await["error"]["message"],
        "Last-Event-ID names no event of this session"
    );
    let _reader = raw.stalled_get(&id).await;
    let later = raw
        .post(&call(2, "later", json!([1])), Some(&id), true)
        .await;
    assert_eq!(later.json().await["result"], "ok");
    let takeover = raw.get(&id, Some("0-0")).await;
    assert_eq!(takeover.status, 409);
    assert_eq!(
        takeover.json().await["error"]["message"],
        "The stream is open already: it has a reader"
    );
}

/// The service called in process, as from `peer`, on Tokio's (paused) clock.
fn send(
    service: &Service,
    body: String,
    session: Option<&str>,
    peer: [u8; 4],
) -> impl Future<Output = hyper::Response<rpcsmith::http::ResponseBody>> + use<> {
    let mut request = hyper::Request::post("/")
        .header("content-type", "application/json")
        .header("accept", "application/json");
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let mut request = request.body(Full::new(Bytes::from(body))).unwrap();
    let address = std::net::SocketAddr::from((peer, 4000));
    request.extensions_mut().insert(PeerAddr(address));
    let service = service.clone();
    async move { service.oneshot(request).await.unwrap() }
}

async fn started(service: &Service, peer: [u8; 4]) -> Option<String> {
    let answer = send(service, init("2025-06-18"), None, peer).await;
    let id = answer.headers().get("mcp-session-id");
    id.map(|id| id.to_str().unwrap().to_owned())
}

async fn body(answer: hyper::Response<rpcsmith::http::ResponseBody>) -> Value {
    let bytes = answer.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::test(start_paused = true)]
async fn sessions_count_once_started_are_capped_per_peer_and_the_idle_unused_go_first() {
    let streaming = Streaming::mcp()
        .require_accept(false)
        .max_sessions(3)
        .max_sessions_per_peer(2);
    let service = Service::new(tools()).streaming(streaming);
    let stats = |service: &Service| service.streaming_stats().expect("streaming").sessions;
    // A start answered with an error starts nothing.
    let junk = send(
        &service,
        call(0, "initialize", json!({"junk": 1})),
        None,
        [10, 0, 0, 1],
    )
    .await;
    assert!(junk.headers().get("mcp-session-id").is_none());
    assert_eq!(body(junk).await["error"]["code"], -32602);
    assert_eq!(stats(&service), 0);

    let a = started(&service, [10, 0, 0, 1]).await.expect("room");
    tokio::time::advance(Duration::from_secs(1)).await;
    let b = started(&service, [10, 0, 0, 1]).await.expect("room");
    tokio::time::advance(Duration::from_secs(1)).await;
    // The peer is at its cap: its oldest session never used goes.
    let c = started(&service, [10, 0, 0, 1]).await.expect("a evicted");
    let echo = || call(1, "echo", json!([1]));
    assert_eq!(
        send(&service, echo(), Some(&a), [10, 0, 0, 1])
            .await
            .status(),
        404
    );
    // Used sessions stay; the peer's idle never-used one goes.
    assert_eq!(
        send(&service, echo(), Some(&b), [10, 0, 0, 1])
            .await
            .status(),
        200
    );
    tokio::time::advance(Duration::from_secs(1)).await;
    let d = started(&service, [10, 0, 0, 1]).await.expect("c evicted");
    assert_eq!(
        send(&service, echo(), Some(&c), [10, 0, 0, 1])
            .await
            .status(),
        404
    );
    assert_eq!(
        send(&service, echo(), Some(&d), [10, 0, 0, 1])
            .await
            .status(),
        200
    );
    // Both in use: refused, until the next idle one expires (10 minutes after its use).
    tokio::time::advance(Duration::from_secs(100)).await;
    let refused = send(&service, init("2025-06-18"), None, [10, 0, 0, 1]).await;
    assert_eq!(refused.status(), 503);
    // b, used 101 s ago, expires in 499 s: the hint is held to 30 s.
    assert_eq!(refused.headers()["retry-after"], "30");
    assert_eq!(body(refused).await["error"]["code"], -32009);
    // Another peer fills the table (3), then finds every session used.
    let e = started(&service, [10, 0, 0, 2])
        .await
        .expect("room in total");
    assert_eq!(
        send(&service, echo(), Some(&e), [10, 0, 0, 2])
            .await
            .status(),
        200
    );
    assert_eq!(stats(&service), 3);
    let full = send(&service, init("2025-06-18"), None, [10, 0, 0, 3]).await;
    assert_eq!(full.status(), 503);
    assert_eq!(
        full.headers()["retry-after"],
        "30",
        "b expires first, in 499 s"
    );
    // Under the bound, the hint is the seconds until b expires.
    tokio::time::advance(Duration::from_secs(480)).await;
    let later = send(&service, init("2025-06-18"), None, [10, 0, 0, 3]).await;
    assert_eq!(later.status(), 503);
    assert_eq!(later.headers()["retry-after"], "19", "b expires in 19 s");
}

#[tokio::test]
async fn calls_in_flight_are_bounded_per_session_and_in_total() {
    let _alone = HANGING.lock().await;
    let streaming = Streaming::mcp().require_accept(false).max_calls(2, 1);
    let service = Service::new(tools()).streaming(streaming);
    let peer = [127, 0, 0, 1];
    let (a, b, c) = (
        started(&service, peer).await.unwrap(),
        started(&service, peer).await.unwrap(),
        started(&service, peer).await.unwrap(),
    );
    let hang = || call(5, "hang", json!([0]));
    let first = tokio::spawn(send(&service, hang(), Some(&a), peer));
    let second = tokio::spawn(send(&service, hang(), Some(&b), peer));
    while service.streaming_stats().unwrap().calls < 2 {
        tokio::task::yield_now().await;
    }
    let per_session = send(&service, call(1, "echo", json!([1])), Some(&a), peer).await;
    assert_eq!(per_session.status(), 503);
    assert_eq!(per_session.headers()["retry-after"], "1");
    assert_eq!(
        body(per_session).await,
        json!({"jsonrpc":"2.0","error":{"code":-32009,"message":"Too many calls in flight"},"id":null})
    );
    let total = send(&service, call(1, "echo", json!([1])), Some(&c), peer).await;
    assert_eq!(total.status(), 503);
    // They count until they end: here, cancelled (not answered: the no-response status).
    let cancel = |n| {
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":n}})
            .to_string()
    };
    send(&service, cancel(5), Some(&a), peer).await;
    send(&service, cancel(5), Some(&b), peer).await;
    assert_eq!(first.await.unwrap().status(), 202);
    assert_eq!(second.await.unwrap().status(), 202);
    assert_eq!(service.streaming_stats().unwrap().calls, 0);
    let answered = send(&service, call(1, "echo", json!([1])), Some(&c), peer).await;
    assert_eq!(answered.status(), 200);
}

#[tokio::test]
async fn the_replay_windows_of_every_session_together_stay_within_their_budget() {
    const BUDGET: usize = 256 * 1024;
    let streaming = Streaming::mcp()
        .require_accept(false)
        .replay_window(1024, 1 << 20)
        .max_replay_bytes(BUDGET);
    let service = Service::new(tools()).streaming(streaming);
    let peer = [127, 0, 0, 1];
    let mut held = Vec::new();
    for _ in 0..8 {
        let id = started(&service, peer).await.unwrap();
        // 64 pushes of 2 KiB, to a stream nobody reads: held for replay.
        let answer = send(
            &service,
            call(1, "bulk", json!([64, 2048])),
            Some(&id),
            peer,
        )
        .await;
        assert_eq!(body(answer).await["result"], "done");
        held.push(service.streaming_stats().unwrap().replay_bytes);
    }
    assert!(
        held[0] > 100 * 1024,
        "one session's pushes are held: {held:?}"
    );
    assert!(held.iter().all(|&bytes| bytes <= BUDGET), "{held:?}");
    assert!(held[7] > BUDGET / 2, "{held:?}");
}

/// The client's listener: tells when a progress notification came.
struct Progress(std::sync::Arc<tokio::sync::Notify>);

impl rpcsmith::server::Dispatch for Progress {
    fn call(
        &self,
        method: &str,
        _: Option<&serde_json::value::RawValue>,
        _: rpcsmith::server::Context,
    ) -> rpcsmith::server::Reply {
        if method == "notifications/progress" {
            self.0.notify_one();
        }
        rpcsmith::server::Reply::ok(&())
    }
}

#[tokio::test]
async fn the_client_cancels_a_call_it_gives_up_and_ends_its_session() {
    let _alone = HANGING.lock().await;
    use rpcsmith::http::{Client, ClientStreaming};
    let service = Service::new(tools()).streaming(Streaming::mcp());
    let address = start(service.clone()).await;
    let progress = std::sync::Arc::new(tokio::sync::Notify::new());
    let listener = rpcsmith::server::Server::new(Progress(progress.clone()));
    let transport = Client::builder(format!("http://{address}/"))
        .streaming(ClientStreaming::mcp().serve(listener))
        .build()
        .expect("a client");
    let client = rpcsmith::client::Client::new(transport.clone());
    let started: Value = client
        .request("initialize", &json!({"protocolVersion": "2025-06-18"}))
        .await
        .expect("a session");
    assert_eq!(started["protocolVersion"], "2025-06-18");
    let before = HUNG_DROPPED.load(Ordering::SeqCst);
    // The call's handler notifies (its answer is an event stream, its handling apart
    // from the connection), then hangs: once the notification came, the call is given
    // up (its future dropped).
    let call = client.request::<Value, Value>("hang", &json!([1]));
    tokio::select! {
        answered = call => panic!("the hanging call answered: {answered:?}"),
        () = progress.notified() => {}
    }
    // Its connection stays open (a disconnect is no cancellation): only
    // `notifications/cancelled` drops the handler on the server.
    dropped(before + 1).await;
    assert_eq!(service.streaming_stats().unwrap().sessions, 1);
    assert!(transport.end_session().await.expect("DELETE"), "ended");
    assert_eq!(service.streaming_stats().unwrap().sessions, 0);
    assert!(
        !transport.end_session().await.expect("no session"),
        "none left"
    );
}

/// A server that records what is posted to it: `initialize` starts session `s`, a batch
/// is answered by an event stream that carries one progress notification and then
/// stays open, and every notification is recorded.
async fn recording_server() -> (
    std::net::SocketAddr,
    tokio::sync::mpsc::UnboundedReceiver<Value>,
) {
    use axum::response::IntoResponse;
    use futures_util::StreamExt as _;
    let (heard, hearing) = tokio::sync::mpsc::unbounded_channel();
    let app = axum::Router::new().route(
        "/",
        axum::routing::post(move |body: Bytes| {
            let heard = heard.clone();
            async move {
                let message: Value = serde_json::from_slice(&body).unwrap();
                if message["method"] == "initialize" {
                    let result = json!({"jsonrpc":"2.0","id":message["id"],
                        "result":{"protocolVersion":"2025-03-26"}});
                    let headers = [("mcp-session-id", "s"), ("content-type", "application/json")];
                    return (headers, result.to_string()).into_response();
                }
                let batch = message.is_array();
                heard.send(message).unwrap();
                if !batch {
                    return axum::http::StatusCode::ACCEPTED.into_response();
                }
                let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0}}"#;
                let event = Bytes::from(format!("data: {progress}\n\n"));
                let events = futures_util::stream::once(async move { Ok::<_, std::convert::Infallible>(event) })
                    .chain(futures_util::stream::pending());
                ([("content-type", "text/event-stream")], axum::body::Body::from_stream(events))
                    .into_response()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (address, hearing)
}

#[tokio::test]
async fn the_client_cancels_each_call_of_a_batch_it_gives_up() {
    use rpcsmith::http::{Client, ClientStreaming};
    let (address, mut heard) = recording_server().await;
    let progress = std::sync::Arc::new(tokio::sync::Notify::new());
    let listener = rpcsmith::server::Server::new(Progress(progress.clone()));
    let transport = Client::builder(format!("http://{address}/"))
        .streaming(ClientStreaming::mcp().serve(listener))
        .build()
        .expect("a client");
    let client = rpcsmith::client::Client::new(transport);
    let _: Value = client
        .request("initialize", &json!({"protocolVersion": "2025-03-26"}))
        .await
        .expect("a session");
    let mut batch = client.batch();
    let _first = batch.request::<Value, _>("hang", &json!([1]));
    let _second = batch.request::<Value, _>("hang", &json!([0]));
    batch.notify("echo", &json!([])).expect("a notification");
    // The batch's stream is open (it carried a notification); then the batch is given
    // up (its future dropped).
    tokio::select! {
        answered = batch.send() => panic!("the hanging batch answered: {answered:?}"),
        () = progress.notified() => {}
    }
    let sent = heard.recv().await.expect("the batch");
    let ids: Vec<Value> = (sent.as_array().unwrap().iter())
        .filter(|message| message.get("id").is_some())
        .map(|message| message["id"].clone())
        .collect();
    assert_eq!(ids.len(), 2);
    // One `notifications/cancelled` per call of the batch, none for its notification.
    // (Bounded: a client that sends none fails here rather than hanging.)
    for id in ids {
        let cancellation = tokio::time::timeout(Duration::from_secs(30), heard.recv());
        assert_eq!(
            cancellation
                .await
                .expect("a cancellation in time")
                .expect("a cancellation"),
            json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":id}})
        );
    }
    assert!(heard.try_recv().is_err(), "nothing more");
}
