//! The end of the middleware chain: the names the engine answers itself (`rpc.*`),
//! then the dispatcher.

use serde_json::value::RawValue;

use crate::protocol::ErrorObject;

use super::context::Context;
use super::dispatch::{Dispatch, Reply, ReplyInner};
use super::encoded::Encoded;
use super::limits::Limits;
use super::pull::FLOW_PREFIX;
use super::streams::Streams;

/// The dispatcher, behind the `rpc.*` names it never sees.
pub(crate) struct Endpoint {
    dispatch: Box<dyn Dispatch>,
    /// What `rpc.discover` answers.
    document: Option<Encoded>,
    /// Subscriptions: the pull streams, and what resolves `subscribe` and `unsubscribe`.
    streams: Streams,
}

impl Endpoint {
    /// The dispatcher's document is read here, once; a document that is not valid JSON
    /// is logged and treated as absent.
    pub(crate) fn new(dispatch: Box<dyn Dispatch>, limits: &Limits) -> Self {
        let document = dispatch.document().and_then(|text| {
            serde_json::from_str::<&RawValue>(text)
                .inspect_err(|e| tracing::error!(error = %e, "rpc.discover document is not JSON"))
                .ok()
                .map(Encoded::from_raw)
        });
        Endpoint {
            dispatch,
            document,
            streams: Streams::new(limits),
        }
    }

    /// Answers `rpc.*` names itself (`rpc.discover`, `rpc.stream.next`,
    /// `rpc.stream.cancel`), hands the rest to the dispatcher, and resolves the
    /// subscription calls it returns.
    #[inline]
    pub(crate) fn call(&self, method: &str, params: Option<&RawValue>, context: Context) -> Reply {
        if method.starts_with("rpc.") {
            return self.reserved(method, params);
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

    fn reserved(&self, method: &str, params: Option<&RawValue>) -> Reply {
        if let Some(reply) = self.streams.answer(method, params) {
            return reply;
        }
        match (method, &self.document) {
            ("rpc.discover", Some(document)) => Reply::ready(Ok(document.clone())),
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }

    /// How many pull streams are live in the server.
    pub(crate) fn pull_streams(&self) -> usize {
        self.streams.pull_streams()
    }
}
