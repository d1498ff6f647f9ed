//! The library behind the `rpcsmith` command-line tool: what the tool does beyond the
//! generator of `rpcsmith-build`, usable from Rust too.
//!
//! - [`diff`]: every wire difference between two versions of an OpenRPC document, and
//!   whether it breaks existing clients, existing servers, or neither
//!   (`rpcsmith diff old.json new.json`).
//! - [`mock`]: a document's methods answered from its examples or from values generated
//!   from its schemas, and [`mock::Dispatcher`] serving them on the runtime's transports
//!   (`rpcsmith mock openrpc.json`).
//!
//! Install the tool with `cargo install rpcsmith-cli` (or `cargo install --path
//! codegen/cli` in a checkout).

pub mod diff;
pub mod mock;
mod shape;
