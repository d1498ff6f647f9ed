//! Transports: what moves a client's bytes to a server and the answers back.
//!
//! The engines speak bytes in, bytes out; a transport only moves them. On the client
//! side the boundary is one small trait, [`Transport`], that fits the two shapes
//! JSON-RPC travels on:
//!
//! - **Request/response** (HTTP, [`memory`]): every message the client sends is one
//!   exchange, and the exchange's answer (an HTTP response body) is the whole reply to
//!   that message. [`Transport::send`] returns it as [`Delivery::Answer`], or
//!   [`Delivery::NoAnswer`] when the peer answered with no body (a notification).
//! - **Symmetric message streams** ([`peer`]: byte streams framed by [`stream`], WebSocket): a
//!   message goes out, and replies arrive whenever the peer sends them, interleaved
//!   with replies to other calls. Such a transport keeps the [`Inbox`] the client
//!   hands it in [`Transport::attach`], returns [`Delivery::Routed`] from `send`, and
//!   pushes every message it receives into [`Inbox::deliver`]; the client routes
//!   responses to their calls by id through its table of pending calls. When the
//!   connection ends, the transport calls [`Inbox::close`] and every pending call
//!   fails at once with [`client::Error::Closed`](crate::client::Error::Closed).
//!
//! Generated code never names a transport: it holds a [`client::Client`](crate::client::Client),
//! and the application chooses the transport when it builds that client.

// The overview names transports whose features may be off in this build.
#![cfg_attr(
    not(all(feature = "memory", feature = "stream")),
    allow(rustdoc::broken_intra_doc_links)
)]

pub use crate::client::Inbox;

#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "memory")]
pub mod memory;

#[cfg(feature = "stream")]
pub mod peer;
#[cfg(feature = "stream")]
pub mod stream;
#[cfg(feature = "ws")]
pub mod ws;

pub use crate::client::transport_error::{Error, ErrorKind};

use bytes::Bytes;
use std::future::Future;
use std::pin::Pin;

/// The future [`Transport::send`] returns.
pub type SendFuture<'a> = Pin<Box<dyn Future<Output = Result<Delivery, Error>> + Send + 'a>>;

/// What a transport did with one message the client sent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Delivery {
    /// The exchange carried an answer, and these bytes are the whole of it: the reply
    /// to exactly the message that was sent (request/response transports).
    Answer(Bytes),
    /// The exchange completed and the peer answered nothing (an HTTP 204 or 202, or a
    /// server engine that had nothing to say). A request sent this way gets no answer.
    NoAnswer,
    /// The message is on its way; replies arrive through the [`Inbox`] (message
    /// stream transports).
    Routed,
}

/// How a [`client::Client`](crate::client::Client) sends bytes.
///
/// Implement it to carry JSON-RPC over a new wire; see the [module docs](self) for the
/// two shapes a transport can take. Each call to [`send`](Transport::send) carries one
/// complete JSON-RPC message (a request, a notification or a batch), already serialised.
pub trait Transport: Send + Sync + 'static {
    /// Called once, when a client takes the transport and before the first `send`.
    ///
    /// Message stream transports keep `inbox` and deliver every message they receive
    /// into it. Request/response transports ignore it, which is the default.
    fn attach(&mut self, inbox: Inbox) {
        let _ = inbox;
    }

    /// Whether this is a request/response transport: the answer to every message comes
    /// back from that message's own [`send`](Transport::send) ([`Delivery::Answer`] or
    /// [`Delivery::NoAnswer`], never [`Delivery::Routed`]), and nothing arrives through
    /// the [`Inbox`]. The client then waits for each call's answer where it sent it,
    /// without registering the call in its table of pending calls.
    ///
    /// The default, `false`, is right for every transport; a request/response transport
    /// that says `true` saves the client that work.
    fn is_request_response(&self) -> bool {
        false
    }

    /// Sends one message and returns what came back on this exchange.
    ///
    /// # Errors
    ///
    /// A transport [`Error`] when the message could not be delivered or its answer
    /// could not be read. Every call the message carried fails with it.
    fn send(&self, message: Bytes) -> SendFuture<'_>;

    /// Called when a call sent with [`Delivery::Routed`] is given up before its answer
    /// came (its future was dropped, or it timed out); for a batch, once for each of its
    /// calls still unanswered. A message stream transport may tell the peer, as the
    /// LSP's `$/cancelRequest` notification does; the default does nothing. Must not
    /// block.
    fn cancel(&self, id: u64) {
        let _ = id;
    }
}
