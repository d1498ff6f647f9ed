//! The scenarios and the rounds: each round runs every scenario once per implementation,
//! in an order that rotates from round to round, each on a fresh server process. The
//! sides of a served scenario run at once and are loaded in turns ([`in_turns`]), and
//! the in-process sides are timed in turns too, so that load from elsewhere on the
//! machine hits every implementation alike.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail, ensure};

use crate::inprocess::InProcess;
use crate::load::Load;
use crate::serve::{Impl, Transport};
use crate::{clients, fanout, load, proc, serve, sse_fanout};

/// How a scenario loads its server.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Drive {
    /// The raw HTTP/1.1 load generator posting batches of this length (1: single calls).
    Http { batch: usize },
    /// The raw WebSocket load generator, single calls.
    Ws,
    /// Each implementation's own client against its own server.
    Client(Transport),
    /// No server: the engines in this process.
    InProcess,
    /// Many WebSocket connections each subscribed once, the server publishing to all:
    /// `scale` times [`Settings::subscribers`].
    FanOut { scale: usize },
    /// As `FanOut`, over Streamable HTTP: each subscriber's session's `GET` event
    /// stream.
    SseFanOut,
}

/// One row group of the table.
#[derive(Debug)]
pub(crate) struct Scenario {
    pub(crate) name: &'static str,
    pub(crate) drive: Drive,
    pub(crate) impls: &'static [Impl],
}

const BOTH: &[Impl] = &[Impl::Rpcsmith, Impl::Jsonrpsee];

pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "http",
        drive: Drive::Http { batch: 1 },
        impls: &[Impl::Rpcsmith, Impl::Jsonrpsee, Impl::Floor],
    },
    Scenario {
        name: "ws",
        drive: Drive::Ws,
        impls: &[
            Impl::Rpcsmith,
            Impl::Jsonrpsee,
            Impl::Floor,
            Impl::Handwritten,
        ],
    },
    Scenario {
        name: "batch100",
        drive: Drive::Http { batch: 100 },
        impls: &[Impl::Rpcsmith, Impl::Jsonrpsee, Impl::Handwritten],
    },
    Scenario {
        name: "batch1000",
        drive: Drive::Http { batch: 1000 },
        impls: BOTH,
    },
    Scenario {
        name: "client_http",
        drive: Drive::Client(Transport::Http),
        impls: BOTH,
    },
    Scenario {
        name: "client_ws",
        drive: Drive::Client(Transport::Ws),
        impls: BOTH,
    },
    Scenario {
        name: "inprocess",
        drive: Drive::InProcess,
        impls: &[Impl::Rpcsmith, Impl::Jsonrpsee, Impl::Handwritten],
    },
    Scenario {
        name: "fanout",
        drive: Drive::FanOut { scale: 1 },
        impls: BOTH,
    },
    Scenario {
        name: "fanout10k",
        drive: Drive::FanOut { scale: 10 },
        impls: BOTH,
    },
    // rpcsmith's own fan-out over SSE, against its WebSocket one (`fanout`).
    Scenario {
        name: "sse_fanout",
        drive: Drive::SseFanOut,
        impls: &[Impl::Rpcsmith],
    },
    // The cost of metrics: the same server with the runtime's `metrics` feature and the
    // Prometheus recorder, against this binary's, built without the feature.
    Scenario {
        name: "metrics",
        drive: Drive::Http { batch: 1 },
        impls: &[Impl::Rpcsmith, Impl::RpcsmithMetrics],
    },
];

/// Counts and durations of a run.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub(crate) rounds: usize,
    pub(crate) warmup: Duration,
    pub(crate) window: Duration,
    /// Turns each side of a served scenario takes in a round, the window shared among
    /// them ([`in_turns`]).
    pub(crate) turns: usize,
    pub(crate) workers: usize,
    /// Connections of the raw load generator, single calls (HTTP and WebSocket).
    pub(crate) connections: usize,
    /// Connections of the raw load generator, batches.
    pub(crate) batch_connections: usize,
    /// Calls in flight through each client.
    pub(crate) client_concurrency: usize,
    /// Calls per round in process.
    pub(crate) inprocess_calls: u64,
    /// WebSocket connections of the fan-out scenario, each subscribed once.
    pub(crate) subscribers: usize,
    /// The scenarios to run, by name (empty: every one).
    pub(crate) only: Vec<String>,
}

impl Settings {
    pub(crate) fn full() -> Self {
        Settings {
            rounds: 7,
            warmup: Duration::from_millis(250),
            window: Duration::from_millis(1000),
            turns: 5,
            workers: 2,
            connections: 32,
            batch_connections: 8,
            client_concurrency: 32,
            // About half a second of the fastest side a round: the thread's CPU clock
            // moves in scheduler ticks (4 ms).
            inprocess_calls: 2_000_000,
            subscribers: 1000,
            only: Vec::new(),
        }
    }

    pub(crate) fn quick() -> Self {
        Settings {
            rounds: 1,
            warmup: Duration::from_millis(30),
            window: Duration::from_millis(150),
            turns: 1,
            connections: 4,
            batch_connections: 2,
            client_concurrency: 4,
            inprocess_calls: 2_000,
            subscribers: 50,
            ..Self::full()
        }
    }

    /// How the sides of a served scenario take turns ([`in_turns`]).
    pub(crate) fn turn_plan(&self) -> load::Turns {
        load::Turns {
            warmup: self.warmup,
            turns: self.turns,
            window: self.window,
        }
    }
}

/// What one window measured.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Sample {
    pub(crate) calls: u64,
    pub(crate) elapsed: Duration,
    /// CPU time of the server process (user + system, every thread); zero in process.
    pub(crate) server_cpu: Duration,
    /// The user part of `server_cpu` (the rest is the kernel's work for the server).
    pub(crate) server_user_cpu: Duration,
    /// CPU time of this process (the load generator or the client under test).
    pub(crate) client_cpu: Duration,
    /// The server process's peak resident memory; zero in process.
    pub(crate) server_rss_kib: u64,
    /// The server process's resident memory with every subscriber connected and
    /// subscribed, before anything is published; zero but in the fan-out scenario.
    pub(crate) idle_rss_kib: u64,
    /// The server's instructions in the window, when it ran under callgrind
    /// ([`crate::callgrind`]); zero otherwise.
    pub(crate) server_instructions: u64,
}

/// Every sample, by scenario and implementation, in round order.
#[derive(Debug, Default)]
pub(crate) struct Results {
    pub(crate) samples: BTreeMap<(&'static str, Impl), Vec<Sample>>,
}

impl Results {
    pub(crate) fn get(&self, scenario: &str, implementation: Impl) -> &[Sample] {
        self.samples
            .iter()
            .find(|((s, i), _)| *s == scenario && *i == implementation)
            .map_or(&[], |(_, v)| v.as_slice())
    }
}

/// Runs every round.
///
/// # Errors
///
/// The first scenario that fails, named.
pub(crate) fn run(settings: &Settings) -> anyhow::Result<Results> {
    proc::check()?;
    if crate::callgrind::dir().is_some() {
        crate::callgrind::check()?;
    }
    let scenarios: Vec<&Scenario> = SCENARIOS
        .iter()
        .filter(|s| settings.only.is_empty() || settings.only.iter().any(|name| name == s.name))
        .collect();
    ensure!(
        !scenarios.is_empty(),
        "no scenario is named {:?}",
        settings.only
    );
    if scenarios
        .iter()
        .any(|s| s.impls.contains(&Impl::RpcsmithMetrics))
    {
        proc::build_metrics_server()?;
    }
    let runtime = serve::runtime(settings.workers)?;
    let inprocess = InProcess::new()?;
    let mut results = Results::default();
    for round in 0..settings.rounds {
        eprintln!("round {} of {}", round + 1, settings.rounds);
        for &scenario in &scenarios {
            if let Some(sides) = side_by_side(&runtime, &inprocess, scenario, round, settings) {
                let sides = sides.with_context(|| format!("scenario {}", scenario.name))?;
                for (implementation, sample) in sides {
                    let key = (scenario.name, implementation);
                    results.samples.entry(key).or_default().push(sample);
                }
                continue;
            }
            for implementation in rotated(scenario.impls, round) {
                let sample = match scenario.drive {
                    Drive::FanOut { scale } => {
                        let count = settings.subscribers * scale;
                        fanned_out(&runtime, implementation, settings, count, Transport::Ws)
                    }
                    Drive::SseFanOut => {
                        let count = settings.subscribers;
                        fanned_out(&runtime, implementation, settings, count, Transport::Http)
                    }
                    _ => served(&runtime, scenario, implementation, settings),
                }
                .with_context(|| {
                    format!("scenario {} with {}", scenario.name, implementation.name())
                })?;
                let key = (scenario.name, implementation);
                results.samples.entry(key).or_default().push(sample);
            }
        }
    }
    Ok(results)
}

/// A round of `scenario` measured with every side at once (in process, or in turns),
/// or `None` when each side is measured on its own.
fn side_by_side(
    runtime: &tokio::runtime::Runtime,
    inprocess: &InProcess,
    scenario: &Scenario,
    round: usize,
    settings: &Settings,
) -> Option<anyhow::Result<Vec<(Impl, Sample)>>> {
    match scenario.drive {
        Drive::InProcess => Some(inprocess.round(settings.inprocess_calls).map(|sides| {
            let calls = settings.inprocess_calls;
            sides
                .into_iter()
                .map(|(side, elapsed)| {
                    let sample = Sample {
                        calls,
                        elapsed,
                        ..Sample::default()
                    };
                    (side, sample)
                })
                .collect()
        })),
        Drive::Http { .. } | Drive::Ws | Drive::Client(_) if crate::callgrind::dir().is_none() => {
            Some(runtime.block_on(in_turns(scenario, round, settings)))
        }
        _ => None,
    }
}

/// `impls` starting at a different one each round.
fn rotated(impls: &[Impl], round: usize) -> Vec<Impl> {
    let mut order = impls.to_vec();
    order.rotate_left(round % impls.len());
    order
}

/// Every implementation of a served scenario at once, each on a fresh server under a
/// load of its own, measured in turns: each load runs in turn for a slice of the window
/// (the others paused, their servers idle), [`Settings::turns`] times, and each side's
/// sample adds its slices up ([`load::Turns`]: the same server's CPU per call moved by
/// 6 % between consecutive runs when servers were measured one after the other).
/// (Under callgrind, where instructions are the measure, each server runs a window of
/// its own, as [`served`] does.)
async fn in_turns(
    scenario: &Scenario,
    round: usize,
    settings: &Settings,
) -> anyhow::Result<Vec<(Impl, Sample)>> {
    let mut sides = Vec::new();
    for implementation in rotated(scenario.impls, round) {
        let server = proc::Server::start(implementation, transport(scenario), settings.workers)?;
        let load = start_load(scenario, implementation, server.url(), settings).await?;
        load.pause();
        sides.push((implementation, server, load));
    }
    let loads: Vec<&Load> = sides.iter().map(|(_, _, load)| load).collect();
    let mut samples = vec![Sample::default(); sides.len()];
    let read = |i: usize| Reading::take(&sides[i].2, sides[i].1.pid());
    let add = |i: usize, before: Reading, after: Reading| samples[i].add(&before, &after);
    settings.turn_plan().run(&loads, read, add).await?;
    let mut measured = Vec::new();
    for ((implementation, server, load), mut sample) in sides.into_iter().zip(samples) {
        sample.server_rss_kib = proc::peak_rss_kib(Some(server.pid()))?;
        load.stop().await?;
        ensure!(
            sample.calls > 0,
            "{} completed no call",
            implementation.name()
        );
        measured.push((implementation, sample));
    }
    Ok(measured)
}

fn transport(scenario: &Scenario) -> Transport {
    match scenario.drive {
        Drive::Ws | Drive::Client(Transport::Ws) => Transport::Ws,
        _ => Transport::Http,
    }
}

/// The load of a served scenario on `url`.
async fn start_load(
    scenario: &Scenario,
    implementation: Impl,
    url: &str,
    settings: &Settings,
) -> anyhow::Result<Load> {
    match scenario.drive {
        Drive::Http { batch } => load::http(url, batch, connections(settings, batch)).await,
        Drive::Ws => load::ws(url, settings.connections).await,
        Drive::Client(transport) => {
            clients::load(implementation, transport, url, settings.client_concurrency).await
        }
        Drive::InProcess | Drive::FanOut { .. } | Drive::SseFanOut => {
            bail!("in-process and fan-out scenarios are run apart")
        }
    }
}

/// Starts a fresh server, loads it, and measures one window.
fn served(
    runtime: &tokio::runtime::Runtime,
    scenario: &Scenario,
    implementation: Impl,
    settings: &Settings,
) -> anyhow::Result<Sample> {
    let server = proc::Server::start(implementation, transport(scenario), settings.workers)?;
    let url = server.url();
    runtime.block_on(async {
        let load = start_load(scenario, implementation, url, settings).await?;
        window(load, server.pid(), settings).await
    })
}

/// Starts a fresh fan-out server, subscribes `count` subscribers (WebSocket
/// connections, or SSE sessions over HTTP), reads the server's memory while they are
/// idle, then lets it publish and measures one window.
fn fanned_out(
    runtime: &tokio::runtime::Runtime,
    implementation: Impl,
    settings: &Settings,
    count: usize,
    transport: Transport,
) -> anyhow::Result<Sample> {
    let limit = crate::idle::raise_open_files();
    let needed = count as u64 + 256;
    ensure!(
        limit >= needed,
        "{count} subscribers need {needed} open files here; the limit is {limit} (ulimit -Hn)"
    );
    let mut server =
        proc::Server::start_fan_out(implementation, settings.workers, count, transport)?;
    let url = server.url().to_owned();
    let subscribers = fanout::Subscribers { count };
    let load = match transport {
        Transport::Ws => runtime.block_on(fanout::subscribe(&url, subscribers))?,
        Transport::Http => runtime.block_on(sse_fanout::subscribe(&url, subscribers))?,
    };
    // Every subscription is answered: the server holds them all, idle.
    let idle_rss_kib = proc::rss_kib(Some(server.pid()))?;
    server.publish()?;
    let sample = runtime.block_on(window(load, server.pid(), settings))?;
    Ok(Sample {
        idle_rss_kib,
        ..sample
    })
}

fn connections(settings: &Settings, batch: usize) -> usize {
    if batch > 1 {
        settings.batch_connections
    } else {
        settings.connections
    }
}

/// A point in time of a load: its calls, and both processes' CPU time.
struct Reading {
    at: Instant,
    calls: u64,
    server_cpu: Duration,
    server_user_cpu: Duration,
    client_cpu: Duration,
}

impl Sample {
    /// Adds the calls, time and CPU between two readings of one load.
    fn add(&mut self, before: &Reading, after: &Reading) {
        self.calls += after.calls - before.calls;
        self.elapsed += after.at - before.at;
        self.server_cpu += after.server_cpu.saturating_sub(before.server_cpu);
        self.server_user_cpu += after.server_user_cpu.saturating_sub(before.server_user_cpu);
        self.client_cpu += after.client_cpu.saturating_sub(before.client_cpu);
    }
}

impl Reading {
    fn take(load: &Load, pid: u32) -> anyhow::Result<Self> {
        let server = proc::cpu_times(Some(pid))?;
        Ok(Reading {
            at: Instant::now(),
            calls: load.calls(),
            server_cpu: server.total,
            server_user_cpu: server.user,
            client_cpu: proc::cpu_time(None)?,
        })
    }
}

/// Warms up, then measures one window, then stops the load (which reports any wrong
/// answer).
async fn window(load: Load, pid: u32, settings: &Settings) -> anyhow::Result<Sample> {
    tokio::time::sleep(settings.warmup).await;
    let profile = crate::callgrind::dir();
    if profile.is_some() {
        crate::callgrind::zero(pid)?;
    }
    let before = Reading::take(&load, pid)?;
    tokio::time::sleep(settings.window).await;
    let after = Reading::take(&load, pid)?;
    let server_instructions = match &profile {
        Some(dir) => crate::callgrind::dump(pid, dir)?,
        None => 0,
    };
    let mut sample = Sample {
        server_rss_kib: proc::peak_rss_kib(Some(pid))?,
        server_instructions,
        ..Sample::default()
    };
    sample.add(&before, &after);
    // A task that failed during the window (a wrong answer, a closed connection) fails
    // the scenario here.
    load.stop().await?;
    ensure!(sample.calls > 0, "no call completed in the window");
    Ok(sample)
}
