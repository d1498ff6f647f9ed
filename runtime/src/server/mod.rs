//! The server engine: bytes in, bytes (or nothing) out.
//!
//! A [`Server`] is built from a [`Dispatch`] implementation (what rpcsmith-build generates
//! for a document's server trait), [`Limits`] and optional [`Middleware`]. Transports hand
//! it each message, through one entry ([`Connection::handle_input`], or its shorthands
//! [`Connection::handle`] and [`Server::handle`]), with what they know about its origin
//! ([`Metadata`]), and send back what it returns; `None` means nothing may be sent (HTTP
//! answers 204). The engine knows no transport.
//!
//! - **Parsing** follows [`crate::protocol`]: invalid JSON and `[]` are answered once with
//!   `id: null`; invalid batch members in place.
//! - **Batches** run their calls concurrently (no task per call: their futures are
//!   polled together), up to [`Limits::batch_concurrency`] waiting at once, and are
//!   answered in request order.
//! - **Limits** ([`Limits`]): request size (checked before parsing), response size, batch
//!   length, calls in flight per connection, handler time.
//! - **Panics** in a handler or middleware become `-32603 Internal error`; the panic
//!   message is never sent.
//! - **`rpc.*` names** are reserved and answered by the engine: `rpc.stream.next` and
//!   `rpc.stream.cancel` serve pull streams (see [`subscribe`]), the others come from
//!   [`system`] providers (`rpc.discover` answers [`Dispatch::document`], `rpc.methods`
//!   the method names), any other `rpc.*` name `-32601` unless a provider was added for
//!   it; a dispatcher never sees them. Nor does it see the two pull methods of the
//!   kotlinx-rpc JSON-RPC proposal, `kotlinx.rpc.jsonrpc.internal.nextFlowValue` and
//!   `…cancelFlow`, which the engine answers for the same streams.
//! - **Subscriptions** ([`subscribe`], [`unsubscribe`], [`Items`], [`channel`]): the
//!   engine assigns ids, pushes items through the connection's [`Pushes`] where its
//!   transport can push, and serves them as pull streams elsewhere.
//! - **Every call** gets a [`Context`] (method, id, metadata, typed extensions), passes
//!   through the [`Middleware`] chain, and runs inside a `tracing` span named `call` at
//!   debug level, with the method and the id (its JSON text) as fields.
//! - **Rate limits and access control** are middleware a server runs only when given
//!   them: [`RateLimit`] (token buckets per connection, named by the context's
//!   [`ConnectionId`], and per peer address; `-32005` with a retry hint) and [`Access`]
//!   (a [`Rule`](access::Rule) per call, such as [`RequiredScopes`](access::RequiredScopes);
//!   `-32016`).
//!
//! ```
//! use std::time::Duration;
//! use rpcsmith::protocol::{ErrorObject, mismatch};
//! use rpcsmith::server::{Context, Dispatch, Limits, Metadata, Reply, Server, encode};
//! use serde_json::value::RawValue;
//!
//! /// What rpcsmith-build generates for a document with one method, `add(a, b)`.
//! struct Calculator;
//!
//! impl Dispatch for Calculator {
//!     fn call(&self, method: &str, params: Option<&RawValue>, _cx: Context) -> Reply {
//!         match method {
//!             "add" => match mismatch::from_str::<(i64, i64)>(params.map_or("null", RawValue::get)) {
//!                 Ok((a, b)) => Reply::future(async move { encode(&(a + b)) }),
//!                 // `e` says why in JSON terms: "at /1: expected an integer, found …".
//!                 Err(e) => Reply::err(ErrorObject::invalid_params(format!("invalid params: {e}"))),
//!             },
//!             _ => Reply::err(ErrorObject::method_not_found()),
//!         }
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let mut limits = Limits::default();
//! limits.max_batch_len = 100;
//! limits.handler_timeout = Some(Duration::from_secs(5));
//! let server = Server::builder(Calculator).limits(limits).build();
//!
//! let batch = br#"[{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1},
//!                  {"jsonrpc":"2.0","method":"add","params":[3,4]},
//!                  {"jsonrpc":"2.0","method":"nope","id":"x"}]"#;
//! let answer = server.handle(batch, Metadata::default()).await.unwrap();
//! assert_eq!(
//!     String::from_utf8(answer).unwrap(),
//!     concat!(
//!         r#"[{"jsonrpc":"2.0","result":3,"id":1},"#,
//!         r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"x"}]"#
//!     )
//! );
//! # });
//! ```

pub mod access;
pub(crate) mod arm;
mod batch;
mod call;
mod connection_id;
mod context;
mod deadline;
mod dispatch;
mod encoded;
mod endpoint;
mod engine;
pub(crate) mod failure;
mod handling;
mod hold;
mod limits;
mod metadata;
mod middleware;
pub(crate) mod params;
mod pull;
mod pump;
mod push;
pub mod rate;
mod respond;
pub mod router;
mod shared;
mod sink;
mod stream_call;
mod streams;
mod subscription;
pub mod system;
#[cfg(feature = "otel")]
mod trace_context;

pub use access::Access;
pub use connection_id::ConnectionId;
pub use context::Context;
pub use dispatch::{BoxFuture, CallResult, Dispatch, Reply};
#[cfg(feature = "ws")]
pub(crate) use encoded::reuse;
pub use encoded::{Encoded, encode};
pub use engine::{Builder, Connection, Server};
pub use failure::Failure;
pub use handling::Input;
pub use hold::{Held, hold};
pub use limits::Limits;
pub use metadata::Metadata;
pub use middleware::{Call, Middleware, Next};
pub use params::CallParams;
pub(crate) use push::random_id;
pub use push::{Outlet, Pushes};
pub use rate::{Rate, RateLimit};
pub use router::{Mount, Router};
pub use shared::InFlight;
pub use sink::{Closed, Sink, TrySendError, channel, shared_channel};
pub use subscription::{Items, Shared, subscribe, unsubscribe, unsubscribe_or};
pub use system::{Catalog, SystemMethod};
