//! From code to document and back. [`original`] is a service's Rust types and its method
//! list; `openrpc.json` is the document [`rpcsmith::describe`] writes from them (a test
//! keeps it current); the build script generates [`codefirst`] from that document, under
//! `#![deny(warnings)]`, and the tests check that both sets of types write and read the
//! same JSON text.
#![deny(warnings)]

pub mod original;

rpcsmith::include_api!(
    /// Generated from `openrpc.json`, with `JsonSchema` on every type.
    pub codefirst
);

rpcsmith::include_api!(
    /// The types generated from `defs.json`: every schema a `schema_for!` root.
    pub defs
);
