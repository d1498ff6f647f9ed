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
//! | an `Origin` header not accepted by [`Service::origins`] (any method, WebSocket upgrades included) | `403 Forbidden` with a JSON-RPC error body (`-32600`, `id: null`) |
//! | a `Host` not accepted by [`Service::hosts`] (by default, on a loopback listener: any name but `localhost`, `127.0.0.1`, `[::1]`) | `403 Forbidden` with a JSON-RPC error body (`-32600`, `id: null`) |
//! | a path other than [`Service::path`], when set | `404 Not Found` with a JSON-RPC error body (`-32600`, `id: null`) |
//!
//! Under [`Service::streaming`] (Server-Sent Events and sessions, MCP's Streamable
//! HTTP with [`Streaming::mcp`]):
//!
//! | request | answer |
//! |---|---|
//! | a `POST` of requests accepting `text/event-stream`, whose handlers send something (a notification, a request to the client) before the response | `200 OK`, `Content-Type: text/event-stream`: one event per message, each with an id, the response last, then the stream ends |
//! | the same when nothing is sent before the response | `200 OK`, `application/json`, as without streaming |
//! | a `POST` of only notifications or responses (the client's answers to the server's requests) | [`Streaming::no_response_status`] (MCP: `202 Accepted`) |
//! | a `POST` whose requests include the session-starting method, without a session header | answered, with the new session's id in the [session header](Streaming::session_header) when that call succeeded; `503` (`-32009`) with `Retry-After` past [`Streaming::max_sessions`] or [`Streaming::max_sessions_per_peer`] when no idle never-used session can go |
//! | a `POST` of calls past [`Streaming::max_calls`] (per session, or in total) | `503` (`-32009`), `Retry-After: 1` |
//! | under [`Streaming::refuse_unparsable`] (MCP): a body refused whole (not JSON, an empty batch, a batch too long) | `400 Bad Request` with its error (`-32700`, `-32600`, `-32010`; `id: null`) |
//! | a batch on a session whose revision is past [`Streaming::batches_until`] (MCP: after 2025-03-26) | `400 Bad Request` (`-32600`) |
//! | the [cancellation](Streaming::cancellation) notification (MCP's `notifications/cancelled`) | the call it names in the session is dropped and not answered; `202` |
//! | any other request without the session header, when [required](Streaming::require_session) | `400 Bad Request` |
//! | a session header naming no live session (unknown, ended, expired) | `404 Not Found`: the client starts a new session |
//! | `GET` accepting `text/event-stream`, with a session | the session's stream of what the server sends outside any request; `409 Conflict` when one is open already |
//! | `GET` with `Last-Event-ID` | the stream that event was on, from after it; `410 Gone` when events after it are no longer held ([`Streaming::replay_window`]); `400` when the id is not `<digits>-<digits>` or names no event sent; `409` when that stream has a reader |
//! | `DELETE` with a session | `200 OK`: the session ends (its streams end, its calls to the client fail) |
//! | a [protocol version header](Streaming::protocol_versions) with a value not listed | `400 Bad Request` |
//! | under [`Streaming::require_accept`] (MCP): a `POST` whose `Accept` lacks `application/json` or `text/event-stream`, a `GET` whose lacks `text/event-stream` | `406 Not Acceptable` with a JSON-RPC error body (`-32600`, `id: null`) |
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
//! [`client::Client`](crate::client::Client). With
//! [`ClientBuilder::streaming`] it takes event-stream answers, keeps the session, and
//! hands what the server sends to the client's subscriptions and listener.

mod body;
mod client;
mod media;
pub(crate) mod server;
mod sse;

pub use crate::transport::remote;
#[cfg(feature = "oauth")]
pub use client::oauth;
pub use client::{
    Client, ClientBuilder, ClientStreaming, DEFAULT_CLIENT_CONNECTIONS, DEFAULT_MAX_RESPONSE_SIZE,
};
pub use server::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_MAX_CALLS, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_REPLAY_BYTES, DEFAULT_MAX_SESSION_CALLS, DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_SESSIONS_PER_PEER, DEFAULT_MAX_UNSENT_BYTES, DEFAULT_SESSION_IDLE, Hosts,
    MCP_PROTOCOL_VERSIONS, NoResponse, Origins, PeerAddr, ReadMetadata, ResponseBody, Serve,
    Service, SessionId, Streaming, StreamingStats, Upgrade, serve,
};
#[cfg(feature = "sign")]
pub use server::{DEFAULT_MAX_SIGNED_SIZE, Verified, VerifySignature};
