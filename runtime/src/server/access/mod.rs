//! Access control: a [`Rule`] decides, from a call's [`Context`], whether the call may
//! run; [`Access`] is the [`Middleware`] that asks it for every call.
//!
//! A rule reads what the context holds: the method, the HTTP headers, the peer address,
//! and the extensions an authentication middleware (or a tower layer, through the
//! request's extensions) put there. A refused call is answered with the rule's error,
//! by convention `-32016` ([`code::ACCESS_DENIED`], see [`denied`]); a refused
//! notification is dropped. [`RequiredScopes`] is a ready rule mapping methods to the
//! scope each needs, read from the caller's [`Scopes`].
//!
//! ```
//! use rpcsmith::protocol::ErrorObject;
//! use rpcsmith::server::access::{self, Access};
//! # use rpcsmith::server::{Context, Dispatch, Reply, Server};
//! # struct Api;
//! # impl Dispatch for Api {
//! #     fn call(&self, _: &str, _: Option<&serde_json::value::RawValue>, _: Context) -> Reply {
//! #         Reply::ok(&())
//! #     }
//! # }
//!
//! // Methods under `admin.` only from the loopback interface.
//! let rule = |cx: &Context| -> Result<(), ErrorObject> {
//!     let local = cx.peer().is_some_and(|peer| peer.ip().is_loopback());
//!     if cx.method().starts_with("admin.") && !local {
//!         return Err(access::denied(format!("{} is only open to local callers", cx.method())));
//!     }
//!     Ok(())
//! };
//! let server = Server::builder(Api).middleware(Access::new(rule)).build();
//! ```

mod scopes;

pub use scopes::{RequiredScopes, Scopes};

use std::borrow::Cow;

use crate::protocol::{ErrorObject, code};

use super::context::Context;
use super::dispatch::{BoxFuture, CallResult};
use super::middleware::{Call, Middleware, Next};

/// Decides whether a call may run. Closures `Fn(&Context) -> Result<(), ErrorObject>`
/// are rules.
pub trait Rule: Send + Sync + 'static {
    /// `Ok` lets the call run.
    ///
    /// # Errors
    ///
    /// The error the call is answered with (see [`denied`]).
    fn check(&self, context: &Context) -> Result<(), ErrorObject>;
}

impl<F> Rule for F
where
    F: Fn(&Context) -> Result<(), ErrorObject> + Send + Sync + 'static,
{
    fn check(&self, context: &Context) -> Result<(), ErrorObject> {
        self(context)
    }
}

/// The [`Middleware`] that asks a [`Rule`] about every call (`rpc.*` names included)
/// before it goes on. Put it after the middleware that authenticates, so the rule sees
/// what that one put in the context.
pub struct Access {
    rule: Box<dyn Rule>,
}

impl Access {
    /// Access control by `rule`.
    pub fn new(rule: impl Rule) -> Self {
        Access {
            rule: Box::new(rule),
        }
    }
}

impl Middleware for Access {
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, CallResult> {
        match self.rule.check(&call.context) {
            Ok(()) => next.run(call),
            Err(refused) => {
                tracing::debug!(method = call.method, code = refused.code, "access denied");
                Box::pin(std::future::ready(Err(refused)))
            }
        }
    }
}

impl std::fmt::Debug for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Access").finish_non_exhaustive()
    }
}

/// A refusal: `-32016` ([`code::ACCESS_DENIED`]) with `message`, which should say what
/// the caller lacks in the document's terms (the method, the scope it needs), never
/// secrets.
pub fn denied(message: impl Into<Cow<'static, str>>) -> ErrorObject {
    ErrorObject::new(code::ACCESS_DENIED, message)
}
