//! Generates `shop` from `shop.json` with every kind of type override.

fn main() {
    rpcsmith_build::configure()
        .rename("/components/schemas/Pet", "Animal")
        .replace("/components/schemas/Money", "crate::money::Cents")
        .derive("*", "::schemars::JsonSchema")
        .derive("/components/schemas/Kind", "::std::cmp::PartialOrd")
        .compile("shop.json")
        .unwrap_or_else(|e| panic!("{e}"));
}
