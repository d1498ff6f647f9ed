//! The HTTP server side: a `tower::Service` that feeds request bodies to the server engine.

use super::answer::{Answer, NoResponse, ResponseBody, refusal, too_large};
use super::exchange::{Answerer, Exchange, StreamingPost};
use super::host::{Admission, Hosts};
use super::origin::Origins;
use super::streaming::{self, Sse, Streaming};
use super::unsent::Unsent;
use super::upgrade::Upgrade;
use super::written::Data;
use crate::http::body;
use crate::http::media::is_json;
use crate::protocol::{self, ErrorObject};
use crate::server::{InFlight, Metadata, Server};
use ::http::header::{self, HeaderValue};
use ::http::{Method, Request, StatusCode};
use hyper::body::Body;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// How long a request's body may take to arrive unless told otherwise: 30 seconds; see
/// [`Service::body_timeout`].
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// The peer's address, as a request extension. [`serve`](super::serve) inserts it when
/// the service it runs is wrapped in layers, for them to read (a bare [`Service`] is
/// told the address directly); an application that accepts connections itself can
/// insert it too. The [`Service`] passes it on as
/// [`Metadata::peer`](crate::server::Metadata).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerAddr(pub SocketAddr);

/// A [`tower::Service`] that answers JSON-RPC over HTTP with a server engine; see the
/// [module docs](crate::http) for the status codes.
///
/// Cheap to clone. Its error type is [`Infallible`]: every failure is an HTTP answer.
///
/// ```
/// # use rpcsmith::server::{Context, Dispatch, Reply, Server};
/// # use serde_json::value::RawValue;
/// # struct Nothing;
/// # impl Dispatch for Nothing {
/// #     fn call(&self, _: &str, _: Option<&RawValue>, _: Context) -> Reply {
/// #         Reply::ok(&())
/// #     }
/// # }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use rpcsmith::http::{NoResponse, Service};
/// use tower::ServiceExt;
///
/// let service = Service::new(Server::builder(Nothing).build())
///     .max_request_size(1024 * 1024)
///     .no_response_status(NoResponse::Accepted);
/// let request = http::Request::post("/")
///     .header("content-type", "application/json")
///     .body(http_body_util::Full::new(bytes::Bytes::from_static(
///         br#"{"jsonrpc":"2.0","method":"ping"}"#,
///     )))
///     .expect("a valid request");
/// let response = service.oneshot(request).await.expect("infallible");
/// assert_eq!(response.status(), http::StatusCode::ACCEPTED);
/// # }
/// ```
#[derive(Clone)]
pub struct Service {
    server: Server,
    config: Arc<Config>,
}

#[derive(Debug, Clone)]
struct Config {
    max_request_size: Option<usize>,
    no_response: NoResponse,
    any_content_type: bool,
    body_timeout: Option<Duration>,
    admission: Admission,
    streaming: Option<Arc<Sse>>,
    /// The protocols a request may switch to ([`Upgrade`]), asked in order.
    upgrades: Vec<Arc<dyn Upgrade>>,
}

/// What [`serve`](super::serve) knows of the connection a request came on, when it
/// calls a bare [`Service`] directly; through layers, the same travels as request
/// extensions ([`PeerAddr`], the socket).
#[derive(Debug, Default)]
pub(super) struct SocketInfo {
    pub(super) peer: Option<SocketAddr>,
    /// The listener's address the connection came in on.
    pub(super) local: Option<SocketAddr>,
    /// The socket's count of calls in flight, shared by its requests.
    pub(super) in_flight: Option<InFlight>,
    /// The socket's answers not sent yet.
    pub(super) unsent: Option<Arc<Unsent>>,
}

impl Service {
    /// A service answering with `server`, with the default settings.
    pub fn new(server: Server) -> Self {
        Self {
            server,
            config: Arc::new(Config {
                max_request_size: None,
                no_response: NoResponse::default(),
                any_content_type: false,
                body_timeout: Some(DEFAULT_BODY_TIMEOUT),
                admission: Admission::default(),
                streaming: None,
                upgrades: Vec::new(),
            }),
        }
    }

    /// The largest request body accepted, in bytes; a larger one is answered `413`
    /// without being read to its end. The default is the server's own
    /// [`Limits::max_request_size`](crate::server::Limits::max_request_size).
    pub fn max_request_size(mut self, bytes: usize) -> Self {
        Arc::make_mut(&mut self.config).max_request_size = Some(bytes);
        self
    }

    /// The status answered when there is no response to send. The default is
    /// [`NoResponse::NoContent`] (`204`).
    pub fn no_response_status(mut self, status: NoResponse) -> Self {
        Arc::make_mut(&mut self.config).no_response = status;
        self
    }

    /// Accepts bodies whatever their `Content-Type` says (for clients that send none
    /// or `text/plain`). Off by default: anything but `application/json` gets `415`.
    pub fn any_content_type(mut self, enabled: bool) -> Self {
        Arc::make_mut(&mut self.config).any_content_type = enabled;
        self
    }

    /// How long a request's body may take to arrive, from when its head has been read
    /// to its last byte. A body still incomplete then is answered `408 Request Timeout`
    /// with a JSON-RPC error body (`-32012`, `id: null`), and over HTTP/1.1 the
    /// connection is closed (its request was not read to its end), freeing its slot
    /// among [`Serve::max_connections`](super::Serve::max_connections): so that a peer
    /// sending a body a byte at a time, or declaring a longer `Content-Length` than it
    /// sends, cannot hold a connection for long. It is one deadline for the whole body,
    /// not for each read: the default, [`DEFAULT_BODY_TIMEOUT`], asks a body of the
    /// default [`max_request_size`](Service::max_request_size) (10 MiB) to come at
    /// 350 KB/s at least. `None` lets bodies take forever.
    ///
    /// A body that is whole when the request is read (the usual case) arms no timer.
    pub fn body_timeout(mut self, timeout: Option<Duration>) -> Self {
        Arc::make_mut(&mut self.config).body_timeout = timeout.filter(|timeout| !timeout.is_zero());
        self
    }

    /// Which web pages may call this service, by the `Origin` header their browser
    /// sends: checked before anything else, on every request (`POST`, `GET` event
    /// streams, `DELETE`, WebSocket upgrades); a request from an origin not accepted
    /// is answered `403 Forbidden` with a JSON-RPC error body (`-32600`, `id: null`).
    /// The default, [`Origins::default`], accepts requests without `Origin`, and
    /// loopback origins from loopback peers; [`Origins::any`] turns the check off.
    pub fn origins(mut self, origins: Origins) -> Self {
        Arc::make_mut(&mut self.config).admission.origins = origins;
        self
    }

    /// Which host names this service answers to, by the request's `Host`: checked
    /// with `Origin`, before anything else, on every request; a request naming
    /// another host is answered `403 Forbidden` with a JSON-RPC error body (`-32600`,
    /// `id: null`). The default, [`Hosts::default`], answers only to loopback names
    /// (`localhost`, `127.0.0.1`, `[::1]`) on a loopback listener, against DNS
    /// rebinding, and to any name elsewhere; [`Hosts::any`] turns the check off.
    pub fn hosts(mut self, hosts: Hosts) -> Self {
        Arc::make_mut(&mut self.config).admission.hosts = hosts;
        self
    }

    /// Answers only requests to `path` (`/mcp`, say); any other path is answered `404
    /// Not Found` with a JSON-RPC error body (`-32600`, `id: null`). By default every
    /// path is answered: mounted in a router, the router chooses.
    pub fn path(mut self, path: &str) -> Self {
        Arc::make_mut(&mut self.config).admission.path = Some(path.into());
        self
    }

    /// Answers with event streams (Server-Sent Events) and keeps sessions, as
    /// `streaming` says ([`Streaming::mcp`] for MCP's Streamable HTTP): a `POST` whose
    /// `Accept` takes `text/event-stream` and whose handlers send something (a
    /// notification or a request to the other side) before its response is answered
    /// `text/event-stream`, one JSON-RPC message per event, the response last; with
    /// sessions, a `GET` opens the session's stream for what the server sends
    /// outside any request, `Last-Event-ID` resumes a dropped stream, and `DELETE`
    /// ends the session. See the guide's [SSE and sessions](crate::guide::transports#sse-and-sessions).
    pub fn streaming(mut self, streaming: Streaming) -> Self {
        Arc::make_mut(&mut self.config).streaming = Some(Arc::new(streaming.build()));
        self
    }

    /// What the [streaming](Self::streaming) part of this service holds now (sessions,
    /// calls in flight, bytes held for replay), read from its own counters; `None`
    /// without streaming.
    pub fn streaming_stats(&self) -> Option<streaming::StreamingStats> {
        self.config.streaming.as_ref().map(|sse| sse.stats())
    }

    /// The server this service answers with.
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// Lets requests switch to `protocol` ([`Upgrade`]), replacing the hook of the same
    /// [name](Upgrade::name). The service asks each hook, in the order set, about
    /// every request that passed the origin check, before anything else;
    /// [`websocket`](Self::websocket) is one.
    pub fn upgrade(mut self, protocol: impl Upgrade) -> Self {
        let upgrades = &mut Arc::make_mut(&mut self.config).upgrades;
        upgrades.retain(|known| known.name() != protocol.name());
        upgrades.push(Arc::new(protocol));
        self
    }

    /// Answers at once what needs no body (refusals, upgrades to another protocol,
    /// streaming's `GET` and `DELETE`), or prepares the exchange.
    pub(super) fn begin<B: Body, D: Data>(
        &self,
        request: Request<B>,
        origin: SocketInfo,
    ) -> Begun<B, D> {
        if let Some(answer) = self.refuse_origin(&request, &origin) {
            return Begun::Answered(answer);
        }
        if let Some(upgrade) = self.upgrade_asked(&request) {
            let (parts, _) = request.into_parts();
            let answer = upgrade.switch(Request::from_parts(parts, ()), metadata);
            return Begun::Answered(
                answer.map(|body| ResponseBody::whole(D::from_vec(body::whole(body).into()))),
            );
        }
        if let Some(sse) = &self.config.streaming
            && let Some(begun) = streaming_request(sse, &request)
        {
            return begun;
        }
        if let Some(answer) = self.refuse_post(&request) {
            return Begun::Answered(answer);
        }
        self.exchange(request, origin)
    }

    /// `403` for a request from an origin or to a host not accepted, `404` for a path
    /// other than the service's.
    fn refuse_origin<B, D: Data>(
        &self,
        request: &Request<B>,
        origin: &SocketInfo,
    ) -> Option<Answer<D>> {
        let peer = origin
            .peer
            .or_else(|| request.extensions().get::<PeerAddr>().map(|peer| peer.0));
        super::host::refusal(&self.config.admission, request, (peer, origin.local))
    }

    /// The protocol `request` asks to switch to, among this service's.
    fn upgrade_asked<B>(&self, request: &Request<B>) -> Option<&dyn Upgrade> {
        self.config
            .upgrades
            .iter()
            .find(|upgrade| upgrade.asks(request.method(), request.headers()))
            .map(|upgrade| &**upgrade)
    }

    /// `405` for another method than `POST`, `415` for a body that is not JSON.
    fn refuse_post<B, D: Data>(&self, request: &Request<B>) -> Option<Answer<D>> {
        if request.method() != Method::POST {
            let mut answer = refusal(
                StatusCode::METHOD_NOT_ALLOWED,
                &ErrorObject::new(protocol::code::INVALID_REQUEST, "Only POST is allowed"),
            );
            answer
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("POST"));
            return Some(answer);
        }
        (!self.config.any_content_type && !is_json(request.headers())).then(|| {
            refusal(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                &ErrorObject::new(
                    protocol::code::INVALID_REQUEST,
                    "Content-Type must be application/json",
                ),
            )
        })
    }

    /// A `POST` accepted: its body to read within the limit (`413` at once for a
    /// declared length over it), and what handling it needs.
    fn exchange<B: Body, D: Data>(&self, request: Request<B>, origin: SocketInfo) -> Begun<B, D> {
        let (mut parts, body) = request.into_parts();
        // Under `serve`, the calls of every request on this socket share one in-flight
        // budget, and its answers one budget of unsent bytes; mounted elsewhere, each
        // request has its own in-flight budget. What `serve` knows of the socket is for
        // the transport, not for handlers.
        let (in_flight, unsent) = match origin.in_flight {
            Some(in_flight) => (Some(in_flight), origin.unsent),
            None => match parts.extensions.remove::<super::Socket>() {
                Some(socket) => (Some(socket.in_flight), Some(socket.unsent)),
                None => (None, None),
            },
        };
        let limit = self
            .config
            .max_request_size
            .unwrap_or(self.server.limits().max_request_size);
        // A declared length (hyper's, from `Content-Length`) over the limit is refused
        // before reading.
        if body.size_hint().lower() > limit as u64 {
            return Begun::Answered(too_large());
        }
        let version = parts.version;
        let mut metadata = metadata(parts);
        metadata.peer = metadata.peer.or(origin.peer);
        let answerer = match &self.config.streaming {
            Some(sse) => Answerer::Streaming(Box::new(StreamingPost {
                sse: Arc::clone(sse),
                busy: busy(&metadata.extensions),
                metadata,
            })),
            None => Answerer::Engine(metadata.into_shared()),
        };
        Begun::Reading(Exchange {
            answerer,
            server: self.server.clone(),
            body,
            limit,
            body_timeout: self.config.body_timeout,
            version,
            in_flight,
            unsent,
            no_response: self.config.no_response,
        })
    }
}

/// Under [`serve`](super::serve), a request extension that counts one more request in
/// progress on its connection until what it returns is dropped: an answer whose body
/// outlives its request's future (an event stream) holds it, so that the connection is
/// not closed as idle while the stream is open.
#[derive(Clone)]
pub(super) struct Busy(pub(super) Arc<dyn Fn() -> Box<dyn Send + Sync> + Send + Sync>);

/// What a `Busy` extension of `extensions` holds, if there is one.
fn busy(extensions: &::http::Extensions) -> Option<Box<dyn Send + Sync>> {
    extensions.get::<Busy>().map(|busy| (busy.0)())
}

/// What a streaming service does with a request before its body is read: the
/// answers to `GET` and `DELETE`, and the refusal of a protocol version.
fn streaming_request<B, D: Data>(sse: &Arc<Sse>, request: &Request<B>) -> Option<Begun<B, D>> {
    let headers = request.headers();
    if let Err(refused) = streaming::check_version(sse, headers) {
        return Some(Begun::Answered(*refused));
    }
    if let Err(refused) = streaming::check_accept(sse, request.method(), headers) {
        return Some(Begun::Answered(*refused));
    }
    let sessions = sse.settings.initialize.is_some();
    match *request.method() {
        Method::GET if sessions && streaming::takes_events(headers) => {
            let stop = request.extensions().get::<super::Socket>().map(|socket| {
                let mut stopping = socket.stopping.clone();
                Box::pin(async move { stopping.wait().await }) as streaming::Stop
            });
            let close = request.extensions().get::<super::Socket>().map(|socket| {
                let unsent = Arc::clone(&socket.unsent);
                Arc::new(move || unsent.close()) as streaming::Close
            });
            Some(Begun::Stream(Opening {
                sse: Arc::clone(sse),
                headers: headers.clone(),
                stop: (stop, close),
                busy: busy(request.extensions()),
            }))
        }
        Method::DELETE if sessions => Some(Begun::Answered(streaming::delete(sse, headers))),
        _ => None,
    }
}

/// What [`Service::begin`] made of a request.
pub(super) enum Begun<B, D> {
    /// The body is to be read and handled.
    Reading(Exchange<B>),
    /// The answer is known without reading the body.
    Answered(Answer<D>),
    /// A `GET` event stream, to open.
    Stream(Opening),
}

/// A `GET` event stream, opened once the connection's guard is known.
pub(super) struct Opening {
    sse: Arc<Sse>,
    headers: ::http::HeaderMap,
    stop: (Option<streaming::Stop>, Option<streaming::Close>),
    busy: Option<Box<dyn Send + Sync>>,
}

impl Opening {
    /// The answer; `guard` lives as long as its stream.
    pub(super) fn open<G: Send + Sync + 'static, D: Data>(self, guard: G) -> Answer<D> {
        let guard = Box::new((guard, self.busy));
        streaming::get(&self.sse, &self.headers, self.stop, guard)
    }
}

/// What the engine learns of the HTTP request: peer, headers and extensions.
fn metadata(parts: ::http::request::Parts) -> Metadata {
    Metadata {
        peer: parts.extensions.get::<PeerAddr>().map(|peer| peer.0),
        headers: Some(parts.headers),
        extensions: parts.extensions,
        ..Metadata::default()
    }
}

impl<B> tower_service::Service<Request<B>> for Service
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Answer;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Answer, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // Everything decided before the body is read is decided here, so that the
        // future keeps only what reading and handling it need.
        match self.begin(request, SocketInfo::default()) {
            Begun::Reading(exchange) => Box::pin(exchange.finish(())),
            Begun::Answered(answer) => Box::pin(std::future::ready(Ok(answer))),
            Begun::Stream(opening) => Box::pin(std::future::ready(Ok(opening.open(())))),
        }
    }
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}
