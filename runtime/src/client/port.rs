//! The client's port: the trait a transport implements to carry a [`Client`]'s messages
//! ([`Transport`]), what it reports back ([`Delivery`]), and how it fails
//! ([`TransportError`]). The transports of [`crate::transport`] implement it; a new
//! wire needs nothing else.
//!
//! [`Client`]: super::Client

use bytes::Bytes;
use http::HeaderMap;
use std::future::Future;
use std::pin::Pin;

use super::route::Inbox;
use super::transport_error::TransportError;

/// The items of a stream the client hosts for the other side to pull
/// ([`Transport::host`]): each one item's JSON text.
pub type HostedItems = Pin<Box<dyn futures_core::Stream<Item = Bytes> + Send>>;

/// A stream a transport hosts for the other side ([`Transport::host`]): its id, and
/// whatever keeps it registered. Dropping it ends the stream.
pub struct Hosting {
    id: Box<serde_json::value::RawValue>,
    _registered: Box<dyn Send + Sync>,
}

impl Hosting {
    /// A hosted stream named `id` (JSON text: a string or a number), registered while
    /// `registered` lives; `None` when `id` is not JSON.
    pub fn new(id: String, registered: impl Send + Sync + 'static) -> Option<Self> {
        Some(Self {
            id: serde_json::value::RawValue::from_string(id).ok()?,
            _registered: Box::new(registered),
        })
    }

    /// The stream's id, as JSON.
    pub fn id(&self) -> &serde_json::value::RawValue {
        &self.id
    }
}

impl std::fmt::Debug for Hosting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Hosting").field(&self.id.get()).finish()
    }
}

/// The future [`Transport::send`] returns.
pub type SendFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Delivery, TransportError>> + Send + 'a>>;

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

/// How a [`Client`](super::Client) sends bytes.
///
/// A transport takes one of two shapes:
///
/// - **Request/response** (HTTP, in-memory): every message the client sends is one
///   exchange, and the exchange's answer (an HTTP response body) is the whole reply to
///   that message. [`Transport::send`] returns it as [`Delivery::Answer`], or
///   [`Delivery::NoAnswer`] when the peer answered with no body (a notification).
/// - **Two-way message streams** (byte streams, WebSocket): a message goes out, and
///   replies arrive whenever the peer sends them, interleaved with replies to other
///   calls. Such a transport keeps the [`Inbox`] the client hands it in
///   [`Transport::attach`], returns [`Delivery::Routed`] from `send`, and pushes every
///   message it receives into [`Inbox::deliver`]; the client routes responses to their
///   calls by id through its table of pending calls. When the connection ends, the
///   transport calls [`Inbox::close`] and every pending call fails at once with
///   [`Error::Closed`](super::Error::Closed).
///
/// Implement it to carry JSON-RPC over a new wire. Each call to [`send`](Transport::send) carries one
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

    /// Whether the other side's notifications reach the client: the transport offers
    /// each notification it receives to the client's subscriptions
    /// ([`Inbox::route_notification`]) before anything else sees it. A
    /// [`Subscription`](super::Subscription) made through a transport that says `true`
    /// is pushed; otherwise it is pulled (`rpc.stream.next`). The default, `false`, is
    /// right for request/response transports; the symmetric connections of
    /// `transport::peer` say `true`.
    fn receives_pushes(&self) -> bool {
        false
    }

    /// Sends one message and returns what came back on this exchange.
    ///
    /// # Errors
    ///
    /// A [`TransportError`] when the message could not be delivered or its answer
    /// could not be read. Every call the message carried fails with it.
    fn send(&self, message: Bytes) -> SendFuture<'_>;

    /// Whether [`send_with_headers`](Transport::send_with_headers) puts the headers it
    /// is given on the wire (HTTP does). The default, `false`, says it drops them; a
    /// middleware that must reach the peer then carries what it has elsewhere (trace
    /// context, for instance, rides in the params' `_meta`).
    fn carries_headers(&self) -> bool {
        false
    }

    /// Sends one message, as [`send`](Transport::send), with `headers` for this
    /// exchange only, added to the transport's own (what client middleware sets: a
    /// credential, a `traceparent`). The default drops them and calls `send`; a
    /// transport that carries headers overrides both this and
    /// [`carries_headers`](Transport::carries_headers).
    ///
    /// # Errors
    ///
    /// As [`send`](Transport::send).
    fn send_with_headers(&self, message: Bytes, headers: HeaderMap) -> SendFuture<'_> {
        drop(headers);
        self.send(message)
    }

    /// Hosts `items` for the other side of the connection to pull, as the server's
    /// pull streams are pulled (`rpc.stream.next`, `rpc.stream.cancel`, in the other
    /// direction): what a stream param of a call needs. `None` (the default) when the
    /// transport cannot: the other side cannot call this one (HTTP). The symmetric
    /// connections of `transport::peer` can, through the connection's own server.
    fn host(&self, items: HostedItems) -> Option<Hosting> {
        drop(items);
        None
    }

    /// Called when a call sent with [`Delivery::Routed`] is given up before its answer
    /// came (its future was dropped, or it timed out); for a batch, once for each of its
    /// calls still unanswered. A message stream transport may tell the peer, as the
    /// LSP's `$/cancelRequest` notification does; the default does nothing. Must not
    /// block.
    fn cancel(&self, id: u64) {
        let _ = id;
    }
}
