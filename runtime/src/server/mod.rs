//! The server engine: bytes in, bytes (or nothing) out.
//!
//! A [`Server`] is built from a [`Dispatch`] implementation (what rpcsmith-build generates
//! for a document's server trait), [`Limits`] and optional [`Middleware`]. Transports hand
//! it each message with what they know about its origin ([`Metadata`]) and send back what
//! it returns; `None` means nothing may be sent (HTTP answers 204).
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
//! - **`rpc.*` names** are reserved: `rpc.discover` answers [`Dispatch::document`], any
//!   other `rpc.*` name `-32601`; a dispatcher never sees them.
//! - **Every call** gets a [`Context`] (method, id, metadata, typed extensions), passes
//!   through the [`Middleware`] chain, and runs inside a `tracing` span named `call` at
//!   debug level, with the method as a field.

mod batch;
mod call;
mod context;
mod dispatch;
mod encoded;
mod engine;
mod limits;
mod metadata;
mod middleware;

pub use crate::codegen::Failure;
pub use context::Context;
pub use dispatch::{BoxFuture, CallResult, Dispatch, Reply};
pub use encoded::{Encoded, encode};
pub use engine::{Builder, Connection, Server};
pub use limits::Limits;
pub use metadata::Metadata;
pub use middleware::{Call, Middleware, Next};
