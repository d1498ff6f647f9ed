//! Configuring an HTTP [`Client`]: its headers, timeouts, connections, event streams and
//! TLS; the URL checked and every request's headers prepared once, when it is built.

use super::pool::{self, Pool};
use super::streaming::{ClientStreaming, Streams};
use super::{Client, DEFAULT_CLIENT_CONNECTIONS, DEFAULT_MAX_RESPONSE_SIZE, Shared};
use crate::client::{TransportError, TransportErrorKind};
use ::http::Uri;
use ::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use ::http::uri::PathAndQuery;
use hyper_util::client::legacy::connect::HttpConnector;
use std::sync::Arc;
use std::time::Duration;

/// Configures an HTTP [`Client`]; made by [`Client::builder`].
#[derive(Debug)]
pub struct ClientBuilder {
    url: String,
    headers: HeaderMap,
    connect_timeout: Option<Duration>,
    idle_timeout: Duration,
    http2_only: bool,
    max_connections: usize,
    max_response_size: usize,
    streaming: Option<ClientStreaming>,
    error: Option<TransportError>,
    #[cfg(feature = "tls")]
    tls: Option<rustls::ClientConfig>,
    #[cfg(feature = "oauth")]
    oauth: Option<super::oauth::OAuth>,
}

impl Client {
    /// Starts configuring a client for `url`.
    pub fn builder(url: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            url: url.into(),
            headers: HeaderMap::new(),
            connect_timeout: Some(Duration::from_secs(10)),
            idle_timeout: Duration::from_secs(90),
            http2_only: false,
            max_connections: DEFAULT_CLIENT_CONNECTIONS,
            max_response_size: DEFAULT_MAX_RESPONSE_SIZE,
            streaming: None,
            error: None,
            #[cfg(feature = "tls")]
            tls: None,
            #[cfg(feature = "oauth")]
            oauth: None,
        }
    }
}

impl ClientBuilder {
    /// Adds a header sent with every request (authentication, for instance). Adding a
    /// name again adds a value: every value is sent, in the order given. A
    /// `Content-Type` or `Accept` given here replaces the client's default
    /// (`application/json`).
    ///
    /// An invalid name or value makes [`build`](Self::build) fail.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        match (HeaderName::try_from(name), HeaderValue::try_from(value)) {
            (Ok(name), Ok(value)) => {
                self.headers.append(name, value);
            }
            _ => {
                self.error.get_or_insert_with(|| {
                    TransportError::new(
                        TransportErrorKind::Config,
                        format!("invalid HTTP header {name:?}"),
                    )
                });
            }
        }
        self
    }

    /// Adds every value of every header in `headers` to every request, after those
    /// already given, as [`header`](Self::header) does.
    pub fn headers(mut self, headers: HeaderMap) -> Self {
        let mut name = None;
        for (next, value) in headers {
            // Each name is yielded once, then `None` for its further values.
            name = next.or(name);
            if let Some(name) = &name {
                self.headers.append(name, value);
            }
        }
        self
    }

    /// How long connecting may take; `None` waits as long as the call's own timeout.
    /// The default is 10 seconds.
    pub fn connect_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How long an idle kept-alive connection stays in the pool. The default is 90 seconds.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// Speaks HTTP/2 with prior knowledge instead of HTTP/1.1. Off by default.
    pub fn http2_only(mut self, enabled: bool) -> Self {
        self.http2_only = enabled;
        self
    }

    /// How many HTTP/1.1 connections are open at once, at least one: as many exchanges
    /// are in progress at once, and further calls wait for one of them to end (within
    /// their own timeout). HTTP/2 multiplexes every exchange on one connection, which
    /// this does not limit. The default is [`DEFAULT_CLIENT_CONNECTIONS`].
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// The largest response body read; a larger one fails the exchange. The default
    /// is [`DEFAULT_MAX_RESPONSE_SIZE`].
    pub fn max_response_size(mut self, bytes: usize) -> Self {
        self.max_response_size = bytes;
        self
    }

    /// Takes answers that are event streams (Server-Sent Events), as MCP's Streamable
    /// HTTP sends them, and keeps the server's session, as `streaming` says: requests
    /// accept `application/json, text/event-stream`; an event stream's messages are
    /// handed over as they come (responses to their calls, subscription items to
    /// their subscriptions, the server's notifications and requests to the
    /// [listener](ClientStreaming::serve), whose answers are posted back); the session
    /// id an answer carries is sent with every later request (and forgotten on a
    /// `404`); a stream that drops before its response is resumed with
    /// `Last-Event-ID`. Each event is bounded by
    /// [`max_response_size`](Self::max_response_size), and is handed over before the
    /// next is read: nothing accumulates.
    pub fn streaming(mut self, streaming: ClientStreaming) -> Self {
        self.streaming = Some(streaming);
        self
    }

    /// The TLS configuration for `https://` URLs (its root certificates, client
    /// certificates, ALPN protocols are replaced by `h2` and `http/1.1`). By default the
    /// system's root certificates are trusted.
    #[cfg(feature = "tls")]
    pub fn tls_config(mut self, config: rustls::ClientConfig) -> Self {
        self.tls = Some(config);
        self
    }

    /// Authorizes with OAuth as MCP's authorization has a client do it (see
    /// [`oauth`](super::oauth)): a request answered `401` (or `403` with
    /// `error="insufficient_scope"`) is authorized, then sent again with its token.
    #[cfg(feature = "oauth")]
    pub fn oauth(mut self, oauth: super::oauth::OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Builds the client. It connects lazily, on the first call.
    ///
    /// # Errors
    ///
    /// A [`Config`](TransportErrorKind::Config) error when the URL is not a valid `http://` URL
    /// or a header given to [`header`](Self::header) was invalid.
    pub fn build(self) -> Result<Client, TransportError> {
        if let Some(error) = self.error {
            return Err(error);
        }
        let uri = parse_uri(&self.url)?;
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(self.connect_timeout);
        connector.set_nodelay(true);
        connector.set_keepalive(Some(self.idle_timeout));
        #[cfg(feature = "tls")]
        let connector = tls_connector(connector, self.tls)?;
        #[cfg(feature = "oauth")]
        let oauth = match self.oauth {
            Some(settings) => {
                let fetcher = super::oauth::Fetcher::new(connector.clone());
                Some(super::oauth::State::new(settings, fetcher, &self.url)?)
            }
            None => None,
        };
        let pool = Pool::new(pool::PoolSettings {
            connector,
            target: uri.clone(),
            http2_only: self.http2_only,
            max_connections: self.max_connections,
            idle_timeout: self.idle_timeout,
        });
        let origin_form = Uri::from(
            uri.path_and_query()
                .cloned()
                .unwrap_or_else(|| PathAndQuery::from_static("/")),
        );
        let mut headers = request_headers(self.headers, &uri);
        if self.streaming.is_some() && headers.get(header::ACCEPT) == Some(&json()) {
            headers.insert(
                header::ACCEPT,
                HeaderValue::from_static("application/json, text/event-stream"),
            );
        }
        Ok(Client {
            shared: Arc::new(Shared {
                headers,
                pool,
                uri,
                origin_form,
                max_response_size: self.max_response_size,
                streams: self
                    .streaming
                    .map(|settings| Arc::new(Streams::new(settings))),
                stop: tokio::sync::watch::Sender::new(()),
                #[cfg(feature = "oauth")]
                oauth,
            }),
        })
    }
}

/// Every request's headers: every value of every header the builder was given, in
/// order, then `Host` and the JSON defaults where it gave none.
fn request_headers(mut headers: HeaderMap, uri: &Uri) -> HeaderMap {
    if let Some(host) = host(uri) {
        headers.entry(header::HOST).or_insert(host);
    }
    headers.entry(header::CONTENT_TYPE).or_insert_with(json);
    headers.entry(header::ACCEPT).or_insert_with(json);
    headers
}

/// The `Host` header for `uri`: its host, and its port unless the scheme's default.
fn host(uri: &Uri) -> Option<HeaderValue> {
    let host = uri.host()?;
    let default_port = match uri.scheme_str() {
        Some("https") => 443,
        _ => 80,
    };
    let value = match uri.port_u16() {
        Some(port) if port != default_port => format!("{host}:{port}"),
        _ => host.to_owned(),
    };
    HeaderValue::try_from(value).ok()
}

/// Wraps `http` in TLS for `https://` URLs, with `config` or the system's roots.
#[cfg(feature = "tls")]
fn tls_connector(
    mut http: HttpConnector,
    config: Option<rustls::ClientConfig>,
) -> Result<pool::Connector, TransportError> {
    http.enforce_http(false);
    let builder = hyper_rustls::HttpsConnectorBuilder::new();
    let config = match config {
        Some(config) => config,
        None => crate::transport::tls::default_client_config()?,
    };
    let builder = builder.with_tls_config(config);
    Ok(builder
        .https_or_http()
        .enable_http1()
        .enable_http2()
        .wrap_connector(http))
}

fn parse_uri(url: &str) -> Result<Uri, TransportError> {
    let invalid = |reason: &str| {
        TransportError::new(
            TransportErrorKind::Config,
            format!("invalid URL {url:?}: {reason}"),
        )
    };
    let uri: Uri = url.parse().map_err(|_| invalid("not a URL"))?;
    match uri.scheme_str() {
        Some("http") => {}
        #[cfg(feature = "tls")]
        Some("https") => {}
        #[cfg(not(feature = "tls"))]
        Some(_) => {
            return Err(invalid(
                "only http:// is supported (https:// needs the tls feature)",
            ));
        }
        #[cfg(feature = "tls")]
        Some(_) => return Err(invalid("only http:// and https:// are supported")),
        None => return Err(invalid("no scheme")),
    }
    if uri.host().is_none() {
        return Err(invalid("no host"));
    }
    Ok(uri)
}

fn json() -> HeaderValue {
    HeaderValue::from_static("application/json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked() {
        assert!(parse_uri("http://127.0.0.1:1/rpc").is_ok());
        // https:// needs the tls feature.
        assert_eq!(
            parse_uri("https://example.com").is_ok(),
            cfg!(feature = "tls")
        );
        for bad in ["ftp://example.com", "127.0.0.1:80", "not a url", "http://"] {
            let error = parse_uri(bad).expect_err(bad);
            assert_eq!(error.kind(), TransportErrorKind::Config, "{bad}");
        }
    }

    #[test]
    fn invalid_headers_fail_the_build() {
        let error = Client::builder("http://127.0.0.1:1")
            .header("bad header", "x")
            .build()
            .expect_err("invalid header name");
        assert_eq!(error.kind(), TransportErrorKind::Config);
    }
}
