//! The generated modules that the guide's snippets (`rpcsmith::guide`) use, generated
//! from the project's documents by `build.rs` as a user's build script would. The runtime
//! depends on this crate for its doctests only, so that a snippet that needs a generated
//! client or server is compiled against the real generated code rather than fenced
//! `ignore`; each snippet names its module in a hidden line
//! (`# use rpcsmith_guide_api::petstore;`).
#![deny(warnings)]

rpcsmith::include_api!(
    /// `schemas/petstore.json`: client and server.
    pub petstore
);
rpcsmith::include_api!(
    /// `schemas/petstore.json`, a partial server: trait methods answer `-32601` by default.
    pub petstore_partial
);
rpcsmith::include_api!(
    /// `schemas/eth-newheads.json`: Ethereum's `eth_subscribe("newHeads")`, recognised.
    pub eth_newheads
);
rpcsmith::include_api!(
    /// `tests/services/documents/constraints.json`: params with constraints.
    pub constraints
);
rpcsmith::include_api!(
    /// `codegen/tests/fixtures/services/ticker.json` with `server_to_client("ticker_*")`.
    pub ticker
);
rpcsmith::include_api!(
    /// `tests/bothways/uploads.json`: params that are streams the caller sends.
    pub uploads
);
rpcsmith::include_api!(
    /// `schemas/petstore.json`, types alone, with `json_schema(true)`.
    pub petstore_schemas
);
rpcsmith::include_api!(
    /// `schemas/mcp.json` (MCP 2025-11-25): client and partial server, with the
    /// directions `examples/mcp/build.rs` gives (`server_to_client`, `both_ways`).
    pub mcp
);
