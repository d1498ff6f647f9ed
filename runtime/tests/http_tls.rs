//! The HTTP client over TLS (the `tls` feature): a self-signed certificate made for the
//! test, served on 127.0.0.1 by tokio-rustls in front of the HTTP `Service`.

mod client_support;
mod tls_support;

use client_support::Methods;
use rpcsmith::client::{Client, Error, TransportErrorKind};
use rpcsmith::http;
use rpcsmith::server::Server;
use rustls::pki_types::CertificateDer;
use std::sync::Arc;
use tls_support::{certified, trusting};

/// A TLS server of [`Methods`] for `localhost`, and its certificate.
async fn tls_server() -> (u16, CertificateDer<'static>) {
    let (mut config, cert) = certified();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let service = http::Service::new(Server::new(Methods));
    tokio::spawn(async move {
        // Bounded: the tests below open at most a handful of connections.
        for _ in 0..16 {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let (acceptor, service) = (acceptor.clone(), service.clone());
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let hyper_service = hyper::service::service_fn(move |request| {
                    tower::ServiceExt::oneshot(service.clone(), request)
                });
                let builder = hyper_util::server::conn::auto::Builder::new(
                    hyper_util::rt::TokioExecutor::new(),
                );
                let _ = builder
                    .serve_connection(hyper_util::rt::TokioIo::new(tls), hyper_service)
                    .await;
            });
        }
    });
    (port, cert)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_over_https_with_a_trusted_certificate() {
    let (port, cert) = tls_server().await;
    let url = format!("https://localhost:{port}/");
    for http2_only in [false, true] {
        let transport = http::Client::builder(&url)
            .tls_config(trusting(cert.clone()))
            .http2_only(http2_only)
            .build()
            .unwrap();
        let client = Client::new(transport);
        let difference: i64 = client.request("subtract", &[42, 23]).await.unwrap();
        assert_eq!(difference, 19, "http2_only: {http2_only}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_certificate_is_refused() {
    let (port, _) = tls_server().await;
    let (_, other) = tls_server().await;
    let transport = http::Client::builder(format!("https://localhost:{port}/"))
        .tls_config(trusting(other))
        .build()
        .unwrap();
    let outcome = Client::new(transport)
        .request::<i64, _>("subtract", &[1, 1])
        .await;
    assert!(
        matches!(&outcome, Err(Error::Transport(e)) if e.kind() != TransportErrorKind::Config),
        "{outcome:?}"
    );
}
