//! Protocols that take an HTTP connection over (`Upgrade:`): the hook a
//! [`Service`](super::Service) asks, before anything else, about each request that
//! passed its origin check. WebSocket is one
//! ([`Service::websocket`](super::Service::websocket), in `transport::ws`); another
//! protocol on the HTTP port implements [`Upgrade`] in a module of its own and touches
//! neither the service nor the other protocols.

use crate::server::Metadata;
use ::http::{HeaderMap, Method, Request, Response};
use bytes::Bytes;
use http_body_util::Full;
use std::fmt;

/// How a [`Service`](super::Service) reads what the engine learns of an HTTP request
/// (headers, extensions, the peer's address), handed to an [`Upgrade`] so that the
/// calls of the connection it takes over see the same as those of a `POST`.
pub type ReadMetadata = fn(::http::request::Parts) -> Metadata;

/// A protocol an HTTP request may switch to; see [`Service::upgrade`](super::Service::upgrade).
///
/// ```
/// use bytes::Bytes;
/// use http::{HeaderMap, Method, Request, Response, StatusCode};
/// use http_body_util::Full;
/// use rpcsmith::http::{ReadMetadata, Upgrade};
///
/// /// Refuses every request asking for `Upgrade: h2c`.
/// #[derive(Debug)]
/// struct NoH2c;
///
/// impl Upgrade for NoH2c {
///     fn name(&self) -> &'static str {
///         "h2c"
///     }
///     fn asks(&self, _: &Method, headers: &HeaderMap) -> bool {
///         headers.get(http::header::UPGRADE).is_some_and(|value| value == "h2c")
///     }
///     fn switch(&self, _: Request<()>, _: ReadMetadata) -> Response<Full<Bytes>> {
///         let mut answer = Response::new(Full::new(Bytes::new()));
///         *answer.status_mut() = StatusCode::NOT_IMPLEMENTED;
///         answer
///     }
/// }
/// ```
pub trait Upgrade: fmt::Debug + Send + Sync + 'static {
    /// The protocol's name (`websocket`): a service holds one hook per name, the last
    /// set.
    fn name(&self) -> &'static str;

    /// Whether a request of `method` with `headers` asks for this protocol.
    fn asks(&self, method: &Method, headers: &HeaderMap) -> bool;

    /// Answers `request` (`101 Switching Protocols`, or a refusal) and, once the
    /// connection is handed over (`hyper::upgrade::on`), runs the protocol on it;
    /// `metadata` reads what its calls are to see of the request.
    fn switch(&self, request: Request<()>, metadata: ReadMetadata) -> Response<Full<Bytes>>;
}
