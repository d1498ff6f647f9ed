//! WebSocket over TLS (`wss://`, the `tls` feature) on 127.0.0.1 with a certificate made
//! for the test: the HTTP `Service` with WebSocket upgrades served by `Serve::tls`,
//! calls both ways and push over it, an untrusted certificate refused, a reconnecting
//! client that survives a server restart, and the server's deadlines and limits over
//! TLS.

mod peer_support;
mod tls_support;

use peer_support::{PATIENCE, ServerSide, client_side, eventually, next_event};
use rpcsmith::client::{Client, Error, TransportErrorKind};
use rpcsmith::http::{self, Serve};
use rpcsmith::server::Server;
use rpcsmith::transport::peer::{Hub, Peer};
use rpcsmith::transport::ws::{self, Reconnect, Reconnecting, Settings};
use rustls::pki_types::CertificateDer;
use std::time::Duration;
use tls_support::{certified, trusting};
use tokio::net::TcpListener;

/// Client settings trusting `cert` only.
fn trusting_only(cert: CertificateDer<'static>) -> Settings {
    Settings::default().tls_config(trusting(cert))
}

/// Serves HTTP and WebSocket over TLS on `listener` with `Serve::tls`, until the
/// returned sender is dropped; the join handle ends once `serve` has returned.
fn serve_tls(
    listener: TcpListener,
    tls: rustls::ServerConfig,
    hub: &Hub,
    limit: impl FnOnce(Serve<http::Service>) -> Serve<http::Service>,
) -> (
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<()>,
) {
    let service = http::Service::new(Server::new(ServerSide::default()))
        .websocket(Peer::builder().hub(hub), Settings::default());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serve = limit(Serve::new(listener, service).tls(tls));
    let serving = tokio::spawn(serve.run(async {
        let _ = stopped.await;
    }));
    (stop, serving)
}

async fn listener() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_and_push_over_wss_with_a_trusted_certificate() {
    let (tls, cert) = certified();
    let (listener, port) = listener().await;
    let hub = Hub::new();
    let _server = serve_tls(listener, tls, &hub, |serve| serve);

    let (handlers, mut pushed) = client_side();
    let peer = ws::connect(
        format!("wss://localhost:{port}/"),
        Peer::builder().serve(handlers),
        trusting_only(cert.clone()),
    )
    .await
    .unwrap();
    let client = peer.client();
    let sum: i64 = client.request("add", &[2, 2]).await.unwrap();
    assert_eq!(sum, 4);
    // The server calls the client back on the same connection.
    let asked: i64 = client.request("ask", &[5]).await.unwrap();
    assert_eq!(asked, 10);
    // Server push: from a handler, and from outside any call.
    let _: String = client.request("push", &["p"]).await.unwrap();
    assert_eq!(next_event(&mut pushed).await, r#"["p"]"#);
    assert_eq!(hub.notify_all("pushed", &["hub"]).unwrap().sent, 1);
    assert_eq!(next_event(&mut pushed).await, r#"["hub"]"#);

    // The same port answers JSON-RPC over HTTPS.
    let transport = http::Client::builder(format!("https://localhost:{port}/"))
        .tls_config(trusting(cert))
        .build()
        .unwrap();
    let sum: i64 = Client::new(transport)
        .request("add", &[1, 2])
        .await
        .unwrap();
    assert_eq!(sum, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_certificate_is_refused() {
    let (tls, _) = certified();
    let (_, other) = certified();
    let (listener, port) = listener().await;
    let _server = serve_tls(listener, tls, &Hub::new(), |serve| serve);
    let outcome = ws::connect(
        format!("wss://localhost:{port}/"),
        Peer::builder(),
        trusting_only(other),
    )
    .await;
    let error = outcome.expect_err("an untrusted server is refused");
    assert_eq!(error.kind(), TransportErrorKind::Connect, "{error}");
    assert_eq!(error.to_string(), "TLS handshake failed", "{error:?}");
    let cause = std::error::Error::source(&error).map(ToString::to_string);
    assert!(
        cause
            .as_deref()
            .is_some_and(|cause| cause.contains("certificate")),
        "{cause:?}"
    );
}

#[tokio::test]
async fn urls_other_than_ws_and_wss_are_refused_before_connecting() {
    for url in ["http://localhost:1/", "ftp://localhost:1/"] {
        let error = ws::connect(url, Peer::builder(), Settings::default())
            .await
            .expect_err(url);
        assert_eq!(error.kind(), TransportErrorKind::Config, "{url}: {error}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnecting_client_over_wss_survives_a_server_restart() {
    let (tls, cert) = certified();
    let (listener, port) = listener().await;
    let address = listener.local_addr().unwrap();
    let (stop, serving) = serve_tls(listener, tls.clone(), &Hub::new(), |serve| serve);
    // Real delays between attempts, short: each wait below is for an answer.
    let policy = Reconnect::Fixed(Duration::from_millis(20));
    let client = Reconnecting::connect(
        format!("wss://localhost:{port}/"),
        Peer::builder().timeout(PATIENCE),
        trusting_only(cert),
        policy,
    )
    .unwrap();
    let sum: i64 = client.request("add", &[2, 3]).await.unwrap();
    assert_eq!(sum, 5);

    // Shutting the server down closes its WebSocket connections.
    let hung = tokio::spawn(client.request::<(), _>("hang", &()));
    assert!(eventually(|| client.pending() == 1).await);
    drop(stop);
    serving.await.unwrap();
    let lost = hung.await.unwrap();
    assert!(matches!(lost, Err(Error::Closed)), "{lost:?}");
    assert!(!client.is_closed(), "the client itself lives on");

    let waiting = tokio::spawn(client.request::<i64, _>("add", &[20, 3]));
    let listener = TcpListener::bind(address).await.unwrap();
    let _restarted = serve_tls(listener, tls, &Hub::new(), |serve| serve);
    assert_eq!(
        waiting.await.unwrap().unwrap(),
        23,
        "served after reconnecting"
    );
}

/// Reads `stream` until the server closes it (or resets it); false when it has not
/// within [`PATIENCE`].
async fn closed_by_server(mut stream: tokio::net::TcpStream) -> bool {
    use tokio::io::AsyncReadExt;
    let mut buffer = [0_u8; 1024];
    let closing = async {
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(PATIENCE, closing).await.is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_never_makes_the_tls_handshake_is_closed_after_the_header_timeout() {
    let (tls, _) = certified();
    let (listener, port) = listener().await;
    let _server = serve_tls(listener, tls, &Hub::new(), |serve| {
        serve.header_timeout(Some(Duration::from_millis(100)))
    });
    // The real header timeout is what is tested: the server closes the silent peer.
    let silent = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    assert!(closed_by_server(silent).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tls_connection_past_the_limit_is_closed_at_once() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (tls, cert) = certified();
    let (listener, port) = listener().await;
    let _server = serve_tls(listener, tls, &Hub::new(), |serve| serve.max_connections(1));
    let peer = ws::connect(
        format!("wss://localhost:{port}/"),
        Peer::builder(),
        trusting_only(cert),
    )
    .await
    .unwrap();
    let sum: i64 = peer.client().request("add", &[1, 1]).await.unwrap();
    assert_eq!(sum, 2);
    // The upgraded connection holds the one slot: the next connection is closed without
    // a handshake, and without the plain-text `503` a plain HTTP server sends.
    let mut next = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let _ = next
        .write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await;
    let mut buffer = [0_u8; 64];
    let first = tokio::time::timeout(PATIENCE, next.read(&mut buffer))
        .await
        .unwrap();
    assert!(matches!(first, Ok(0) | Err(_)), "{first:?}");
    assert!(!peer.is_closed());
}
