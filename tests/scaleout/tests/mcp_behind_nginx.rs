//! MCP's Streamable HTTP on two instances behind a real nginx, routed by
//! `Mcp-Session-Id`: each instance starts its session ids with its own name
//! (`Streaming::session_prefix`), nginx's `map` sends a request carrying one to that
//! instance and any other request (`initialize`) to the next instance in turn.
//!
//! Where nginx or redis-server is missing these tests are marked ignored, as in
//! `behind_nginx.rs`.

mod support;

use std::time::Duration;

use rpcsmith::client::Client;
use rpcsmith::http::{self, ClientStreaming};
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Reply, Server};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use support::{Instance, Nginx, PATIENCE};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::sync::mpsc;

/// An MCP client through the front, its `GET` stream open, and what the server sent it.
struct Session {
    client: Client,
    heard: mpsc::UnboundedReceiver<(String, Value)>,
    /// The instance that answered `instance` first, and the session id it saw.
    instance: String,
    id: String,
}

/// The client's listener: what the server sends goes to the channel.
struct Listener(mpsc::UnboundedSender<(String, Value)>);

impl Dispatch for Listener {
    fn call(&self, method: &str, params: Option<&RawValue>, _: Context) -> Reply {
        let params = params.map_or(Value::Null, |p| serde_json::from_str(p.get()).unwrap());
        let _ = self.0.send((method.to_owned(), params));
        Reply::err(ErrorObject::method_not_found())
    }
}

/// A new MCP session through `nginx`: `initialize`, then `instance`; the client keeps
/// the session's `GET` stream open if `stream`.
async fn session(nginx: &Nginx, stream: bool) -> Session {
    let (heard, hearing) = mpsc::unbounded_channel();
    let streaming = ClientStreaming::mcp()
        .serve(Server::new(Listener(heard)))
        .open_stream(stream)
        .resume_attempts(1, Duration::from_millis(10));
    let transport = http::Client::builder(format!("http://{}/mcp", nginx.address))
        .streaming(streaming)
        .build()
        .unwrap();
    let client = Client::new(transport);
    let init: Value = client
        .request(
            "initialize",
            &json!({"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "scaleout", "version": "0"}}),
        )
        .await
        .unwrap();
    assert_eq!(init["protocolVersion"], "2025-11-25");
    client
        .notify("notifications/initialized", &json!({}))
        .await
        .unwrap();
    let answer: Value = client.request("instance", &()).await.unwrap();
    Session {
        client,
        heard: hearing,
        instance: answer["instance"].as_str().unwrap().to_owned(),
        id: answer["session"].as_str().unwrap().to_owned(),
    }
}

/// The status line and headers of a `method` request through `nginx` for session
/// `id` (a `GET` asks for the event stream), read over a raw connection.
async fn head(nginx: &Nginx, method: &str, id: &str) -> String {
    let mut stream = tokio::net::TcpStream::connect(nginx.address).await.unwrap();
    let request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: 0\r\n\r\n",
        nginx.address
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    let mut byte = [0_u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        let read = tokio::time::timeout(PATIENCE, stream.read(&mut byte)).await;
        assert_eq!(
            read.expect("nginx answers in time").unwrap(),
            1,
            "closed early"
        );
        head.push(byte[0]);
    }
    String::from_utf8(head).unwrap().to_ascii_lowercase()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(services),
    ignore = "nginx or redis-server is not installed (Debian: apt-get install nginx-light redis-server)"
)]
async fn each_mcp_session_sticks_to_the_instance_that_holds_it_behind_nginx() {
    let instances = [
        Instance::start_mcp("a").await,
        Instance::start_mcp("b").await,
    ];
    let nginx = Nginx::start_mcp(&instances.iter().collect::<Vec<_>>()).await;

    // `initialize` carries no session: nginx gives each to the next instance in turn,
    // so two sessions in a row land on the two instances.
    let mut sessions = vec![session(&nginx, true).await, session(&nginx, true).await];
    sessions.sort_by(|x, y| x.instance.cmp(&y.instance));
    let on: Vec<&str> = sessions.iter().map(|s| s.instance.as_str()).collect();
    assert_eq!(on, ["a", "b"], "the two sessions landed on both instances");

    for session in &mut sessions {
        let prefix = format!("{}.0x", session.instance);
        assert!(session.id.starts_with(&prefix), "{}", session.id);
        // Every later POST of the session reaches the instance that holds it.
        for _ in 0..5 {
            let answer: Value = session.client.request("instance", &()).await.unwrap();
            assert_eq!(
                answer,
                json!({"instance": session.instance, "session": session.id})
            );
        }
        // So does its GET stream: what the instance sends outside any POST arrives.
        let pushed: bool = session.client.request("pushMe", &()).await.unwrap();
        assert!(pushed);
        let heard = tokio::time::timeout(PATIENCE, session.heard.recv()).await;
        let (method, params) = heard.expect("pushed in time").expect("listening");
        assert_eq!(
            (method.as_str(), params),
            ("pushed", json!([session.instance]))
        );
    }

    // Over a raw connection, for a session whose client opened no stream: its GET
    // stream is opened on its instance, while the same random part under the other
    // instance's name is unknown where nginx sends it.
    let third = session(&nginx, false).await;
    let stream = head(&nginx, "GET", &third.id).await;
    assert!(stream.starts_with("http/1.1 200"), "{stream}");
    assert!(
        stream.contains("content-type: text/event-stream"),
        "{stream}"
    );
    let other = if third.instance == "a" { "b" } else { "a" };
    let random = third.id.split_once('.').unwrap().1;
    let unknown = head(&nginx, "GET", &format!("{other}.{random}")).await;
    assert!(unknown.starts_with("http/1.1 404"), "{unknown}");

    // DELETE reaches the holder too: the session ends there, and its next POST is 404.
    let b = &sessions[1].id;
    let ended = head(&nginx, "DELETE", b).await;
    assert!(ended.starts_with("http/1.1 20"), "{ended}");
    let after = head(&nginx, "GET", b).await;
    assert!(after.starts_with("http/1.1 404"), "{after}");
}
