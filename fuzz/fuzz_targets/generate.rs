//! The whole generator (load, validate, resolve, type space, services, render, format):
//! any document gives a module or diagnostics, never a panic. The bytes are written to a file (the loader reads files,
//! and `$ref`s are relative to them) in a directory of this process's own, in memory
//! where there is a `/dev/shm`: on ext4, rewriting a file flushes it to the disk.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rpcsmith_build::{Settings, generate};
use std::path::PathBuf;
use std::sync::LazyLock;

static DOCUMENT: LazyLock<PathBuf> = LazyLock::new(|| {
    let shm = std::path::Path::new("/dev/shm");
    let base = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let dir = base.join(format!("rpcsmith-fuzz-generate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("openrpc.json")
});

fuzz_target!(|data: &[u8]| {
    std::fs::write(&*DOCUMENT, data).unwrap();
    if let Err(e) = generate(&*DOCUMENT, &Settings::default()) {
        assert!(!e.to_string().is_empty(), "an error without a diagnostic");
    }
});
