//! The HTTP client's side of event streams and sessions (`ClientBuilder::streaming`)
//! against the streaming server, over real sockets on loopback: pushes delivered to
//! the client's listener while a call runs, the response to its call, the server's
//! requests answered, the session kept and the `GET` stream opened, and streams cut
//! by a proxy resumed with `Last-Event-ID`.

mod sse_support;

use rpcsmith::client::Client;
use rpcsmith::http::{self, ClientStreaming, Service, Streaming};
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Reply, Server};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use sse_support::{start, tools};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// The client's listener: records notifications, answers `sampling/createMessage`.
struct Listener(mpsc::UnboundedSender<(String, Value)>);

impl Dispatch for Listener {
    fn call(&self, method: &str, params: Option<&RawValue>, _: Context) -> Reply {
        let params: Value = params.map_or(Value::Null, |p| serde_json::from_str(p.get()).unwrap());
        let _ = self.0.send((method.to_owned(), params));
        match method {
            "sampling/createMessage" => Reply::ok(&json!({"text": "42"})),
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

fn client(url: String, open_stream: bool) -> (Client, mpsc::UnboundedReceiver<(String, Value)>) {
    let (heard, hearing) = mpsc::unbounded_channel();
    let streaming = ClientStreaming::mcp()
        .serve(Server::new(Listener(heard)))
        .open_stream(open_stream)
        .resume_attempts(5, Duration::from_millis(10));
    let transport = http::Client::builder(url)
        .streaming(streaming)
        .build()
        .unwrap();
    (Client::new(transport), hearing)
}

async fn mcp_server() -> SocketAddr {
    start(Service::new(tools()).streaming(Streaming::mcp())).await
}

#[tokio::test]
async fn pushes_reach_the_listener_before_the_response_reaches_the_call() {
    let address = mcp_server().await;
    let (client, mut heard) = client(format!("http://{address}/"), false);
    let init: Value = client.request("initialize", &json!({})).await.unwrap();
    assert_eq!(init["protocolVersion"], "2025-06-18");
    let done: String = client.request("progress", &[3]).await.unwrap();
    assert_eq!(done, "done");
    for progress in 0..3 {
        let (method, params) = heard.try_recv().expect("heard before the call returned");
        assert_eq!(method, "notifications/progress");
        assert_eq!(params["progress"], progress);
    }
    // The server asks the client, which answers in a POST of the session.
    let asked: Value = client.request("ask", &json!({})).await.unwrap();
    assert_eq!(asked, json!({"asked": {"text": "42"}}));
    assert_eq!(heard.try_recv().unwrap().0, "sampling/createMessage");
    // Nothing pushed: plain JSON.
    let echoed: Value = client.request("echo", &[1, 2]).await.unwrap();
    assert_eq!(echoed, json!([1, 2]));
}

fn refused_with(outcome: &Result<Value, rpcsmith::client::Error>, message: &str) -> bool {
    matches!(outcome, Err(rpcsmith::client::Error::Undeclared(e)) if e.message == message)
}

#[tokio::test]
async fn the_session_is_kept_forgotten_on_404_and_started_again() {
    let address = mcp_server().await;
    let (client, _heard) = client(format!("http://{address}/"), false);
    let refused = client.request::<Value, _>("echo", &[1]).await;
    assert!(refused_with(&refused, "Missing session id"), "{refused:?}");
    let _: Value = client.request("initialize", &json!({})).await.unwrap();
    let echoed: Value = client.request("echo", &[1]).await.unwrap();
    assert_eq!(echoed, json!([1]), "the session header is sent back");

    // Sessions that expire at once: the first use after initialisation finds it gone.
    let expiring = Streaming::mcp().idle_timeout(Duration::ZERO);
    let address = start(Service::new(tools()).streaming(expiring)).await;
    let (client, _heard) = client_for(address);
    let _: Value = client.request("initialize", &json!({})).await.unwrap();
    let gone = client.request::<Value, _>("echo", &[1]).await;
    assert!(refused_with(&gone, "Session not found"), "{gone:?}");
    let forgotten = client.request::<Value, _>("echo", &[1]).await;
    assert!(
        refused_with(&forgotten, "Missing session id"),
        "a 404 makes the client forget the session: {forgotten:?}"
    );
}

fn client_for(address: SocketAddr) -> (Client, mpsc::UnboundedReceiver<(String, Value)>) {
    client(format!("http://{address}/"), false)
}

#[tokio::test]
async fn the_get_stream_brings_what_the_server_sends_outside_any_request() {
    let address = mcp_server().await;
    let (client, mut heard) = client(format!("http://{address}/"), true);
    let _: Value = client.request("initialize", &json!({})).await.unwrap();
    let ok: String = client.request("later", &[3]).await.unwrap();
    assert_eq!(ok, "ok");
    for tick in 0..3 {
        let (method, params) = tokio::time::timeout(Duration::from_secs(10), heard.recv())
            .await
            .expect("the GET stream delivers")
            .unwrap();
        assert_eq!((method.as_str(), params), ("tick", json!([tick])));
    }
}

/// A proxy that cuts every event stream right after its first event; it counts the
/// streams it cut.
async fn cutting_proxy(upstream: SocketAddr) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let cuts = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&cuts);
    tokio::spawn(async move {
        loop {
            let (front, _) = listener.accept().await.unwrap();
            tokio::spawn(cut(front, upstream, Arc::clone(&counted)));
        }
    });
    (address, cuts)
}

async fn cut(front: TcpStream, upstream: SocketAddr, cuts: Arc<AtomicUsize>) {
    let back = TcpStream::connect(upstream).await.unwrap();
    let (mut front_read, mut front_write) = front.into_split();
    let (mut back_read, mut back_write) = back.into_split();
    tokio::spawn(async move { tokio::io::copy(&mut front_read, &mut back_write).await });
    let mut seen = Vec::new();
    let mut buffer = [0; 4096];
    loop {
        let Ok(read) = back_read.read(&mut buffer).await else {
            return;
        };
        if read == 0 {
            return;
        }
        let start = seen.len();
        seen.extend_from_slice(&buffer[..read]);
        let streaming = String::from_utf8_lossy(&seen).contains("text/event-stream");
        let head_end = seen.windows(4).position(|w| w == b"\r\n\r\n");
        let event_end = head_end.and_then(|head| {
            let body = head + 4;
            seen[body..]
                .windows(2)
                .position(|w| w == b"\n\n")
                .map(|at| body + at + 2)
        });
        match event_end {
            Some(end) if streaming => {
                let _ = front_write.write_all(&seen[start.min(end)..end]).await;
                // Cut: the stream drops mid-body.
                cuts.fetch_add(1, Ordering::Relaxed);
                return;
            }
            _ => {
                if front_write.write_all(&buffer[..read]).await.is_err() {
                    return;
                }
            }
        }
    }
}

#[tokio::test]
async fn a_stream_cut_after_each_event_is_resumed_and_nothing_is_lost() {
    let address = mcp_server().await;
    let (proxy, cuts) = cutting_proxy(address).await;
    let (client, mut heard) = client(format!("http://{proxy}/"), false);
    let _: Value = client.request("initialize", &json!({})).await.unwrap();
    let done: String = client.request("progress", &[4]).await.unwrap();
    assert_eq!(done, "done", "the response came on a resumed stream");
    let mut progress = Vec::new();
    while let Ok((method, params)) = heard.try_recv() {
        assert_eq!(method, "notifications/progress");
        progress.push(params["progress"].as_u64().unwrap());
    }
    assert_eq!(progress, [0, 1, 2, 3], "each event once, in order");
    assert!(
        cuts.load(Ordering::Relaxed) >= 4,
        "the stream was cut after each event"
    );
}

#[tokio::test]
async fn a_subscription_is_pushed_on_the_get_stream() {
    use futures_util::StreamExt as _;
    let address = mcp_server().await;
    let (client, _heard) = client(format!("http://{address}/"), true);
    let _: Value = client.request("initialize", &json!({})).await.unwrap();
    let mut count = client
        .subscribe::<u64, _>("subscribeCount", &[3], &sse_support::COUNT)
        .await
        .unwrap();
    let mut items = Vec::new();
    for _ in 0..3 {
        let item = tokio::time::timeout(Duration::from_secs(10), count.next())
            .await
            .expect("pushed")
            .expect("an item")
            .expect("readable");
        items.push(item);
    }
    assert_eq!(items, [0, 1, 2]);
}

/// Records the `MCP-Protocol-Version` header of each call; `initialize` answers
/// revision 2025-11-25.
struct Versions(Arc<std::sync::Mutex<Vec<Seen>>>);

/// A call's method and its `MCP-Protocol-Version` header.
type Seen = (String, Option<String>);

impl Dispatch for Versions {
    fn call(&self, method: &str, _: Option<&RawValue>, cx: Context) -> Reply {
        let header = cx
            .metadata()
            .headers
            .as_ref()
            .and_then(|h| h.get("mcp-protocol-version"))
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        self.0.lock().unwrap().push((method.to_owned(), header));
        match method {
            "initialize" => Reply::ok(&json!({"protocolVersion": "2025-11-25"})),
            _ => Reply::ok(&json!({})),
        }
    }
}

#[tokio::test]
async fn the_client_sends_the_negotiated_version_on_every_request_after_initialize() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let service =
        Service::new(Server::new(Versions(Arc::clone(&seen)))).streaming(Streaming::mcp());
    let address = start(service).await;
    let (client, _heard) = client(format!("http://{address}/"), false);
    let _: Value = client.request("initialize", &json!({})).await.unwrap();
    let _: Value = client.request("tools/list", &json!({})).await.unwrap();
    client
        .notify("notifications/initialized", &json!({}))
        .await
        .unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            ("initialize".to_owned(), None),
            ("tools/list".to_owned(), Some("2025-11-25".to_owned())),
            (
                "notifications/initialized".to_owned(),
                Some("2025-11-25".to_owned())
            ),
        ]
    );
}
