#![allow(dead_code, reason = "each test crate uses a different part")]

//! A tools server whose handlers push before answering, and a raw HTTP/1.1 client
//! that shows statuses, headers and event streams as they come.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Method, Request, Response};
use hyper_util::rt::TokioIo;
use rpcsmith::http::{Service, remote, serve};
use rpcsmith::protocol::{ErrorObject, Feed};
use rpcsmith::server::{
    Context, Dispatch, Failure, Items, Reply, Server, encode, subscribe, unsubscribe,
};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::net::SocketAddr;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

/// Handlers of `hang` dropped before their end (cancelled), and the task to tell.
pub(crate) static HUNG_DROPPED: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);
pub(crate) static HUNG_NOTIFY: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Counts a `hang` handler dropped.
struct Hanging;

impl Drop for Hanging {
    fn drop(&mut self) {
        HUNG_DROPPED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        HUNG_NOTIFY.notify_waiters();
    }
}

/// The methods: `initialize` (answers the `protocolVersion` asked, else
/// `2025-06-18`; `-32602` to params with `junk`), `hang [n]` (n notifications, then
/// never answers), `echo`, `progress [n]` (n notifications, then
/// `"done"`), `ask` (a request to the client, whose result it answers), `later [n]`
/// (answers, then n notifications from a task of its own), `bulk [n, size]`.
pub(crate) struct Tools;

fn numbers(params: Option<&RawValue>) -> Vec<u64> {
    serde_json::from_str(params.map_or("[]", RawValue::get)).unwrap_or_default()
}

impl Dispatch for Tools {
    fn call(&self, method: &str, params: Option<&RawValue>, cx: Context) -> Reply {
        let client = remote(&cx);
        let numbers = numbers(params);
        match method {
            "initialize" => {
                let params: Value =
                    params.map_or(Value::Null, |p| serde_json::from_str(p.get()).unwrap());
                if params.get("junk").is_some() {
                    return Reply::err(ErrorObject::invalid_params("junk"));
                }
                let asked = params["protocolVersion"].as_str().unwrap_or("2025-06-18");
                Reply::ok(&json!({"protocolVersion": asked}))
            }
            "hang" => Reply::future(async move {
                let _hanging = Hanging;
                let client = client.ok_or(ErrorObject::internal_error())?;
                for progress in 0..numbers.first().copied().unwrap_or(0) {
                    let params = json!({"progressToken": 1, "progress": progress});
                    let _ = client.notify("notifications/progress", &params).await;
                }
                std::future::pending::<()>().await;
                encode(&"never")
            }),
            "echo" => Reply::ok(&params.map(|p| serde_json::from_str::<Value>(p.get()).unwrap())),
            "progress" => Reply::future(async move {
                let client = client.ok_or(ErrorObject::internal_error())?;
                for progress in 0..numbers[0] {
                    let params = json!({"progressToken": 1, "progress": progress});
                    client
                        .notify("notifications/progress", &params)
                        .await
                        .map_err(|e| ErrorObject::new(-32603, e.to_string()))?;
                }
                encode(&"done")
            }),
            "bulk" => Reply::future(async move {
                let client = client.ok_or(ErrorObject::internal_error())?;
                let filler = "x".repeat(numbers[1] as usize);
                for _ in 0..numbers[0] {
                    let _ = client.notify("bulk", &[&filler]).await;
                }
                encode(&"done")
            }),
            "ask" => Reply::future(async move {
                let client = client.ok_or(ErrorObject::internal_error())?;
                let asked: Value = client
                    .request("sampling/createMessage", &json!({"q": 1}))
                    .await
                    .map_err(|e| ErrorObject::new(-32603, e.to_string()))?;
                encode(&json!({"asked": asked}))
            }),
            "later" => {
                let Some(client) = client else {
                    return Reply::err(ErrorObject::internal_error());
                };
                tokio::spawn(async move {
                    for tick in 0..numbers[0] {
                        let _ = client.notify("tick", &[tick]).await;
                    }
                });
                Reply::ok("ok")
            }
            "subscribeCount" => subscribe(cx, &COUNT, async move {
                Ok::<_, Failure>(Items::new(futures_util::stream::iter(0..numbers[0])))
            }),
            "unsubscribeCount" => unsubscribe(cx, &COUNT, params),
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

/// `subscribeCount [n]`'s items, pushed as `count` notifications.
pub(crate) static COUNT: Feed = Feed::push("count", "subscription", "result").unsubscribe(
    "unsubscribeCount",
    "subscription",
    false,
);

pub(crate) fn tools() -> Server {
    Server::new(Tools)
}

/// Serves `service` on loopback until the test ends.
pub(crate) async fn start(service: Service) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().unwrap();
    tokio::spawn(serve(listener, service, std::future::pending()));
    address
}

/// A raw HTTP/1.1 client: one connection per exchange.
pub(crate) struct Raw {
    address: SocketAddr,
    path: &'static str,
}

impl Raw {
    pub(crate) fn new(address: SocketAddr) -> Self {
        Self { address, path: "/" }
    }

    /// Requests to `path` rather than `/`.
    pub(crate) fn at(address: SocketAddr, path: &'static str) -> Self {
        Self { address, path }
    }

    pub(crate) async fn send(
        &self,
        method: Method,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Exchange {
        let stream = TcpStream::connect(self.address).await.expect("connect");
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .expect("handshake");
        tokio::spawn(connection);
        let mut request = Request::builder()
            .method(method)
            .uri(self.path)
            .header("content-type", "application/json");
        if !headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("host"))
        {
            request = request.header("host", self.address.to_string());
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request
            .body(Full::new(Bytes::from(body.to_owned())))
            .unwrap();
        let response = sender.send_request(request).await.expect("an answer");
        Exchange {
            status: response.status().as_u16(),
            response,
        }
    }

    /// A `POST` taking JSON, and event streams when `events`.
    pub(crate) async fn post(&self, body: &str, session: Option<&str>, events: bool) -> Exchange {
        let accept = if events {
            "application/json, text/event-stream"
        } else {
            "application/json"
        };
        let mut headers = vec![("accept", accept)];
        headers.extend(session.map(|session| ("mcp-session-id", session)));
        self.send(Method::POST, &headers, body).await
    }

    /// A `GET` stream of `session`, resuming after `last` when given.
    pub(crate) async fn get(&self, session: &str, last: Option<&str>) -> Exchange {
        let mut headers = vec![("accept", "text/event-stream"), ("mcp-session-id", session)];
        headers.extend(last.map(|last| ("last-event-id", last)));
        self.send(Method::GET, &headers, "").await
    }

    /// A `GET` stream whose client never reads.
    pub(crate) async fn stalled_get(&self, session: &str) -> TcpStream {
        let mut stream = TcpStream::connect(self.address).await.expect("connect");
        let request = format!(
            "GET / HTTP/1.1\r\nhost: localhost\r\naccept: text/event-stream\r\nmcp-session-id: {session}\r\n\r\n"
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        // Wait until the server has the stream open: a second GET is refused then.
        loop {
            if self.get(session, None).await.status == 409 {
                return stream;
            }
            tokio::task::yield_now().await;
        }
    }
}

/// One exchange's answer.
pub(crate) struct Exchange {
    pub(crate) status: u16,
    response: Response<Incoming>,
}

impl Exchange {
    pub(crate) fn header(&self, name: &str) -> Option<String> {
        let value = self.response.headers().get(name)?;
        Some(value.to_str().unwrap().to_owned())
    }

    pub(crate) fn content_type(&self) -> String {
        self.header("content-type").unwrap_or_default()
    }

    pub(crate) async fn json(self) -> Value {
        let body = self
            .response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes();
        serde_json::from_slice(&body).unwrap_or_else(|_| panic!("JSON: {body:?}"))
    }

    pub(crate) fn into_stream(self) -> Events {
        assert_eq!(
            self.content_type(),
            "text/event-stream",
            "status {}",
            self.status
        );
        Events {
            body: self.response.into_body(),
            buffer: Vec::new(),
            last_id: None,
        }
    }

    pub(crate) async fn events(self) -> Vec<Event> {
        let mut events = self.into_stream();
        let mut all = Vec::new();
        while let Some(event) = events.next_event().await {
            all.push(event);
        }
        all
    }
}

/// One event read.
#[derive(Debug)]
pub(crate) struct Event {
    pub(crate) id: String,
    pub(crate) data: String,
    /// Its `retry:` field, if any.
    pub(crate) retry: Option<String>,
}

impl Event {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap()
    }
}

/// An event stream, read as it comes.
pub(crate) struct Events {
    body: Incoming,
    buffer: Vec<u8>,
    last_id: Option<String>,
}

impl Events {
    /// The next event's message; `None` when the stream ends.
    pub(crate) async fn next(&mut self) -> Option<Value> {
        self.next_event().await.map(|event| event.json())
    }

    pub(crate) fn last_id(&self) -> Option<String> {
        self.last_id.clone()
    }

    pub(crate) async fn next_event(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
                let block: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let text = String::from_utf8(block).unwrap();
                let mut event = Event {
                    id: String::new(),
                    data: String::new(),
                    retry: None,
                };
                for line in text.lines() {
                    if let Some(retry) = line.strip_prefix("retry: ") {
                        event.retry = Some(retry.to_owned());
                    } else if let Some(id) = line.strip_prefix("id: ") {
                        event.id = id.to_owned();
                    } else if let Some(data) = line.strip_prefix("data: ") {
                        event.data.push_str(data);
                    }
                }
                self.last_id = Some(event.id.clone());
                return Some(event);
            }
            let frame = self.body.frame().await?.ok()?;
            if let Ok(data) = frame.into_data() {
                self.buffer.extend_from_slice(&data);
            }
        }
    }
}
