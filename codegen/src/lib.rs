//! `rpcsmith-build` turns an OpenRPC document into typed Rust.
//!
//! The pipeline is load → validate → resolve → model → render → format.

pub mod error;
pub mod pointer;
pub mod resolve;
pub mod source;

#[doc(hidden)]
pub mod corpus;

mod format;
mod naming;
mod render;
mod types;
pub mod typespace;

pub use error::{Diagnostic, Diagnostics, Error, ErrorKind, Severity};
pub use resolve::{FileId, Location, Resolver};
pub use types::{ExampleValue, Report, TypesOptions, generate_types, render_types};
