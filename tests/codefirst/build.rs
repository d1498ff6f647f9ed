//! Generates `codefirst` from the document written from the original types.

fn main() {
    rpcsmith_build::configure()
        .client(true)
        .server(true)
        .module("codefirst")
        .json_schema(true)
        .compile("openrpc.json")
        .unwrap_or_else(|e| panic!("{e}"));
}
