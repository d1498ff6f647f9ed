//! Push across server instances through an existing message broker.
//!
//! HTTP calls are stateless: several instances behind a reverse proxy answer them alike.
//! Push is not: a [`Hub`](crate::transport::peer::Hub) knows the connections of its own process,
//! and a subscription's [`Sink`](crate::server::Sink) feeds one connection. A
//! [`Fanout`] carries both across instances through a broker: what one instance
//! publishes is delivered to its own connections at once, and published to the broker,
//! from which every other instance's `Fanout` receives it and delivers it to its
//! connections.
//!
//! ```text
//!            clients (HTTP, WebSocket)
//!                      │
//!                  ┌───┴───┐
//!                  │ nginx │
//!                  └───┬───┘
//!         ┌────────────┼────────────┐
//!    instance a    instance b    instance c     each: Server + Hub + Fanout
//!         └────────────┼────────────┘
//!                ┌─────┴─────┐
//!                │Redis/NATS │  publish / subscribe, one channel per topic
//!                └───────────┘
//! ```
//!
//! The broker stands behind a small trait, [`Broker`]: publish bytes to a topic,
//! subscribe to a topic as a stream of bytes. Two implementations ship, each behind its
//! own feature so that a user compiles only the client it uses: `redis` (feature
//! `redis`, the `redis` crate: `rediss://` TLS, ACL user and password) and `nats`
//! (feature `nats`, `async-nats`: TLS, user and password or token).
//!
//! **Why these two.** Both Redis and NATS deliver a topic's messages at most once and in
//! order per publishing connection, which is what a fan-out of notifications needs, and
//! both are packaged by the distributions (`redis-server`, `nats-server`) and sold as
//! managed services. Each is spoken through its maintained client crate, with the TLS and
//! authentication those services require.
//!
//! **Semantics.**
//!
//! - *Reach*: a publish on one instance reaches the connections (notifications) or
//!   subscribers (topics) of every instance linked to the broker, its own included.
//! - *Order*: in order per publisher (one task publishing one after the other): an
//!   instance publishes through one broker connection, one message at a time, and the
//!   broker delivers a connection's messages in order.
//! - *Broker down*: a publish still delivers to the local connections, then fails with
//!   [`PublishError::Broker`] saying what was delivered locally; each attempt to reach
//!   the broker is bounded by the broker client's timeout (an instance's publishes go
//!   one at a time, so those behind an unanswered one wait their turn as well). Each
//!   instance's subscription to the broker
//!   is retried, with a backoff from 20 ms up to 2 s, until the broker answers again
//!   ([`Fanout::is_linked`] says when it is). A broker client that reconnects by itself
//!   (NATS) ends its subscription's stream when it reports the connection lost, so that
//!   this holds for it too.
//! - *What is lost*: what other instances publish while an instance is not linked (the
//!   broker is down, or the link is being made again) never reaches that instance's
//!   connections: pub/sub keeps no history. A subscriber the broker judges too slow
//!   (Redis: `client-output-buffer-limit pubsub`) is disconnected by it and relinks, losing
//!   what it missed (NATS drops a slow consumer's messages instead). NATS core
//!   acknowledges no publish: a message flushed just before its server died may be lost
//!   without an error. Clients that must not miss an item re-read the state they follow
//!   after a reconnection of their own.
//! - *Bounds*: a message from the broker larger than the broker client's limit is
//!   dropped (and logged; each client's module says what bounds it before that);
//!   delivery to each connection goes through its own bounded
//!   queue (a full one is reported, never waited for); the fan-out holds no buffer of
//!   its own.
//!
//! The broker's topics are trusted like the instances themselves: a message found on
//! them that is not one this module wrote (a frame too short, JSON that does not parse)
//! is dropped with a warning, anything else is pushed to clients as it is.

#[cfg(feature = "nats")]
pub mod nats;
mod publish;
#[cfg(feature = "redis")]
pub mod redis;

pub use publish::{Delivered, Fanout, PublishError, Topic};

use std::fmt;
use std::pin::Pin;

use bytes::Bytes;
use futures_core::Stream;

use crate::server::BoxFuture;

/// The messages of one broker subscription, in the order the broker sent them. The
/// stream ends when the subscription is lost (the connection to the broker broke, or
/// the broker went silent): the [`Fanout`] then subscribes again.
pub type Messages = Pin<Box<dyn Stream<Item = Bytes> + Send>>;

/// A message broker's publish/subscribe, as the [`Fanout`] uses it.
pub trait Broker: Send + Sync + 'static {
    /// Publishes `payload` on `topic`; resolves once the broker has taken it.
    /// Messages published one after the other (each awaited) are delivered in that
    /// order.
    ///
    /// # Errors
    ///
    /// [`Error`] when the broker cannot be reached or refuses the message; the message
    /// may then not have been delivered. It must return within a bounded time.
    fn publish<'a>(&'a self, topic: &'a str, payload: Bytes) -> BoxFuture<'a, Result<(), Error>>;

    /// Subscribes to `topic`: resolves once the broker has confirmed the subscription,
    /// with the stream of the messages published on it from then on.
    ///
    /// # Errors
    ///
    /// [`Error`] when the broker cannot be reached or refuses the subscription.
    fn subscribe<'a>(&'a self, topic: &'a str) -> BoxFuture<'a, Result<Messages, Error>>;
}

/// Why a broker did not publish or subscribe.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The broker could not be reached, the connection to it broke, or it did not
    /// answer in time.
    Unavailable(std::io::Error),
    /// The broker answered with an error (its text).
    Refused(String),
    /// The broker answered something this client does not understand.
    Protocol(String),
    /// The broker's settings are not valid: a URL that does not parse, a certificate
    /// that is not PEM. Fix the settings; trying again does not help.
    Invalid(String),
    /// The message is larger than the broker client allows.
    TooLarge {
        /// Its size in bytes.
        size: usize,
        /// The largest message allowed.
        limit: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Unavailable(error) => write!(f, "the broker is unavailable: {error}"),
            Error::Refused(text) => write!(f, "the broker refused: {text}"),
            Error::Protocol(text) => write!(f, "the broker's answer is not understood: {text}"),
            Error::Invalid(text) => write!(f, "the broker's settings are not valid: {text}"),
            Error::TooLarge { size, limit } => write!(
                f,
                "the message is {size} bytes, more than the broker client's limit of {limit}"
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Unavailable(error) => Some(error),
            _ => None,
        }
    }
}
