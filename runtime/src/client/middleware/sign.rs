//! Each request signed, with a timestamp and a nonce: [`Sign`].

use super::chain::{Exchange, Middleware, Next};
use crate::client::port::SendFuture;
use crate::client::transport_error::{TransportError, TransportErrorKind};
use crate::protocol::sign::Key;

/// Signs every exchange's body with a [`Key`] (HMAC-SHA256 or Ed25519), a timestamp and
/// a fresh nonce, in the headers [`protocol::sign`](crate::protocol::sign) describes; a
/// server with `http::VerifySignature` checks them.
///
/// Each attempt is signed anew: under [`Retry`](super::Retry), add `Sign` after it
/// (inner), so a retried request carries a nonce of its own rather than one the server
/// has seen. The signature covers the message's bytes as they leave this middleware:
/// middleware that changes the message runs before it (outer).
///
/// Only transports that carry headers (HTTP) are covered: on another transport every
/// exchange fails with a [`TransportError`] of kind [`Config`](TransportErrorKind::Config)
/// rather than go out unsigned.
#[derive(Debug)]
pub struct Sign {
    key: Key,
}

impl Sign {
    /// Signs with `key`.
    pub fn new(key: Key) -> Self {
        Sign { key }
    }
}

impl Middleware for Sign {
    fn send<'a>(&'a self, mut exchange: Exchange, next: Next<'a>) -> SendFuture<'a> {
        if !next.carries_headers() {
            let error = TransportError::new(
                TransportErrorKind::Config,
                "signed requests need a transport that carries headers (HTTP)",
            );
            return Box::pin(std::future::ready(Err(error)));
        }
        match self.key.sign(exchange.message()) {
            Ok(headers) => {
                exchange.headers_mut().extend(headers);
                next.run(exchange)
            }
            Err(error) => Box::pin(std::future::ready(Err(TransportError::with_source(
                TransportErrorKind::Config,
                "signing the request failed",
                error,
            )))),
        }
    }
}
