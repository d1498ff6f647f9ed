//! Generates the guide's modules the user's way (`configure()…compile()` into `OUT_DIR`).

fn main() {
    let generate =
        |module: &str,
         document: &str,
         configure: fn(rpcsmith_build::Builder) -> rpcsmith_build::Builder| {
            configure(rpcsmith_build::configure().module(module))
                .compile(document)
                .unwrap_or_else(|e| panic!("{e}"));
        };
    generate("petstore", "../../schemas/petstore.json", |b| b);
    // Every server trait method answers -32601 until written (the server chapter).
    generate("petstore_partial", "../../schemas/petstore.json", |b| {
        b.client(false).partial(true)
    });
    // Ethereum's pub-sub shape, recognised without help (getting started).
    generate("eth_newheads", "../../schemas/eth-newheads.json", |b| b);
    // Constraint checks (the validation chapter).
    generate(
        "constraints",
        "../services/documents/constraints.json",
        |b| b,
    );
    // Server-to-client methods: pushes and listeners (the subscriptions chapter).
    generate(
        "ticker",
        "../../codegen/tests/fixtures/services/ticker.json",
        |b| b.server_to_client("ticker_*"),
    );
    // MCP, both sides, with the directions its specification gives (transports: MCP).
    generate("mcp", "../../schemas/mcp.json", |b| {
        let b = b.partial(true);
        let b = [
            "sampling/*",
            "elicitation/*",
            "roots/list",
            "notifications/message",
            "notifications/resources/*",
            "notifications/tools/*",
            "notifications/prompts/*",
            "notifications/elicitation/*",
        ]
        .into_iter()
        .fold(b, |b, pattern| b.server_to_client(pattern));
        [
            "ping",
            "notifications/progress",
            "notifications/cancelled",
            "tasks/*",
            "notifications/tasks/*",
        ]
        .into_iter()
        .fold(b, |b, pattern| b.both_ways(pattern))
    });
    // A stream param, `x-stream` (the subscriptions chapter, streams both ways).
    generate("uploads", "../bothways/uploads.json", |b| b);
    // Types that implement `JsonSchema` with the document's schemas (code first).
    generate("petstore_schemas", "../../schemas/petstore.json", |b| {
        b.client(false).server(false).json_schema(true)
    });
}
