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

/// Moved to [`crate::fanout`]: a fan-out of pushes across instances is no transport.
#[cfg(feature = "broker")]
#[deprecated(since = "0.1.0", note = "moved to `rpcsmith::fanout`")]
pub mod broker {
    pub use crate::fanout::*;
}
/// Moved to [`crate::http`].
#[cfg(feature = "http")]
#[deprecated(since = "0.1.0", note = "moved to `rpcsmith::http`")]
pub mod http {
    pub use crate::http::*;
}
#[cfg(all(feature = "browser", target_arch = "wasm32"))]
pub mod browser;
#[cfg(feature = "memory")]
pub mod memory;
mod moved;
#[allow(deprecated)]
pub use moved::{Delivery, Error, ErrorKind, Inbox, SendFuture, Transport};

#[cfg(any(feature = "http", feature = "stream"))]
pub(crate) mod remote;
#[cfg(any(feature = "http", feature = "stream"))]
pub use remote::remote;

#[cfg(feature = "stream")]
pub mod peer;
#[cfg(feature = "stream")]
pub mod stream;
mod streamed;
pub use streamed::{Streamed, caller, with_caller};
#[cfg(feature = "tls")]
pub(crate) mod tls;
#[cfg(feature = "ws")]
pub mod ws;
