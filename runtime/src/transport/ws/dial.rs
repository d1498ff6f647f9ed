//! The client side of opening a WebSocket: where the URL points, TCP, TLS for `wss://`
//! (the `tls` feature), then the handshake.

use super::Buffered;
use super::{Settings, buffered};
use crate::client::{TransportError, TransportErrorKind};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::handshake::client::Request;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

/// Where a request's URL points, checked once: a host and port, and for `wss://` what
/// TLS needs.
#[derive(Clone)]
pub(super) struct Target {
    host: String,
    port: u16,
    tls: Option<Secure>,
}

/// The TLS connector and the name the server's certificate must carry.
#[cfg(feature = "tls")]
type Secure = (
    tokio_rustls::TlsConnector,
    rustls::pki_types::ServerName<'static>,
);
/// Without the `tls` feature there is no `wss://`.
#[cfg(not(feature = "tls"))]
type Secure = std::convert::Infallible;

impl Target {
    /// The target of `request`, with `settings`' TLS configuration for `wss://`.
    pub(super) fn new(request: &Request, settings: &Settings) -> Result<Self, TransportError> {
        let uri = request.uri();
        let invalid = |reason: &str| {
            TransportError::new(
                TransportErrorKind::Config,
                format!("invalid WebSocket URL {uri}: {reason}"),
            )
        };
        let secure = match uri.scheme_str() {
            Some("ws") => false,
            Some("wss") => true,
            _ => return Err(invalid("only ws:// and wss:// are supported")),
        };
        let host = uri.host().filter(|host| !host.is_empty());
        let host = host.ok_or_else(|| invalid("no host"))?;
        Ok(Self {
            host: host.to_owned(),
            port: uri.port_u16().unwrap_or(if secure { 443 } else { 80 }),
            tls: if secure {
                Some(secure_target(host, settings)?)
            } else {
                None
            },
        })
    }
}

/// What TLS needs to reach `host`: the settings' configuration, or the default one (the
/// system's roots) speaking HTTP/1.1, and the server's name.
#[cfg(feature = "tls")]
fn secure_target(host: &str, settings: &Settings) -> Result<Secure, TransportError> {
    // An IPv6 address comes in brackets in a URL, and bare in a certificate.
    let name = host.trim_start_matches('[').trim_end_matches(']');
    let name = rustls::pki_types::ServerName::try_from(name.to_owned()).map_err(|e| {
        TransportError::with_source(
            TransportErrorKind::Config,
            format!("invalid TLS server name {host:?}"),
            e,
        )
    })?;
    let config = match &settings.tls {
        Some(config) => std::sync::Arc::clone(config),
        None => {
            let config = crate::transport::tls::default_client_config()?;
            std::sync::Arc::new(http1_only(config))
        }
    };
    Ok((tokio_rustls::TlsConnector::from(config), name))
}

#[cfg(not(feature = "tls"))]
fn secure_target(_: &str, _: &Settings) -> Result<Secure, TransportError> {
    Err(TransportError::new(
        TransportErrorKind::Config,
        "wss:// needs rpcsmith's `tls` feature",
    ))
}

/// `config` offering only HTTP/1.1 by ALPN: the WebSocket handshake is an HTTP/1.1
/// request, so a server must not pick HTTP/2.
#[cfg(feature = "tls")]
pub(super) fn http1_only(mut config: rustls::ClientConfig) -> rustls::ClientConfig {
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    config
}

/// Opens a WebSocket to `target` for `request`: TCP without Nagle's delay, TLS for
/// `wss://`, read through a buffer of [`Settings::read_buffer`] bytes.
pub(super) async fn open(
    target: &Target,
    request: Request,
    config: WebSocketConfig,
    settings: &Settings,
) -> Result<WebSocketStream<Buffered<Stream>>, TransportError> {
    let failed = |e| {
        TransportError::with_source(
            TransportErrorKind::Connect,
            "WebSocket connection failed",
            e,
        )
    };
    let socket = TcpStream::connect((target.host.as_str(), target.port))
        .await
        .map_err(failed)?;
    socket.set_nodelay(true).map_err(failed)?;
    let stream = match &target.tls {
        None => Stream::Plain(socket),
        Some(secure) => secure_stream(secure, socket).await?,
    };
    let stream = buffered(settings, stream, &config, false);
    let (mut stream, _) =
        tokio_tungstenite::client_async_with_config(request, stream, Some(config))
            .await
            .map_err(|e| {
                TransportError::with_source(
                    TransportErrorKind::Connect,
                    "WebSocket handshake failed",
                    e,
                )
            })?;
    stream.get_mut().get_mut().handshake_read();
    Ok(stream)
}

/// The TLS handshake on `socket`.
#[cfg(feature = "tls")]
async fn secure_stream(secure: &Secure, socket: TcpStream) -> Result<Stream, TransportError> {
    let (connector, name) = secure;
    match connector.connect(name.clone(), socket).await {
        Ok(stream) => Ok(Stream::Tls(Box::new(stream))),
        Err(e) => Err(TransportError::with_source(
            TransportErrorKind::Connect,
            "TLS handshake failed",
            e,
        )),
    }
}

#[cfg(not(feature = "tls"))]
async fn secure_stream(secure: &Secure, _: TcpStream) -> Result<Stream, TransportError> {
    match *secure {}
}

/// A client connection: TCP, or TLS over TCP.
pub(super) enum Stream {
    Plain(TcpStream),
    #[cfg(feature = "tls")]
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

/// Forwards a call to whichever stream this is.
macro_rules! each {
    ($stream:expr, $inner:ident => $call:expr) => {
        match $stream.get_mut() {
            Stream::Plain($inner) => $call,
            #[cfg(feature = "tls")]
            Stream::Tls($inner) => $call,
        }
    };
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        each!(self, s => Pin::new(s).poll_read(cx, buf))
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        each!(self, s => Pin::new(s).poll_write(cx, buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        each!(self, s => Pin::new(s).poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Self::Plain(s) => s.is_write_vectored(),
            #[cfg(feature = "tls")]
            Self::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        each!(self, s => Pin::new(s).poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        each!(self, s => Pin::new(s).poll_shutdown(cx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;

    /// Settings that need no system roots: a configuration trusting nothing.
    fn settings() -> Settings {
        #[cfg(feature = "tls")]
        let settings = {
            let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
            let config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .unwrap()
                .with_root_certificates(rustls::RootCertStore::empty())
                .with_no_client_auth();
            Settings::default().tls_config(config)
        };
        #[cfg(not(feature = "tls"))]
        let settings = Settings::default();
        settings
    }

    fn target(url: &str) -> Result<Target, TransportError> {
        Target::new(&url.into_client_request().unwrap(), &settings())
    }

    #[test]
    fn urls_are_checked_before_connecting() {
        let plain = target("ws://localhost/").unwrap();
        assert_eq!(
            (plain.host.as_str(), plain.port, plain.tls.is_none()),
            ("localhost", 80, true)
        );
        let error = target("http://localhost:1/").err().unwrap();
        assert_eq!(error.kind(), TransportErrorKind::Config);
        assert!(
            error.to_string().contains("only ws:// and wss://"),
            "{error}"
        );
        for url in ["wss://localhost/", "wss://[::1]:8443/", "wss://127.0.0.1/"] {
            let secure = target(url);
            if cfg!(feature = "tls") {
                let secure = secure.unwrap();
                assert!(secure.tls.is_some(), "{url}");
                assert_eq!(secure.port == 443, !url.contains(":8443"), "{url}");
            } else {
                let error = secure.err().unwrap();
                assert_eq!(error.kind(), TransportErrorKind::Config, "{url}");
                assert_eq!(error.to_string(), "wss:// needs rpcsmith's `tls` feature");
            }
        }
    }

    #[cfg(feature = "tls")]
    #[test]
    fn a_given_tls_configuration_offers_only_http1() {
        let settings = settings();
        let config = settings.tls.as_ref().unwrap();
        assert_eq!(config.alpn_protocols, vec![b"http/1.1".to_vec()]);
    }
}
