//! The rpcsmith guide: from a first `build.rs` to production, one chapter a page.
//!
//! The README is the front page; this is the reference. Each chapter is a doc-only module
//! (as clap's `_tutorial` and axum's docs are): it holds no code, and every Rust snippet in
//! it is compiled as a doctest of this crate, so what you read is what builds. The
//! markdown sources are `runtime/src/guide/*.md`.
//!
//! | chapter | what it covers |
//! |---|---|
//! | [`getting_started`] | the first program: `Cargo.toml`, `build.rs`, a client and a server, a subscription on both sides, where the generated module is |
//! | [`generated`] | what a document generates: client, server trait, dispatcher, batch builder, declared errors, messages of values that do not fit |
//! | [`types`] | JSON Schema to Rust types, and how each type is named |
//! | [`subscriptions`] | methods the server sends, and subscriptions declared or recognised |
//! | [`builder`] | every option of the builder in `build.rs`, templates, fixing a document you cannot edit |
//! | [`validation`] | the schema's constraints checked by the generated server and, on request, the client |
//! | [`cli`] | the `rpcsmith` command-line tool |
//! | [`diff`] | `rpcsmith diff`: what a change of a document breaks on the wire |
//! | [`mock`] | `rpcsmith mock`: a server answering from the document alone |
//! | [`client`] | the runtime's client: untyped calls, batches, errors, timeouts |
//! | [`server`] | the runtime's server: dispatchers, limits, several documents, a proxy |
//! | [`transports`] | HTTP, SSE, WebSocket, stdio, TCP, Unix sockets, memory; symmetric peers; MCP and LSP |
//! | [`production`] | metrics, client middleware, tracing, rate limits and access rules, several instances |
//!
//! Upgrading from an earlier release: `CHANGELOG.md` has a note for every breaking change.

#[doc = include_str!("getting_started.md")]
pub mod getting_started {}

#[doc = include_str!("generated.md")]
pub mod generated {}

#[doc = include_str!("types.md")]
pub mod types {}

#[doc = include_str!("subscriptions.md")]
pub mod subscriptions {}

#[doc = include_str!("builder.md")]
pub mod builder {}

#[doc = include_str!("validation.md")]
pub mod validation {}

#[doc = include_str!("cli.md")]
pub mod cli {}

#[doc = include_str!("diff.md")]
pub mod diff {}

#[doc = include_str!("mock.md")]
pub mod mock {}

#[doc = include_str!("client.md")]
pub mod client {}

#[doc = include_str!("server.md")]
pub mod server {}

#[doc = include_str!("transports.md")]
pub mod transports {}

#[doc = include_str!("production.md")]
pub mod production {}
