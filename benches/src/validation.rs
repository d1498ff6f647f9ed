//! `ratio validation_cpu_per_call`: the CPU per call of a generated server whose params
//! are checked against their schemas' constraints, over the same server generated
//! without the checks (`validation(false)`), in the same run. One call in process
//! (`Server::handle` on the generated dispatcher, a current-thread runtime), a method
//! with a few constrained params (`validation.json`: bounds and `multipleOf`, a
//! `pattern`, a `maxLength`, an array's `maxItems`, `uniqueItems` and its items'
//! lengths). Rounds alternate the two servers; the ratio is the median over rounds of
//! the ratio within each.

use std::hint::black_box;

use anyhow::{Context as _, ensure};
use rpcsmith::server::{Context, Failure, Metadata, Server};

use crate::proc::thread_cpu_time;

rpcsmith::include_api!("transfer_checked");
rpcsmith::include_api!("transfer_unchecked");

/// The call: valid params, so both servers run the handler.
const BODY: &str = r#"{"jsonrpc":"2.0","id":1,"method":"transfer","params":{"amount":250,"to":"0x52908400098527886e0f7030069857d2e4169ee7","memo":"rent for march","tags":["home","monthly","fixed"]}}"#;

/// Breaks `multipleOf`: refused by the checked server only (checked once, not timed).
const REFUSED: &str = r#"{"jsonrpc":"2.0","id":1,"method":"transfer","params":{"amount":251,"to":"0x52908400098527886e0f7030069857d2e4169ee7"}}"#;

/// A server of one generated module: the same handler for both.
macro_rules! transfer_server {
    ($server:ident, $module:ident :: $trait:ident) => {
        struct $server;

        impl $module::$trait for $server {
            async fn transfer(
                &self,
                _cx: Context,
                amount: u32,
                _to: String,
                _memo: Option<String>,
                tags: Option<Vec<String>>,
            ) -> Result<i64, Failure> {
                Ok(i64::from(amount) + tags.map_or(0, |t| t.len() as i64))
            }
        }
    };
}

transfer_server!(Checked, transfer_checked::TransferCheckedServer);
transfer_server!(Unchecked, transfer_unchecked::TransferUncheckedServer);

/// Which server a profiling run calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Side {
    /// The server with the constraint checks.
    On,
    /// The same server generated without them.
    Off,
}

/// The two servers, each checked once on the valid call and the refused one.
struct Servers {
    runtime: tokio::runtime::Runtime,
    checked: Server,
    unchecked: Server,
}

impl Servers {
    /// Starts the runtime and the servers; checks their answers.
    fn new() -> anyhow::Result<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("starting a Tokio runtime")?;
        let servers = Servers {
            runtime,
            checked: Server::new(transfer_checked::TransferCheckedDispatcher::new(Checked)),
            unchecked: Server::new(transfer_unchecked::TransferUncheckedDispatcher::new(
                Unchecked,
            )),
        };
        for server in [&servers.checked, &servers.unchecked] {
            let ok = servers.answer(server, BODY)?;
            ensure!(ok.contains(r#""result":253"#), "unexpected answer {ok}");
        }
        let refused = servers.answer(&servers.checked, REFUSED)?;
        ensure!(
            refused.contains("multipleOf"),
            "the check did not refuse: {refused}"
        );
        ensure!(
            servers
                .answer(&servers.unchecked, REFUSED)?
                .contains(r#""result":251"#)
        );
        Ok(servers)
    }

    fn answer(&self, server: &Server, body: &str) -> anyhow::Result<String> {
        let bytes = self
            .runtime
            .block_on(server.handle(body.as_bytes(), Metadata::default()))
            .context("no answer")?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// `calls` valid calls on `server`, one after the other.
    fn run(&self, server: &Server, calls: u64) {
        self.runtime.block_on(async {
            for _ in 0..calls {
                let body = black_box(BODY.as_bytes());
                black_box(server.handle(body, Metadata::default()).await);
            }
        });
    }

    /// CPU ns per call of `calls` valid calls on `server`.
    fn per_call(&self, server: &Server, calls: u64) -> anyhow::Result<f64> {
        // The runtime runs on this thread: its CPU time.
        let start = thread_cpu_time()?;
        self.run(server, calls);
        let spent = thread_cpu_time()? - start;
        Ok(spent.as_nanos() as f64 / calls as f64)
    }
}

/// Runs `calls` valid calls on one server in a loop, for a profiler (callgrind, `perf
/// stat -e instructions`): the two sides' instruction counts, less that of a run with
/// few calls, give the checks' own cost.
///
/// # Errors
///
/// When the runtime cannot start or an answer is wrong.
pub(crate) fn profile(side: Side, calls: u64) -> anyhow::Result<()> {
    let servers = Servers::new()?;
    let server = match side {
        Side::On => &servers.checked,
        Side::Off => &servers.unchecked,
    };
    servers.run(server, calls);
    println!("{calls} calls, checks {side:?}");
    Ok(())
}

/// Runs the scenario: `rounds` rounds of `calls` calls on each server; prints the
/// figures and the `ratio validation_cpu_per_call` line.
///
/// # Errors
///
/// When the runtime cannot start, an answer is wrong, or CPU time cannot be read.
pub(crate) fn report(rounds: usize, calls: u64) -> anyhow::Result<()> {
    let servers = Servers::new()?;
    let (checked, unchecked) = (&servers.checked, &servers.unchecked);
    let mut ratios = Vec::new();
    println!("\nValidation (in process, CPU ns per call, {calls} calls a round)");
    println!("| round | checks on | checks off | ratio |");
    println!("|---|---|---|---|");
    for round in 0..rounds.max(1) {
        // Alternate which goes first, so neither always runs on a warmer cache.
        let (on, off) = if round % 2 == 0 {
            let on = servers.per_call(checked, calls)?;
            (on, servers.per_call(unchecked, calls)?)
        } else {
            let off = servers.per_call(unchecked, calls)?;
            (servers.per_call(checked, calls)?, off)
        };
        let ratio = if off > 0.0 { on / off } else { 1.0 };
        println!("| {round} | {on:.0} | {off:.0} | {ratio:.3} |");
        ratios.push(ratio);
    }
    ratios.sort_by(f64::total_cmp);
    let median = ratios[ratios.len() / 2];
    println!("ratio validation_cpu_per_call {median:.3}");
    Ok(())
}
