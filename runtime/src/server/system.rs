//! The `rpc.*` names a server answers itself, as providers ([`SystemMethod`]) a user can
//! add to, replace or switch off ([`Builder::system`](super::Builder::system),
//! [`Builder::without_system`](super::Builder::without_system)).
//!
//! This is the one table of the names a server answers itself, ahead of its dispatcher.
//! Every name that starts with `rpc.` is reserved (JSON-RPC 2.0 §4.3): it never reaches
//! the dispatcher, and a server answers the ones it has a provider for, every other one
//! `-32601`. By default it has these:
//!
//! | name | answers | when |
//! |---|---|---|
//! | `rpc.discover` | the dispatcher's OpenRPC document ([`Dispatch::document`]) | the dispatcher has one |
//! | `rpc.methods` | the names the dispatcher answers, an array of strings in its order ([`Dispatch::methods`], else the document's method names) | either is known |
//! | `rpc.stream.next`, `rpc.stream.cancel` | the server's pull streams (see [`subscribe`](super::subscribe)) | always |
//! | `kotlinx.rpc.jsonrpc.internal.nextFlowValue`, `kotlinx.rpc.jsonrpc.internal.cancelFlow` | the same streams, as the kotlinx-rpc JSON-RPC proposal names them | always |
//!
//! (`-32601` otherwise.) Each is switched off by name
//! ([`Builder::without_system`](super::Builder::without_system)); the two kotlinx names,
//! outside `rpc.`, then reach the dispatcher like any other name. A provider is an
//! object, so it can keep state of its own, and it sees what the server knows of its
//! dispatcher ([`Catalog`]).

use serde_json::value::RawValue;

use crate::protocol::ErrorObject;

use super::context::Context;
use super::dispatch::{Dispatch, Reply};
use super::encoded::Encoded;
use super::pull;

/// One `rpc.*` method a server answers itself; see the [module docs](self).
///
/// ```
/// use rpcsmith::server::{Catalog, Context, Dispatch, Metadata, Reply, Server, SystemMethod};
/// use serde_json::value::RawValue;
///
/// /// `rpc.version`: which build of the server answers.
/// struct Version;
///
/// impl SystemMethod for Version {
///     fn call(&self, _params: Option<&RawValue>, _cx: Context, _catalog: &Catalog) -> Reply {
///         Reply::ok("1.2.3")
///     }
/// }
/// # struct Nothing;
/// # impl Dispatch for Nothing {
/// #     fn call(&self, _: &str, _: Option<&RawValue>, _: Context) -> Reply {
/// #         Reply::err(rpcsmith::protocol::ErrorObject::method_not_found())
/// #     }
/// # }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let server = Server::builder(Nothing)
///     .system("rpc.version", Version)
///     .without_system("rpc.methods")
///     .build();
/// let answer = server
///     .handle(br#"{"jsonrpc":"2.0","method":"rpc.version","id":1}"#, Metadata::default())
///     .await;
/// assert_eq!(answer.unwrap(), br#"{"jsonrpc":"2.0","result":"1.2.3","id":1}"#);
/// # });
/// ```
pub trait SystemMethod: Send + Sync + 'static {
    /// Answers one call of the name this provider is registered under.
    fn call(&self, params: Option<&RawValue>, context: Context, catalog: &Catalog) -> Reply;
}

/// What a server knows of its dispatcher, read once when it is built: what the default
/// providers answer, and what any provider may read.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    document: Option<Encoded>,
    methods: Option<Vec<String>>,
}

impl Catalog {
    /// Reads `dispatch`'s document and method names. A document that is not valid JSON
    /// is logged and treated as absent.
    pub(crate) fn of(dispatch: &dyn Dispatch) -> Self {
        let document = dispatch.document().and_then(|text| {
            serde_json::from_str::<&RawValue>(text)
                .inspect_err(|e| tracing::error!(error = %e, "rpc.discover document is not JSON"))
                .ok()
                .map(Encoded::from_raw)
        });
        let methods = match dispatch.methods() {
            Some(names) => Some(names.into_iter().map(str::to_owned).collect()),
            None => document.as_ref().and_then(|d| method_names(d.json())),
        };
        Catalog { document, methods }
    }

    /// The OpenRPC document (`rpc.discover`'s answer), when the dispatcher has one.
    pub fn document(&self) -> Option<&Encoded> {
        self.document.as_ref()
    }

    /// The names the dispatcher answers, when known: [`Dispatch::methods`], else the
    /// names of its document's methods.
    pub fn methods(&self) -> Option<&[String]> {
        self.methods.as_deref()
    }
}

/// The `name`s of an OpenRPC document's `methods`, or `None` when it has no such list.
pub(crate) fn method_names(document: &str) -> Option<Vec<String>> {
    #[derive(serde::Deserialize)]
    struct Document {
        methods: Vec<Named>,
    }
    #[derive(serde::Deserialize)]
    struct Named {
        name: String,
    }
    let document: Document = serde_json::from_str(document).ok()?;
    Some(document.methods.into_iter().map(|m| m.name).collect())
}

/// `rpc.discover`: the dispatcher's document.
#[derive(Debug, Clone, Copy, Default)]
pub struct Discover;

impl SystemMethod for Discover {
    fn call(&self, _: Option<&RawValue>, _: Context, catalog: &Catalog) -> Reply {
        match catalog.document() {
            Some(document) => Reply::ready(Ok(document.clone())),
            None => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

/// `rpc.methods`: the names the dispatcher answers.
#[derive(Debug, Clone, Copy, Default)]
pub struct Methods;

impl SystemMethod for Methods {
    fn call(&self, _: Option<&RawValue>, _: Context, catalog: &Catalog) -> Reply {
        match catalog.methods() {
            Some(names) => Reply::ok(names),
            None => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

/// Who answers a name of the table: a provider, or the server's pull streams.
pub(crate) enum Provider {
    /// A provider, default or added.
    Method(Box<dyn SystemMethod>),
    /// The pull streams' methods, answered by the server's registry of them.
    Pulls,
}

/// The providers of one server, by name, in the order added.
///
/// Every call looks its method up here before the dispatcher sees it, so the lookup
/// first tests the name's length against the lengths the table holds (one bit each):
/// an application's method (`add`, `eth_call`) is usually of no such length and
/// passes without a comparison of names. Measured on the bench's `add` in batches of
/// 1,000: the scan of the six default names cost about 35 instructions a call.
pub(crate) struct Providers {
    entries: Vec<(Box<str>, Provider)>,
    /// Bit `n` set when a name of `n` bytes is in `entries` (bit 63: 63 bytes or more).
    lengths: u64,
}

/// The bit of [`Providers::lengths`] for a name of `len` bytes.
fn length_bit(len: usize) -> u64 {
    1 << len.min(63)
}

impl Providers {
    /// `rpc.discover` and `rpc.methods`, and the pull streams' methods.
    pub(crate) fn defaults() -> Self {
        let mut providers = Providers {
            entries: Vec::new(),
            lengths: 0,
        };
        providers.insert("rpc.discover", Box::new(Discover));
        providers.insert("rpc.methods", Box::new(Methods));
        for name in [pull::NEXT, pull::CANCEL, pull::FLOW_NEXT, pull::FLOW_CANCEL] {
            providers.entries.push((name.into(), Provider::Pulls));
        }
        providers.measure();
        providers
    }

    /// Adds `provider` under `name`, replacing any provider of that name. A name
    /// outside `rpc.` would never be called: it is logged and left out.
    pub(crate) fn insert(&mut self, name: &str, provider: Box<dyn SystemMethod>) {
        if !name.starts_with("rpc.") {
            tracing::error!(
                name,
                "a system method's name must start with `rpc.`; left out"
            );
            return;
        }
        self.remove(name);
        self.entries.push((name.into(), Provider::Method(provider)));
        self.measure();
    }

    pub(crate) fn remove(&mut self, name: &str) {
        self.entries.retain(|(known, _)| &**known != name);
        self.measure();
    }

    /// Sets [`lengths`](Self::lengths) from the names held.
    fn measure(&mut self) {
        self.lengths = self
            .entries
            .iter()
            .fold(0, |bits, (name, _)| bits | length_bit(name.len()));
    }

    /// The names answered, in the order added.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(name, _)| &**name)
    }

    /// Who answers `name`, if the table has it.
    #[inline]
    pub(crate) fn get(&self, name: &str) -> Option<&Provider> {
        if self.lengths & length_bit(name.len()) == 0 {
            return None;
        }
        self.entries
            .iter()
            .find(|(known, _)| &**known == name)
            .map(|(_, provider)| provider)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_found_whatever_the_length_filter_says() {
        let mut providers = Providers::defaults();
        for name in providers.names().map(str::to_owned).collect::<Vec<_>>() {
            assert!(providers.get(&name).is_some(), "{name}");
        }
        // Lengths the table holds, names it does not; and lengths it does not hold.
        assert!(providers.get("rpc.discovex").is_none());
        assert!(providers.get("add").is_none());
        assert!(providers.get("").is_none());
        // A name of 63 bytes or more shares the last bit.
        let long = format!("rpc.{}", "x".repeat(80));
        assert!(providers.get(&long).is_none());
        providers.insert(&long, Box::new(Methods));
        assert!(providers.get(&long).is_some());
        assert!(providers.get(&format!("rpc.{}", "y".repeat(80))).is_none());
        // Removed, a name is no longer found, and its length no longer passes.
        providers.remove("rpc.discover");
        assert!(providers.get("rpc.discover").is_none());
        assert_eq!(providers.lengths & length_bit("rpc.discover".len()), 0);
        assert!(providers.get("rpc.methods").is_some());
    }
}
