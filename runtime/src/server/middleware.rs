//! Per-call middleware: code that runs around every call (logging, auth, rate limits,
//! metrics).
//!
//! A small trait of our own rather than a tower `Layer`: a tower service is called through
//! `&mut self` after `poll_ready`, which suits a connection but makes a shared engine clone
//! the whole stack for every call; here middleware is shared by reference, sees the call's
//! [`Context`] and borrowed params, and calls [`Next::run`] (or answers by itself). Tower
//! layers still apply where they fit best: around a transport's service (HTTP auth, CORS,
//! compression).

use serde_json::value::RawValue;

use super::context::Context;
use super::dispatch::Dispatch;
use super::dispatch::{BoxFuture, CallResult};

/// Code that runs around every call, notifications included, and `rpc.*` calls.
///
/// Middleware registered first runs outermost. A middleware may change the context (add
/// extensions for the handler), answer by itself (refuse the call), or look at the result.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use rpcsmith::protocol::ErrorObject;
/// use rpcsmith::server::{BoxFuture, Call, CallResult, Middleware, Next};
///
/// /// Counts calls and refuses any without an `authorization` header.
/// struct Auth { calls: AtomicU64 }
///
/// impl Middleware for Auth {
///     fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, CallResult> {
///         self.calls.fetch_add(1, Ordering::Relaxed);
///         let authorized = call
///             .context
///             .headers()
///             .is_some_and(|h| h.contains_key(http::header::AUTHORIZATION));
///         if !authorized {
///             return Box::pin(async { Err(ErrorObject::new(-32001, "Unauthorized")) });
///         }
///         next.run(call)
///     }
/// }
/// ```
pub trait Middleware: Send + Sync + 'static {
    /// Handles one call; call `next.run(call)` to pass it on.
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, CallResult>;
}

/// One call, as middleware sees it.
#[derive(Debug)]
pub struct Call<'a> {
    /// The method called (also in the context), borrowed from the message.
    pub method: &'a str,
    /// The raw params, borrowed from the message (`None` when absent).
    pub params: Option<&'a RawValue>,
    /// The call's context: method, id, transport metadata and extensions.
    pub context: Context,
}

/// The rest of the chain after a middleware: the next middleware, then the dispatcher
/// (the server's, behind its `rpc.*` names; or, for a [`Router`](super::Router)'s
/// middleware of one mount, that mount's).
pub struct Next<'a> {
    /// The middleware still to run.
    chain: &'a [Box<dyn Middleware>],
    endpoint: &'a dyn Dispatch,
}

impl<'a> Next<'a> {
    pub(crate) fn start(chain: &'a [Box<dyn Middleware>], endpoint: &'a dyn Dispatch) -> Self {
        Next { chain, endpoint }
    }

    /// Passes the call on to the rest of the chain.
    pub fn run(self, call: Call<'a>) -> BoxFuture<'a, CallResult> {
        match self.chain.split_first() {
            Some((middleware, rest)) => {
                let next = Next {
                    chain: rest,
                    endpoint: self.endpoint,
                };
                middleware.call(call, next)
            }
            None => self
                .endpoint
                .call(call.method, call.params, call.context)
                .into_future(),
        }
    }
}

impl std::fmt::Debug for Next<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Next")
            .field("remaining", &self.chain.len())
            .finish()
    }
}
