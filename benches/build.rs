//! Generates the `add` module (types, client, server) from `add.json` into `OUT_DIR`:
//! the bench serves and calls rpcsmith's generated code, as a user's crate would.

fn main() {
    rpcsmith_build::configure()
        .client(true)
        .server(true)
        .compile("add.json")
        .unwrap_or_else(|e| panic!("{e}"));
}
