//! The generated modules of the browser tests: clients for the tests compiled to
//! `wasm32-unknown-unknown` (`tests/fetch.rs`, `tests/websocket.rs`), servers for the
//! native harness that serves them and runs those tests in headless Chromium
//! (`tests/chromium.rs`).

rpcsmith::include_api!(
    /// `schemas/petstore.json`: types, client, server.
    pub petstore
);
rpcsmith::include_api!(
    /// `schemas/eth-newheads.json`: Ethereum's `newHeads` subscription.
    pub eth_newheads
);
