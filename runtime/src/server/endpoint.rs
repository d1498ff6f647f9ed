//! The end of the middleware chain: the names the engine answers itself (`rpc.*`, by
//! their providers), then the dispatcher.

use serde_json::value::RawValue;

use crate::protocol::ErrorObject;

use super::context::Context;
use super::dispatch::{Dispatch, Reply};
use super::system::{Catalog, Providers};

/// The dispatcher, behind the `rpc.*` names it never sees.
pub(crate) struct Endpoint {
    dispatch: Box<dyn Dispatch>,
    /// What the providers read: the dispatcher's document and names.
    catalog: Catalog,
    /// Who answers which `rpc.*` name.
    system: Providers,
}

impl Endpoint {
    /// The dispatcher's document and names are read here, once.
    pub(crate) fn new(dispatch: Box<dyn Dispatch>, system: Providers) -> Self {
        let catalog = Catalog::of(&*dispatch);
        Endpoint {
            dispatch,
            catalog,
            system,
        }
    }

    /// Answers `rpc.*` names by their providers (`-32601` without one), hands the rest
    /// to the dispatcher.
    #[inline]
    pub(crate) fn call(&self, method: &str, params: Option<&RawValue>, context: Context) -> Reply {
        if method.starts_with("rpc.") {
            return match self.system.get(method) {
                Some(provider) => provider.call(params, context, &self.catalog),
                None => Reply::err(ErrorObject::method_not_found()),
            };
        }
        self.dispatch.call(method, params, context)
    }
}

/// The end of a middleware chain is a dispatcher too.
impl Dispatch for Endpoint {
    fn call(&self, method: &str, params: Option<&RawValue>, context: Context) -> Reply {
        Endpoint::call(self, method, params, context)
    }
}
