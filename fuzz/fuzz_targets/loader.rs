//! The generator's document loader (load, validate, resolve): any document loads or
//! gives diagnostics, never a panic. The bytes are written to a file (the loader reads files,
//! and `$ref`s are relative to them) in a directory of this process's own, in memory
//! where there is a `/dev/shm`: on ext4, rewriting a file flushes it to the disk.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rpcsmith_build::{Options, load_document};
use std::path::PathBuf;
use std::sync::LazyLock;

static DOCUMENT: LazyLock<PathBuf> = LazyLock::new(|| {
    let shm = std::path::Path::new("/dev/shm");
    let base = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let dir = base.join(format!("rpcsmith-fuzz-loader-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("openrpc.json")
});

fuzz_target!(|data: &[u8]| {
    std::fs::write(&*DOCUMENT, data).unwrap();
    if let Err(e) = load_document(&*DOCUMENT, &Options::new()) {
        assert!(!e.to_string().is_empty(), "an error without a diagnostic");
    }
});
