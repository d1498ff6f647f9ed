//! Generates `shop` from `shop.json` with every kind of type override, `loose` from
//! `loose.json` keeping undescribed members, and, when the OpenRPC corpus is present,
//! `eth` from Ethereum's execution-apis document with the overrides real nodes and
//! client libraries need.

fn main() {
    rpcsmith_build::configure()
        .rename("/components/schemas/Pet", "Animal")
        .replace("/components/schemas/Money", "crate::money::Cents")
        .derive("*", "::schemars::JsonSchema")
        .derive("/components/schemas/Kind", "::std::cmp::PartialOrd")
        .compile("shop.json")
        .unwrap_or_else(|e| panic!("{e}"));
    rpcsmith_build::configure()
        .keep_undescribed(true)
        .compile("loose.json")
        .unwrap_or_else(|e| panic!("{e}"));
    println!("cargo::rustc-check-cfg=cfg(corpus)");
    println!("cargo:rerun-if-env-changed=RPCSMITH_CORPUS_DIR");
    let Some(dir) = rpcsmith_corpus::dir() else {
        return;
    };
    println!("cargo:rustc-cfg=corpus");
    rpcsmith_build::configure()
        .module("eth")
        // Dev nodes leave out the `blockTimestamp` the document requires on transactions.
        .optional("/components/schemas/TransactionInfo/allOf/0/properties/blockTimestamp")
        // Client libraries send `eth_call`'s calldata as `data`.
        .alias(
            "/components/schemas/GenericTransaction/properties/input",
            "data",
        )
        .compile(dir.join("ethereum-execution-apis/refs-openrpc.json"))
        .unwrap_or_else(|e| panic!("{e}"));
}
