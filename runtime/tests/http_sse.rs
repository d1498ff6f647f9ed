//! Server-Sent Events and sessions on the HTTP server (`Service::streaming`), and the
//! `Origin` allow-list, over real sockets on loopback; the client's side of the same
//! streams is in `http_sse_client.rs`.

mod sse_support;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use rpcsmith::http::{Origins, Service, Streaming};
use serde_json::{Value, json};
use sse_support::{Raw, start, tools};
use std::time::Duration;
use tower::ServiceExt as _;

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#;

fn call(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string()
}

/// A session started over `raw`; its id.
async fn initialize(raw: &Raw) -> String {
    let answer = raw.post(INIT, None, true).await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.content_type(),
        "application/json",
        "nothing pushed: JSON"
    );
    let id = answer
        .header("mcp-session-id")
        .expect("a session id is issued");
    assert!(
        id.len() >= 32 && id.bytes().all(|b| b.is_ascii_graphic()),
        "{id}"
    );
    id
}

#[tokio::test]
async fn a_post_whose_handler_notifies_first_is_answered_as_an_event_stream() {
    // Also a client that takes only JSON, which MCP's `Accept` check would refuse.
    let streaming = Streaming::mcp().require_accept(false);
    let address = start(Service::new(tools()).streaming(streaming)).await;
    let raw = Raw::new(address);
    let session = initialize(&raw).await;
    let answer = raw
        .post(&call(1, "progress", json!([3])), Some(&session), true)
        .await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.content_type(), "text/event-stream");
    assert!(answer.header("mcp-session-id").is_none(), "issued once");
    let events = answer.events().await;
    let messages: Vec<Value> = events.iter().map(|event| event.json()).collect();
    assert_eq!(messages.len(), 4, "{messages:?}");
    for (n, message) in messages[..3].iter().enumerate() {
        assert_eq!(message["method"], "notifications/progress");
        assert_eq!(message["params"]["progress"], n);
    }
    assert_eq!(messages[3], json!({"jsonrpc":"2.0","result":"done","id":1}));
    let ids: Vec<&str> = events.iter().map(|event| event.id.as_str()).collect();
    let mut sorted = ids.clone();
    sorted.dedup();
    assert_eq!(sorted.len(), 4, "every event has an id of its own: {ids:?}");

    // Nothing pushed: plain JSON, even though the client takes a stream.
    let plain = raw
        .post(&call(2, "echo", json!(["hi"])), Some(&session), true)
        .await;
    assert_eq!(plain.content_type(), "application/json");
    assert_eq!(
        plain.json().await,
        json!({"jsonrpc":"2.0","result":["hi"],"id":2})
    );

    // A client that takes only JSON gets JSON; the pushes go to the session's stream.
    let json_only = raw
        .post(&call(3, "progress", json!([2])), Some(&session), false)
        .await;
    assert_eq!(json_only.content_type(), "application/json");
    assert_eq!(json_only.json().await["result"], "done");
    let get = raw.get(&session, None).await;
    assert_eq!(get.status, 200);
    let mut stream = get.into_stream();
    for n in 0..2 {
        assert_eq!(
            stream.next().await.expect("pushed")["params"]["progress"],
            n
        );
    }
}

#[tokio::test]
async fn mcp_refuses_406_what_does_not_accept_what_the_answer_may_be() {
    let address = start(Service::new(tools()).streaming(Streaming::mcp())).await;
    let raw = Raw::new(address);
    let init = call(1, "initialize", json!({}));
    let post = |accept: &'static str| {
        let headers: Vec<(&str, &str)> = match accept {
            "" => vec![],
            accept => vec![("accept", accept)],
        };
        let (raw, init) = (&raw, &init);
        async move { raw.send(hyper::Method::POST, &headers, init).await }
    };
    for accept in ["", "application/json", "text/event-stream", "text/html"] {
        let refused = post(accept).await;
        assert_eq!(refused.status, 406, "POST with Accept {accept:?}");
        let body = refused.json().await;
        assert_eq!(body["error"]["code"], -32600, "{body}");
        assert!(body["id"].is_null());
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.starts_with("Not Acceptable"), "{message}");
    }
    for accept in [
        "application/json, text/event-stream",
        "text/event-stream;q=0.5, application/json",
        "*/*",
        "application/*, text/*",
    ] {
        assert_eq!(
            post(accept).await.status,
            200,
            "POST with Accept {accept:?}"
        );
    }
    let session = initialize(&raw).await;
    let get = |accept: &'static str| {
        let (raw, session) = (&raw, session.clone());
        async move {
            let headers = [("accept", accept), ("mcp-session-id", session.as_str())];
            raw.send(hyper::Method::GET, &headers, "").await
        }
    };
    assert_eq!(
        get("application/json").await.status,
        406,
        "GET without event streams"
    );
    let open = get("*/*").await;
    assert_eq!(open.status, 200, "a wildcard takes the session's stream");
    assert_eq!(open.content_type(), "text/event-stream");
    // Off, a client that takes only JSON is answered in JSON.
    let lenient = Streaming::mcp().require_accept(false);
    let address = start(Service::new(tools()).streaming(lenient)).await;
    let raw = Raw::new(address);
    let answered = raw.send(hyper::Method::POST, &[], &init).await;
    assert_eq!(answered.status, 200);
}

#[tokio::test]
async fn sessions_are_required_checked_and_ended_by_delete() {
    let address = start(Service::new(tools()).streaming(Streaming::mcp())).await;
    let raw = Raw::new(address);
    let missing = raw.post(&call(1, "echo", json!([1])), None, true).await;
    assert_eq!(
        missing.status, 400,
        "no session header on a non-initialize request"
    );
    assert_eq!(missing.json().await["error"]["code"], -32600);
    let unknown = raw
        .post(&call(1, "echo", json!([1])), Some("0xnot-a-session"), true)
        .await;
    assert_eq!(
        unknown.status, 404,
        "an unknown session: the client starts again"
    );
    assert_eq!(raw.get("0xnot-a-session", None).await.status, 404);

    let session = initialize(&raw).await;
    let notification = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(
        raw.post(notification, Some(&session), true).await.status,
        202
    );
    let version = raw
        .send(
            hyper::Method::POST,
            &[
                ("mcp-session-id", &session),
                ("mcp-protocol-version", "1999-01-01"),
            ],
            &call(1, "echo", json!([1])),
        )
        .await;
    assert_eq!(version.status, 400, "an unsupported protocol version");
    let deleted = raw
        .send(hyper::Method::DELETE, &[("mcp-session-id", &session)], "")
        .await;
    assert_eq!(deleted.status, 200);
    let after = raw
        .post(&call(2, "echo", json!([1])), Some(&session), true)
        .await;
    assert_eq!(after.status, 404, "a deleted session is gone");
    let again = raw
        .send(hyper::Method::DELETE, &[("mcp-session-id", &session)], "")
        .await;
    assert_eq!(again.status, 404);
}

#[tokio::test]
async fn a_server_to_client_request_is_answered_by_a_post_of_the_session() {
    let address = start(Service::new(tools()).streaming(Streaming::mcp())).await;
    let raw = Raw::new(address);
    let session = initialize(&raw).await;
    let answer = raw
        .post(&call(7, "ask", json!({})), Some(&session), true)
        .await;
    assert_eq!(answer.content_type(), "text/event-stream");
    let mut stream = answer.into_stream();
    let request = stream.next().await.expect("the server's request");
    assert_eq!(request["method"], "sampling/createMessage");
    let response = json!({"jsonrpc":"2.0","id":request["id"],"result":{"text":"42"}});
    let posted = raw.post(&response.to_string(), Some(&session), true).await;
    assert_eq!(posted.status, 202, "responses alone: accepted");
    let last = stream.next().await.expect("the response");
    assert_eq!(
        last,
        json!({"jsonrpc":"2.0","result":{"asked":{"text":"42"}},"id":7})
    );
    assert!(
        stream.next().await.is_none(),
        "the stream ends with the response"
    );
}

#[tokio::test]
async fn a_dropped_stream_resumes_with_last_event_id_and_loses_nothing() {
    let address = start(Service::new(tools()).streaming(Streaming::mcp())).await;
    let raw = Raw::new(address);
    let session = initialize(&raw).await;
    let answer = raw
        .post(&call(1, "progress", json!([5])), Some(&session), true)
        .await;
    let mut stream = answer.into_stream();
    let mut seen = Vec::new();
    for _ in 0..2 {
        seen.push(stream.next().await.expect("an event"));
    }
    let last_id = stream.last_id().expect("events carry ids");
    // The connection drops mid-stream.
    drop(stream);
    let resumed = raw.get(&session, Some(&last_id)).await;
    assert_eq!(resumed.status, 200);
    let mut resumed = resumed.into_stream();
    while let Some(message) = resumed.next().await {
        seen.push(message);
    }
    let progress: Vec<&Value> = seen.iter().map(|m| &m["params"]["progress"]).collect();
    assert_eq!(progress[..5], [0, 1, 2, 3, 4], "{seen:?}");
    assert_eq!(seen[5]["result"], "done", "and the response, last");
    assert_eq!(seen.len(), 6);

    // The standalone stream resumes too.
    let get = raw.get(&session, None).await.into_stream();
    let later = raw
        .post(&call(2, "later", json!([2])), Some(&session), true)
        .await;
    assert_eq!(later.json().await["result"], "ok");
    let mut get = get;
    assert_eq!(get.next().await.expect("tick")["params"], json!([0]));
    let after_first = get.last_id().expect("an id");
    drop(get);
    let mut resumed = raw.get(&session, Some(&after_first)).await.into_stream();
    assert_eq!(resumed.next().await.expect("tick")["params"], json!([1]));
}

#[tokio::test]
async fn a_resumption_from_before_the_window_is_refused_gone() {
    // Its POST takes only JSON, which MCP's `Accept` check would refuse.
    let streaming = Streaming::mcp()
        .replay_window(4, 1 << 20)
        .require_accept(false);
    let address = start(Service::new(tools()).streaming(streaming)).await;
    let raw = Raw::new(address);
    let session = initialize(&raw).await;
    // No stream open: ten pushes go to the session's stream, of which four are kept.
    let answer = raw
        .post(&call(1, "progress", json!([10])), Some(&session), false)
        .await;
    assert_eq!(answer.json().await["result"], "done");
    let mut stream = raw.get(&session, None).await.into_stream();
    let mut read = Vec::new();
    for _ in 0..4 {
        read.push(stream.next().await.expect("kept")["params"]["progress"].clone());
    }
    assert_eq!(read, [6, 7, 8, 9], "the newest four");
    drop(stream);
    let first = raw.get(&session, Some("0-2")).await;
    assert_eq!(first.status, 410, "events after it were dropped");
    assert_eq!(first.json().await["error"]["code"], -32600);
    assert_eq!(raw.get(&session, Some("garbage")).await.status, 400);
}

#[tokio::test(start_paused = true)]
async fn an_idle_session_expires_on_tokio_time() {
    let service =
        Service::new(tools()).streaming(Streaming::mcp().idle_timeout(Duration::from_secs(60)));
    let send = |body: &'static str, session: Option<String>| {
        let mut request = hyper::Request::post("/")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        service.clone().oneshot(
            request
                .body(Full::new(Bytes::from_static(body.as_bytes())))
                .unwrap(),
        )
    };
    const ECHO: &str = r#"{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}"#;
    let started = send(INIT, None).await.unwrap();
    let session = started.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    tokio::time::advance(Duration::from_secs(59)).await;
    let used = send(ECHO, Some(session.clone())).await.unwrap();
    assert_eq!(used.status(), 200, "within the idle timeout");
    let body = used.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap()["result"],
        json!([1])
    );
    tokio::time::advance(Duration::from_secs(59)).await;
    assert_eq!(
        send(ECHO, Some(session.clone())).await.unwrap().status(),
        200,
        "a use restarts it"
    );
    tokio::time::advance(Duration::from_secs(61)).await;
    assert_eq!(
        send(ECHO, Some(session)).await.unwrap().status(),
        404,
        "expired"
    );
}

#[tokio::test]
async fn sessions_are_bounded() {
    let service = Service::new(tools()).streaming(Streaming::mcp().max_sessions(2));
    let address = start(service).await;
    let raw = Raw::new(address);
    // Used sessions: not evicted to make room (`http_sse_rules.rs` has the eviction).
    let echo = call(1, "echo", json!([1]));
    let first = initialize(&raw).await;
    assert_eq!(raw.post(&echo, Some(&first), true).await.status, 200);
    let second = initialize(&raw).await;
    assert_eq!(raw.post(&echo, Some(&second), true).await.status, 200);
    let third = raw.post(INIT, None, true).await;
    assert_eq!(third.status, 503);
    // Up to the idle timeout, as the real clock runs (the exact figure is tested on
    // Tokio's paused clock in `http_sse_rules.rs`).
    let retry: u64 = third
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .unwrap();
    assert!((1..=600).contains(&retry), "{retry}");
    assert_eq!(third.json().await["error"]["code"], -32009);
    raw.send(hyper::Method::DELETE, &[("mcp-session-id", &second)], "")
        .await;
    initialize(&raw).await;
}

#[tokio::test]
async fn an_sse_client_that_never_reads_is_dropped_and_memory_stays_bounded() {
    let streaming = Streaming::mcp()
        .replay_window(64, 256 * 1024)
        // Its POST takes only JSON, which MCP's `Accept` check would refuse.
        .require_accept(false)
        // Wall-clock time is what this waits on: how long a push may wait for a
        // client that does not read.
        .stall_timeout(Duration::from_millis(100));
    let address = start(Service::new(tools()).streaming(streaming)).await;
    let raw = Raw::new(address);
    let session = initialize(&raw).await;
    // A GET stream whose client never reads a byte.
    let mut stalled = raw.stalled_get(&session).await;
    // 32 MiB of pushes, far past what the socket buffers hold.
    let answer = tokio::time::timeout(
        Duration::from_secs(60),
        raw.post(
            &call(1, "bulk", json!([16 * 1024, 2048])),
            Some(&session),
            false,
        ),
    )
    .await
    .expect("pushing does not wait on the stalled client for ever");
    assert_eq!(answer.json().await["result"], "done");
    // What was not read is gone (the window held), and the stalled stream is over:
    // a resumption from its start is refused, a fresh GET is accepted.
    assert_eq!(raw.get(&session, Some("0-1")).await.status, 410);
    assert_eq!(raw.get(&session, None).await.status, 200);
    // Its connection was closed (what the kernel held for it is freed): read to its end.
    let mut held = Vec::new();
    // (An end of stream or a reset: either way closed. The bound is under the 30 s a
    // connection idle between requests is left, which would close it too.)
    let _closed = tokio::time::timeout(
        Duration::from_secs(20),
        tokio::io::AsyncReadExt::read_to_end(&mut stalled, &mut held),
    )
    .await
    .expect("the stalled stream's connection is closed");
}

#[tokio::test]
async fn origins_outside_the_allow_list_are_refused_on_post_and_websocket() {
    use rpcsmith::transport::{peer::Peer, ws};
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let service = Service::new(tools())
        .origins(Origins::default().allow("https://app.example"))
        .websocket(Peer::builder(), ws::Settings::default());
    let address = start(service).await;
    let raw = Raw::new(address);
    let echo = call(1, "echo", json!([1]));
    for (origin, status) in [
        ("https://evil.example", 403),
        ("https://app.example", 200),
        ("http://localhost:6274", 200),
    ] {
        let answer = raw
            .send(hyper::Method::POST, &[("origin", origin)], &echo)
            .await;
        assert_eq!(answer.status, status, "{origin}");
    }
    let mut request = format!("ws://{address}/").into_client_request().unwrap();
    request
        .headers_mut()
        .insert("origin", "https://evil.example".parse().unwrap());
    let refused = ws::connect(request, Peer::builder(), ws::Settings::default()).await;
    let error = format!("{:?}", refused.expect_err("cross-site WebSocket refused"));
    assert!(error.contains("403"), "{error}");
    let mut request = format!("ws://{address}/").into_client_request().unwrap();
    request
        .headers_mut()
        .insert("origin", "https://app.example".parse().unwrap());
    let peer = ws::connect(request, Peer::builder(), ws::Settings::default())
        .await
        .expect("a listed origin");
    let echoed: Value = peer.client().request("echo", &[5]).await.unwrap();
    assert_eq!(echoed, json!([5]));
}

#[tokio::test]
async fn an_open_stream_keeps_its_connection_past_the_header_timeout_behind_layers() {
    use rpcsmith::http::Serve;
    let service = tower::ServiceBuilder::new()
        .map_response(|response: hyper::Response<rpcsmith::http::ResponseBody>| response)
        .service(Service::new(tools()).streaming(Streaming::mcp()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let serve = Serve::new(listener, service).header_timeout(Some(Duration::from_millis(50)));
    tokio::spawn(serve.run(std::future::pending()));
    let raw = Raw::new(address);
    let session = initialize(&raw).await;
    let mut stream = raw.get(&session, None).await.into_stream();
    // Wall-clock time is what this tests: several header timeouts with no request
    // started on the stream's connection, which stays open while the stream is.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let later = raw
        .post(&call(1, "later", json!([1])), Some(&session), true)
        .await;
    assert_eq!(later.json().await["result"], "ok");
    let tick = tokio::time::timeout(Duration::from_secs(10), stream.next()).await;
    assert_eq!(
        tick.expect("in time").expect("the stream is open")["params"],
        json!([0])
    );
}

#[tokio::test]
async fn session_ids_start_with_the_instances_prefix_for_a_proxy_to_route_by() {
    let streaming = Streaming::mcp().session_prefix("b.");
    let raw = Raw::new(start(Service::new(tools()).streaming(streaming)).await);
    let session = initialize(&raw).await;
    let random = session
        .strip_prefix("b.0x")
        .unwrap_or_else(|| panic!("{session}"));
    assert!(
        random.len() == 32 && random.bytes().all(|b| b.is_ascii_hexdigit()),
        "{session}"
    );
    let later = raw
        .post(&call(1, "echo", json!([1])), Some(&session), true)
        .await;
    assert_eq!(later.status, 200, "the prefixed id names the session");
    assert_eq!(raw.get(&session, None).await.status, 200);

    // Not visible ASCII: ignored, so every id stays a valid header value.
    let streaming = Streaming::mcp().session_prefix("b ");
    let raw = Raw::new(start(Service::new(tools()).streaming(streaming)).await);
    let session = initialize(&raw).await;
    assert!(
        session.starts_with("0x") && session.len() == 34,
        "{session}"
    );
}
