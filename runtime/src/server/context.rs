//! The per-call context handed to middleware and handlers.

use std::net::SocketAddr;
use std::sync::Arc;

use crate::protocol::Id;

use super::Metadata;

/// Everything a handler may want to know about its call besides the params: the method,
/// the id, the transport's [`Metadata`] and typed extensions.
///
/// The extensions start empty for every call; middleware puts data there (an
/// authenticated user, a request-scoped value) for the handler to read.
///
/// ```
/// use rpcsmith::server::{Context, Metadata};
///
/// #[derive(Clone)]
/// struct User(&'static str);
///
/// let mut cx = Context::new("add", None, Metadata::default());
/// cx.extensions_mut().insert(User("ada"));
/// assert_eq!(cx.extensions().get::<User>().map(|u| u.0), Some("ada"));
/// assert!(cx.is_notification());
/// ```
#[derive(Debug, Clone)]
pub struct Context {
    method: Box<str>,
    id: Option<Id<'static>>,
    metadata: Arc<Metadata>,
    extensions: http::Extensions,
}

impl Context {
    /// A context for a call of `method`; `id` is `None` for a notification.
    pub fn new(method: &str, id: Option<Id<'_>>, metadata: Metadata) -> Self {
        Self::from_parts(method, id.as_ref(), Arc::new(metadata))
    }

    pub(crate) fn from_parts(method: &str, id: Option<&Id<'_>>, metadata: Arc<Metadata>) -> Self {
        Context {
            method: method.into(),
            id: id.map(|id| id.clone().into_owned()),
            metadata,
            extensions: http::Extensions::new(),
        }
    }

    /// The method called.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The request's id; `None` for a notification.
    pub fn id(&self) -> Option<&Id<'static>> {
        self.id.as_ref()
    }

    /// Whether the call is a notification (nothing will be answered).
    pub fn is_notification(&self) -> bool {
        self.id.is_none()
    }

    /// What the transport knows about the connection.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// The peer's address, when the transport has one.
    pub fn peer(&self) -> Option<SocketAddr> {
        self.metadata.peer
    }

    /// The HTTP headers of the message, when it came over HTTP.
    pub fn headers(&self) -> Option<&http::HeaderMap> {
        self.metadata.headers.as_ref()
    }

    /// This call's typed extensions.
    pub fn extensions(&self) -> &http::Extensions {
        &self.extensions
    }

    /// This call's typed extensions, for middleware to add to.
    pub fn extensions_mut(&mut self) -> &mut http::Extensions {
        &mut self.extensions
    }
}
