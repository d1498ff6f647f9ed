//! WebSocket over TLS (`wss://`, the `tls` feature) on 127.0.0.1 with a certificate made
//! for the test: the HTTP `Service` with WebSocket upgrades served behind tokio-rustls
//! (as the README shows), calls both ways and push over it, an untrusted certificate
//! refused, and a reconnecting client that survives a server restart.

mod peer_support;

use peer_support::{PATIENCE, ServerSide, client_side, eventually};
use rpcsmith::client::{Client, Error, TransportErrorKind};
use rpcsmith::server::Server;
use rpcsmith::transport::http;
use rpcsmith::transport::peer::{Hub, Peer};
use rpcsmith::transport::ws::{self, Reconnect, Reconnecting, Settings};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A TLS acceptor for `localhost` with a fresh self-signed certificate, and that
/// certificate.
fn acceptor() -> (TlsAcceptor, CertificateDer<'static>) {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let cert = certified.cert.der().clone();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
        certified.signing_key.serialize_der(),
    ));
    let mut config = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert.clone()], key)
        .unwrap();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    (TlsAcceptor::from(Arc::new(config)), cert)
}

/// Client settings trusting `cert` only.
fn trusting(cert: CertificateDer<'static>) -> Settings {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert).unwrap();
    let config = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    Settings::default().tls_config(config)
}

/// Serves HTTP and WebSocket over TLS on `listener` as the README shows: tokio-rustls
/// accepts, hyper serves the `Service` with upgrades. Bounded: the tests open a
/// handful of connections.
fn serve_tls(listener: TcpListener, acceptor: TlsAcceptor, hub: &Hub) {
    let service = http::Service::new(Server::new(ServerSide::default()))
        .websocket(Peer::builder().hub(hub), Settings::default());
    tokio::spawn(async move {
        for _ in 0..16 {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let (acceptor, service) = (acceptor.clone(), service.clone());
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let service = hyper::service::service_fn(move |request| {
                    tower::ServiceExt::oneshot(service.clone(), request)
                });
                let _ = hyper_util::server::conn::auto::Builder::new(
                    hyper_util::rt::TokioExecutor::new(),
                )
                .serve_connection_with_upgrades(hyper_util::rt::TokioIo::new(tls), service)
                .await;
            });
        }
    });
}

async fn listener() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_and_push_over_wss_with_a_trusted_certificate() {
    let (acceptor, cert) = acceptor();
    let (listener, port) = listener().await;
    let hub = Hub::new();
    serve_tls(listener, acceptor, &hub);

    let (handlers, mut pushed) = client_side();
    let peer = ws::connect(
        format!("wss://localhost:{port}/"),
        Peer::builder().serve(handlers),
        trusting(cert.clone()),
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
    assert_eq!(next(&mut pushed).await, r#"["p"]"#);
    assert_eq!(hub.notify_all("pushed", &["hub"]).unwrap().sent, 1);
    assert_eq!(next(&mut pushed).await, r#"["hub"]"#);

    // The same port answers JSON-RPC over HTTPS.
    let transport = http::Client::builder(format!("https://localhost:{port}/"))
        .tls_config(trusting_config(cert))
        .build()
        .unwrap();
    let sum: i64 = Client::new(transport)
        .request("add", &[1, 2])
        .await
        .unwrap();
    assert_eq!(sum, 3);
}

fn trusting_config(cert: CertificateDer<'static>) -> rustls::ClientConfig {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert).unwrap();
    rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth()
}

async fn next(pushed: &mut tokio::sync::mpsc::UnboundedReceiver<String>) -> String {
    tokio::time::timeout(PATIENCE, pushed.recv())
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_certificate_is_refused() {
    let (acceptor, _) = acceptor();
    let (_, other) = self::acceptor();
    let (listener, port) = listener().await;
    serve_tls(listener, acceptor, &Hub::new());
    let outcome = ws::connect(
        format!("wss://localhost:{port}/"),
        Peer::builder(),
        trusting(other),
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

/// A WebSocket server over TLS on `address` whose connections all end when the returned
/// sender is dropped: the lower-level way to serve, a WebSocket accepted on the TLS
/// stream and handed to a peer.
async fn droppable_tls_server(
    address: SocketAddr,
    acceptor: TlsAcceptor,
) -> tokio::sync::oneshot::Sender<()> {
    let listener = TcpListener::bind(address).await.unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        let mut peers = Vec::new();
        let accept = async {
            loop {
                let (socket, _) = listener.accept().await.unwrap();
                let Ok(tls) = acceptor.accept(socket).await else {
                    continue;
                };
                let stream = tokio_tungstenite::accept_async(tls).await.unwrap();
                let builder = Peer::builder().serve(Server::new(ServerSide::default()));
                peers.push(builder.websocket(stream, Settings::default()));
            }
        };
        tokio::select! { _ = stopped => {}, () = accept => {} }
    });
    stop
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnecting_client_over_wss_survives_a_server_restart() {
    let (acceptor, cert) = acceptor();
    let (listener, port) = listener().await;
    let address = listener.local_addr().unwrap();
    drop(listener);
    let stop = droppable_tls_server(address, acceptor.clone()).await;
    // Real delays between attempts, short: each wait below is for an answer.
    let policy = Reconnect::Fixed(Duration::from_millis(20));
    let client = Reconnecting::connect(
        format!("wss://localhost:{port}/"),
        Peer::builder().timeout(PATIENCE),
        trusting(cert),
        policy,
    )
    .unwrap();
    let sum: i64 = client.request("add", &[2, 3]).await.unwrap();
    assert_eq!(sum, 5);

    let hung = tokio::spawn(client.request::<(), _>("hang", &()));
    assert!(eventually(|| client.pending() == 1).await);
    drop(stop);
    let lost = hung.await.unwrap();
    assert!(matches!(lost, Err(Error::Closed)), "{lost:?}");
    assert!(!client.is_closed(), "the client itself lives on");

    let waiting = tokio::spawn(client.request::<i64, _>("add", &[20, 3]));
    let _restarted = droppable_tls_server(address, acceptor).await;
    assert_eq!(
        waiting.await.unwrap().unwrap(),
        23,
        "served after reconnecting"
    );
}
