//! A client re-exported as a server: [`Proxy`] is a [`Dispatch`] that forwards every
//! call and notification it is given to an upstream [`Client`], over whatever transport
//! that client speaks.
//!
//! **Where it sits.** The proxy joins the two engines, so it is a layer of its own
//! above them: `protocol` ← `client` / `server` ← `proxy` ← `transport`. It names no
//! transport (a front is any transport serving a [`Server`](crate::server::Server), an
//! upstream any transport carrying a [`Client`]); what needs a transport — an upstream
//! connection dialled for each front connection, so that server→client traffic has a
//! way back — is [`transport::peer::Bridge`](crate::transport::peer::Bridge), which
//! builds on this.
//!
//! - **Bytes, not values.** A call's params are handed to the upstream client as the
//!   raw JSON text they arrived as, and its result comes back as raw JSON text, answered
//!   as it is: nothing is decoded into values or re-encoded.
//! - **Errors.** An upstream error object is answered as it came (code, message,
//!   `data`). An upstream that times out is `-32012`; one that cannot be reached, closed,
//!   or answered nonsense is `-32015 Upstream unavailable`, the cause logged, not sent.
//! - **Batches.** A front batch is answered as one batch, in order; its calls are
//!   forwarded one by one, concurrently (so each passes the front's middleware on its
//!   own — the place for authentication and rate limits — and the upstream's batch
//!   limits never refuse what the front accepted). Its notifications are forwarded as
//!   notifications.
//! - **Deadlines.** A call that carries its caller's deadline
//!   ([`protocol::deadline`](crate::protocol::deadline)) is forwarded with what is left
//!   of it when the upstream call leaves (after the front's middleware and the wait for
//!   an upstream connection): the upstream sees the same instant, as this machine's
//!   clock writes it, and the upstream client stops waiting at it too.
//! - **Cancellation.** A forwarded call whose front call is given up (its handler
//!   dropped: a `$/cancelRequest` received, a timeout, a closed front connection) drops
//!   its upstream call, which sends `$/cancelRequest` upstream when the upstream peer
//!   has cancellation on ([`peer::Builder::cancel`](crate::transport::peer::Builder::cancel)).
//! - **`rpc.*` names** never reach a dispatcher; to forward one (`rpc.discover`: the
//!   upstream's document), register the proxy as its provider:
//!   `Server::builder(proxy.clone()).system("rpc.discover", proxy)`.
//!
//! ```
//! use rpcsmith::client::Client;
//! use rpcsmith::proxy::Proxy;
//! use rpcsmith::server::{Context, Dispatch, Metadata, Reply, Server};
//! use rpcsmith::transport::memory::Link;
//! use serde_json::value::RawValue;
//!
//! struct Echo;
//! impl Dispatch for Echo {
//!     fn call(&self, method: &str, params: Option<&RawValue>, _: Context) -> Reply {
//!         Reply::ok(&(method, params))
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let upstream = Client::new(Link::new(Server::new(Echo)));
//! let front = Server::new(Proxy::new(upstream));
//! let answer = front
//!     .handle(br#"{"jsonrpc":"2.0","method":"hi","params":[1,  2],"id":7}"#, Metadata::default())
//!     .await;
//! // The params reached the upstream as they were written, spaces and all.
//! assert_eq!(answer.unwrap(), br#"{"jsonrpc":"2.0","result":["hi",[1,  2]],"id":7}"#);
//! # });
//! ```

// The docs name the peers' bridge, whose feature may be off in this build.
#![cfg_attr(not(feature = "stream"), allow(rustdoc::broken_intra_doc_links))]

use std::sync::Arc;

use serde_json::value::RawValue;

use crate::client::{self, Client};
use crate::protocol::ErrorObject;
use crate::server::{BoxFuture, Catalog, Context, Dispatch, Encoded, Reply, SystemMethod};

/// Where a [`Proxy`] sends a call: the upstream client for it.
///
/// A [`Client`] is one upstream for every call. [`transport::peer::Bridge`] gives each
/// front connection an upstream connection of its own.
///
/// [`transport::peer::Bridge`]: crate::transport::peer::Bridge
pub trait Upstream: Send + Sync + 'static {
    /// The client to forward the call of `context` to.
    ///
    /// # Errors
    ///
    /// The error object to answer the call with when there is none (the upstream
    /// cannot be reached).
    fn client(&self, context: &Context) -> BoxFuture<'static, Result<Client, ErrorObject>>;
}

impl Upstream for Client {
    fn client(&self, _: &Context) -> BoxFuture<'static, Result<Client, ErrorObject>> {
        Box::pin(std::future::ready(Ok(self.clone())))
    }
}

/// Forwards calls and notifications to an [`Upstream`]; see the [module docs](self).
/// Cheap to clone.
#[derive(Clone)]
pub struct Proxy {
    upstream: Arc<dyn Upstream>,
}

impl Proxy {
    /// A proxy to `upstream` (a [`Client`], or any [`Upstream`]).
    pub fn new(upstream: impl Upstream) -> Self {
        Proxy {
            upstream: Arc::new(upstream),
        }
    }

    /// Forwards one call (or notification) of `method`.
    fn forward(&self, method: &str, params: Option<&RawValue>, context: Context) -> Reply {
        let upstream = self.upstream.client(&context);
        let method = method.to_owned();
        let params: Option<Box<RawValue>> = params.map(ToOwned::to_owned);
        Reply::future(async move {
            let client = upstream.await?;
            // What is left of the caller's deadline goes on with the call, re-stamped on
            // this machine's clock.
            let client = match context.remaining() {
                Some(left) => client.with_timeout(left),
                None => client,
            };
            if context.is_notification() {
                client
                    .notify(&method, &params)
                    .await
                    .map_err(|e| unavailable(&method, e))?;
                return crate::server::encode(&());
            }
            let result: Box<RawValue> = client
                .request(&method, &params)
                .await
                .map_err(|e| unavailable(&method, e))?;
            Ok(Encoded::from_raw(&result))
        })
    }
}

impl Dispatch for Proxy {
    fn call(&self, method: &str, params: Option<&RawValue>, context: Context) -> Reply {
        self.forward(method, params, context)
    }
}

/// A proxy answers a reserved name by forwarding it too.
impl SystemMethod for Proxy {
    fn call(&self, params: Option<&RawValue>, context: Context, _: &Catalog) -> Reply {
        let method = context.method().to_owned();
        self.forward(&method, params, context)
    }
}

/// The answer for an upstream call that failed: its error object when the upstream
/// answered one, else a timeout or `-32015`.
fn unavailable(method: &str, error: client::Error) -> ErrorObject {
    match error {
        client::Error::Undeclared(error) => error,
        client::Error::Timeout => ErrorObject::timeout(),
        other => {
            tracing::warn!(method, error = %other, "upstream call failed");
            ErrorObject::upstream_unavailable()
        }
    }
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy").finish_non_exhaustive()
    }
}
