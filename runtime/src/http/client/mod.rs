//! The HTTP client transport: one POST per message, on kept-alive connections.

mod ending;
mod pool;
mod reader;
mod streaming;

pub use streaming::ClientStreaming;

use super::body::{self, ReadError};
use super::media::is_json;
use crate::client::{Delivery, Inbox, SendFuture, Transport, TransportError, TransportErrorKind};
use ::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use ::http::uri::PathAndQuery;
use ::http::{Method, Request, StatusCode, Uri};
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::connect::HttpConnector;
use pool::Pool;
use reader::{Exchanges, Opened};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use streaming::Streams;

/// The largest answer the client reads unless told otherwise: 10 MiB.
pub const DEFAULT_MAX_RESPONSE_SIZE: usize = 10 * 1024 * 1024;

/// How many HTTP/1.1 connections a [`Client`] opens at most unless told otherwise; see
/// [`ClientBuilder::max_connections`].
pub const DEFAULT_CLIENT_CONNECTIONS: usize = 64;

/// A JSON-RPC client transport over HTTP/1.1 (or HTTP/2 with prior knowledge), and over
/// HTTPS with the `tls` feature (HTTP/2 then negotiated by ALPN).
///
/// Each message is one `POST` to the URL; the response body is the answer. One
/// `Client` serves any number of concurrent calls. Cheap to clone: clones share the
/// connections.
///
/// Over HTTP/1.1 each exchange takes a connection of its own, kept alive afterwards and
/// reused by the next exchange: a connection goes back to the client as soon as its
/// answer has been read, so sequential calls share one connection, and concurrent calls
/// open at most [`max_connections`](ClientBuilder::max_connections) (calls beyond that
/// wait for a connection to be free, within their timeout). A connection idle for
/// [`idle_timeout`](ClientBuilder::idle_timeout) is closed. Over HTTP/2 every exchange
/// shares one connection.
///
/// ```
/// use rpcsmith::http;
///
/// let transport = http::Client::builder("http://127.0.0.1:8545")
///     .header("authorization", "Bearer secret")
///     .build()?;
/// let client = rpcsmith::client::Client::new(transport);
/// # drop(client);
/// # Ok::<(), rpcsmith::client::TransportError>(())
/// ```
#[derive(Clone)]
pub struct Client {
    shared: Arc<Shared>,
}

/// What every exchange of a client uses, prepared once.
pub(super) struct Shared {
    pool: Pool,
    uri: Uri,
    /// The request target sent over HTTP/1.1: the URL's path and query.
    origin_form: Uri,
    /// Every request's headers: the builder's, `Host`, and the JSON defaults.
    headers: HeaderMap,
    max_response_size: usize,
    /// Under [`ClientBuilder::streaming`]: the session, the listener.
    streams: Option<Arc<Streams>>,
    /// Dropped with the client: the task keeping its `GET` stream open stops.
    stop: tokio::sync::watch::Sender<()>,
}

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
}

impl Client {
    /// A client for `url` with the default settings.
    ///
    /// # Errors
    ///
    /// A [`Config`](TransportErrorKind::Config) error when `url` is not a valid `http://` URL.
    pub fn new(url: &str) -> Result<Self, TransportError> {
        Self::builder(url).build()
    }

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
        }
    }

    /// The URL every message is posted to.
    pub fn uri(&self) -> &Uri {
        &self.shared.uri
    }

    /// A request posting `message`: over HTTP/1.1 to the URL's path, with `Host`; over
    /// HTTP/2 to the whole URL (`:scheme` and `:authority` come from it), without.
    /// `extra` headers (this exchange's own) are added after the client's.
    fn request(&self, message: Bytes, http2: bool, extra: &HeaderMap) -> Request<Full<Bytes>> {
        let shared = &*self.shared;
        let mut request = Request::new(Full::new(message));
        *request.method_mut() = Method::POST;
        *request.headers_mut() = shared.headers.clone();
        if !extra.is_empty() {
            let headers = request.headers_mut();
            for (name, value) in extra {
                headers.insert(name, value.clone());
            }
        }
        if http2 {
            *request.uri_mut() = shared.uri.clone();
            request.headers_mut().remove(header::HOST);
        } else {
            *request.uri_mut() = shared.origin_form.clone();
        }
        request
    }

    pub(super) async fn exchange_once(
        &self,
        message: Bytes,
        extra: HeaderMap,
    ) -> Result<Delivery, TransportError> {
        let shared = &*self.shared;
        let session = shared
            .streams
            .as_ref()
            .and_then(|streams| streams.session());
        let (response, lease) = shared
            .pool
            .send(message, |message, http2| {
                let mut request = self.request(message, http2, &extra);
                if let Some(streams) = &shared.streams {
                    let header = &streams.settings.header;
                    stream_headers(request.headers_mut(), session.as_ref(), header, None, false);
                    version_header(request.headers_mut(), streams);
                }
                request
            })
            .await?;
        if let Some(streams) = &shared.streams {
            if response.status() == StatusCode::NOT_FOUND && session.is_some() {
                // The session is gone: the next initialisation starts another.
                streams.forget_session();
            }
            let header = response.headers().get(&streams.settings.header);
            if streams.keep_session(header) {
                self.open_stream(streams);
            }
            if response.status().is_success() && reader::is_event_stream(&response) {
                return reader::read_post(self, streams, response, lease).await;
            }
        }
        let status = response.status();
        let is_json = is_json(response.headers());
        let body = body::read(response.into_body(), shared.max_response_size)
            .await
            .map_err(|error| match error {
                ReadError::TooLarge => TransportError::new(
                    TransportErrorKind::Io,
                    "the HTTP response body is over the size limit",
                ),
                ReadError::Body(error) => TransportError::with_source(
                    TransportErrorKind::Io,
                    "reading the HTTP response body failed",
                    error,
                ),
            })?;
        // Read whole: the connection can carry the next exchange.
        lease.release();
        if let Some(streams) = &shared.streams
            && status == StatusCode::OK
        {
            streams.learn_version(&body);
            if let Some(body) = streams.route_whole(body.clone()) {
                return body;
            }
        }
        reply(status, is_json, body)
    }
}

/// What an exchange's status and body say.
fn reply(status: StatusCode, is_json: bool, body: Bytes) -> Result<Delivery, TransportError> {
    if status.is_success() {
        return Ok(if body.is_empty() || status == StatusCode::NO_CONTENT {
            Delivery::NoAnswer
        } else {
            Delivery::Answer(body)
        });
    }
    // A refusal the server explains in JSON-RPC (413 with an error body, say) is an
    // answer; anything else is a transport failure.
    if is_json && !body.is_empty() {
        return Ok(Delivery::Answer(body));
    }
    Err(TransportError::from_http_status(status.as_u16()))
}

impl Client {
    /// Starts keeping the session's `GET` stream open, once, when the settings say so.
    fn open_stream(&self, streams: &Arc<Streams>) {
        let starting = streams.settings.open_stream
            && !streams
                .get_started
                .swap(true, std::sync::atomic::Ordering::AcqRel);
        if starting {
            let client = Arc::downgrade(&self.shared);
            let stop = self.shared.stop.subscribe();
            tokio::spawn(reader::keep_open::<Client>(
                client,
                Arc::clone(streams),
                stop,
            ));
        }
    }
}

impl Exchanges for Client {
    type Weak = std::sync::Weak<Shared>;

    fn downgrade(&self) -> Self::Weak {
        Arc::downgrade(&self.shared)
    }

    fn upgrade(weak: &Self::Weak) -> Option<Self> {
        weak.upgrade().map(|shared| Client { shared })
    }

    fn post(&self, message: Bytes) -> SendFuture<'_> {
        Box::pin(self.exchange(message, HeaderMap::new()))
    }

    fn get<'a>(
        &'a self,
        streams: &'a Streams,
        last: Option<&'a str>,
    ) -> Pin<Box<dyn Future<Output = Opened<'a>> + Send + 'a>> {
        let session = streams.session();
        Box::pin(self.shared.pool.send(Bytes::new(), move |message, http2| {
            let mut request = self.request(message, http2, &HeaderMap::new());
            *request.method_mut() = Method::GET;
            let header = &streams.settings.header;
            stream_headers(request.headers_mut(), session.as_ref(), header, last, true);
            version_header(request.headers_mut(), streams);
            request
        }))
    }

    fn max_event(&self) -> usize {
        self.shared.max_response_size
    }
}

/// A streaming exchange's headers: what it accepts, its session, where to resume.
fn stream_headers(
    headers: &mut HeaderMap,
    session: Option<&HeaderValue>,
    name: &HeaderName,
    last: Option<&str>,
    get: bool,
) {
    if let Some(session) = session {
        headers.insert(name.clone(), session.clone());
    }
    if get {
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        headers.remove(header::CONTENT_TYPE);
    }
    if let Some(last) = last.and_then(|last| HeaderValue::try_from(last).ok()) {
        headers.insert(HeaderName::from_static("last-event-id"), last);
    }
}

/// The protocol version a streaming client learnt, as its header (MCP's
/// `MCP-Protocol-Version`).
fn version_header(headers: &mut HeaderMap, streams: &Streams) {
    if let Some((name, value)) = streams.version() {
        headers.insert(name, value);
    }
}

impl Transport for Client {
    fn attach(&mut self, inbox: Inbox) {
        if let Some(streams) = &self.shared.streams {
            streams.attach(inbox);
        }
    }

    fn is_request_response(&self) -> bool {
        self.shared.streams.is_none()
    }

    fn receives_pushes(&self) -> bool {
        self.shared.streams.is_some()
    }

    fn send(&self, message: Bytes) -> SendFuture<'_> {
        Box::pin(self.exchange(message, HeaderMap::new()))
    }

    fn carries_headers(&self) -> bool {
        true
    }

    /// Each of `headers` replaces the client's own header of that name (a per-call
    /// `Authorization` overrides the builder's).
    fn send_with_headers(&self, message: Bytes, headers: HeaderMap) -> SendFuture<'_> {
        Box::pin(self.exchange(message, headers))
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("uri", &self.shared.uri)
            .field("headers", &self.shared.headers)
            .field("max_response_size", &self.shared.max_response_size)
            .finish_non_exhaustive()
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
