//! The symmetric connection over WebSocket on 127.0.0.1: on the same port as HTTP,
//! calls both ways, push, cancellation, size limits, keep-alive, a server that goes
//! away; size limits and close codes in `limits.rs`, reconnection in `reconnect.rs`.

mod limits;
#[path = "../peer_support/mod.rs"]
mod peer_support;
mod reconnect;

use futures_util::{SinkExt, StreamExt};
use peer_support::{PATIENCE, ServerSide, client_side, eventually, next_event};
use rpcsmith::client::{Client, Error};
use rpcsmith::http;
use rpcsmith::server::Server;
use rpcsmith::transport::peer::{Builder, Hub, Peer};
use rpcsmith::transport::ws::{self, ConnectionState, Reconnect, Reconnecting, Settings};
use std::net::SocketAddr;
use std::time::Duration;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

/// An HTTP server with WebSocket upgrades on 127.0.0.1, serving until the test ends.
async fn http_and_ws(server: ServerSide, peer: Builder) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = http::Service::new(Server::new(server)).websocket(peer, Settings::default());
    tokio::spawn(http::serve(listener, service, std::future::pending()));
    address
}

fn url(address: SocketAddr) -> String {
    format!("ws://{address}/")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_and_http_share_a_port() {
    let hub = Hub::new();
    let address = http_and_ws(ServerSide::default(), Peer::builder().hub(&hub)).await;
    let over_http = Client::new(http::Client::new(&format!("http://{address}/")).unwrap());
    let sum: i64 = over_http.request("add", &[1, 2]).await.unwrap();
    assert_eq!(sum, 3);

    let (handlers, mut pushed) = client_side();
    let mut request = url(address).into_request();
    request
        .headers_mut()
        .insert("x-test", "hello".parse().unwrap());
    let peer = ws::connect(
        request,
        Peer::builder().serve(handlers),
        Settings::default(),
    )
    .await
    .unwrap();
    let client = peer.client();
    let sum: i64 = client.request("add", &[2, 2]).await.unwrap();
    assert_eq!(sum, 4);
    let header: Option<String> = client.request("header", &()).await.unwrap();
    assert_eq!(
        header.as_deref(),
        Some("hello"),
        "upgrade headers reach handlers"
    );

    let mut batch = client.batch();
    let one = batch.request::<i64, _>("add", &[0, 1]);
    let asked = batch.request::<i64, _>("ask", &[5]);
    let mut replies = batch.send().await.unwrap();
    assert_eq!(
        (replies.take(one).unwrap(), replies.take(asked).unwrap()),
        (1, 10)
    );

    let _: String = client.request("push", &["p"]).await.unwrap();
    assert_eq!(next(&mut pushed).await, r#"["p"]"#);
    assert_eq!(hub.notify_all("pushed", &["hub"]).unwrap().sent, 1);
    assert_eq!(next(&mut pushed).await, r#"["hub"]"#);
}

trait IntoRequest {
    fn into_request(self) -> ::http::Request<()>;
}

impl IntoRequest for String {
    fn into_request(self) -> ::http::Request<()> {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        self.into_client_request().unwrap()
    }
}

async fn next(pushed: &mut tokio::sync::mpsc::UnboundedReceiver<String>) -> String {
    tokio::time::timeout(PATIENCE, pushed.recv())
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_over_websocket() {
    let (server, mut events) = ServerSide::with_events();
    let address = http_and_ws(server, Peer::builder().cancel(true)).await;
    let builder = Peer::builder().cancel(true);
    let peer = ws::connect(url(address), builder, Settings::default())
        .await
        .unwrap();
    let mut call = Box::pin(peer.client().request::<(), _>("hold", &()));
    tokio::select! {
        outcome = &mut call => panic!("hold answered {outcome:?}"),
        event = next_event(&mut events) => assert_eq!(event, "started"),
    }
    drop(call);
    assert_eq!(
        next_event(&mut events).await,
        "dropped",
        "the server aborted it"
    );
    let sum: i64 = peer.client().request("add", &[1, 2]).await.unwrap();
    assert_eq!(sum, 3, "the connection goes on");
}

/// A raw WebSocket client (tungstenite) connected to `address`.
async fn raw_client(
    address: SocketAddr,
) -> tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>> {
    tokio_tungstenite::connect_async(url(address))
        .await
        .unwrap()
        .0
}

/// The next data message on a raw connection, as JSON.
async fn next_json<S>(stream: &mut S) -> serde_json::Value
where
    S: futures_util::Stream<Item = Result<Message, WsError>> + Unpin,
{
    loop {
        let message = tokio::time::timeout(PATIENCE, stream.next())
            .await
            .expect("a message in time")
            .expect("the connection is open")
            .expect("a readable message");
        match message {
            Message::Text(text) => return serde_json::from_str(&text).unwrap(),
            Message::Binary(bytes) => return serde_json::from_slice(&bytes).unwrap(),
            _ => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_messages_are_answered_and_the_connection_survives() {
    let address = http_and_ws(ServerSide::default(), Peer::builder()).await;
    let mut raw = raw_client(address).await;
    raw.send(Message::text("not json")).await.unwrap();
    let answer = next_json(&mut raw).await;
    assert_eq!(
        (answer["error"]["code"].clone(), answer["id"].clone()),
        (serde_json::json!(-32700), serde_json::Value::Null)
    );
    raw.send(Message::binary(vec![0xff, 0xfe, 0x00]))
        .await
        .unwrap();
    assert_eq!(next_json(&mut raw).await["error"]["code"], -32700);
    raw.send(Message::text(
        r#"{"jsonrpc":"2.0","method":"add","params":[1,2],"id":"x"}"#,
    ))
    .await
    .unwrap();
    assert_eq!(
        next_json(&mut raw).await,
        serde_json::json!({"jsonrpc": "2.0", "result": 3, "id": "x"})
    );
}

/// A client text frame carrying `payload` (shorter than 126 bytes), masked as a
/// client's must be.
fn client_text_frame(payload: &[u8]) -> Vec<u8> {
    let mask = [0x12, 0x34, 0x56, 0x78];
    let length = u8::try_from(payload.len()).expect("a short payload");
    assert!(length < 126, "a short payload");
    let mut frame = vec![0x81, 0x80 | length];
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().zip(mask.iter().cycle()).map(|(b, m)| b ^ m));
    frame
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_sent_with_the_upgrade_request_is_answered() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = http_and_ws(ServerSide::default(), Peer::builder()).await;
    let mut tcp = tokio::net::TcpStream::connect(address).await.unwrap();
    // The handshake and a first message in one write: the server has read the message
    // along with the request before the connection is handed to the WebSocket.
    let mut bytes = format!(
        "GET / HTTP/1.1\r\nHost: {address}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    )
    .into_bytes();
    bytes.extend(client_text_frame(
        br#"{"jsonrpc":"2.0","method":"add","params":[1,2],"id":7}"#,
    ));
    tcp.write_all(&bytes).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let byte = tokio::time::timeout(PATIENCE, tcp.read_u8()).await;
        head.push(byte.expect("the answer in time").expect("the answer"));
    }
    assert!(
        head.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    let mut raw = tokio_tungstenite::WebSocketStream::from_raw_socket(
        tcp,
        tokio_tungstenite::tungstenite::protocol::Role::Client,
        None,
    )
    .await;
    assert_eq!(
        next_json(&mut raw).await,
        serde_json::json!({"jsonrpc": "2.0", "result": 3, "id": 7})
    );
    raw.send(Message::text(
        r#"{"jsonrpc":"2.0","method":"add","params":[2,2],"id":8}"#,
    ))
    .await
    .unwrap();
    assert_eq!(next_json(&mut raw).await["result"], 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_close_frame_from_the_client_ends_its_connection_on_the_server() {
    let hub = Hub::new();
    let address = http_and_ws(ServerSide::default(), Peer::builder().hub(&hub)).await;
    let mut raw = raw_client(address).await;
    raw.send(Message::text(
        r#"{"jsonrpc":"2.0","method":"add","params":[1,1],"id":1}"#,
    ))
    .await
    .unwrap();
    assert_eq!(next_json(&mut raw).await["result"], 2);
    assert_eq!(hub.clients().len(), 1);
    raw.close(None).await.unwrap();
    // The server answers the close frame, and the stream ends.
    answers_the_close(&mut raw).await;
    assert!(
        eventually(|| hub.clients().is_empty()).await,
        "the server forgot the connection"
    );
}

/// Checks that after this side's close frame the server answers with its own and the
/// stream ends, nothing else arriving.
async fn answers_the_close<S>(raw: &mut S)
where
    S: futures_util::Stream<Item = Result<Message, WsError>> + Unpin,
{
    let mut ended = false;
    while let Ok(Some(message)) = tokio::time::timeout(PATIENCE, raw.next()).await {
        if !matches!(
            message,
            Ok(Message::Close(_)) | Err(WsError::ConnectionClosed)
        ) {
            panic!("after the close frame: {message:?}");
        }
        ended = true;
    }
    assert!(ended, "the server answered the close frame");
}

/// Answers the server frames itself (each made alone) and the frames tungstenite writes
/// for it (a pong, the close handshake) go out whole and in order, at every length
/// encoding of a frame's header: read by tungstenite as the client.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_pongs_and_the_close_handshake_arrive_as_whole_frames() {
    let address = http_and_ws(ServerSide::default(), Peer::builder()).await;
    let mut raw = raw_client(address).await;
    raw.send(Message::Ping(b"are you there".to_vec().into()))
        .await
        .unwrap();
    match tokio::time::timeout(PATIENCE, raw.next()).await {
        Ok(Some(Ok(Message::Pong(payload)))) => assert_eq!(&payload[..], b"are you there"),
        other => panic!("expected the pong, got {other:?}"),
    }
    // Answers with a 7-bit and a 16-bit length (framed by the server itself) and a
    // 64-bit one (over 4 KiB: framed by tungstenite), each with non-ASCII text.
    for (id, len) in [(1, 10), (2, 300), (3, 70_000)] {
        let text = "é".repeat(len / 2);
        let call =
            serde_json::json!({"jsonrpc": "2.0", "method": "echo", "params": [text], "id": id});
        raw.send(Message::text(call.to_string())).await.unwrap();
        let answer = next_json(&mut raw).await;
        assert_eq!(answer["id"], id);
        assert_eq!(answer["result"][0], text.as_str());
    }
    raw.close(None).await.unwrap();
    answers_the_close(&mut raw).await;
}

/// A WebSocket server for one connection that reads one message, then closes the
/// connection with a close frame, and reports what it read afterwards.
async fn closing_server() -> (SocketAddr, tokio::sync::oneshot::Receiver<Vec<String>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (report, reported) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        let mut stream = tokio_tungstenite::accept_async(socket).await.unwrap();
        let _ = stream.next().await;
        stream.close(None).await.unwrap();
        let mut after = Vec::new();
        while let Some(message) = stream.next().await {
            after.push(format!("{message:?}"));
        }
        let _ = report.send(after);
    });
    (address, reported)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_close_frame_from_the_server_fails_the_calls_and_closes_the_peer() {
    let (address, reported) = closing_server().await;
    let peer = ws::connect(
        url(address),
        Peer::builder().timeout(PATIENCE),
        Settings::default(),
    )
    .await
    .unwrap();
    let outcome = peer.client().request::<(), _>("anything", &()).await;
    assert!(matches!(outcome, Err(Error::Closed)), "{outcome:?}");
    tokio::time::timeout(PATIENCE, peer.closed()).await.unwrap();
    drop(peer);
    let after = tokio::time::timeout(PATIENCE, reported)
        .await
        .unwrap()
        .unwrap();
    assert!(
        after.iter().all(|message| message.contains("Close")),
        "only the closing handshake after the close frame: {after:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_peer_sends_a_close_frame() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        let mut stream = tokio_tungstenite::accept_async(socket).await.unwrap();
        let mut seen = Vec::new();
        while let Some(Ok(message)) = stream.next().await {
            let close = message.is_close();
            seen.push(message);
            if close {
                break;
            }
        }
        seen
    });
    let peer = ws::connect(url(address), Peer::builder(), Settings::default())
        .await
        .unwrap();
    peer.client().notify("bye", &()).await.unwrap();
    drop(peer);
    let seen = tokio::time::timeout(PATIENCE, server)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(seen[0].is_text() && seen[1].is_close(), "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_pings_and_closes_a_client_that_stopped_reading() {
    let mut settings = Settings::default();
    // The real keep-alive under test, short so that the test is; the test waits for the
    // client to be dropped, not for a guessed time.
    settings.keep_alive = Some(Duration::from_millis(50));
    let hub = Hub::new();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = http::Service::new(Server::new(ServerSide::default()))
        .websocket(Peer::builder().hub(&hub), settings);
    tokio::spawn(http::serve(listener, service, std::future::pending()));
    // A raw client that is not reading cannot answer pings.
    let mut raw = raw_client(address).await;
    raw.send(Message::text(
        r#"{"jsonrpc":"2.0","method":"add","params":[1,1],"id":1}"#,
    ))
    .await
    .unwrap();
    assert!(eventually(|| hub.clients().len() == 1).await);
    assert!(
        eventually(|| hub.clients().is_empty()).await,
        "the silent client was dropped"
    );
    // What the client finds when it reads again: the pings it did not answer, then
    // the end of the connection (the close frame, or an error as answering the pings
    // hits the closed socket).
    let mut seen = Vec::new();
    let end = loop {
        match tokio::time::timeout(PATIENCE, raw.next()).await {
            Ok(Some(Ok(message))) if !message.is_close() => seen.push(message),
            end => break format!("{end:?}"),
        }
    };
    assert!(seen.iter().any(Message::is_ping), "pinged first: {seen:?}");
    assert!(
        !end.starts_with("Err(Elapsed"),
        "then the connection ended: {seen:?} {end}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_closes_a_websocket_whose_client_a_handler_task_holds() {
    let (server, mut events) = ServerSide::with_events();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service =
        http::Service::new(Server::new(server)).websocket(Peer::builder(), Settings::default());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(http::serve(listener, service, async {
        let _ = stopped.await;
    }));
    let (handlers, mut pushed) = client_side();
    let peer = ws::connect(
        url(address),
        Peer::builder().serve(handlers),
        Settings::default(),
    )
    .await
    .unwrap();
    let answer: String = peer.client().request("pushing", &()).await.unwrap();
    assert_eq!(answer, "pushing");
    assert_eq!(next(&mut pushed).await, "[0]");

    drop(stop);
    tokio::time::timeout(PATIENCE, serving)
        .await
        .expect("serve returns once its WebSockets are closed")
        .unwrap();
    // The server closed the connection, though the handler's task holds its client...
    tokio::time::timeout(PATIENCE, peer.closed())
        .await
        .expect("the connection is closed");
    // ...and that task's next push fails at once.
    assert_eq!(next_event(&mut events).await, "push failed: Closed");
}

/// A WebSocket server that completes the handshake, reads one message, then either
/// drops the connection or stays silent (never reading, so never answering pings).
async fn rude_server(silent: bool) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        let mut stream = tokio_tungstenite::accept_async(socket).await.unwrap();
        let _ = futures_util::StreamExt::next(&mut stream).await;
        if silent {
            // Holds the connection open without ever reading, until the test ends.
            std::future::pending::<()>().await;
        }
        drop(stream);
    });
    address
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_drops_the_connection_fails_the_call_promptly() {
    let address = rude_server(false).await;
    let peer = ws::connect(url(address), Peer::builder(), Settings::default())
        .await
        .unwrap();
    let outcome = peer.client().request::<(), _>("anything", &()).await;
    // Closed, not a timeout: the lost connection failed the call.
    assert!(matches!(outcome, Err(Error::Closed)), "{outcome:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_alive_closes_a_silent_peer_and_keeps_a_live_one() {
    let keep_alive = Duration::from_millis(50);
    let mut settings = Settings::default();
    settings.keep_alive = Some(keep_alive);

    let address = http_and_ws(ServerSide::default(), Peer::builder()).await;
    let live = ws::connect(url(address), Peer::builder(), settings.clone())
        .await
        .unwrap();
    // Wall-clock time is what is tested: an idle connection whose peer answers pings
    // outlives eight keep-alive periods (three silent ones would close it).
    tokio::time::sleep(keep_alive * 8).await;
    let sum: i64 = live.client().request("add", &[1, 1]).await.unwrap();
    assert_eq!(sum, 2, "pongs kept an idle connection open");

    let address = rude_server(true).await;
    let silent = ws::connect(url(address), Peer::builder(), settings)
        .await
        .unwrap();
    let outcome = silent.client().request::<(), _>("anything", &()).await;
    // Closed after three silent periods, long before the call's own timeout.
    assert!(matches!(outcome, Err(Error::Closed)), "{outcome:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutting_serve_down_closes_its_websocket_connections() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (server, mut events) = ServerSide::with_events();
    let service =
        http::Service::new(Server::new(server)).websocket(Peer::builder(), Settings::default());
    let serving = tokio::spawn(http::serve(listener, service, async {
        let _ = stopped.await;
    }));
    let peer = ws::connect(
        url(address),
        Peer::builder().timeout(PATIENCE),
        Settings::default(),
    )
    .await
    .unwrap();
    let sum: i64 = peer.client().request("add", &[1, 2]).await.unwrap();
    assert_eq!(sum, 3);
    let held = tokio::spawn(peer.client().request::<(), _>("hold", &()));
    assert_eq!(next_event(&mut events).await, "started");

    stop.send(()).unwrap();
    tokio::time::timeout(PATIENCE, serving)
        .await
        .expect("serve returns")
        .unwrap();
    assert_eq!(
        next_event(&mut events).await,
        "dropped",
        "the call in flight was abandoned"
    );
    tokio::time::timeout(PATIENCE, peer.closed())
        .await
        .expect("the server closed the WebSocket connection");
    let held = held.await.unwrap();
    assert!(matches!(held, Err(Error::Closed)), "{held:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upgraded_websocket_keeps_its_connection_slot_until_it_closes() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = http::Service::new(Server::new(ServerSide::default()))
        .websocket(Peer::builder(), Settings::default());
    tokio::spawn(
        http::Serve::new(listener, service)
            .max_connections(1)
            .run(std::future::pending()),
    );
    let peer = ws::connect(url(address), Peer::builder(), Settings::default())
        .await
        .unwrap();
    let sum: i64 = peer.client().request("add", &[1, 2]).await.unwrap();
    assert_eq!(sum, 3);

    // The WebSocket holds the only slot: an HTTP call is refused.
    let http_url = format!("http://{address}/");
    let refused = Client::builder()
        .timeout(PATIENCE)
        .build(http::Client::new(&http_url).unwrap());
    let refusal = refused.request::<i64, _>("add", &[2, 2]).await;
    assert!(
        matches!(&refusal, Err(Error::Undeclared(error)) if error.code == -32009),
        "{refusal:?}"
    );
    drop(refused);

    // Closing the WebSocket frees it (once the server has seen it close).
    drop(peer);
    let patient = Client::builder()
        .timeout(PATIENCE)
        .build(http::Client::new(&http_url).unwrap());
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let sum = loop {
        match patient.request::<i64, _>("add", &[3, 3]).await {
            Err(Error::Undeclared(error))
                if error.code == -32009 && tokio::time::Instant::now() < deadline =>
            {
                tokio::task::yield_now().await;
            }
            other => break other.unwrap(),
        }
    };
    assert_eq!(sum, 6);
}
