//! Runs the benchmark binary with `--quick` and checks that it reports every ratio with a
//! positive finite value, and every server's peak memory. Nothing here is timed: the
//! figures of a quick run mean nothing.

use std::process::Command;

const RATIOS: &[&str] = &[
    "http_cpu_per_call",
    "http_throughput_vs_floor",
    "ws_cpu_per_call",
    "batch100_calls_per_s",
    "batch1000_calls_per_s",
    "inprocess_ns_per_call",
    "inprocess_vs_floor",
    "batch100_cpu_per_call_vs_floor",
    "client_http_calls_per_s",
    "client_ws_calls_per_s",
    "subscription_items_per_s",
    "subscription_cpu_per_item",
    "subscription_idle_rss",
    "subscription_publish_peak_rss",
    "subscription_items_per_s_10k",
    "subscription_cpu_per_item_10k",
    "subscription_idle_rss_10k",
    "subscription_publish_peak_rss_10k",
    "sse_items_per_s_vs_ws",
    "sse_cpu_per_item_vs_ws",
    "metrics_on_cpu_per_call",
    "validation_cpu_per_call",
    // rpcsmith's MCP server over rmcp's, the tool `add`.
    "mcp_http_calls_per_s",
    "mcp_http_cpu_per_call",
    "mcp_stdio_calls_per_s",
    "mcp_stdio_cpu_per_call",
];

/// Ratios of scenarios that say why they are skipped where they cannot run (too low an
/// open-file limit, no corpus): each is printed unless its skip line is.
const SKIPPABLE: &[(&str, &[&str])] = &[
    (
        "skip idle:",
        &["ws_idle_rss_per_conn", "http_idle_rss_per_conn"],
    ),
    (
        "skip large_result:",
        &["large_result_calls_per_s", "large_result_ws_calls_per_s"],
    ),
];

const SERVED: &[(&str, &[&str])] = &[
    ("http", &["rpcsmith", "jsonrpsee", "floor"]),
    ("ws", &["rpcsmith", "jsonrpsee"]),
    ("batch100", &["rpcsmith", "jsonrpsee", "handwritten"]),
    ("batch1000", &["rpcsmith", "jsonrpsee"]),
    ("client_http", &["rpcsmith", "jsonrpsee"]),
    ("client_ws", &["rpcsmith", "jsonrpsee"]),
    ("fanout", &["rpcsmith", "jsonrpsee"]),
    // The fan-out server with every subscriber idle.
    ("fanout_idle", &["rpcsmith", "jsonrpsee"]),
    ("fanout10k", &["rpcsmith", "jsonrpsee"]),
    ("fanout10k_idle", &["rpcsmith", "jsonrpsee"]),
    ("sse_fanout", &["rpcsmith"]),
    ("sse_fanout_idle", &["rpcsmith"]),
    ("metrics", &["rpcsmith", "rpcsmith_metrics"]),
];

fn value<'a>(stdout: &'a str, prefix: &str) -> Option<&'a str> {
    stdout
        .lines()
        .find_map(|line| line.strip_prefix(prefix)?.strip_prefix(' '))
}

#[test]
fn a_quick_run_prints_every_ratio() {
    let output = Command::new(env!("CARGO_BIN_EXE_rpcsmith-bench"))
        .arg("--quick")
        .output()
        .expect("the benchmark runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "exit {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    for name in RATIOS {
        let text = value(&stdout, &format!("ratio {name}"))
            .unwrap_or_else(|| panic!("no `ratio {name}` line in:\n{stdout}"));
        let ratio: f64 = text
            .parse()
            .unwrap_or_else(|e| panic!("ratio {name} {text:?}: {e}"));
        assert!(ratio.is_finite() && ratio > 0.0, "ratio {name} {ratio}");
    }
    for (skip, names) in SKIPPABLE {
        if stdout.lines().any(|line| line.starts_with(skip)) {
            continue;
        }
        for name in *names {
            let text = value(&stdout, &format!("ratio {name}"))
                .unwrap_or_else(|| panic!("no `ratio {name}` line nor `{skip}` in:\n{stdout}"));
            let ratio: f64 = text
                .parse()
                .unwrap_or_else(|e| panic!("ratio {name} {text:?}: {e}"));
            assert!(ratio.is_finite() && ratio > 0.0, "ratio {name} {ratio}");
        }
    }
    for (scenario, impls) in SERVED {
        for implementation in *impls {
            let prefix = format!("rss {scenario} {implementation}");
            let kib: u64 = value(&stdout, &prefix)
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("no `{prefix} <KiB>` line in:\n{stdout}"));
            assert!(kib > 0, "{prefix} {kib}");
        }
    }
}

#[test]
fn serve_refuses_an_address_it_cannot_bind() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let output = Command::new(env!("CARGO_BIN_EXE_rpcsmith-bench"))
        .args(["serve", "--http", &address])
        .output()
        .expect("the benchmark runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("cannot bind {address}")),
        "{stderr}"
    );
}
