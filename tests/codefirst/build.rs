//! Generates `codefirst` from the document written from the original types, and `defs`
//! (types only) from the one of `schema_for!` schemas.

fn main() {
    rpcsmith_build::configure()
        .client(true)
        .server(true)
        .module("codefirst")
        .json_schema(true)
        .compile("openrpc.json")
        .unwrap_or_else(|e| panic!("{e}"));
    rpcsmith_build::configure()
        .client(false)
        .server(false)
        .module("defs")
        .compile("defs.json")
        .unwrap_or_else(|e| panic!("{e}"));
}
