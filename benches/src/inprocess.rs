//! One call in process, no transport: rpcsmith's `Server::handle` on the generated
//! dispatcher against jsonrpsee's `RpcModule::raw_json_request` and the hand-written
//! dispatcher of `floor`, the same body, on a current-thread Tokio runtime. (`runtime/benches/engine.rs` measures the engine with a
//! hand-written dispatcher and batches too; this is the generated code.)
//!
//! Each side's time is the CPU time of the thread running the loop (the runtime is
//! current-thread, on it): on a shared machine, the wall clock would also count the
//! time the thread waited for a core.

use std::hint::black_box;
use std::time::Duration;

use anyhow::Context as _;
use jsonrpsee::RpcModule;
use rpcsmith::server::{Metadata, Server};

use crate::api;
use crate::proc::thread_cpu_time;
use crate::serve::Impl;

/// Calls of one side in one turn: about 5 ms of the fastest side, 25 of jsonrpsee's.
const TURN: u64 = 10_000;

/// Every side, ready to be timed.
pub(crate) struct InProcess {
    runtime: tokio::runtime::Runtime,
    server: Server,
    module: RpcModule<()>,
    body: String,
}

impl InProcess {
    /// Builds both, and checks that both answer the call rightly.
    ///
    /// # Errors
    ///
    /// When the runtime cannot start or an answer is wrong.
    pub(crate) fn new() -> anyhow::Result<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("starting a Tokio runtime")?;
        let this = InProcess {
            runtime,
            server: api::rpcsmith_server(),
            module: api::jsonrpsee_module(),
            body: api::call(1),
        };
        let ours = this
            .runtime
            .block_on(
                this.server
                    .handle(this.body.as_bytes(), Metadata::default()),
            )
            .context("rpcsmith answered nothing")?;
        api::check_answer(&ours, 1).context("rpcsmith in process")?;
        let (theirs, _) = this
            .runtime
            .block_on(this.module.raw_json_request(&this.body, 1))
            .context("jsonrpsee in process")?;
        api::check_answer(theirs.get().as_bytes(), 1).context("jsonrpsee in process")?;
        let floor =
            crate::floor::handle(this.body.as_bytes()).context("the floor answered nothing")?;
        api::check_answer(&floor, 1).context("the hand-written floor in process")?;
        Ok(this)
    }

    /// The CPU time of `calls` calls of each side (rpcsmith, jsonrpsee, the hand-written
    /// dispatcher), taken in turns of [`TURN`] calls.
    ///
    /// Turns, not one side after the other: this machine's neighbours take a share of the
    /// core that changes from second to second (the same side measured 320 and 500 ns a
    /// call in consecutive runs), so sides timed seconds apart were not timed alike. In
    /// turns of a few milliseconds each side meets the same neighbours.
    pub(crate) fn round(&self, calls: u64) -> anyhow::Result<[(Impl, Duration); 3]> {
        let mut spent = [Duration::ZERO; 3];
        let mut done = 0;
        while done < calls {
            let turn = TURN.min(calls - done);
            spent[0] += self.rpcsmith(turn)?;
            spent[1] += self.jsonrpsee(turn)?;
            spent[2] += self.hand_written(turn)?;
            done += turn;
        }
        Ok([
            (Impl::Rpcsmith, spent[0]),
            (Impl::Jsonrpsee, spent[1]),
            (Impl::Handwritten, spent[2]),
        ])
    }

    /// The CPU time of `calls` calls of rpcsmith's server.
    fn rpcsmith(&self, calls: u64) -> anyhow::Result<Duration> {
        self.runtime.block_on(async {
            let start = thread_cpu_time()?;
            for _ in 0..calls {
                let message = black_box(self.body.as_bytes());
                black_box(self.server.handle(message, Metadata::default()).await);
            }
            Ok(thread_cpu_time()? - start)
        })
    }

    /// The CPU time of `calls` calls of the hand-written dispatcher (`floor`), in the
    /// same kind of loop on the same runtime.
    fn hand_written(&self, calls: u64) -> anyhow::Result<Duration> {
        self.runtime.block_on(async {
            let start = thread_cpu_time()?;
            for _ in 0..calls {
                let message = black_box(self.body.as_bytes());
                black_box(crate::floor::handle(message));
            }
            Ok(thread_cpu_time()? - start)
        })
    }

    /// The CPU time of `calls` calls of jsonrpsee's module.
    fn jsonrpsee(&self, calls: u64) -> anyhow::Result<Duration> {
        self.runtime.block_on(async {
            let start = thread_cpu_time()?;
            for _ in 0..calls {
                let answer = self.module.raw_json_request(black_box(&self.body), 1).await;
                let _ = black_box(answer);
            }
            Ok(thread_cpu_time()? - start)
        })
    }
}
