//! Generates the uploads API the user's way: `configure()…compile()` into `OUT_DIR`.

fn main() {
    rpcsmith_build::configure()
        .client(true)
        .server(true)
        .compile("uploads.json")
        .unwrap_or_else(|e| panic!("{e}"));
}
