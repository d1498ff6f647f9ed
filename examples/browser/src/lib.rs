//! A web page that calls a petstore server with the generated client, in the browser.
//!
//! `build.rs` generates the petstore client from `schemas/petstore.json`; this crate
//! compiles for `wasm32-unknown-unknown` with rpcsmith's `browser` feature, and
//! `index.html` loads it. `run` (built for `wasm32` only) adds two pets, lists them,
//! fetches one, asks for one that does not exist (a declared error, typed) and writes
//! each answer into the page.
//!
//! Build and serve it (the server must allow the page's origin, see the guide's
//! "In a browser"):
//!
//! ```text
//! cargo build -p browser-example --target wasm32-unknown-unknown
//! wasm-bindgen --target web --out-dir examples/browser/pkg \
//!     target/wasm32-unknown-unknown/debug/browser_example.wasm
//! # serve examples/browser/ and open index.html?endpoint=http://127.0.0.1:PORT/
//! ```
//!
//! `tests/browser/tests/chromium.rs` does exactly that in headless Chromium and reads
//! the page back.

rpcsmith::include_api!("petstore");

#[cfg(target_arch = "wasm32")]
mod page;
#[cfg(target_arch = "wasm32")]
pub use page::run;
