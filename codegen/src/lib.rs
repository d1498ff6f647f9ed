//! `rpcsmith-build` turns an OpenRPC document into typed Rust: every schema as a type, a
//! typed client, and a server trait with its dispatcher, in one module per document.
//!
//! # From build.rs
//!
//! ```toml
//! # Cargo.toml
//! [dependencies]
//! rpcsmith = { path = "…/runtime" }
//! [build-dependencies]
//! rpcsmith-build = { path = "…/codegen" }
//! ```
//!
//! ```no_run
//! // build.rs, in `fn main`
//! rpcsmith_build::configure()
//!     .client(true)
//!     .server(true)
//!     .compile("openrpc.json")
//!     .unwrap_or_else(|e| panic!("{e}"));
//! ```
//!
//! ```ignore
//! // src/main.rs or lib.rs: a document titled "Petstore" gives the module `petstore`
//! rpcsmith::include_api!("petstore");
//! use petstore::{PetstoreClient, PetstoreServer, types::Pet};
//! ```
//!
//! [`configure`] returns a [`Builder`]; [`Builder::compile`] writes `OUT_DIR/<module>.rs`
//! (and beside it `<module>.discover.json`, the document its server answers on
//! `rpc.discover`, which the module includes) only when its content changed, prints `cargo:rerun-if-changed` for the document, every
//! file its `$ref`s reach and every user template, and `cargo:warning` for each warning.
//! Change the document and `cargo build` regenerates the module; whatever no longer fits
//! fails to compile where it is used. A failure's `Display` lists every problem as
//! `file:line:col: at /json/pointer: message`.
//!
//! Methods the server sends to the client (a subscription's notifications, a language
//! server's requests to its editor) are marked with [`Builder::server_to_client`]: they get
//! `<Doc>Push` (the server's typed sender) and `<Doc>Listener` (the client's handlers)
//! instead of client and server methods.
//!
//! Subscriptions (a subscribe method, the notification carrying its items, an
//! unsubscribe method) are declared by the `x-subscription` extension of the subscribe
//! method, by [`Builder::subscription`], or recognised from Starknet's and Ethereum's
//! conventions ([`Builder::conventions`]): the client's method returns a typed
//! `Subscription<Item>`, the server trait's the `Items<Item>` to send, and the runtime
//! routes the notifications and answers the unsubscribe method. See [`Subscription`].
//!
//! A method marked `"x-idempotent": true` is listed in the generated client's
//! `IDEMPOTENT` (wire names; emitted when some method is marked), ready for the runtime's
//! `client::Retry::idempotent(<Doc>Client::IDEMPOTENT.iter().copied())`: only those
//! methods are ever sent again. Another value than a boolean is ignored with a warning.
//!
//! The `rpcsmith` command-line tool (its own crate, `rpcsmith-cli`, so that build.rs users
//! never compile it) runs the same pipeline for people who commit generated code:
//! `rpcsmith generate openrpc.json -o src/api.rs`, and `rpcsmith check openrpc.json`.
//! `rpcsmith diff old.json new.json` lists every wire difference between two versions of
//! a document, and whether it breaks existing clients, existing servers, or neither.
//!
//! # The pipeline
//!
//! load → validate → resolve → model → render → format. [`generate()`] runs all of it and
//! returns the source without writing it. The front half (load, validate, resolve) is
//! [`load_document`]: it reads the document, checks it against the OpenRPC specification
//! and the generator's own rules, resolves every `$ref` (in the document and in the other
//! files it names), and returns a [`Document`]: the typed model, the [`Resolver`] holding
//! every file read, the methods with their references resolved, and the warnings.
//!
//! ```no_run
//! let options = rpcsmith_build::Options::new().include_dir("specs");
//! let document = rpcsmith_build::load_document("openrpc.json", &options)?;
//! for warning in &document.warnings {
//!     println!("{warning}");
//! }
//! # Ok::<(), rpcsmith_build::Error>(())
//! ```
//!
//! The types alone (every schema as a Rust type) come from the same pipeline, with
//! neither client nor server: [`generate()`] with [`Settings::client`] and
//! [`Settings::server`] off, or `configure().client(false).server(false)`.

// The public surface: the builder and its settings, the pipeline's front half and
// whole (`load_document`, `generate`), the diagnostics, and the models their results
// are made of (`document`, `openrpc`). Everything else is the crate's own.
mod builder;
pub mod document;
mod error;
mod load;
pub mod openrpc;
pub mod pattern;
mod pointer;
mod resolve;
mod source;
mod validate;

mod bundle;
mod direction;
mod embedded;
mod emit;
#[cfg(test)]
mod extension;
mod format;
mod generate;
mod naming;
mod render;
mod service;
mod settings;
mod streams;
mod subscription;
mod suggest;
mod typespace;

/// The template engine the generator renders with, re-exported so that a user's
/// helpers ([`Builder::helper`]) implement the same version's `HelperDef`.
pub use handlebars;

pub use builder::{Builder, Emitted, configure};
pub use document::Document;
pub use emit::write_if_changed;
pub use error::{Cause, Diagnostic, Diagnostics, Error, ErrorKind, Severity};
pub use generate::{BesideFile, ExampleValue, Generated, generate};
pub use load::{Options, load_document};
pub use render::TemplateHelper;
pub use resolve::{FileId, Location, Resolver};
pub use settings::{Override, ParamsBy, Settings};
pub use streams::server_sent_notifications;
pub use subscription::{ParseSubscriptionError, Subscription};
