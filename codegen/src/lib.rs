//! `rpcsmith-build` turns an OpenRPC document into typed Rust.
//!
//! The pipeline is load → validate → resolve → model → render → format.

pub mod error;
pub mod pointer;
pub mod resolve;
pub mod source;

#[doc(hidden)]
pub mod corpus;

pub use error::{Diagnostic, Diagnostics, Error, ErrorKind, Severity};
pub use resolve::{FileId, Location, Resolver};
