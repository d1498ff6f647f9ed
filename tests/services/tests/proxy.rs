//! The proxy end to end, with real processes and sockets:
//!
//! - an HTTP front forwarding to the generated `Editor` server in a stdio CHILD PROCESS
//!   (the `editor-stdio` bin, `Content-Length` framed): calls, declared and undeclared
//!   errors, batches with notifications in them, notifications alone, and the child's
//!   pushes reaching the proxy's own listener;
//! - a WebSocket front forwarding to the `Editor` server over WebSocket, each front
//!   connection bridged to an upstream connection of its own ([`Bridge`]): pushes, a
//!   server→client request and a cancellation cross both ways, and the upstream
//!   connection closes with its front.
//!
//! Nothing waits on a clock: the server reports through `$/progress` pushes, and every
//! wait is bounded by [`PATIENCE`].

mod support;

use std::time::Duration;

use bytes::Bytes;
use rpcsmith::client::{Client, Delivery, Error, Transport};
use rpcsmith::http;
use rpcsmith::proxy::Proxy;
use rpcsmith::server::Server;
use rpcsmith::transport::peer::{Bridge, Builder, Peer};
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith::transport::ws;
use rpcsmith_services::editor::EditorClient;
use rpcsmith_services::editor_listener::{self, Event, progress};
use rpcsmith_services::editor_server;
use tokio::net::TcpListener;
use tokio::process::Command;
use tokio::sync::{mpsc, oneshot};

/// The longest any step may take.
const PATIENCE: Duration = Duration::from_secs(10);

/// The stdio server.
const EDITOR_STDIO: &str = env!("CARGO_BIN_EXE_editor-stdio");

async fn next_event(events: &mut mpsc::UnboundedReceiver<Event>) -> Event {
    tokio::time::timeout(PATIENCE, events.recv())
        .await
        .expect("an event in time")
        .expect("the listener is alive")
}

/// The next `n` events, sorted (the listener handles each in a task of its own).
async fn next_events(events: &mut mpsc::UnboundedReceiver<Event>, n: usize) -> Vec<Event> {
    let mut received = Vec::with_capacity(n);
    for _ in 0..n {
        received.push(next_event(events).await);
    }
    received.sort();
    received
}

/// Serves `service` on a loopback port: its address, and what stops it.
async fn serve(service: http::Service) -> (String, oneshot::Sender<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(http::serve(listener, service, async {
        let _ = stopped.await;
    }));
    (address, stop)
}

#[tokio::test]
async fn an_http_front_forwards_to_a_stdio_child() {
    // The proxy's upstream: the child, whose pushes to its caller reach this listener.
    let (listener, mut pushed) = editor_listener::server();
    let upstream = Peer::builder().serve(listener).cancel(true);
    let command = Command::new(EDITOR_STDIO);
    let (upstream, _child) = stream::spawn(upstream, Codec::ContentLength, command).unwrap();
    let front = Server::new(Proxy::new(upstream.client().clone()));
    let (address, _stop) = serve(http::Service::new(front)).await;
    let url = format!("http://{address}");

    // Typed calls through the front.
    let c = EditorClient::new(Client::new(http::Client::new(&url).unwrap()));
    assert_eq!(c.add(2, 3).await.unwrap(), 5);
    match c.add(i64::MAX, 1).await {
        Err(Error::Undeclared(e)) => assert_eq!((e.code, &*e.message), (-32602, "overflow")),
        other => panic!("expected the child's error as it came, got {other:?}"),
    }
    // A notification alone: nothing is answered; the child got it (it shows it back).
    c.log("alone".into()).await.unwrap();
    assert_eq!(next_event(&mut pushed).await, Event::Log("alone".into()));

    // A batch, byte for byte: a call, a notification, an unknown method, bad params.
    let raw = http::Client::new(&url).unwrap();
    let batch = concat!(
        r#"[{"jsonrpc":"2.0","method":"add","params":[1, 2],"id":1},"#,
        r#"{"jsonrpc":"2.0","method":"log","params":{"message":"batched"}},"#,
        r#"{"jsonrpc":"2.0","method":"nope","id":"x"},"#,
        r#"{"jsonrpc":"2.0","method":"count","params":["three"],"id":3}]"#
    );
    let answered = answer(&raw, batch).await;
    let expected = concat!(
        r#"[{"jsonrpc":"2.0","result":3,"id":1},"#,
        r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"x"},"#,
        r#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"invalid param `to`: expected an integer between 0 and 255, found a string \"three\""},"id":3}]"#
    );
    assert_eq!(answered.as_deref(), Some(expected));
    assert_eq!(next_event(&mut pushed).await, Event::Log("batched".into()));

    // A batch of notifications only: no body at all.
    let notifications = r#"[{"jsonrpc":"2.0","method":"log","params":{"message":"n1"}},{"jsonrpc":"2.0","method":"log","params":{"message":"n2"}}]"#;
    assert_eq!(answer(&raw, notifications).await, None);
    let expected = [Event::Log("n1".into()), Event::Log("n2".into())];
    assert_eq!(next_events(&mut pushed, 2).await, expected);
}

/// What the front answers `message` with (`None`: no body).
async fn answer(client: &http::Client, message: &'static str) -> Option<String> {
    match client
        .send(Bytes::from_static(message.as_bytes()))
        .await
        .unwrap()
    {
        Delivery::Answer(bytes) => Some(String::from_utf8(bytes.to_vec()).unwrap()),
        Delivery::NoAnswer => None,
        other => panic!("unexpected delivery {other:?}"),
    }
}

#[tokio::test]
async fn a_websocket_front_forwards_pushes_requests_and_cancellations() {
    // The upstream: the Editor server over WebSocket.
    let upstream = http::Service::new(editor_server::server())
        .websocket(editor_server::builder(), ws::Settings::default());
    let (upstream_address, _stop_upstream) = serve(upstream).await;
    let upstream_url = format!("ws://{upstream_address}");

    // The front: a proxy whose every connection gets an upstream connection of its own.
    let bridge = Bridge::new(move |builder: Builder| {
        Box::pin(ws::connect(
            upstream_url.clone(),
            builder.cancel(true),
            ws::Settings::default(),
        ))
    });
    let front = http::Service::new(Server::new(Proxy::new(bridge.clone())))
        .websocket(Peer::builder().cancel(true), ws::Settings::default());
    let (front_address, _stop_front) = serve(front).await;

    // A client of the front, with the Editor client's listener.
    let (listener, mut events) = editor_listener::server();
    let peer = Peer::builder()
        .serve(listener)
        .cancel(true)
        .timeout(Duration::from_secs(60));
    let front_url = format!("ws://{front_address}");
    let peer = ws::connect(front_url, peer, ws::Settings::default())
        .await
        .unwrap();
    let c = EditorClient::new(peer.client().clone());

    // Pushes made by the upstream while it answers a call.
    assert_eq!(c.count(3).await.unwrap(), 3);
    let counted = [
        progress("count", "1"),
        progress("count", "2"),
        progress("count", "3"),
    ];
    assert_eq!(next_events(&mut events, 3).await, counted);
    assert_eq!(bridge.connections(), 1);

    // A request the upstream makes of the client, answered through the proxy.
    let applied = c.edit("fn main() {}".into()).await.unwrap();
    assert!(applied.applied);
    let refused = c.edit(String::new()).await.unwrap();
    assert_eq!(
        (refused.applied, refused.reason.as_deref()),
        (false, Some("empty edit"))
    );

    // A notification, which the upstream shows back.
    c.log("hello".into()).await.unwrap();
    assert_eq!(next_event(&mut events).await, Event::Log("hello".into()));

    // A cancellation: the client drops its call; the front aborts the forwarded call,
    // which cancels it upstream, whose handler reports it was dropped.
    let waiting = c.clone();
    let call = tokio::spawn(async move { waiting.wait("w".into()).await });
    assert_eq!(next_event(&mut events).await, progress("w", "started"));
    call.abort();
    assert_eq!(next_event(&mut events).await, progress("w", "aborted"));
    assert_eq!(c.add(1, 1).await.unwrap(), 2);

    // The upstream connection ends with its front connection.
    peer.close();
    peer.closed().await;
    let closed = async {
        // Polls an observable state, within PATIENCE.
        while bridge.connections() > 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(PATIENCE, closed)
        .await
        .expect("the upstream connection closed with its front");
}

#[tokio::test]
async fn an_unreachable_upstream_is_32015() {
    let bridge = Bridge::new(|builder: Builder| {
        // Port 9 on loopback: nothing listens there.
        Box::pin(ws::connect(
            "ws://127.0.0.1:9",
            builder,
            ws::Settings::default(),
        ))
    });
    let front = http::Service::new(Server::new(Proxy::new(bridge)))
        .websocket(Peer::builder(), ws::Settings::default());
    let (front_address, _stop) = serve(front).await;
    let peer = ws::connect(
        format!("ws://{front_address}"),
        Peer::builder(),
        ws::Settings::default(),
    )
    .await
    .unwrap();
    let c = EditorClient::new(peer.client().clone());
    match c.add(1, 2).await {
        Err(Error::Undeclared(e)) => {
            assert_eq!((e.code, &*e.message), (-32015, "Upstream unavailable"));
        }
        other => panic!("expected -32015, got {other:?}"),
    }
    // Over HTTP there is no front connection to bridge: refused the same way.
    let (client, _stop_http) = support::connect(
        Server::new(Proxy::new(Bridge::new(|builder: Builder| {
            Box::pin(ws::connect(
                "ws://127.0.0.1:9",
                builder,
                ws::Settings::default(),
            ))
        }))),
        true,
    )
    .await;
    let sum: Result<i64, _> = client.request("add", &[1, 2]).await;
    assert!(matches!(sum, Err(Error::Undeclared(ref e)) if e.code == -32015));
}
