//! Several dispatchers on one [`Server`](super::Server): a [`Router`] mounts them
//! ([`Mount`]), each under an optional name prefix and with middleware of its own, and
//! is itself a [`Dispatch`] — serve it as any other.
//!
//! - **Routing** is by method name, read once when the router is built: each mount
//!   answers the names its dispatcher declares ([`Dispatch::methods`], which generated
//!   dispatchers give, else the names of its [document](Dispatch::document)'s
//!   methods), with its prefix in front. The dispatcher is called with the name
//!   without the prefix (its context's [`method`](super::Context::method) still says
//!   the name on the wire). A name no mount answers is `-32601`.
//! - **Overlaps are refused** when the router is built: a name two mounts would answer
//!   is an [`Error::Overlap`] naming the method and both mounts.
//! - **`rpc.discover`** answers one document merged from the mounts' documents (see
//!   [`merge`] for the exact rules: methods prefixed, components kept once when equal and
//!   namespaced `<mount>.<name>` when they clash), and `rpc.methods` every name routed.
//! - **Middleware**: [`Mount::middleware`] runs around that mount's calls only, inside
//!   the server's own ([`Builder::middleware`](super::Builder::middleware)), which runs
//!   around every call. A mount with middleware pays one copy of each call's params (its
//!   middleware runs after the dispatcher has returned its reply future); one without
//!   pays nothing.
//!
//! ```
//! use rpcsmith::protocol::ErrorObject;
//! use rpcsmith::server::{Context, Dispatch, Metadata, Mount, Reply, Router, Server};
//! use serde_json::value::RawValue;
//!
//! /// A hand-written dispatcher that answers `ping`.
//! struct Ping;
//! impl Dispatch for Ping {
//!     fn call(&self, method: &str, _: Option<&RawValue>, _: Context) -> Reply {
//!         match method {
//!             "ping" => Reply::ok("pong"),
//!             _ => Reply::err(ErrorObject::method_not_found()),
//!         }
//!     }
//!     fn methods(&self) -> Option<Vec<&str>> {
//!         Some(vec!["ping"])
//!     }
//! }
//!
//! let router = Router::builder()
//!     .mount(Mount::new("plain", Ping))
//!     .mount(Mount::new("admin", Ping).prefix("admin_"))
//!     .build()
//!     .unwrap();
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let server = Server::new(router);
//! let answer = server
//!     .handle(br#"{"jsonrpc":"2.0","method":"admin_ping","id":1}"#, Metadata::default())
//!     .await;
//! assert_eq!(answer.unwrap(), br#"{"jsonrpc":"2.0","result":"pong","id":1}"#);
//! # });
//!
//! let overlap = Router::builder()
//!     .mount(Mount::new("one", Ping))
//!     .mount(Mount::new("two", Ping))
//!     .build()
//!     .unwrap_err();
//! assert_eq!(overlap.to_string(), "method `ping` is answered by both mount `one` and mount `two`");
//! ```

pub mod merge;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::protocol::ErrorObject;

use super::context::Context;
use super::dispatch::{Dispatch, Reply};
use super::middleware::{Call, Middleware, Next};
use super::system::method_names;

/// Dispatchers mounted side by side; see the [module docs](self).
#[derive(Clone)]
pub struct Router {
    inner: Arc<Inner>,
}

struct Inner {
    mounts: Vec<Mount>,
    /// Wire name → index of the mount answering it.
    routes: HashMap<Box<str>, usize>,
    /// Every wire name routed, in mount order.
    names: Vec<String>,
    /// The merged document, when any mount has one.
    document: Option<String>,
}

/// One dispatcher as a [`Router`] mounts it: a name (what errors and namespaced
/// components say), an optional prefix for its method names, and its middleware.
#[must_use]
pub struct Mount {
    name: String,
    prefix: String,
    dispatch: Box<dyn Dispatch>,
    middleware: Vec<Box<dyn Middleware>>,
}

/// Builds a [`Router`]: mounts, an optional `info`, then [`Builder::build`].
#[must_use]
#[derive(Default)]
pub struct Builder {
    mounts: Vec<Mount>,
    info: Option<Value>,
}

/// Why a [`Router`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// Two mounts would answer the same method name.
    Overlap {
        /// The method name, prefix included.
        method: String,
        /// The mount added first.
        first: String,
        /// The mount added second.
        second: String,
    },
    /// Two mounts have the same name.
    SameName(String),
    /// A mount's dispatcher declares no method names and has no document to read them
    /// from, so nothing could be routed to it.
    NoMethods(String),
    /// A mount's document cannot be merged.
    Document {
        /// The mount.
        mount: String,
        /// What is wrong with its document.
        reason: String,
    },
}

impl Error {
    fn document(mount: &str, reason: &str) -> Self {
        Error::Document {
            mount: mount.to_owned(),
            reason: reason.to_owned(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Overlap {
                method,
                first,
                second,
            } => write!(
                f,
                "method `{method}` is answered by both mount `{first}` and mount `{second}`"
            ),
            Error::SameName(name) => write!(f, "two mounts are named `{name}`"),
            Error::NoMethods(mount) => write!(
                f,
                "mount `{mount}` declares no methods: its dispatcher has neither \
                 `Dispatch::methods` nor a document"
            ),
            Error::Document { mount, reason } => {
                write!(
                    f,
                    "mount `{mount}`: its document cannot be merged: {reason}"
                )
            }
        }
    }
}

impl std::error::Error for Error {}

impl Mount {
    /// Mounts `dispatch` under `name`, with no prefix and no middleware.
    pub fn new(name: impl Into<String>, dispatch: impl Dispatch) -> Self {
        Mount {
            name: name.into(),
            prefix: String::new(),
            dispatch: Box::new(dispatch),
            middleware: Vec::new(),
        }
    }

    /// Answers the dispatcher's method `m` as `<prefix>m` (in calls and in the merged
    /// document).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Adds a middleware around this mount's calls (the first added runs outermost). It
    /// sees the method name without the prefix.
    pub fn middleware(mut self, middleware: impl Middleware) -> Self {
        self.middleware.push(Box::new(middleware));
        self
    }

    /// The names this mount answers, prefix included.
    fn names(&self) -> Result<Vec<String>, Error> {
        let names = match self.dispatch.methods() {
            Some(names) => names.into_iter().map(str::to_owned).collect(),
            None => self
                .dispatch
                .document()
                .and_then(method_names)
                .ok_or_else(|| Error::NoMethods(self.name.clone()))?,
        };
        Ok(names
            .into_iter()
            .map(|name| format!("{}{name}", self.prefix))
            .collect())
    }
}

impl Router {
    /// Starts building a router.
    pub fn builder() -> Builder {
        Builder::default()
    }
}

impl Builder {
    /// Adds a mount.
    pub fn mount(mut self, mount: Mount) -> Self {
        self.mounts.push(mount);
        self
    }

    /// The `info` object of the merged document (default: see [`merge`]).
    pub fn info(mut self, info: Value) -> Self {
        self.info = Some(info);
        self
    }

    /// Builds the router: reads each mount's names, refuses overlaps, merges the
    /// documents.
    ///
    /// # Errors
    ///
    /// An [`Error`]: two mounts answer one name ([`Error::Overlap`], naming both) or
    /// share a name, a mount declares no names, or a document cannot be merged.
    pub fn build(self) -> Result<Router, Error> {
        let mut routes: HashMap<Box<str>, usize> = HashMap::new();
        let mut names = Vec::new();
        for (index, mount) in self.mounts.iter().enumerate() {
            if self.mounts[..index].iter().any(|m| m.name == mount.name) {
                return Err(Error::SameName(mount.name.clone()));
            }
            for name in mount.names()? {
                if let Some(&first) = routes.get(name.as_str()) {
                    return Err(Error::Overlap {
                        method: name,
                        first: self.mounts[first].name.clone(),
                        second: mount.name.clone(),
                    });
                }
                routes.insert(name.as_str().into(), index);
                names.push(name);
            }
        }
        let parts: Vec<merge::Part<'_>> = self
            .mounts
            .iter()
            .filter_map(|mount| {
                Some(merge::Part {
                    mount: &mount.name,
                    prefix: &mount.prefix,
                    document: mount.dispatch.document()?,
                })
            })
            .collect();
        let document = if parts.is_empty() {
            None
        } else {
            Some(merge::merge(&parts, self.info.as_ref())?)
        };
        Ok(Router {
            inner: Arc::new(Inner {
                mounts: self.mounts,
                routes,
                names,
                document,
            }),
        })
    }
}

impl Dispatch for Router {
    fn call(&self, method: &str, params: Option<&RawValue>, context: Context) -> Reply {
        let Some(&index) = self.inner.routes.get(method) else {
            return Reply::err(ErrorObject::method_not_found());
        };
        let mount = &self.inner.mounts[index];
        let local = method.get(mount.prefix.len()..).unwrap_or(method);
        if mount.middleware.is_empty() {
            return mount.dispatch.call(local, params, context);
        }
        // The middleware's future outlives this call's borrow of the message: it runs
        // on owned copies.
        let inner = Arc::clone(&self.inner);
        let local = local.to_owned();
        let params = params.map(ToOwned::to_owned);
        Reply::future(async move {
            let mount = &inner.mounts[index];
            let call = Call {
                method: &local,
                params: params.as_deref(),
                context,
            };
            Next::start(&mount.middleware, &*mount.dispatch)
                .run(call)
                .await
        })
    }

    fn document(&self) -> Option<&str> {
        self.inner.document.as_deref()
    }

    fn methods(&self) -> Option<Vec<&str>> {
        Some(self.inner.names.iter().map(String::as_str).collect())
    }
}

impl fmt::Debug for Router {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Router")
            .field("mounts", &self.inner.mounts)
            .field("methods", &self.inner.names.len())
            .finish()
    }
}

impl fmt::Debug for Mount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mount")
            .field("name", &self.name)
            .field("prefix", &self.prefix)
            .field("middleware", &self.middleware.len())
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("mounts", &self.mounts)
            .finish_non_exhaustive()
    }
}
