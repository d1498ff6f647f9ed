fn main() {
    rpcsmith_build::configure()
        .compile("openrpc.json")
        .unwrap_or_else(|e| panic!("{e}"));
}
