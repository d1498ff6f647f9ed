//! The JSON-RPC 2.0 wire model: ids, calls, responses and error objects, and the
//! messages of a two-way connection, where both kinds arrive ([`TwoWay`]).
//!
//! This module knows serde and nothing else (no runtime, no I/O); the client and server
//! engines build on it. Messages are parsed once: the envelope's `params`, `id` and
//! `result` stay borrowed raw JSON ([`RawValue`](serde_json::value::RawValue)) that typed
//! code deserializes straight from the message bytes, and responses are written straight
//! into a byte buffer ([`write_result`], [`write_error`]) with no intermediate
//! `serde_json::Value`.
//!
//! Parsing a server's input follows the specification's examples:
//!
//! | input | answer |
//! |---|---|
//! | invalid JSON | one `-32700` error, `id: null` |
//! | `[]` | one `-32600` error, `id: null` |
//! | valid JSON that is not a request (`42`, `{"method":1}`, `"params":"x"`, an id that is an object, array or boolean, `"jsonrpc"` other than `"2.0"`) | `-32600`, `id: null` |
//! | a request whose id is longer than [`MAX_ID_LEN`] (1,024 bytes of JSON text) | `-32600`, `id: null` (in place inside a batch) |
//! | `[1]`, `[1,2,3]` | an array with one `-32600` per entry, in place |
//! | a batch | an array of the requests' responses, in request order |
//! | a notification, or a batch of only notifications | nothing at all |
//!
//! `"params": null` is read as absent params, as many clients send it.

pub mod constraint;
pub mod deadline;
mod envelope;
mod error;
mod escape;
mod feed;
mod fields;
mod id;
mod message;
pub(crate) mod meta;
pub mod mismatch;
pub mod number;
#[doc(hidden)]
pub mod object;
mod response;
#[cfg(feature = "sign")]
pub mod sign;
mod two_way;
mod typed;
mod write;

pub use constraint::{Validate, Violation};
pub use error::{ErrorObject, code};
pub use feed::Feed;
pub(crate) use fields::Top;
pub use id::{Id, IdKind};
pub use message::{Entry, Message, Notification, Request};
pub(crate) use message::{read, refusal};
pub use mismatch::Mismatch;
pub(crate) use response::Members;
pub use response::{DecodeError, Response, Responses};
#[cfg(feature = "stream")]
pub(crate) use two_way::Sorted;
pub use two_way::TwoWay;
pub use typed::write_typed_call;
pub(crate) use write::{RESULT_PREFIX, write_id_and_close};
pub use write::{write_error, write_notification, write_request, write_result};

// The limits the wire model applies by itself.
pub use message::MAX_ID_LEN;
