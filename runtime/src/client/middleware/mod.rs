//! Client middleware: code that runs around every message a [`Client`](super::Client)
//! sends, between the engine and the [`Transport`](super::Transport).
//!
//! # Why a trait of our own, shaped like a tower layer
//!
//! A tower `Service` is called through `&mut self` after `poll_ready`, and is cloned to
//! be shared; a client's calls are concurrent and share one transport by reference, so
//! every call would clone the whole stack, and retry would need the request to be
//! `Clone` through every layer anyway. jsonrpsee's client middleware (`RpcServiceT`,
//! stacked by `RpcServiceBuilder`) takes the same way out: a trait taking `&self` whose
//! services wrap each other. Here, as on the server ([`server::Middleware`]), a
//! [`Middleware`] is shared by reference and gets the [`Exchange`] (the message, what
//! it carries — method, id, or a batch — and headers of its own) and the rest of the
//! chain, [`Next`], which it may run once, several times or not at all. Tower layers
//! still fit where they belong: around a transport's own HTTP stack.
//!
//! Middleware sits below the engine: the engine gives every message its id, its span
//! (`call`, with `method`, `id` and, once known, `outcome`) and its timeout, then runs
//! the chain; the last link hands the exchange to the transport, with its headers when
//! it has any ([`Transport::send_with_headers`](super::Transport::send_with_headers)).
//! Because every attempt runs inside the call's timeout, a retrying middleware never
//! makes a call wait longer than it was allowed.
//!
//! What comes with the crate:
//!
//! - [`Retry`]: idempotent methods sent again, with a [`Backoff`], on failures that are
//!   safe to retry.
//! - [`Authorize`]: per-call [`Credentials`], refreshed once on a refusal.
//! - `TracePropagation` (feature `otel`): W3C trace context injected into each exchange.
//! - `Sign` (feature `sign`): each HTTP request signed, with a timestamp and a nonce.
//!
//! [`server::Middleware`]: crate::server::Middleware

mod chain;
mod credentials;
#[cfg(feature = "otel")]
mod propagation;
mod retry;
#[cfg(feature = "sign")]
mod sign;

pub use chain::{Carries, Exchange, Middleware, Next};
pub use credentials::{Authorize, Credentials, RefreshFuture};
#[cfg(feature = "otel")]
pub use propagation::TracePropagation;
pub use retry::{Backoff, DEFAULT_RETRY_STATUSES, Retry};
#[cfg(feature = "sign")]
pub use sign::Sign;
