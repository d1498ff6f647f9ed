//! The HTTP client transport: one POST per message, on kept-alive connections.

mod builder;
mod ending;
#[cfg(feature = "oauth")]
pub mod oauth;
mod pool;
mod reader;
mod streaming;

pub use builder::ClientBuilder;
pub use streaming::ClientStreaming;

use super::body::{self, ReadError};
use super::media::is_json;
use crate::client::{Delivery, Inbox, SendFuture, Transport, TransportError, TransportErrorKind};
use ::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use ::http::{Method, Request, Response, StatusCode, Uri};
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use pool::Pool;
use reader::{Exchanges, Opened};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
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
    /// Under [`ClientBuilder::oauth`]: the token, and how to get one.
    #[cfg(feature = "oauth")]
    oauth: Option<oauth::State>,
}

/// What one attempt at an exchange came to.
pub(super) enum Outcome {
    Delivered(Delivery),
    /// Refused with `401`, or `403` with a challenge: OAuth's to answer.
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    Challenged {
        status: StatusCode,
        challenge: String,
    },
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

    /// The URL every message is posted to.
    pub fn uri(&self) -> &Uri {
        &self.shared.uri
    }

    /// A request posting `message`: over HTTP/1.1 to the URL's path, with `Host`; over
    /// HTTP/2 to the whole URL (`:scheme` and `:authority` come from it), without.
    /// `extra` headers (this exchange's own) are added after the client's.
    fn request(
        &self,
        message: Bytes,
        http2: bool,
        extra: Option<&HeaderMap>,
    ) -> Request<Full<Bytes>> {
        let shared = &*self.shared;
        let mut request = Request::new(Full::new(message));
        *request.method_mut() = Method::POST;
        *request.headers_mut() = shared.headers.clone();
        #[cfg(feature = "oauth")]
        if let Some(bearer) = shared.oauth.as_ref().and_then(oauth::State::header) {
            request.headers_mut().insert(header::AUTHORIZATION, bearer);
        }
        if let Some(extra) = extra {
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

    /// Posts `message` and reads its answer, under OAuth when the client has it.
    pub(super) async fn exchange_once(
        &self,
        message: Bytes,
        extra: Option<&HeaderMap>,
    ) -> Result<Delivery, TransportError> {
        #[cfg(feature = "oauth")]
        if let Some(state) = &self.shared.oauth {
            return oauth::exchange(self, state, message, extra).await;
        }
        match self.attempt(message, extra, false).await? {
            Outcome::Delivered(delivery) => Ok(delivery),
            Outcome::Challenged { status, .. } => {
                Err(TransportError::from_http_status(status.as_u16()))
            }
        }
    }

    /// One exchange of `message`; a refusal OAuth can answer is handed back when
    /// `challenges`.
    pub(super) async fn attempt(
        &self,
        message: Bytes,
        extra: Option<&HeaderMap>,
        challenges: bool,
    ) -> Result<Outcome, TransportError> {
        let shared = &*self.shared;
        let session = shared
            .streams
            .as_ref()
            .and_then(|streams| streams.session());
        let (response, lease) = shared
            .pool
            .send(message, |message, http2| {
                self.streamed_request(message, http2, extra, session.as_ref())
            })
            .await?;
        let status = response.status();
        if challenges && let Some(challenge) = challenge(&response) {
            return Ok(Outcome::Challenged { status, challenge });
        }
        if let Some(streams) = &shared.streams {
            self.follow_session(streams, &response, session.is_some());
            if status.is_success() && reader::is_event_stream(&response) {
                // Boxed: the event-stream reader's state would otherwise be part of
                // every exchange's future, which the transport boxes (issue 30: the
                // plain JSON exchange paid for its size in each allocation and copy).
                return Box::pin(reader::read_post(self, streams, response, lease))
                    .await
                    .map(Outcome::Delivered);
            }
        }
        let is_json = is_json(response.headers());
        let body = read_body(response.into_body(), shared.max_response_size).await?;
        // Read whole: the connection can carry the next exchange.
        lease.release();
        if let Some(streams) = &shared.streams
            && status == StatusCode::OK
        {
            streams.learn_version(&body);
            if let Some(body) = streams.route_whole(body.clone()) {
                return body.map(Outcome::Delivered);
            }
        }
        reply(status, is_json, body).map(Outcome::Delivered)
    }

    /// Whether exchanges are [`plain`](Self::plain): the client neither streams nor
    /// holds an OAuth token.
    fn is_plain(&self) -> bool {
        #[cfg(feature = "oauth")]
        if self.shared.oauth.is_some() {
            return false;
        }
        self.shared.streams.is_none()
    }

    /// One exchange of a client that neither streams nor holds an OAuth token: what
    /// [`exchange`](Self::exchange) comes to for it, in a future of its own with no
    /// session, no cancellation guard and no challenge to hand back. The transport boxes
    /// it on every call; small, it is served from the allocator's per-thread cache
    /// (issue 30: BENCHMARKS.md, "the HTTP client, second round").
    async fn plain(
        &self,
        message: Bytes,
        extra: Option<&HeaderMap>,
    ) -> Result<Delivery, TransportError> {
        let shared = &*self.shared;
        let (response, lease) = (shared.pool)
            .send(message, |message, http2| {
                self.request(message, http2, extra)
            })
            .await?;
        let status = response.status();
        let is_json = is_json(response.headers());
        let body = read_body(response.into_body(), shared.max_response_size).await?;
        // Read whole: the connection can carry the next exchange.
        lease.release();
        reply(status, is_json, body)
    }

    /// [`Self::request`], with a streaming client's headers: its session, its protocol
    /// version.
    fn streamed_request(
        &self,
        message: Bytes,
        http2: bool,
        extra: Option<&HeaderMap>,
        session: Option<&HeaderValue>,
    ) -> Request<Full<Bytes>> {
        let mut request = self.request(message, http2, extra);
        if let Some(streams) = &self.shared.streams {
            let header = &streams.settings.header;
            stream_headers(request.headers_mut(), session, header, None, false);
            version_header(request.headers_mut(), streams);
        }
        request
    }

    /// Follows the session a response names: forgets a session the server no longer
    /// knows (`404` to a request that sent one), keeps a new one and opens its stream.
    fn follow_session(&self, streams: &Arc<Streams>, response: &Response<Incoming>, sent: bool) {
        if response.status() == StatusCode::NOT_FOUND && sent {
            // The session is gone: the next initialisation starts another.
            streams.forget_session();
        }
        let header = response.headers().get(&streams.settings.header);
        if streams.keep_session(header) {
            self.open_stream(streams);
        }
    }
}

/// The challenges of a refusal OAuth can answer (`401`, or `403` with a challenge), as
/// one list: the `Bearer` one may be in any of them. `None` for any other response.
fn challenge(response: &Response<Incoming>) -> Option<String> {
    let challenged = match response.status() {
        StatusCode::UNAUTHORIZED => true,
        StatusCode::FORBIDDEN => response.headers().contains_key(header::WWW_AUTHENTICATE),
        _ => false,
    };
    if !challenged {
        return None;
    }
    let challenges = response.headers().get_all(header::WWW_AUTHENTICATE);
    let challenge = (challenges.iter())
        .filter_map(|value| value.to_str().ok())
        .collect::<Vec<_>>()
        .join(", ");
    Some(challenge)
}

/// A whole response body, at most `max` bytes. The body, not the response: the
/// exchange's future holds what this one takes (issue 30).
async fn read_body(body: Incoming, max: usize) -> Result<Bytes, TransportError> {
    body::read(body, max).await.map_err(|error| match error {
        ReadError::TooLarge => TransportError::new(
            TransportErrorKind::Io,
            "the HTTP response body is over the size limit",
        ),
        ReadError::Body(error) => TransportError::with_source(
            TransportErrorKind::Io,
            "reading the HTTP response body failed",
            error,
        ),
    })
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
        Box::pin(self.exchange(message, None))
    }

    fn get<'a>(
        &'a self,
        streams: &'a Streams,
        last: Option<&'a str>,
    ) -> Pin<Box<dyn Future<Output = Opened<'a>> + Send + 'a>> {
        let session = streams.session();
        Box::pin(self.shared.pool.send(Bytes::new(), move |message, http2| {
            let mut request = self.request(message, http2, None);
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
        if self.is_plain() {
            // Made in its box, not moved there: one copy of the future less a call.
            let boxed = Box::write(Box::new_uninit(), self.plain(message, None));
            return Box::into_pin(boxed);
        }
        Box::pin(self.exchange(message, None))
    }

    fn carries_headers(&self) -> bool {
        true
    }

    /// Each of `headers` replaces the client's own header of that name (a per-call
    /// `Authorization` overrides the builder's).
    fn send_with_headers(&self, message: Bytes, headers: HeaderMap) -> SendFuture<'_> {
        if self.is_plain() {
            return Box::pin(async move { self.plain(message, Some(&headers)).await });
        }
        Box::pin(self.exchange(message, Some(headers)))
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
