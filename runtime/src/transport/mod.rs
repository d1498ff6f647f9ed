//! Transports: what moves messages between a client and a server.
//!
//! The engines speak bytes in, bytes out; a transport only moves them. It stands on
//! both engines and neither knows it:
//!
//! - on the client side it implements the client's port,
//!   [`client::Transport`](crate::client::Transport), in one of two shapes:
//!   request/response (HTTP, [`memory`]) or a two-way message stream ([`peer`]: byte
//!   streams framed by [`stream`], WebSocket);
//! - on the server side it hands each message it receives to
//!   [`server::Connection::handle_input`](crate::server::Connection::handle_input)
//!   (or its shorthands), and sends back what that returns.
//!
//! Generated code never names a transport: it holds a [`client::Client`](crate::client::Client),
//! and the application chooses the transport when it builds that client.

// The overview names transports whose features may be off in this build.
#![cfg_attr(
    not(all(feature = "memory", feature = "stream")),
    allow(rustdoc::broken_intra_doc_links)
)]

#[cfg(feature = "broker")]
pub mod broker;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "memory")]
pub mod memory;
mod moved;
#[allow(deprecated)]
pub use moved::{Delivery, Error, ErrorKind, Inbox, SendFuture, Transport};

#[cfg(feature = "stream")]
pub mod peer;
#[cfg(feature = "stream")]
pub mod stream;
mod streamed;
pub use streamed::{Streamed, caller, with_caller};
#[cfg(feature = "tls")]
mod tls;
#[cfg(feature = "ws")]
pub mod ws;

/// The client of a connection (or an HTTP session), kept in its metadata without
/// keeping it alive.
#[cfg(any(feature = "http", feature = "stream"))]
#[derive(Clone)]
pub(crate) struct Remote(pub(crate) crate::client::WeakClient);

/// The client for calls and notifications back to the other side of the connection
/// `context`'s call came on: how a handler pushes a notification to its own caller, or
/// asks it something. On a [`peer`] connection (byte streams, WebSocket), and over HTTP
/// in a [streaming](http::Service::streaming) service (sent as events, on the call's
/// own event stream while it runs, else on its session's `GET` stream; the other
/// side's responses come back as `POST`s of the session). `None` when the call came
/// another way (plain HTTP, in-memory) or the connection or session is gone.
#[cfg(any(feature = "http", feature = "stream"))]
pub fn remote(context: &crate::server::Context) -> Option<crate::client::Client> {
    context.metadata().extensions.get::<Remote>()?.0.upgrade()
}
