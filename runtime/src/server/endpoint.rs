//! The end of the middleware chain: the names the engine answers itself (`rpc.*`, by
//! their providers), then the dispatcher.

use serde_json::value::RawValue;

use crate::metrics::ServerMeter;
use crate::protocol::ErrorObject;

use super::context::Context;
use super::dispatch::{Dispatch, Reply, ReplyInner};
use super::limits::Limits;
use super::pull::{self, FLOW_PREFIX};
use super::streams::Streams;
use super::system::{Catalog, Providers};

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

    /// Answers `rpc.*` names itself (the pull streams' `rpc.stream.next` and
    /// `rpc.stream.cancel`, then the providers; `-32601` without one), hands the rest to
    /// the dispatcher, and resolves the subscription calls it returns.
    #[inline]
    pub(crate) fn call(&self, method: &str, params: Option<&RawValue>, context: Context) -> Reply {
        if method.starts_with("rpc.") {
            return self.reserved(method, params, context);
        }
        // The kotlinx-rpc JSON-RPC proposal's two pull methods (see `server::subscribe`).
        if method.starts_with(FLOW_PREFIX)
            && let Some(reply) = self.streams.answer(method, params)
        {
            return reply;
        }
        match self.dispatch.call(method, params, context) {
            Reply(ReplyInner::Stream(call)) => self.streams.resolve(call),
            reply => reply,
        }
    }

    fn reserved(&self, method: &str, params: Option<&RawValue>, context: Context) -> Reply {
        if let Some(reply) = self.streams.answer(method, params) {
            return reply;
        }
        match self.system.get(method) {
            Some(provider) => provider.call(params, context, &self.catalog),
            None => Reply::err(ErrorObject::method_not_found()),
        }
    }

    /// The server's meters, labelling calls by the names this endpoint answers: the
    /// dispatcher's table, the providers' names and the pull streams' methods.
    pub(crate) fn meter(&self) -> ServerMeter {
        let table = self
            .catalog
            .methods()
            .map(|names| names.iter().map(String::as_str));
        let reserved = [pull::NEXT, pull::CANCEL, pull::FLOW_NEXT, pull::FLOW_CANCEL];
        ServerMeter::new(table, self.system.names().chain(reserved))
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
