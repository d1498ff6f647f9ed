//! The whole generator (load, validate, resolve, type space, services, render, format):
//! any document gives a module or diagnostics, never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rpcsmith_build::{Settings, generate};

fuzz_target!(|data: &[u8]| {
    let path = rpcsmith_fuzz::document(data);
    if let Err(e) = generate(path, &Settings::default()) {
        assert!(!e.to_string().is_empty(), "an error without a diagnostic");
    }
});
