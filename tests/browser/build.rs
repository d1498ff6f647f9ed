//! Generates the modules the browser tests call (client) and the harness serves
//! (server) into `OUT_DIR`.

fn main() {
    for (module, document) in [("petstore", "petstore"), ("eth_newheads", "eth-newheads")] {
        rpcsmith_build::configure()
            .module(module)
            .compile(format!("../../schemas/{document}.json"))
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
