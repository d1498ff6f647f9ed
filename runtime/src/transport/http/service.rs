//! The HTTP server side: a `tower::Service` that feeds request bodies to the server engine.

use super::client::is_json;
use crate::protocol::{self, ErrorObject, Id};
use crate::server::{Metadata, Server};
use ::http::header::{self, HeaderValue};
use ::http::{Method, Request, Response, StatusCode};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Body;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// The peer's address, as a request extension. [`serve`](super::serve) inserts it;
/// an application that accepts connections itself can insert it too, and the
/// [`Service`] passes it on as [`Metadata::peer`](crate::server::Metadata).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerAddr(pub SocketAddr);

/// The status answered when a message asks for no response (a notification).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum NoResponse {
    /// `204 No Content`, the default.
    #[default]
    NoContent,
    /// `202 Accepted`, as MCP's HTTP transport wants.
    Accepted,
}

/// A [`tower::Service`] that answers JSON-RPC over HTTP with a server engine; see the
/// [module docs](super) for the status codes.
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
/// use rpcsmith::transport::http::{NoResponse, Service};
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
    #[cfg(feature = "ws")]
    websocket: Option<(
        crate::transport::peer::Builder,
        crate::transport::ws::Settings,
    )>,
}

/// The body of every answer.
type Answer = Response<Full<Bytes>>;

impl Service {
    /// A service answering with `server`, with the default settings.
    pub fn new(server: Server) -> Self {
        Self {
            server,
            config: Arc::new(Config {
                max_request_size: None,
                no_response: NoResponse::default(),
                any_content_type: false,
                #[cfg(feature = "ws")]
                websocket: None,
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

    /// Accepts WebSocket connections on the same path (`GET` with `Upgrade: websocket`):
    /// each is a [`Peer`](crate::transport::peer::Peer) made by `peer` and served by
    /// this service's server, its calls seeing the upgrade request's headers, peer
    /// address and extensions in their metadata. Give `peer` a
    /// [`Hub`](crate::transport::peer::Hub) to push to every connection. The HTTP
    /// connection must allow upgrades ([`serve`](super::serve) does; so does axum).
    #[cfg(feature = "ws")]
    pub fn websocket(
        mut self,
        peer: crate::transport::peer::Builder,
        settings: crate::transport::ws::Settings,
    ) -> Self {
        let peer = peer.serve(self.server.clone());
        Arc::make_mut(&mut self.config).websocket = Some((peer, settings));
        self
    }

    /// Answers one HTTP request.
    async fn answer<B>(self, request: Request<B>) -> Answer
    where
        B: Body,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        #[cfg(feature = "ws")]
        if let Some((peer, settings)) = &self.config.websocket
            && crate::transport::ws::is_upgrade(&request)
        {
            let (peer, settings) = (peer.clone(), settings.clone());
            return crate::transport::ws::upgrade(request, peer, settings, metadata);
        }
        if request.method() != Method::POST {
            let mut answer = refusal(
                StatusCode::METHOD_NOT_ALLOWED,
                &ErrorObject::new(protocol::code::INVALID_REQUEST, "Only POST is allowed"),
            );
            answer
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("POST"));
            return answer;
        }
        if !self.config.any_content_type && !is_json(request.headers()) {
            return refusal(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                &ErrorObject::new(
                    protocol::code::INVALID_REQUEST,
                    "Content-Type must be application/json",
                ),
            );
        }
        let (mut parts, body) = request.into_parts();
        let socket = parts.extensions.remove::<super::Socket>();
        let body = match self.read(&parts.headers, body).await {
            Ok(body) => body,
            Err(answer) => return answer,
        };
        let meta = metadata(parts);
        // Under `serve`, the calls of every request on this socket share one in-flight
        // budget; mounted elsewhere, each request has its own.
        let answer = match socket {
            Some(socket) => {
                let in_flight = socket.in_flight;
                self.server.handle_counted(&body, meta, in_flight).await
            }
            None => self.server.handle(&body, meta).await,
        };
        match answer {
            Some(response) => json(StatusCode::OK, response.into()),
            None => empty(match self.config.no_response {
                NoResponse::NoContent => StatusCode::NO_CONTENT,
                NoResponse::Accepted => StatusCode::ACCEPTED,
            }),
        }
    }

    /// Reads the body, refusing it as soon as it is known to be too large.
    async fn read<B>(&self, headers: &::http::HeaderMap, body: B) -> Result<Bytes, Answer>
    where
        B: Body,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let limit = self
            .config
            .max_request_size
            .unwrap_or(self.server.limits().max_request_size);
        let too_large = || {
            refusal(
                StatusCode::PAYLOAD_TOO_LARGE,
                &ErrorObject::request_too_large(),
            )
        };
        let declared = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse::<u64>().ok());
        if declared.is_some_and(|length| length > limit as u64) {
            return Err(too_large());
        }
        match Limited::new(body, limit).collect().await {
            Ok(collected) => Ok(collected.to_bytes()),
            Err(error) if error.is::<LengthLimitError>() => Err(too_large()),
            Err(_) => Err(empty(StatusCode::BAD_REQUEST)),
        }
    }
}

/// What the engine learns of the HTTP request: peer, headers and extensions.
fn metadata(mut parts: ::http::request::Parts) -> Metadata {
    // What `serve` knows of the socket is for the transport, not for handlers to keep.
    parts.extensions.remove::<super::Socket>();
    Metadata {
        peer: parts.extensions.get::<PeerAddr>().map(|peer| peer.0),
        headers: Some(parts.headers),
        extensions: parts.extensions,
    }
}

fn empty(status: StatusCode) -> Answer {
    let mut answer = Response::new(Full::new(Bytes::new()));
    *answer.status_mut() = status;
    answer
}

fn json(status: StatusCode, body: Bytes) -> Answer {
    let mut answer = Response::new(Full::new(body));
    *answer.status_mut() = status;
    answer.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    answer
}

/// An HTTP refusal explained by a JSON-RPC error with a null id.
fn refusal(status: StatusCode, error: &ErrorObject) -> Answer {
    let mut body = Vec::with_capacity(96);
    protocol::write_error(&mut body, &Id::NULL, error);
    json(status, body.into())
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
        let service = self.clone();
        Box::pin(async move { Ok(service.answer(request).await) })
    }
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}
