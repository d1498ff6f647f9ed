//! The generator's document loader (load, validate, resolve): any document loads or
//! gives diagnostics, never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rpcsmith_build::{Options, load_document};

fuzz_target!(|data: &[u8]| {
    let path = rpcsmith_fuzz::document(data);
    if let Err(e) = load_document(path, &Options::new()) {
        assert!(!e.to_string().is_empty(), "an error without a diagnostic");
    }
});
