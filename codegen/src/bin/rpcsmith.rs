//! The `rpcsmith` command-line tool.

fn main() -> anyhow::Result<()> {
    anyhow::bail!("the rpcsmith CLI is not built yet")
}
