//! `rpcsmith-bench`: rpcsmith against jsonrpsee 0.26, side by side in one run, on
//! loopback, for the same `add(a, b)`; then the generator's own figures.
//!
//! ```sh
//! cargo run --release -p rpcsmith-bench                                  # the whole report
//! cargo run --release -p rpcsmith-bench -- serve --http 127.0.0.1:8080   # for wrk and friends
//! ```

use std::net::SocketAddr;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

mod api;
mod bench;
mod buildtime;
mod callgrind;
mod clients;
mod crossinstance;
mod fanout;
mod floor;
mod generator;
mod idle;
mod inprocess;
mod large;
mod load;
mod mcp;
mod proc;
mod profile;
mod report;
mod serve;
mod sse_fanout;
mod validation;

use serve::{Api, Impl, Transport};

/// rpcsmith against jsonrpsee 0.26, side by side, on loopback.
///
/// Without a command: runs every scenario (HTTP and WebSocket servers under a load
/// generator, HTTP batches, each implementation's client, one call in process, a
/// subscription fanned out to many WebSocket connections) for
/// several rounds, each on a fresh server process, then times the generator on the
/// OpenRPC corpus; prints a table, then `rss <scenario> <impl> <KiB>` and
/// `ratio <name> <value>` lines (rpcsmith over jsonrpsee, or over the floor: a bare
/// hyper server for HTTP, a bare tokio-tungstenite server for WebSocket). A few
/// minutes at most. `--only http --only ws --skip-generator` runs those two alone.
#[derive(Debug, Parser)]
#[command(
    name = "rpcsmith-bench",
    version,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Args)]
struct RunArgs {
    /// Tiny counts and durations, one round, and no compile timing: checks that every
    /// part runs (the smoke test uses it). The figures mean nothing.
    #[arg(long)]
    quick: bool,
    /// Skip the generator figures (generation and compile times on the corpus, and the
    /// cold build of a user crate with and without the generator as build-dependency).
    #[arg(long)]
    skip_generator: bool,
    /// Run only these scenarios (repeatable; default: every one, then the validation
    /// and cross-instance scenarios), e.g. `--only metrics`.
    #[arg(long, value_name = "SCENARIO")]
    only: Vec<String>,
    /// Rounds (default 7; 1 with --quick).
    #[arg(long, value_name = "N")]
    rounds: Option<usize>,
    /// The measured window of each scenario, after its warm-up (default 1000).
    #[arg(long, value_name = "MS")]
    window_ms: Option<u64>,
    /// Tokio worker threads of every server and of the load generator.
    #[arg(long, value_name = "N", default_value_t = 2)]
    workers: usize,
    /// WebSocket connections of the fan-out scenario, each subscribed once (default
    /// 1000; 50 with --quick); `fanout10k` takes ten times as many, `sse_fanout` as
    /// many SSE sessions.
    #[arg(long, value_name = "N")]
    subscribers: Option<usize>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve `add(a, b)` with rpcsmith's generated server until killed, for an external
    /// load generator (wrk, say). Prints `serving add with rpcsmith on <url>` per address.
    Serve(ServeArgs),
    /// Load a server for a while and print how many calls completed (for profilers).
    #[command(hide = true)]
    Drive(DriveArgs),
    /// Only the cross-instance scenario: items published on one of two instances,
    /// through a redis-server the bench starts, to WebSocket subscribers on both; and
    /// the same subscribers on one instance, in process (needs redis-server).
    CrossInstance(RunArgs),
    /// Run one implementation's in-process calls in a loop (for profilers).
    #[command(hide = true)]
    Profile(ProfileArgs),
    /// Only the idle-connection scenario: the servers' memory with 10,000 idle
    /// WebSocket and 10,000 idle keep-alive HTTP connections, each after one call
    /// (`ratio ws_idle_rss_per_conn`, `ratio http_idle_rss_per_conn`).
    Idle(IdleArgs),
    /// Only the large-result scenario: `eth_getBlockByNumber` answering a block of 200
    /// transactions (about 100 KB), rpcsmith's generated client and server against
    /// jsonrpsee's with the same types (`ratio large_result_calls_per_s`; needs the
    /// corpus).
    LargeResult(LargeArgs),
    /// Only the validation scenario: CPU per call of a generated server with constraint
    /// checks over the same without them (`ratio validation_cpu_per_call`).
    Validation(ValidationArgs),
    /// Only the MCP scenario: rpcsmith's MCP server against rmcp's, the tool `add` over
    /// Streamable HTTP and stdio (`ratio mcp_http_calls_per_s`, `…_cpu_per_call`, and
    /// the stdio pair).
    Mcp(McpArgs),
    /// Only the generator figures: generation time per corpus document, then the
    /// compile time of the two largest generated modules (`--quick`: three documents,
    /// no compile).
    Generator(GeneratorArgs),
    /// Only the build-time scenario: cold builds of a scratch copy of examples/petstore
    /// with and without rpcsmith-build as its build-dependency, and its rebuild after a
    /// method is added (`ratio build_dependency_added_wall`).
    BuildTime(BuildTimeArgs),
}

#[derive(Debug, Args)]
struct GeneratorArgs {
    /// Time three documents once and skip the compile times.
    #[arg(long)]
    quick: bool,
}

#[derive(Debug, Args)]
struct BuildTimeArgs {
    /// Rounds, each building every crate once from cold.
    #[arg(long, default_value_t = 2)]
    rounds: usize,
    /// Also build the crate with the generator of this checkout of the workspace (say,
    /// an export of main), in the same rounds: a before/after in one run.
    #[arg(long, value_name = "DIR")]
    before: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
struct ValidationArgs {
    /// Rounds, alternating the two servers.
    #[arg(long, default_value_t = 7)]
    rounds: usize,
    /// Calls per server per round.
    #[arg(long, default_value_t = 1_500_000)]
    calls: u64,
    /// For profilers: run only this server's calls in a loop (`on`: with the checks,
    /// `off`: without), no rounds, no ratio.
    #[arg(long, value_name = "SERVER", hide = true)]
    profile: Option<validation::Side>,
}

#[derive(Debug, Args)]
struct McpArgs {
    /// Tiny counts and durations, one round: checks that it runs.
    #[arg(long)]
    quick: bool,
    /// Rounds (default 7; 1 with --quick).
    #[arg(long, value_name = "N")]
    rounds: Option<usize>,
    /// Tokio worker threads of the servers and of the load generator.
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// For profilers: exactly this many calls against one server (`--impl`,
    /// `--transport`), instead of the rounds.
    #[arg(long, value_name = "N", hide = true)]
    calls: Option<u64>,
    #[arg(
        long = "impl",
        value_name = "rpcsmith|rmcp",
        hide = true,
        default_value = "rpcsmith"
    )]
    implementation: String,
    #[arg(long, value_name = "http|stdio", hide = true, default_value = "http")]
    transport: String,
    /// With `--calls`: start the server under this command (`valgrind
    /// --tool=callgrind`, say; split on spaces).
    #[arg(long, value_name = "COMMAND", hide = true)]
    wrap: Option<String>,
}

impl McpArgs {
    fn settings(&self) -> mcp::Settings {
        let quick = self.quick;
        mcp::Settings {
            rounds: self.rounds.unwrap_or(if quick { 1 } else { 7 }).max(1),
            warmup: Duration::from_millis(if quick { 30 } else { 250 }),
            window: Duration::from_millis(if quick { 150 } else { 1000 }),
            workers: self.workers.max(1),
            connections: if quick { 4 } else { 32 },
            in_flight: if quick { 4 } else { 32 },
        }
    }
}

#[derive(Debug, Args)]
struct IdleArgs {
    /// Idle connections per server.
    #[arg(long, default_value_t = 10_000)]
    connections: usize,
    /// Rounds (each measures the four servers once).
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Tokio worker threads of every server and of the load side.
    #[arg(long, default_value_t = 2)]
    workers: usize,
}

#[derive(Debug, Args)]
struct LargeArgs {
    /// Rounds; the ratio is their median.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// What each implementation is measured for in a round, in five turns taken with
    /// the other's; a quarter of it warms each up before the first round.
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    window_ms: u64,
    /// Tokio worker threads of the servers' runtime and of the clients'.
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Only this transport (`http` or `ws`; default both).
    #[arg(long, value_name = "TRANSPORT")]
    transport: Option<String>,
    /// Only this implementation, for profilers (then no ratio is printed).
    #[arg(long = "impl", value_enum, hide = true)]
    implementation: Option<Impl>,
    /// For profilers: exactly this many calls, one at a time, with `--impl` over
    /// `--transport`, instead of the rounds.
    #[arg(long, value_name = "N", hide = true)]
    calls: Option<u64>,
}

#[derive(Debug, Args)]
struct DriveArgs {
    /// The server's URL (`http://…` or `ws://…`).
    #[arg(long)]
    url: String,
    /// Drive with this implementation's client instead of the raw load generator.
    #[arg(long, value_enum)]
    client: Option<Impl>,
    /// Calls per HTTP request (raw load generator).
    #[arg(long, default_value_t = 1)]
    batch: usize,
    /// Connections (raw load generator) or calls in flight (clients).
    #[arg(long, default_value_t = 32)]
    connections: usize,
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    #[arg(long, default_value_t = 2)]
    workers: usize,
}

#[derive(Debug, Args)]
struct ProfileArgs {
    #[arg(long = "impl", value_enum, default_value = "rpcsmith")]
    implementation: Impl,
    /// Calls per message (rpcsmith and handwritten only).
    #[arg(long, default_value_t = 1)]
    batch: usize,
    #[arg(long, default_value_t = 100_000)]
    calls: u64,
}

#[derive(Debug, Args)]
struct ServeArgs {
    /// Serve JSON-RPC over HTTP on this address (port 0: any free port).
    #[arg(long, value_name = "ADDRESS")]
    http: Option<SocketAddr>,
    /// Serve JSON-RPC over WebSocket on this address (port 0: any free port).
    #[arg(long, value_name = "ADDRESS")]
    ws: Option<SocketAddr>,
    /// Tokio worker threads.
    #[arg(long, value_name = "N", default_value_t = 2)]
    workers: usize,
    /// Which implementation serves (the benchmark's own use).
    #[arg(long = "impl", value_enum, default_value = "rpcsmith", hide = true)]
    implementation: Impl,
    /// Serve the fan-out scenario's `items` subscription instead of `add` (WebSocket
    /// only), publishing once a line `publish` is read on standard input.
    #[arg(long, hide = true)]
    fan_out: bool,
    /// Connections served at once, instead of the implementation's default (the idle
    /// scenario's use); the open-file limit is then raised to its hard limit.
    #[arg(long, value_name = "N", hide = true)]
    max_connections: Option<usize>,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match start(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            // The causes on one line; no backtrace, whatever RUST_BACKTRACE says.
            eprintln!("error: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn start(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Some(Command::Serve(args)) => {
            let listeners: Vec<(Transport, SocketAddr)> = [
                args.http.map(|a| (Transport::Http, a)),
                args.ws.map(|a| (Transport::Ws, a)),
            ]
            .into_iter()
            .flatten()
            .collect();
            let served = if args.fan_out { Api::FanOut } else { Api::Add };
            serve::run(
                args.implementation,
                served,
                &listeners,
                args.workers,
                args.max_connections,
            )
        }
        Some(Command::Drive(args)) => {
            let drive = match args.client {
                Some(implementation) => profile::Drive::Client(implementation),
                None => profile::Drive::Raw { batch: args.batch },
            };
            profile::drive(
                &args.url,
                drive,
                args.connections,
                args.seconds,
                args.workers,
            )
        }
        Some(Command::Profile(args)) => {
            profile::in_process(args.implementation, args.batch, args.calls)
        }
        Some(Command::CrossInstance(args)) => crossinstance::report(&settings(&args)),
        Some(Command::Validation(args)) => match args.profile {
            Some(side) => validation::profile(side, args.calls),
            None => validation::report(args.rounds, args.calls),
        },
        Some(Command::Idle(args)) => idle::report(args.connections, args.rounds, args.workers),
        Some(Command::LargeResult(args)) => large::report(&large::Settings {
            rounds: args.rounds,
            window: Duration::from_millis(args.window_ms.max(1)),
            workers: args.workers,
            transport: args.transport,
            implementation: args.implementation,
            calls: args.calls,
        }),
        Some(Command::Mcp(args)) => match args.calls {
            Some(calls) => {
                let wrap: Vec<String> = args
                    .wrap
                    .as_deref()
                    .unwrap_or_default()
                    .split_whitespace()
                    .map(str::to_owned)
                    .collect();
                mcp::fixed_calls(
                    &args.implementation,
                    &args.transport,
                    calls,
                    &args.settings(),
                    &wrap,
                )
            }
            None => mcp::report(&args.settings()),
        },
        Some(Command::Generator(args)) => generator::report(args.quick),
        Some(Command::BuildTime(args)) => buildtime::report(args.rounds, args.before.as_deref()),
        None => run(&cli.run),
    }
}

fn settings(args: &RunArgs) -> bench::Settings {
    let mut settings = if args.quick {
        bench::Settings::quick()
    } else {
        bench::Settings::full()
    };
    settings.rounds = args.rounds.unwrap_or(settings.rounds).max(1);
    if let Some(ms) = args.window_ms {
        settings.window = Duration::from_millis(ms.max(1));
    }
    settings.workers = args.workers.max(1);
    settings.subscribers = args.subscribers.unwrap_or(settings.subscribers).max(1);
    settings.only.clone_from(&args.only);
    settings
}

fn run(args: &RunArgs) -> anyhow::Result<()> {
    let settings = settings(args);
    let results = bench::run(&settings)?;
    report::table(&results, &settings);
    if args.skip_generator {
        println!("\nGenerator figures skipped (--skip-generator).");
    } else {
        generator::report(args.quick)?;
        if !args.quick {
            buildtime::report(1, None)?;
        }
    }
    // `--only` runs the named server scenarios alone (the validation and cross-instance
    // scenarios have their own subcommands).
    let every = args.only.is_empty();
    if every {
        let (rounds, calls) = if args.quick {
            (1, 2_000)
        } else {
            (7, 1_500_000)
        };
        validation::report(rounds, calls)?;
    }
    report::lines(&results);
    if every {
        let (connections, rounds) = if args.quick { (200, 1) } else { (10_000, 3) };
        idle::report(connections, rounds, settings.workers)?;
        large::report(&large::Settings {
            rounds: settings.rounds.min(5),
            window: settings.window * 2,
            workers: settings.workers,
            transport: None,
            implementation: None,
            calls: None,
        })?;
        // Needs redis-server; says so and goes on without it.
        crossinstance::report(&settings)?;
        let mcp = McpArgs {
            quick: args.quick,
            rounds: Some(settings.rounds),
            workers: settings.workers,
            calls: None,
            implementation: String::new(),
            transport: String::new(),
            wrap: None,
        };
        mcp::report(&mcp.settings())?;
    }
    Ok(())
}
