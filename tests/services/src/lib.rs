//! Generated modules, compiled under `#![deny(warnings)]`: the project's fixture always,
//! the corpus documents when the corpus is present.
#![deny(warnings)]

/// `codegen/tests/fixtures/services/features.json`.
pub mod features {
    include!(concat!(env!("OUT_DIR"), "/features.rs"));
}

macro_rules! corpus_modules {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        $(
            $(#[$doc])*
            #[cfg(corpus)]
            pub mod $name {
                include!(concat!(env!("OUT_DIR"), "/", stringify!($name), ".rs"));
            }
        )*
    };
}

corpus_modules! {
    /// `open-rpc-examples/petstore-openrpc.json`.
    petstore,
    /// `open-rpc-examples/params-by-name-petstore-openrpc.json`.
    petstore_by_name,
    /// `open-rpc-examples/simple-math-openrpc.json`.
    simple_math,
    /// `open-rpc-examples/link-example-openrpc.json`.
    link_example,
    /// `metamask-api-specs/multichain-openrpc.json`.
    multichain,
    /// `starknet-specs/api/starknet_api_openrpc.json`.
    starknet,
    /// `starknet-specs/api/starknet_ws_api.json`.
    starknet_ws,
    /// `ethereum-execution-apis/refs-openrpc.json`.
    ethereum,
}
