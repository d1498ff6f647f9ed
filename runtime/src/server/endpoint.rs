//! The end of the middleware chain: the names the engine answers itself (`rpc.*`),
//! then the dispatcher.

use serde_json::value::RawValue;

use crate::protocol::ErrorObject;

use super::context::Context;
use super::dispatch::{Dispatch, Reply};
use super::encoded::Encoded;

/// The dispatcher, behind the `rpc.*` names it never sees.
pub(crate) struct Endpoint {
    dispatch: Box<dyn Dispatch>,
    /// What `rpc.discover` answers.
    document: Option<Encoded>,
}

impl Endpoint {
    /// The dispatcher's document is read here, once; a document that is not valid JSON
    /// is logged and treated as absent.
    pub(crate) fn new(dispatch: Box<dyn Dispatch>) -> Self {
        let document = dispatch.document().and_then(|text| {
            serde_json::from_str::<&RawValue>(text)
                .inspect_err(|e| tracing::error!(error = %e, "rpc.discover document is not JSON"))
                .ok()
                .map(Encoded::from_raw)
        });
        Endpoint { dispatch, document }
    }

    /// Answers `rpc.*` names itself, hands the rest to the dispatcher.
    #[inline]
    pub(crate) fn call(&self, method: &str, params: Option<&RawValue>, context: Context) -> Reply {
        if method.starts_with("rpc.") {
            return match (method, &self.document) {
                ("rpc.discover", Some(document)) => Reply::ready(Ok(document.clone())),
                _ => Reply::err(ErrorObject::method_not_found()),
            };
        }
        self.dispatch.call(method, params, context)
    }
}
