//! What the fuzz targets share: a runtime to drive async code, and a file to hand a
//! document to the generator.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a Tokio runtime")
});

/// Runs `future` to its end on one thread (with a timer, for the engine's limits).
pub fn block_on<F: Future>(future: F) -> F::Output {
    RUNTIME.block_on(future)
}

static DOCUMENT: LazyLock<PathBuf> = LazyLock::new(|| {
    // In memory where possible: on ext4, rewriting a file flushes it to the disk, which
    // made each run wait milliseconds.
    let shm = Path::new("/dev/shm");
    let base = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let dir = base.join(format!("rpcsmith-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory for the document");
    dir.join("openrpc.json")
});

/// Writes `data` as `openrpc.json` in a directory of this process's own (the loader reads
/// files, and resolves `$ref`s relative to them) and returns its path.
pub fn document(data: &[u8]) -> &'static Path {
    std::fs::write(&*DOCUMENT, data).expect("the document written");
    &DOCUMENT
}
