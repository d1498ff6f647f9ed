//! The HTTP server: a [`Service`] answering JSON-RPC `POST`s (and, under
//! [`Service::streaming`], event streams and sessions), and [`serve`] running it on a
//! TCP listener, one task per connection.

mod answer;
mod closing;
mod connection;
mod exchange;
mod host;
mod origin;
mod refusal;
mod serve;
mod service;
mod streaming;
mod unsent;
mod upgrade;
#[cfg(feature = "sign")]
mod verify;
mod written;

pub use answer::{NoResponse, ResponseBody};
pub(crate) use connection::Socket;
pub use host::Hosts;
pub use origin::Origins;
pub use serve::{
    DEFAULT_HEADER_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_UNSENT_BYTES, Serve, serve,
};
pub use service::{DEFAULT_BODY_TIMEOUT, PeerAddr, Service};
pub use streaming::{
    DEFAULT_MAX_CALLS, DEFAULT_MAX_REPLAY_BYTES, DEFAULT_MAX_SESSION_CALLS, DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_SESSIONS_PER_PEER, DEFAULT_SESSION_IDLE, MCP_PROTOCOL_VERSIONS, SessionId,
    Streaming, StreamingStats,
};
pub use upgrade::{ReadMetadata, Upgrade};
#[cfg(feature = "sign")]
pub use verify::{DEFAULT_MAX_SIGNED_SIZE, Verified, VerifySignature};
