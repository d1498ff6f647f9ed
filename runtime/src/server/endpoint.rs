//! The end of the middleware chain: the names the engine answers itself (one table,
//! [`Providers`]: `rpc.*` and the pull streams' names), then the dispatcher.

use serde_json::value::RawValue;

use crate::metrics::ServerMeter;
use crate::protocol::ErrorObject;

use super::context::Context;
use super::dispatch::{Dispatch, Reply, ReplyInner};
use super::limits::Limits;
use super::streams::Streams;
use super::system::{Catalog, Provider, Providers};

/// The dispatcher, behind the `rpc.*` names it never sees.
pub(crate) struct Endpoint {
    dispatch: Box<dyn Dispatch>,
    /// What the providers read: the dispatcher's document and names.
    catalog: Catalog,
    /// Who answers which `rpc.*` name.
    system: Providers,
    /// Subscriptions: the pull streams, and what resolves `subscribe` and `unsubscribe`.
    streams: Streams,
}

impl Endpoint {
    /// The dispatcher's document and names are read here, once.
    pub(crate) fn new(dispatch: Box<dyn Dispatch>, system: Providers, limits: &Limits) -> Self {
        let catalog = Catalog::of(&*dispatch);
        Endpoint {
            dispatch,
            catalog,
            system,
            streams: Streams::new(limits),
        }
    }

    /// Answers the names of its table itself (`-32601` for any other `rpc.*` name), hands
    /// the rest to the dispatcher, and resolves the subscription calls it returns.
    #[inline]
    pub(crate) fn call(&self, method: &str, params: Option<&RawValue>, context: Context) -> Reply {
        match self.answer(method, params, context) {
            Reply(ReplyInner::Stream(call)) => self.resolve(call),
            reply => reply,
        }
    }

    /// [`call`](Self::call) without resolving the subscription calls: every arm's reply is
    /// the callee's, written where the caller wants it. `call` moved the dispatcher's reply
    /// once more to look at it, and the reload of a value just written by narrower stores
    /// stalls the core (BENCHMARKS.md, "where the per-call time went"); the caller matches
    /// the reply anyway and resolves [`ReplyInner::Stream`] with [`resolve`](Self::resolve).
    #[inline]
    pub(crate) fn answer(
        &self,
        method: &str,
        params: Option<&RawValue>,
        context: Context,
    ) -> Reply {
        match self.system.get(method) {
            Some(Provider::Method(provider)) => provider.call(params, context, &self.catalog),
            Some(Provider::Pulls) => self
                .streams
                .answer(method, params)
                .unwrap_or_else(|| Reply::err(ErrorObject::method_not_found())),
            None if method.starts_with("rpc.") => Reply::err(ErrorObject::method_not_found()),
            None => self.dispatch.call(method, params, context),
        }
    }

    /// Opens or closes the subscription of a reply [`answer`](Self::answer) left unresolved.
    pub(crate) fn resolve(&self, call: super::stream_call::StreamCall) -> Reply {
        self.streams.resolve(call)
    }

    /// The server's meters, labelling calls by the names this endpoint answers: the
    /// dispatcher's table and the names of its own.
    pub(crate) fn meter(&self) -> ServerMeter {
        let table = self
            .catalog
            .methods()
            .map(|names| names.iter().map(String::as_str));
        ServerMeter::new(table, self.system.names())
    }

    /// Hosts `items` for the other side of a connection to pull.
    pub(crate) fn host_stream(
        &self,
        items: super::stream_call::EncodedItems,
    ) -> Result<super::pull::Hosted, crate::protocol::ErrorObject> {
        self.streams.host(items)
    }

    /// How many pull streams are live in the server.
    pub(crate) fn pull_streams(&self) -> usize {
        self.streams.pull_streams()
    }
}

/// The end of a middleware chain is a dispatcher too.
impl Dispatch for Endpoint {
    fn call(&self, method: &str, params: Option<&RawValue>, context: Context) -> Reply {
        Endpoint::call(self, method, params, context)
    }
}
