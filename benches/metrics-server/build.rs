//! Generates the bench's `add` module from the bench's own `add.json`.

fn main() {
    rpcsmith_build::configure()
        .client(false)
        .server(true)
        .compile("../add.json")
        .unwrap_or_else(|e| panic!("{e}"));
}
