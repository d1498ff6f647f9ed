//! Generates the `petstore` module's types and client into `OUT_DIR`: a page needs no
//! server.

fn main() {
    rpcsmith_build::configure()
        .client(true)
        .server(false)
        .compile("../../schemas/petstore.json")
        .unwrap_or_else(|e| panic!("{e}"));
}
