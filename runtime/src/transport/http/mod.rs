//! JSON-RPC over HTTP (hyper 1): a server that is a [`tower::Service`], a [`serve`]
//! helper for a TCP listener, and a client transport with pooled keep-alive
//! connections (see [`Client`]).
//!
//! # The server side
//!
//! [`Service`] answers `POST` requests whose body is a JSON-RPC message:
//!
//! | request | answer |
//! |---|---|
//! | a request or a batch with at least one request | `200 OK`, `Content-Type: application/json`, the response body |
//! | a notification, or a batch of only notifications | `204 No Content` (or `202 Accepted`, see [`Service::no_response_status`]), no body |
//! | a body larger than [`Service::max_request_size`] | `413 Payload Too Large` with a JSON-RPC error body (`-32007`, `id: null`), found while reading, before parsing |
//! | a body still incomplete after [`Service::body_timeout`] | `408 Request Timeout` with a JSON-RPC error body (`-32012`, `id: null`); over HTTP/1.1 the connection closes |
//! | a connection past [`Serve::max_connections`] | `503 Service Unavailable`, `Retry-After: 1`, with a JSON-RPC error body (`-32009`, `id: null`); the connection closes |
//! | a method other than `POST` | `405 Method Not Allowed`, `Allow: POST`, with a JSON-RPC error body |
//! | a `Content-Type` other than `application/json` (parameters allowed) | `415 Unsupported Media Type` with a JSON-RPC error body, unless [`Service::any_content_type`] |
//!
//! The request's headers and extensions, and the peer address when [`serve`] accepted
//! the connection (or a [`PeerAddr`] extension says it), reach the server engine through
//! [`server::Metadata`](crate::server::Metadata), so handlers can authenticate.
//! Because it is a `tower::Service`, it mounts inside an axum or hyper application
//! and takes tower-http layers; [`serve`] (or [`Serve`], to limit connections) runs
//! it, layered or not, on a TCP listener.
//!
//! # The client side
//!
//! [`Client`] posts each message to one URL and returns the response body as the
//! answer; see [`transport`](crate::transport) for how it plugs into a
//! [`client::Client`](crate::client::Client).

mod answer;
mod body;
mod client;
mod client_stream;
mod connection;
mod listen;
mod origin;
mod pool;
mod refusal;
mod serve;
mod service;
mod sse;
mod unsent;

pub use crate::transport::remote;
pub use answer::{NoResponse, ResponseBody};
pub use listen::ClientStreaming;
pub use origin::Origins;
pub use sse::{
    DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE, MCP_PROTOCOL_VERSIONS, SessionId, Streaming,
};

pub use client::{Client, ClientBuilder, DEFAULT_CLIENT_CONNECTIONS, DEFAULT_MAX_RESPONSE_SIZE};
pub(crate) use connection::Socket;
pub use serve::{
    DEFAULT_HEADER_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_UNSENT_BYTES, Serve, serve,
};
pub use service::{DEFAULT_BODY_TIMEOUT, PeerAddr, Service};
