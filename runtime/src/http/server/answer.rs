//! The server's answers: their body ([`ResponseBody`], whole or an event stream),
//! and the shapes every answer takes (JSON, empty, a refusal explained by a JSON-RPC
//! error).

use super::streaming::events::EventStream;
use super::written::{Data, Written};
use crate::protocol::{self, ErrorObject, Id};
use ::http::header::{self, HeaderValue};
use ::http::{Response, StatusCode, Version};
use bytes::{Buf, Bytes};
use http_body_util::Full;
use hyper::body::{Body, Frame, SizeHint};
use std::pin::Pin;
use std::task::{Context, Poll};

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

/// An answer, its body's data `D` (see [`Data`]).
pub(super) type Answer<D = Bytes> = Response<ResponseBody<D>>;

/// The body of the HTTP server's answers: a whole JSON body, or an event stream
/// (`text/event-stream`, under [`Service::streaming`](super::Service::streaming)) sent
/// as its events come.
pub struct ResponseBody<D = Bytes> {
    kind: Kind<D>,
    /// Dropped with the body, once it has been sent (or given up).
    _after: Option<Box<dyn Send + Sync>>,
}

enum Kind<D> {
    Whole(Full<D>),
    Events(Box<EventStream>),
}

impl<D: Buf> ResponseBody<D> {
    /// A body of `data`, whole.
    pub(super) fn whole(data: D) -> Self {
        Self {
            kind: Kind::Whole(Full::new(data)),
            _after: None,
        }
    }

    /// A body sending `events`.
    pub(super) fn events(events: EventStream) -> Self {
        Self {
            kind: Kind::Events(Box::new(events)),
            _after: None,
        }
    }

    /// Keeps `after` until the body is dropped: once it has been sent (or given up).
    pub(super) fn keep_until_sent(&mut self, after: Box<dyn Send + Sync>) {
        self._after = Some(after);
    }
}

/// An empty body: what a tower layer in front of the service answers by itself with.
/// tower-http's `CorsLayer` needs it to answer a browser's preflight `OPTIONS`, so that
/// it wraps the service directly (`http::serve(listener, cors.layer(service), …)`).
impl<D: Data> Default for ResponseBody<D> {
    fn default() -> Self {
        Self::whole(D::from_vec(Vec::new()))
    }
}

impl<D> std::fmt::Debug for ResponseBody<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.kind {
            Kind::Whole(_) => "whole",
            Kind::Events(_) => "events",
        };
        f.debug_struct("ResponseBody").field("kind", &kind).finish()
    }
}

/// `hyper::body::Body` for the two kinds of data the server sends (a private trait
/// bound would make the impl's bounds less public than the type).
macro_rules! response_body {
    ($($data:ty),*) => {$(
        impl Body for ResponseBody<$data> {
            type Data = $data;
            type Error = std::convert::Infallible;

            fn poll_frame(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
            ) -> Poll<Option<Result<Frame<$data>, Self::Error>>> {
                match &mut self.get_mut().kind {
                    Kind::Whole(full) => Pin::new(full).poll_frame(cx),
                    Kind::Events(events) => events
                        .poll_event(cx)
                        .map(|event| event.map(|event| Ok(Frame::data(<$data>::from_vec(event))))),
                }
            }

            fn is_end_stream(&self) -> bool {
                match &self.kind {
                    Kind::Whole(full) => full.is_end_stream(),
                    Kind::Events(_) => false,
                }
            }

            fn size_hint(&self) -> SizeHint {
                match &self.kind {
                    Kind::Whole(full) => full.size_hint(),
                    Kind::Events(_) => SizeHint::default(),
                }
            }
        }
    )*};
}

response_body!(Bytes, Written);

pub(super) fn empty<D: Data>(status: StatusCode) -> Answer<D> {
    let mut answer = Response::new(ResponseBody::whole(D::from_vec(Vec::new())));
    *answer.status_mut() = status;
    answer
}

fn json<D: Data>(status: StatusCode, body: Vec<u8>) -> Answer<D> {
    json_body(status, D::from_vec(body))
}

pub(super) fn json_body<D: Data>(status: StatusCode, body: D) -> Answer<D> {
    let mut answer = Response::new(ResponseBody::whole(body));
    *answer.status_mut() = status;
    answer.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    answer
}

/// An HTTP refusal explained by a JSON-RPC error with a null id.
pub(super) fn refusal<D: Data>(status: StatusCode, error: &ErrorObject) -> Answer<D> {
    let mut body = Vec::with_capacity(96);
    protocol::write_error(&mut body, &Id::NULL, error);
    json(status, body)
}

/// The answer to a body that did not arrive in time. Over HTTP/1.1 the rest of it
/// would be read as the next request: the connection closes.
pub(super) fn too_slow<D: Data>(version: Version) -> Answer<D> {
    let mut answer = refusal(
        StatusCode::REQUEST_TIMEOUT,
        &ErrorObject::new(
            protocol::code::TIMEOUT,
            "The request body did not arrive in time",
        ),
    );
    if version < Version::HTTP_2 {
        answer
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    answer
}

/// The answer on a connection past [`Serve::max_connections`](super::Serve::max_connections).
pub(super) fn too_many_connections<D: Data>() -> Answer<D> {
    let mut answer = refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        &ErrorObject::new(
            protocol::code::SERVER_BUSY,
            "Too many connections, retry later",
        ),
    );
    answer
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    answer
}

/// The answer to a body over the size allowed.
pub(super) fn too_large<D: Data>() -> Answer<D> {
    refusal(
        StatusCode::PAYLOAD_TOO_LARGE,
        &ErrorObject::request_too_large(),
    )
}
