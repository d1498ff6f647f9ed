//! How a [`Client`] is configured: its timeouts, middleware, subscription bounds and
//! checks, then built over a transport.

use super::pending::Pending;
use super::registry::Registry;
use super::slot::Bounds;
use super::{Client, DEFAULT_TIMEOUT, Inbox, Middleware, Shared, Transport};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

/// Configures a [`Client`]; made by [`Client::builder`].
#[derive(Debug, Clone)]
pub struct Builder {
    timeout: Duration,
    bounds: Bounds,
    middleware: Vec<Arc<dyn Middleware>>,
    method_timeouts: HashMap<Box<str>, Duration>,
    validate_params: bool,
    deadlines: bool,
}

impl Builder {
    /// The default settings, as [`Client::builder`] starts from.
    pub(super) fn new() -> Builder {
        Builder {
            timeout: DEFAULT_TIMEOUT,
            bounds: Bounds::default(),
            middleware: Vec::new(),
            method_timeouts: HashMap::new(),
            validate_params: false,
            deadlines: true,
        }
    }

    /// How long each call waits for its answer, sending included. The default is
    /// [`DEFAULT_TIMEOUT`]; [`Client::with_timeout`] changes it per call.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long calls of `method` wait for their answer, instead of
    /// [`timeout`](Self::timeout) (a slow report, a quick health check). A handle made by
    /// [`Client::with_timeout`] overrides it.
    pub fn method_timeout(mut self, method: impl Into<Box<str>>, timeout: Duration) -> Self {
        self.method_timeouts.insert(method.into(), timeout);
        self
    }

    /// Adds `middleware` around every message the client sends (see [`Middleware`]):
    /// the first added runs outermost.
    pub fn middleware(mut self, middleware: impl Middleware) -> Self {
        self.middleware.push(Arc::new(middleware));
        self
    }

    /// How much each pushed [`Subscription`](super::Subscription) holds for a consumer that is slower than
    /// the server: at most `items` items and about `bytes` bytes (the messages that
    /// carried them; one message larger than `bytes` is held alone). Past either, the
    /// oldest items are dropped and the consumer gets
    /// [`SubscriptionError::Lagged`](super::SubscriptionError::Lagged) with the count. Defaults:
    /// [`DEFAULT_SUBSCRIPTION_ITEMS`](super::DEFAULT_SUBSCRIPTION_ITEMS) (1,024) and [`DEFAULT_SUBSCRIPTION_BYTES`](super::DEFAULT_SUBSCRIPTION_BYTES)
    /// (1 MiB). Pulled subscriptions hold nothing: they ask for one item at a time.
    pub fn subscription_buffer(mut self, items: usize, bytes: usize) -> Self {
        self.bounds = Bounds { items, bytes };
        self
    }

    /// Whether generated clients check each call's params against the constraints of
    /// the method's schema (`minLength`, `pattern`, `maximum`, …) before sending, and
    /// refuse to send ([`Error::Invalid`](super::Error::Invalid), naming the param, the JSON path and the
    /// keyword) those that break one. Off by default: the server checks them anyway
    /// (generated dispatchers do, unless generated without), and the check costs CPU on
    /// every call. Batches are not checked.
    pub fn validate_params(mut self, enabled: bool) -> Self {
        self.validate_params = enabled;
        self
    }

    /// Whether a call whose timeout was chosen for it ([`Client::with_timeout`],
    /// [`method_timeout`](Self::method_timeout)) sends its deadline with it: the
    /// `Rpc-Deadline` header over HTTP, `"deadline"` in the params' `_meta` elsewhere
    /// (see [`protocol::deadline`](crate::protocol::deadline)). On by default; turn it
    /// off for a server that refuses a `_meta` member it does not know.
    pub fn deadlines(mut self, enabled: bool) -> Self {
        self.deadlines = enabled;
        self
    }

    /// Builds a client that speaks through `transport`.
    pub fn build(self, mut transport: impl Transport) -> Client {
        let pending = Arc::new(Pending::default());
        let subscriptions = Arc::new(Registry::default());
        transport.attach(Inbox::new(&pending, &subscriptions));
        let request_response = transport.is_request_response();
        Client {
            shared: Arc::new(Shared {
                pushes: transport.receives_pushes() && !request_response,
                request_response,
                transport: Box::new(transport),
                pending,
                next_id: AtomicU64::new(1),
                subscriptions,
                bounds: self.bounds,
                middleware: self.middleware.into(),
                method_timeouts: self.method_timeouts,
                validate_params: self.validate_params,
                deadlines: self.deadlines,
            }),
            timeout: self.timeout,
            per_call: false,
            places: None,
        }
    }
}
