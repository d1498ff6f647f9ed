//! Generates the `add` module (types, client, server) from `add.json`, and the `items`
//! module (the fan-out scenario's subscription) from `items.json`, the `block` module
//! (the large-result scenario's `eth_getBlockByNumber`) from `block.json`, and `validation.json`
//! twice, with constraint checks (`transfer_checked`) and without
//! (`transfer_unchecked`), into `OUT_DIR`: the bench serves and calls rpcsmith's
//! generated code, as a user's crate would.

fn main() {
    for document in ["add.json", "items.json", "block.json"] {
        rpcsmith_build::configure()
            .client(true)
            .server(true)
            .compile(document)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    for (module, checks) in [("transfer_checked", true), ("transfer_unchecked", false)] {
        rpcsmith_build::configure()
            .client(false)
            .module(module)
            .validation(checks)
            .compile("validation.json")
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
