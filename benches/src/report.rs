//! The report: a table of medians per scenario and implementation, then one line per
//! server's peak memory (`rss <scenario> <impl> <KiB>`; `rss fanout_idle <impl> <KiB>`
//! for the fan-out server's memory with every subscriber idle) and per ratio
//! (`ratio <name> <value>`, the median over rounds of the ratio within each round).

use crate::bench::{Results, SCENARIOS, Sample, Settings};
use crate::serve::Impl;

/// What a ratio compares.
#[derive(Debug, Clone, Copy)]
enum Metric {
    CallsPerS,
    NsPerCall,
    ServerCpuPerCall,
    /// The user part of [`Metric::ServerCpuPerCall`]: the server's own code.
    ServerUserCpuPerCall,
    /// The system part of [`Metric::ServerCpuPerCall`]: the kernel's work for the server.
    ServerSystemCpuPerCall,
    ClientCpuPerCall,
    /// Calls per second of CPU, server and load generator together: throughput with the
    /// share of the cores that other processes took out.
    CallsPerCpuS,
    /// The server's resident memory with every subscriber idle.
    IdleRss,
    /// The server's peak resident memory.
    PeakRss,
    /// The server's instructions per call, under callgrind (zero otherwise).
    InstructionsPerCall,
}

impl Metric {
    fn of(self, sample: &Sample) -> f64 {
        let calls = sample.calls as f64;
        match self {
            Metric::CallsPerS => calls / sample.elapsed.as_secs_f64(),
            Metric::NsPerCall => sample.elapsed.as_nanos() as f64 / calls,
            Metric::ServerCpuPerCall => sample.server_cpu.as_nanos() as f64 / calls,
            Metric::ServerUserCpuPerCall => sample.server_user_cpu.as_nanos() as f64 / calls,
            Metric::ServerSystemCpuPerCall => {
                sample
                    .server_cpu
                    .saturating_sub(sample.server_user_cpu)
                    .as_nanos() as f64
                    / calls
            }
            Metric::ClientCpuPerCall => sample.client_cpu.as_nanos() as f64 / calls,
            Metric::CallsPerCpuS => calls / (sample.server_cpu + sample.client_cpu).as_secs_f64(),
            Metric::IdleRss => sample.idle_rss_kib as f64,
            Metric::PeakRss => sample.server_rss_kib as f64,
            Metric::InstructionsPerCall => sample.server_instructions as f64 / calls,
        }
    }
}

/// `ratio <name>`: `metric` of `num` over `metric` of `den`, in `scenario` (the
/// denominator in `den_scenario` when it is another).
struct Ratio {
    name: &'static str,
    scenario: &'static str,
    metric: Metric,
    num: Impl,
    den: Impl,
    den_scenario: Option<&'static str>,
}

const fn ratio(name: &'static str, scenario: &'static str, metric: Metric, den: Impl) -> Ratio {
    Ratio {
        name,
        scenario,
        metric,
        num: Impl::Rpcsmith,
        den,
        den_scenario: None,
    }
}

const J: Impl = Impl::Jsonrpsee;

/// The ratios the issue sets targets for come first; the others help read them.
const RATIOS: &[Ratio] = &[
    ratio("http_cpu_per_call", "http", Metric::ServerCpuPerCall, J),
    ratio(
        "http_throughput_vs_floor",
        "http",
        Metric::CallsPerS,
        Impl::Floor,
    ),
    ratio("ws_cpu_per_call", "ws", Metric::ServerCpuPerCall, J),
    ratio(
        "http_cpu_per_call_vs_floor",
        "http",
        Metric::ServerCpuPerCall,
        Impl::Floor,
    ),
    ratio(
        "ws_cpu_per_call_vs_floor",
        "ws",
        Metric::ServerCpuPerCall,
        Impl::Floor,
    ),
    // The part of the WebSocket floor's gap that is not JSON-RPC work at all: against
    // the same tokio-tungstenite server answering with the hand-written dispatcher.
    ratio(
        "ws_cpu_per_call_vs_handwritten",
        "ws",
        Metric::ServerCpuPerCall,
        Impl::Handwritten,
    ),
    // The floor's gap in two parts: the server's own code, and the kernel's work for it
    // (the same system calls a call for both, so about the same).
    ratio(
        "ws_user_cpu_per_call_vs_floor",
        "ws",
        Metric::ServerUserCpuPerCall,
        Impl::Floor,
    ),
    ratio(
        "ws_system_cpu_per_call_vs_floor",
        "ws",
        Metric::ServerSystemCpuPerCall,
        Impl::Floor,
    ),
    ratio("batch100_calls_per_s", "batch100", Metric::CallsPerS, J),
    ratio("batch1000_calls_per_s", "batch1000", Metric::CallsPerS, J),
    ratio("inprocess_ns_per_call", "inprocess", Metric::NsPerCall, J),
    ratio(
        "inprocess_vs_floor",
        "inprocess",
        Metric::NsPerCall,
        Impl::Handwritten,
    ),
    ratio(
        "batch100_cpu_per_call_vs_floor",
        "batch100",
        Metric::ServerCpuPerCall,
        Impl::Handwritten,
    ),
    ratio(
        "client_http_calls_per_s",
        "client_http",
        Metric::CallsPerS,
        J,
    ),
    ratio("client_ws_calls_per_s", "client_ws", Metric::CallsPerS, J),
    ratio("subscription_items_per_s", "fanout", Metric::CallsPerS, J),
    ratio(
        "subscription_cpu_per_item",
        "fanout",
        Metric::ServerCpuPerCall,
        J,
    ),
    ratio(
        "subscription_instructions_per_item",
        "fanout",
        Metric::InstructionsPerCall,
        J,
    ),
    ratio(
        "subscription_instructions_per_item_10k",
        "fanout10k",
        Metric::InstructionsPerCall,
        J,
    ),
    ratio("subscription_idle_rss", "fanout", Metric::IdleRss, J),
    ratio(
        "subscription_publish_peak_rss",
        "fanout",
        Metric::PeakRss,
        J,
    ),
    ratio(
        "subscription_items_per_s_10k",
        "fanout10k",
        Metric::CallsPerS,
        J,
    ),
    ratio(
        "subscription_cpu_per_item_10k",
        "fanout10k",
        Metric::ServerCpuPerCall,
        J,
    ),
    ratio("subscription_idle_rss_10k", "fanout10k", Metric::IdleRss, J),
    ratio(
        "subscription_publish_peak_rss_10k",
        "fanout10k",
        Metric::PeakRss,
        J,
    ),
    Ratio {
        name: "sse_items_per_s_vs_ws",
        scenario: "sse_fanout",
        metric: Metric::CallsPerS,
        num: Impl::Rpcsmith,
        den: Impl::Rpcsmith,
        den_scenario: Some("fanout"),
    },
    Ratio {
        name: "sse_instructions_per_item_vs_ws",
        scenario: "sse_fanout",
        metric: Metric::InstructionsPerCall,
        num: Impl::Rpcsmith,
        den: Impl::Rpcsmith,
        den_scenario: Some("fanout"),
    },
    Ratio {
        name: "sse_cpu_per_item_vs_ws",
        scenario: "sse_fanout",
        metric: Metric::ServerCpuPerCall,
        num: Impl::Rpcsmith,
        den: Impl::Rpcsmith,
        den_scenario: Some("fanout"),
    },
    ratio(
        "http_calls_per_cpu_s_vs_floor",
        "http",
        Metric::CallsPerCpuS,
        Impl::Floor,
    ),
    ratio("http_calls_per_s", "http", Metric::CallsPerS, J),
    ratio("ws_calls_per_s", "ws", Metric::CallsPerS, J),
    ratio(
        "batch100_cpu_per_call",
        "batch100",
        Metric::ServerCpuPerCall,
        J,
    ),
    ratio(
        "batch1000_cpu_per_call",
        "batch1000",
        Metric::ServerCpuPerCall,
        J,
    ),
    ratio(
        "client_http_client_cpu_per_call",
        "client_http",
        Metric::ClientCpuPerCall,
        J,
    ),
    ratio(
        "client_ws_client_cpu_per_call",
        "client_ws",
        Metric::ClientCpuPerCall,
        J,
    ),
    Ratio {
        name: "metrics_on_cpu_per_call",
        scenario: "metrics",
        metric: Metric::ServerCpuPerCall,
        num: Impl::RpcsmithMetrics,
        den: Impl::Rpcsmith,
        den_scenario: None,
    },
    Ratio {
        name: "jsonrpsee_http_throughput_vs_floor",
        scenario: "http",
        metric: Metric::CallsPerS,
        num: J,
        den: Impl::Floor,
        den_scenario: None,
    },
];

/// What each scenario measures, for the legend.
fn legend(settings: &Settings) -> String {
    let Settings {
        connections: c,
        batch_connections: b,
        client_concurrency: k,
        workers: w,
        subscribers: n,
        ..
    } = settings;
    let n10 = n * 10;
    format!(
        "  http         {c} keep-alive HTTP/1.1 connections, one call in flight each (raw load generator)\n\
         \x20 ws           {c} WebSocket connections, one call in flight each (raw load generator; handwritten:\n\
         \x20              the bare tokio-tungstenite server answering with the hand-written dispatcher)\n\
         \x20 floor        (http, ws) a bare hyper server answering a fixed body; a bare tokio-tungstenite\n\
         \x20              server answering a fixed message: the cost of the protocol alone\n\
         \x20 batch100     {b} HTTP/1.1 connections posting batches of 100 calls (handwritten: the bare hyper\n\
         \x20              server answering each batch with a hand-written serde_json dispatcher, the floor)\n\
         \x20 batch1000    {b} HTTP/1.1 connections posting batches of 1,000 calls\n\
         \x20 client_http  each implementation's client, {k} calls in flight, against its own HTTP server\n\
         \x20 client_ws    each implementation's client, {k} calls in flight, on one WebSocket to its own server\n\
         \x20 inprocess    Server::handle (generated dispatcher) vs RpcModule::raw_json_request, one call at a time\n\
         \x20              (handwritten: the floor, a parse-once serde_json dispatcher of the same call)\n\
         \x20 fanout       {n} WebSocket connections each subscribed once, the server publishing new heads to all\n\
         \x20              (\"calls\" are items delivered; `rss fanout_idle` is the server with the {n} subscribers idle)\n\
         \x20 fanout10k    the same with {n10} connections\n\
         \x20 sse_fanout   rpcsmith's fanout over Streamable HTTP: {n} sessions each subscribed once, items on their GET event streams\n\
         \x20 metrics      as http: rpcsmith against itself built with the `metrics` feature and the Prometheus recorder\n\
         Servers and load generator each run {w} Tokio worker threads on this machine's cores; server CPU is\n\
         the server process's user + system time (every thread) over the window, client CPU this process's\n\
         (`ws_user_cpu_per_call_vs_floor` and `ws_system_cpu_per_call_vs_floor`: each part alone, in 10 ms ticks)."
    )
}

/// Prints the table of medians.
pub(crate) fn table(results: &Results, settings: &Settings) {
    println!(
        "\nMedians of {} rounds; each server scenario on fresh server processes, {} ms warm-up, \
         a {} ms window (the sides of a served scenario all up at once, loaded in turns of \
         {} ms).",
        settings.rounds,
        settings.warmup.as_millis(),
        settings.window.as_millis(),
        settings.turn_plan().slice().as_millis()
    );
    println!("{}\n", legend(settings));
    println!(
        "| {:<11} | {:<11} | {:>11} | {:>9} | {:>14} | {:>14} | {:>16} |",
        "scenario",
        "impl",
        "calls/s",
        "ns/call",
        "server µs/call",
        "client µs/call",
        "server peak KiB"
    );
    let rule: Vec<String> = [11, 11, 11, 9, 14, 14, 16]
        .iter()
        .map(|w| "-".repeat(w + 2))
        .collect();
    println!("|{}|", rule.join("|"));
    for scenario in SCENARIOS {
        for &implementation in scenario.impls {
            let samples = results.get(scenario.name, implementation);
            if samples.is_empty() {
                continue;
            }
            row(scenario.name, implementation, samples);
        }
    }
}

fn row(scenario: &str, implementation: Impl, samples: &[Sample]) {
    let m = |metric: Metric| median(samples.iter().map(|s| metric.of(s)).collect());
    let in_process = samples.iter().all(|s| s.server_rss_kib == 0);
    let dash = |text: String| if in_process { "-".to_owned() } else { text };
    let rss = median(samples.iter().map(|s| s.server_rss_kib as f64).collect());
    println!(
        "| {:<11} | {:<11} | {:>11.0} | {:>9.0} | {:>14} | {:>14} | {:>16} |",
        scenario,
        implementation.name(),
        m(Metric::CallsPerS),
        m(Metric::NsPerCall),
        dash(format!("{:.2}", m(Metric::ServerCpuPerCall) / 1e3)),
        dash(format!("{:.2}", m(Metric::ClientCpuPerCall) / 1e3)),
        dash(format!("{rss:.0}")),
    );
}

/// Prints `rss` and `ratio` lines.
pub(crate) fn lines(results: &Results) {
    println!();
    for scenario in SCENARIOS {
        for &implementation in scenario.impls {
            let samples = results.get(scenario.name, implementation);
            if samples.iter().all(|s| s.server_rss_kib == 0) {
                continue;
            }
            let rss = median(samples.iter().map(|s| s.server_rss_kib as f64).collect());
            println!("rss {} {} {rss:.0}", scenario.name, implementation.name());
            let name = implementation.name();
            if samples.iter().all(|s| s.idle_rss_kib > 0) {
                let idle = median(samples.iter().map(|s| s.idle_rss_kib as f64).collect());
                println!("rss {}_idle {name} {idle:.0}", scenario.name);
            }
            if samples.iter().all(|s| s.server_instructions > 0) {
                let per_call = Metric::InstructionsPerCall;
                let n = median(samples.iter().map(|s| per_call.of(s)).collect());
                println!("instructions {} {name} {n:.0}", scenario.name);
            }
        }
    }
    for r in RATIOS {
        let num = results.get(r.scenario, r.num);
        let den = results.get(r.den_scenario.unwrap_or(r.scenario), r.den);
        let per_round: Vec<f64> = num
            .iter()
            .zip(den)
            .map(|(n, d)| r.metric.of(n) / r.metric.of(d))
            .collect();
        // Instruction ratios exist only under callgrind.
        let value = median(per_round);
        if value.is_finite() && value > 0.0 {
            println!("ratio {} {value:.3}", r.name);
        }
    }
}

/// The median (the mean of the middle two for an even count); NaN for none.
pub(crate) fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(Vec::new()).is_nan());
    }
}
