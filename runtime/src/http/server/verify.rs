//! Signed requests checked before the server sees them: the tower layer
//! [`VerifySignature`] and the service it makes, [`Verified`].

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use ::http::{Request, StatusCode};
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Body;

use super::answer::{Answer, refusal, too_large, too_slow};
use super::service::DEFAULT_BODY_TIMEOUT;
use crate::http::body::{self, ReadError};
use crate::protocol::sign::Verifier;

/// How large a body [`VerifySignature`] reads unless told: 10 MiB.
pub const DEFAULT_MAX_SIGNED_SIZE: usize = 10 * 1024 * 1024;

/// A tower layer that checks every request's signature, timestamp and nonce with a
/// [`Verifier`] before the wrapped service (a [`Service`](super::Service)) sees it: the
/// server side of [`client::Sign`](crate::client::Sign); the scheme is in
/// [`protocol::sign`](crate::protocol::sign).
///
/// It reads the body whole (within [`max_request_size`](Self::max_request_size) and
/// [`DEFAULT_BODY_TIMEOUT`]), checks it, and passes the request on with the same body
/// bytes; a refused request never reaches the server and is answered
/// `401 Unauthorized` with a JSON-RPC error body: `-32017`
/// ([`code::SIGNATURE_REFUSED`](crate::protocol::code::SIGNATURE_REFUSED)), `id: null`,
/// and the message saying why. Every request is checked, whatever its HTTP method: a
/// `GET` (an event stream, a WebSocket upgrade) must be signed too, over an empty body,
/// and the messages then sent over a WebSocket are not signed.
#[derive(Debug, Clone)]
pub struct VerifySignature {
    verifier: Arc<Verifier>,
    max_size: usize,
}

impl VerifySignature {
    /// Checks requests with `verifier`.
    pub fn new(verifier: Verifier) -> Self {
        VerifySignature {
            verifier: Arc::new(verifier),
            max_size: DEFAULT_MAX_SIGNED_SIZE,
        }
    }

    /// The largest body read to be checked; larger ones are answered `413` (`-32007`).
    pub fn max_request_size(mut self, bytes: usize) -> Self {
        self.max_size = bytes;
        self
    }
}

impl<S> tower_layer::Layer<S> for VerifySignature {
    type Service = Verified<S>;

    fn layer(&self, inner: S) -> Verified<S> {
        Verified {
            inner,
            verifier: Arc::clone(&self.verifier),
            max_size: self.max_size,
        }
    }
}

/// A service whose requests are checked by [`VerifySignature`] first.
#[derive(Debug, Clone)]
pub struct Verified<S> {
    inner: S,
    verifier: Arc<Verifier>,
    max_size: usize,
}

impl<S, B> tower_service::Service<Request<B>> for Verified<S>
where
    S: tower_service::Service<Request<Full<Bytes>>, Response = Answer, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
    B: Body + Send + 'static,
    B::Data: Send,
{
    type Response = Answer;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Answer, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // The clone that was ready is the one to call; a fresh clone waits for the next.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let verifier = Arc::clone(&self.verifier);
        let limit = self.max_size;
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let read = tokio::time::timeout(DEFAULT_BODY_TIMEOUT, body::read(body, limit));
            let body = match read.await {
                Ok(Ok(body)) => body,
                Ok(Err(ReadError::TooLarge)) => return Ok(too_large()),
                Ok(Err(ReadError::Body(_))) => {
                    return Ok(super::answer::empty(StatusCode::BAD_REQUEST));
                }
                Err(_) => return Ok(too_slow(parts.version)),
            };
            if let Err(refused) = verifier.verify(&parts.headers, &body) {
                tracing::debug!(message = %refused.message, "signature refused");
                return Ok(refusal(StatusCode::UNAUTHORIZED, &refused));
            }
            inner
                .call(Request::from_parts(parts, Full::new(body)))
                .await
        })
    }
}
