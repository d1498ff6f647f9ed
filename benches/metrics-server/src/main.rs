//! `rpcsmith-bench-metrics serve --impl rpcsmith_metrics --http ADDRESS [--workers N]`:
//! the bench's rpcsmith `add` server (the generated dispatcher, `http::Service` under
//! `http::serve`, as `rpcsmith-bench serve` runs it) with the runtime's `metrics`
//! feature compiled in and the Prometheus exporter's recorder installed, its upkeep
//! running as a deployment's would. Prints `serving add with rpcsmith_metrics on
//! <url>` once bound, as the bench expects, and serves until killed.
//!
//! The bench (`cargo run --release -p rpcsmith-bench`) builds and starts it itself for
//! its `metrics` scenario.

use std::io::Write as _;
use std::time::Duration;

use metrics_exporter_prometheus::PrometheusBuilder;
use rpcsmith::http;
use rpcsmith::server::{Context, Failure, Server};

rpcsmith::include_api!("add");

use add::{AddDispatcher, AddServer};

/// The handler behind the generated `AddServer` trait, as the bench's.
struct Adder;

impl AddServer for Adder {
    async fn add(&self, _cx: Context, a: i64, b: i64) -> Result<i64, Failure> {
        Ok(a + b)
    }
}

/// `--http ADDRESS` and `--workers N` among the arguments (others are ignored: the
/// bench passes `serve --impl rpcsmith_metrics` first).
fn arguments() -> Result<(std::net::SocketAddr, usize), String> {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|arg| arg == flag)
            .and_then(|i| args.get(i + 1))
    };
    let address = value("--http")
        .ok_or("give --http ADDRESS")?
        .parse()
        .map_err(|e| format!("--http: {e}"))?;
    let workers = match value("--workers") {
        Some(n) => n.parse().map_err(|e| format!("--workers: {e}"))?,
        None => 2,
    };
    Ok((address, workers))
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let (address, workers) = arguments()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers.max(1))
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let prometheus = PrometheusBuilder::new().install_recorder()?;
        rpcsmith::metrics::describe();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(5)).await;
                prometheus.run_upkeep();
            }
        });
        let listener = tokio::net::TcpListener::bind(address).await?;
        let bound = listener.local_addr()?;
        let service = http::Service::new(Server::new(AddDispatcher::new(Adder)));
        tokio::spawn(http::serve(listener, service, std::future::pending()));
        let mut out = std::io::stdout().lock();
        writeln!(out, "serving add with rpcsmith_metrics on http://{bound}/")?;
        out.flush()?;
        drop(out);
        std::future::pending::<Result<(), Box<dyn std::error::Error>>>().await
    })
}
