//! `rpcsmith-build` turns an OpenRPC document into typed Rust.
//!
//! The pipeline is load → validate → resolve → model → render → format.
