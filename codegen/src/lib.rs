//! `rpcsmith-build` turns an OpenRPC document into typed Rust.
//!
//! The pipeline is load → validate → resolve → model → render → format.
//!
//! The front half (load, validate, resolve) is [`load_document`]: it reads the document,
//! checks it against the OpenRPC specification and the generator's own rules, resolves
//! every `$ref` (in the document and in the other files it names), and returns a
//! [`Document`]: the typed model, the [`Resolver`] holding every file read, the methods
//! with their references resolved, and the warnings.
//!
//! ```no_run
//! let options = rpcsmith_build::Options::new().include_dir("specs");
//! let document = rpcsmith_build::load_document("openrpc.json", &options)?;
//! for warning in &document.warnings {
//!     println!("cargo:warning={warning}");
//! }
//! for file in document.resolver.files_read() {
//!     println!("cargo:rerun-if-changed={}", file.display());
//! }
//! # Ok::<(), rpcsmith_build::Error>(())
//! ```
//!
//! The types of a document (every schema as a Rust type, rendered through the
//! handlebars templates and formatted with prettyplease) come from [`generate_types`]:
//!
//! ```no_run
//! let options = rpcsmith_build::Options::new();
//! let out = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("petstore.rs");
//! let report = rpcsmith_build::generate_types("openrpc.json", &out, &options)?;
//! for warning in &report.warnings {
//!     println!("cargo:warning={warning}");
//! }
//! # Ok::<(), rpcsmith_build::Error>(())
//! ```

mod builder;
pub mod document;
pub mod error;
pub mod load;
pub mod openrpc;
pub mod pointer;
pub mod resolve;
pub mod source;
pub mod validate;

mod bundle;
mod emit;
mod format;
pub mod generate;
mod naming;
mod render;
mod service;
pub mod settings;
mod types;
pub mod typespace;

#[doc(hidden)]
pub mod corpus;

pub use builder::{Builder, Emitted, configure};
pub use document::Document;
pub use emit::write_if_changed;
pub use error::{Diagnostic, Diagnostics, Error, ErrorKind, Severity};
pub use generate::{Generated, generate};
pub use load::{Options, load_document};
pub use resolve::{FileId, Location, Resolver};
pub use settings::{Override, ParamsBy, Settings};
pub use types::{ExampleValue, Report, generate_types, render_types};
