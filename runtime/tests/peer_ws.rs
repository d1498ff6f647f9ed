//! The symmetric connection over WebSocket on 127.0.0.1: on the same port as HTTP,
//! calls both ways, push, cancellation, size limits, keep-alive, a server that goes
//! away, and reconnection.

mod peer_support;

use peer_support::{PATIENCE, ServerSide, client_side, eventually};
use rpcsmith::client::{Client, Error};
use rpcsmith::server::Server;
use rpcsmith::transport::http;
use rpcsmith::transport::peer::{Builder, Hub, Peer};
use rpcsmith::transport::ws::{self, Reconnect, Reconnecting, Settings};
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

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
        &Settings::default(),
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
    assert_eq!(hub.notify_all("pushed", &["hub"]).await, 1);
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
    let server = ServerSide::default();
    let aborted = server.aborted.clone();
    let address = http_and_ws(server, Peer::builder().cancel(true)).await;
    let builder = Peer::builder().cancel(true);
    let peer = ws::connect(url(address), builder, &Settings::default())
        .await
        .unwrap();
    let quick = peer.client().with_timeout(Duration::from_millis(100));
    assert!(matches!(
        quick.request::<(), _>("hang", &()).await,
        Err(Error::Timeout)
    ));
    assert!(eventually(|| aborted.load(Ordering::SeqCst) == 1).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_over_the_limit_closes_the_connection() {
    let address = http_and_ws(
        ServerSide::default(),
        Peer::builder().max_message_size(1024),
    )
    .await;
    let peer = ws::connect(url(address), Peer::builder(), &Settings::default())
        .await
        .unwrap();
    let big = "x".repeat(4096);
    let started = Instant::now();
    let outcome = peer
        .client()
        .request::<Vec<String>, _>("echo", &[&big])
        .await;
    assert!(matches!(outcome, Err(Error::Closed)), "{outcome:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
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
            tokio::time::sleep(PATIENCE * 2).await;
        }
        drop(stream);
    });
    address
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_drops_the_connection_fails_the_call_promptly() {
    let address = rude_server(false).await;
    let peer = ws::connect(url(address), Peer::builder(), &Settings::default())
        .await
        .unwrap();
    let started = Instant::now();
    let outcome = peer.client().request::<(), _>("anything", &()).await;
    assert!(matches!(outcome, Err(Error::Closed)), "{outcome:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_alive_closes_a_silent_peer_and_keeps_a_live_one() {
    let mut settings = Settings::default();
    settings.keep_alive = Some(Duration::from_millis(50));

    let address = http_and_ws(ServerSide::default(), Peer::builder()).await;
    let live = ws::connect(url(address), Peer::builder(), &settings)
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    let sum: i64 = live.client().request("add", &[1, 1]).await.unwrap();
    assert_eq!(sum, 2, "pongs kept an idle connection open");

    let address = rude_server(true).await;
    let silent = ws::connect(url(address), Peer::builder(), &settings)
        .await
        .unwrap();
    let started = Instant::now();
    let outcome = silent.client().request::<(), _>("anything", &()).await;
    assert!(matches!(outcome, Err(Error::Closed)), "{outcome:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "closed after three silent periods"
    );
}

/// A WebSocket server on `address` whose connections end when the returned sender is
/// dropped.
async fn droppable_server(address: SocketAddr) -> tokio::sync::oneshot::Sender<()> {
    let listener = tokio::net::TcpListener::bind(address).await.unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        let mut peers = Vec::new();
        let accept = async {
            loop {
                let (socket, _) = listener.accept().await.unwrap();
                let stream = tokio_tungstenite::accept_async(socket).await.unwrap();
                let builder = Peer::builder().serve(Server::new(ServerSide::default()));
                peers.push(builder.websocket(stream, &Settings::default()));
            }
        };
        tokio::select! { _ = stopped => {}, () = accept => {} }
    });
    stop
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnecting_client_survives_a_server_restart() {
    let address = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap();
    let policy = Reconnect::Fixed(Duration::from_millis(20));
    let builder = Peer::builder().timeout(PATIENCE);
    let client = Reconnecting::connect(url(address), builder, Settings::default(), policy).unwrap();
    // The server is not up yet: the call waits for the first connection.
    let early = tokio::spawn({
        let client = client.clone();
        async move { client.request::<i64, _>("add", &[1, 1]).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let stop = droppable_server(address).await;
    assert_eq!(early.await.unwrap().unwrap(), 2);

    let hung = tokio::spawn({
        let client = client.clone();
        async move { client.request::<(), _>("hang", &()).await }
    });
    assert!(eventually(|| client.pending() == 1).await);
    drop(stop);
    assert!(
        matches!(hung.await.unwrap(), Err(Error::Closed)),
        "a lost call fails"
    );
    assert!(!client.is_closed(), "the client itself lives on");

    let _restarted = droppable_server(address).await;
    let sum: i64 = client.request("add", &[2, 3]).await.unwrap();
    assert_eq!(sum, 5, "calls go on after reconnecting");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_reconnection_a_lost_connection_closes_the_client() {
    let address = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap();
    let stop = droppable_server(address).await;
    let client = Reconnecting::connect(
        url(address),
        Peer::builder(),
        Settings::default(),
        Reconnect::Never,
    )
    .unwrap();
    let sum: i64 = client.request("add", &[2, 3]).await.unwrap();
    assert_eq!(sum, 5);
    drop(stop);
    assert!(eventually(|| client.is_closed()).await);
    assert!(matches!(
        client.request::<i64, _>("add", &[1, 1]).await,
        Err(Error::Closed)
    ));
}
