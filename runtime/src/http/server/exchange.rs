//! A `POST` accepted: its body read within the limit and the time allowed, then handled
//! by the engine (or, under a streaming service, answered by a stream), and answered.

use super::answer::{Answer, NoResponse, empty, json_body, too_large, too_slow};
use super::streaming::{self, Sse};
use super::unsent::Unsent;
use super::written::Data;
use crate::http::body::{self, ReadError};
use crate::server::{InFlight, Metadata, Server};
use ::http::{StatusCode, Version};
use hyper::body::Body;
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

/// What a `POST` to a streaming service keeps for after its body is read: the
/// settings, its hold on the connection, and its metadata (whose headers name the
/// session and say what the client accepts; the session adds to it).
pub(super) struct StreamingPost {
    pub(super) sse: Arc<Sse>,
    pub(super) busy: Option<Box<dyn Send + Sync>>,
    pub(super) metadata: Metadata,
}

/// Who answers a request once its body is read.
pub(super) enum Answerer {
    /// The engine, with the request's metadata shared as its calls' contexts hold it
    /// (`None` when it is empty).
    Engine(Option<Arc<Metadata>>),
    /// A streaming service ([`Service::streaming`](super::Service::streaming)): boxed,
    /// as the usual request needs none of it.
    Streaming(Box<StreamingPost>),
}

/// A request accepted for reading: its body, and what handling it needs.
pub(super) struct Exchange<B> {
    /// Metadata shared and the streaming part boxed, the request's future is 736 bytes
    /// rather than 1,264: under the 1,032 bytes up to which glibc keeps blocks in a
    /// cache of each thread, its box costs about 500 instructions less to allocate and
    /// free (BENCHMARKS.md, "The HTTP request's Host check and future").
    pub(super) answerer: Answerer,
    pub(super) server: Server,
    pub(super) body: B,
    pub(super) limit: usize,
    pub(super) body_timeout: Option<Duration>,
    pub(super) version: Version,
    pub(super) in_flight: Option<InFlight>,
    pub(super) unsent: Option<Arc<Unsent>>,
    pub(super) no_response: NoResponse,
}

impl<B> Exchange<B>
where
    B: Body,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    /// Reads the body, has the engine handle it, and answers; `guard` is dropped with
    /// the future (the connection counts the request as in progress until then).
    pub(super) async fn finish<G: Send + Sync + 'static, D: Data>(
        self,
        guard: G,
    ) -> Result<Answer<D>, Infallible> {
        let body = match before(self.body_timeout, body::read(self.body, self.limit)).await {
            Some(Ok(body)) => body,
            Some(Err(ReadError::TooLarge)) => return Ok(too_large()),
            Some(Err(ReadError::Body(_))) => return Ok(empty(StatusCode::BAD_REQUEST)),
            None => return Ok(too_slow(self.version)),
        };
        let metadata = match self.answerer {
            Answerer::Engine(metadata) => metadata,
            Answerer::Streaming(post) => {
                let post = *post;
                let close = self
                    .unsent
                    .map(|unsent| Arc::new(move || unsent.close()) as streaming::Close);
                let engine = streaming::Post {
                    server: self.server,
                    metadata: post.metadata,
                    in_flight: self.in_flight,
                    no_response: self.no_response,
                    close,
                };
                let guard = Box::new((guard, post.busy));
                // Boxed: held inline, its state would grow every request's future (it
                // is moved into a box per request, so its size is copied each time).
                let answer = streaming::post(post.sse, engine, body, guard);
                return Ok(Box::pin(answer).await);
            }
        };
        let _guard = guard;
        let answer = match self.in_flight {
            Some(in_flight) => {
                let connection = self.server.connection_shared(metadata, &in_flight);
                connection.handle(&body).await
            }
            None => self.server.handle_shared(&body, metadata).await,
        };
        self.server
            .meter()
            .http_exchange(body.len(), answer.as_ref().map_or(0, Vec::len));
        Ok(match answer {
            Some(response) => {
                let length = response.len();
                let body = match &self.unsent {
                    Some(unsent) => D::held(response, unsent.hold(length)),
                    None => D::from_vec(response),
                };
                json_body(StatusCode::OK, body)
            }
            None => empty(match self.no_response {
                NoResponse::NoContent => StatusCode::NO_CONTENT,
                NoResponse::Accepted => StatusCode::ACCEPTED,
            }),
        })
    }
}

/// `future`'s output, or `None` when it is not ready within `timeout`; a future ready
/// at once arms no timer, and allocates none (the timer of one that waits is boxed,
/// so that the usual request's future stays small).
async fn before<F: Future>(timeout: Option<Duration>, future: F) -> Option<F::Output> {
    let mut future = std::pin::pin!(future);
    let Some(timeout) = timeout else {
        return Some(future.await);
    };
    if let Poll::Ready(output) =
        std::future::poll_fn(|cx| Poll::Ready(future.as_mut().poll(cx))).await
    {
        return Some(output);
    }
    Box::pin(tokio::time::timeout(timeout, future)).await.ok()
}
