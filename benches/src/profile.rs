//! Entry points for profilers (hidden commands): one side of the in-process case in a
//! loop (`profile`), and one load against a URL for a fixed time (`drive`), so that
//! callgrind, perf or strace can watch a single implementation at a time.
//!
//! ```sh
//! valgrind --tool=callgrind target/release/rpcsmith-bench profile --impl rpcsmith --batch 100
//! target/release/rpcsmith-bench serve --impl jsonrpsee --http 127.0.0.1:9000 &
//! target/release/rpcsmith-bench drive --url http://127.0.0.1:9000/ --seconds 10
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use rpcsmith::server::Metadata;

use crate::serve::{Impl, Transport};
use crate::{api, clients, load, serve};

/// Runs `calls` calls in process through `implementation`, in batches of `batch`
/// (rpcsmith and the hand-written floor only: jsonrpsee's `raw_json_request` takes one
/// call at a time).
///
/// # Errors
///
/// When jsonrpsee is asked for batches, or an answer is wrong.
pub(crate) fn in_process(implementation: Impl, batch: usize, calls: u64) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let body = api::body(batch.max(1));
    let rounds = calls / batch.max(1) as u64;
    let start = Instant::now();
    match implementation {
        Impl::Rpcsmith => {
            let server = api::rpcsmith_server();
            let answer = runtime.block_on(server.handle(body.as_bytes(), Metadata::default()));
            api::check_answer(&answer.context("no answer")?, batch.max(1))?;
            runtime.block_on(async {
                for _ in 0..rounds {
                    black_box(
                        server
                            .handle(black_box(body.as_bytes()), Metadata::default())
                            .await,
                    );
                }
            });
        }
        Impl::Jsonrpsee if batch <= 1 => {
            let module = api::jsonrpsee_module();
            runtime.block_on(async {
                for _ in 0..rounds {
                    let _ = black_box(module.raw_json_request(black_box(&body), 1).await);
                }
            });
        }
        Impl::Handwritten => {
            let answer = crate::floor::handle(body.as_bytes());
            api::check_answer(&answer.context("no answer")?, batch.max(1))?;
            for _ in 0..rounds {
                black_box(crate::floor::handle(black_box(body.as_bytes())));
            }
        }
        _ => bail!(
            "in process: rpcsmith and handwritten with any batch, jsonrpsee single calls only"
        ),
    }
    let ns = start.elapsed().as_nanos() as f64 / (rounds * batch.max(1) as u64) as f64;
    println!(
        "{} calls, {ns:.0} ns per call",
        rounds * batch.max(1) as u64
    );
    Ok(())
}

/// What `drive` sends.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Drive {
    /// The raw load generator (HTTP batches of this length, or WebSocket single calls).
    Raw { batch: usize },
    /// This implementation's client.
    Client(Impl),
}

/// Loads `url` for `seconds` with `connections` connections (or calls in flight), then
/// prints how many calls completed.
///
/// # Errors
///
/// When the load cannot connect, or an answer is wrong.
pub(crate) fn drive(
    url: &str,
    drive: Drive,
    connections: usize,
    seconds: f64,
    workers: usize,
) -> anyhow::Result<()> {
    let transport = if url.starts_with("ws") {
        Transport::Ws
    } else {
        Transport::Http
    };
    serve::runtime(workers)?.block_on(async {
        let load = match (drive, transport) {
            (Drive::Raw { batch }, Transport::Http) => load::http(url, batch, connections).await?,
            (Drive::Raw { .. }, Transport::Ws) => load::ws(url, connections).await?,
            (Drive::Client(implementation), _) => {
                clients::load(implementation, transport, url, connections).await?
            }
        };
        tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
        let calls = load.calls();
        load.stop().await?;
        println!("calls {calls}");
        Ok(())
    })
}
