//! Generates the `petstore` module (types, client, server) into `OUT_DIR`.

fn main() {
    rpcsmith_build::configure()
        .client(true)
        .server(true)
        .compile("../../schemas/petstore.json")
        .unwrap_or_else(|e| panic!("{e}"));
}
