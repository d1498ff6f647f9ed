//! The trait generated dispatchers implement, and what they return.

use std::future::Future;
use std::pin::Pin;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::protocol::ErrorObject;

use super::context::Context;
use super::encoded::{Encoded, encode};
use super::stream_call::StreamCall;

/// A boxed, sendable future, as middleware and handlers return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a call produces: the result serialized, or the error to answer.
pub type CallResult = Result<Encoded, ErrorObject>;

/// Routes calls to handlers: what a generated dispatcher implements.
///
/// [`Dispatch::call`] runs synchronously with the params still borrowed from the message,
/// so a dispatcher decodes them straight into typed arguments; it then returns either the
/// answer at once ([`Reply::ready`]) or an owned handler future ([`Reply::future`]) that
/// no longer borrows the message, so an engine may run it anywhere.
///
/// Names starting with `rpc.` never reach a dispatcher: the engine answers
/// `rpc.stream.next` and `rpc.stream.cancel` from its pull streams (so do
/// `kotlinx.rpc.jsonrpc.internal.nextFlowValue` and `…cancelFlow`; see
/// [`subscribe`](super::subscribe)), the others by its providers ([`super::system`]:
/// `rpc.discover` with [`Dispatch::document`], `rpc.methods` with [`Dispatch::methods`]),
/// and every other `rpc.*` name with `-32601`.
///
/// ```
/// use rpcsmith::protocol::{ErrorObject, mismatch};
/// use rpcsmith::server::{Context, Dispatch, Reply};
/// use serde_json::value::RawValue;
///
/// struct Calculator;
///
/// impl Dispatch for Calculator {
///     fn call(&self, method: &str, params: Option<&RawValue>, _cx: Context) -> Reply {
///         match method {
///             "add" => match mismatch::from_str::<(i64, i64)>(params.map_or("null", RawValue::get)) {
///                 Ok((a, b)) => Reply::future(async move { rpcsmith::server::encode(&(a + b)) }),
///                 // `e` says why in JSON terms: "at /1: expected an integer, found …".
///                 Err(e) => Reply::err(ErrorObject::invalid_params(format!("invalid params: {e}"))),
///             },
///             _ => Reply::err(ErrorObject::method_not_found()),
///         }
///     }
/// }
/// ```
pub trait Dispatch: Send + Sync + 'static {
    /// Starts a call of `method` with its raw `params` (`None` when absent). Answer
    /// `-32601` ([`ErrorObject::method_not_found`]) for a method you do not know and
    /// `-32602` ([`ErrorObject::invalid_params`]) for params that do not decode.
    fn call(&self, method: &str, params: Option<&RawValue>, context: Context) -> Reply;

    /// The OpenRPC document answered on `rpc.discover` (JSON text), if any. Read once,
    /// when the server is built; `None` (the default) makes `rpc.discover` answer `-32601`.
    fn document(&self) -> Option<&str> {
        None
    }

    /// The method names this dispatcher answers, when it knows them (generated
    /// dispatchers do). Read once, when the server (or a [`Router`](super::Router)) is
    /// built: `rpc.methods` lists them, and a router routes by them. `None` (the default)
    /// stands for the names of [`document`](Self::document)'s methods.
    fn methods(&self) -> Option<Vec<&str>> {
        None
    }
}

/// A shared dispatcher dispatches like the one it shares.
impl<D: Dispatch + ?Sized> Dispatch for std::sync::Arc<D> {
    fn call(&self, method: &str, params: Option<&RawValue>, context: Context) -> Reply {
        (**self).call(method, params, context)
    }

    fn document(&self) -> Option<&str> {
        (**self).document()
    }

    fn methods(&self) -> Option<Vec<&str>> {
        (**self).methods()
    }
}

/// What [`Dispatch::call`] returns: a result now, or a future of one.
#[must_use]
pub struct Reply(pub(crate) ReplyInner);

pub(crate) enum ReplyInner {
    Ready(CallResult),
    Pending(BoxFuture<'static, CallResult>),
    /// A subscription opened or closed, which the engine resolves with its registries.
    Stream(StreamCall),
}

impl Reply {
    /// An answer available at once.
    pub fn ready(result: CallResult) -> Self {
        Reply(ReplyInner::Ready(result))
    }

    /// A successful result, serialized now.
    pub fn ok<T: Serialize + ?Sized>(value: &T) -> Self {
        Self::ready(encode(value))
    }

    /// An error answer.
    pub fn err(error: ErrorObject) -> Self {
        Self::ready(Err(error))
    }

    /// An answer the handler future will produce.
    pub fn future<F>(future: F) -> Self
    where
        F: Future<Output = CallResult> + Send + 'static,
    {
        Reply(ReplyInner::Pending(Box::pin(future)))
    }

    /// Turns the reply into a future, whichever kind it is. A reply of
    /// [`subscribe`](super::subscribe) or [`unsubscribe`](super::unsubscribe) needs the
    /// server engine's registries: here, outside the engine, it answers `-32603`.
    pub fn into_future(self) -> BoxFuture<'static, CallResult> {
        match self.0 {
            ReplyInner::Ready(result) => Box::pin(std::future::ready(result)),
            ReplyInner::Pending(future) => future,
            ReplyInner::Stream(_) => {
                tracing::error!("a subscription's reply was used outside a server engine");
                Box::pin(std::future::ready(Err(ErrorObject::new(
                    crate::protocol::code::INTERNAL_ERROR,
                    "Internal error: a subscription must be answered by a server engine",
                ))))
            }
        }
    }
}
