//! Generates the `petstore` module from the project's example document, for the
//! `dispatcher` target: the generated dispatcher is what it fuzzes.

fn main() {
    rpcsmith_build::configure()
        .client(false)
        .server(true)
        .compile("../schemas/petstore.json")
        .unwrap_or_else(|e| panic!("{e}"));
}
