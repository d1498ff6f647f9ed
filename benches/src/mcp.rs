//! The MCP scenario: rpcsmith's MCP server (generated from `schemas/mcp.json`) against
//! the MCP SDK for Rust (rmcp 3.x) serving the same tool, `add(a, b)`, over Streamable
//! HTTP and over stdio; both servers are `rpcsmith-bench-mcp` (its own package, so that
//! rmcp stays out of this binary), built and started by this module.
//!
//! The same load generator drives both: over HTTP, one MCP session per keep-alive
//! connection (`initialize`, `notifications/initialized`, then `tools/call` in a loop,
//! one call in flight per connection, `Accept: application/json, text/event-stream`, an
//! answer read whether it comes as JSON or as an event stream); over stdio, one
//! process, calls kept in flight on its standard input, answers read line by line
//! from its standard output. Every answer is checked (the sum, as the text block). The
//! server's CPU time is read from `/proc` around the window, as the other scenarios
//! do; rounds alternate the two servers.
//!
//! `rpcsmith-bench mcp --impl rmcp --transport stdio --calls N [--wrap CMD]` makes
//! exactly `N` calls against one server (started under `CMD`, say `valgrind
//! --tool=callgrind`) instead of the rounds, for instruction counts;
//! `RPCSMITH_BENCH_MCP_SERVER` names the server binary to start (a release build, while
//! the driver may be a debug one).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail, ensure};
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::load::{Gauge, Load};
use crate::report::median;

/// The two servers.
pub(crate) const IMPLS: [&str; 2] = ["rpcsmith", "rmcp"];

/// The revision both are asked for (both keep sessions under it).
const REVISION: &str = "2025-11-25";

/// `tools/call` of `add(1, 2)` with id `id`.
fn call(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}}}}}}"#
    )
}

fn initialize() -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{REVISION}","capabilities":{{}},"clientInfo":{{"name":"rpcsmith-bench","version":"0"}}}}}}"#
    )
}

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Checks an answer to [`call`]: the id, and the sum as the one text block.
fn check(answer: &Value, id: Option<u64>) -> anyhow::Result<()> {
    let text = &answer["result"]["content"][0]["text"];
    ensure!(text == "3", "not the sum as a text block: {answer}");
    if let Some(id) = id {
        ensure!(answer["id"] == id, "answer to another call: {answer}");
    }
    Ok(())
}

/// The JSON-RPC response in an HTTP answer's body: the body itself, or the `data` of
/// the event that carries a response (an event stream may prime with an empty event).
fn message_in(body: &[u8], events: bool) -> anyhow::Result<Value> {
    if !events {
        return serde_json::from_slice(body).context("a JSON answer");
    }
    let text = std::str::from_utf8(body).context("an event stream in UTF-8")?;
    for line in text.lines() {
        if let Some(data) = line.strip_prefix("data:") {
            let message: Value = match serde_json::from_str(data.trim_start()) {
                Ok(message) => message,
                Err(_) => continue,
            };
            if message.get("id").is_some() {
                return Ok(message);
            }
        }
    }
    bail!("no response in the event stream: {text:?}")
}

/// The path of `rpcsmith-bench-mcp`: `RPCSMITH_BENCH_MCP_SERVER` when set (a release
/// build driven by a debug bench, for a profiler), else beside this binary.
fn server_exe() -> anyhow::Result<PathBuf> {
    if let Some(path) = std::env::var_os("RPCSMITH_BENCH_MCP_SERVER") {
        return Ok(path.into());
    }
    let exe = std::env::current_exe().context("finding this program's own path")?;
    Ok(exe.with_file_name(format!(
        "rpcsmith-bench-mcp{}",
        std::env::consts::EXE_SUFFIX
    )))
}

/// Builds `rpcsmith-bench-mcp` in this program's profile (Cargo does nothing when it
/// is up to date).
fn build_server() -> anyhow::Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp-server/Cargo.toml");
    let mut command = std::process::Command::new(cargo);
    command
        .args(["build", "--quiet", "--manifest-path"])
        .arg(&manifest);
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    let status = command.status().context("running cargo")?;
    ensure!(status.success(), "building rpcsmith-bench-mcp failed");
    let exe = server_exe()?;
    ensure!(exe.is_file(), "{} was not built", exe.display());
    Ok(())
}

/// A server process; killed when dropped, unless ended with [`Server::end`].
struct Server {
    child: Child,
    url: Option<String>,
    pipes: Option<(ChildStdin, ChildStdout)>,
}

impl Server {
    /// Starts `implementation` (under `wrap`, a command and its arguments, if given),
    /// over HTTP (and reads its URL) or stdio.
    async fn start(
        implementation: &str,
        http: bool,
        workers: usize,
        wrap: &[String],
    ) -> anyhow::Result<Self> {
        let exe = server_exe()?;
        let mut command = match wrap.split_first() {
            Some((program, args)) => {
                let mut command = Command::new(program);
                command.args(args).arg(&exe);
                command
            }
            None => Command::new(&exe),
        };
        command.args(["--impl", implementation, "--workers", &workers.to_string()]);
        if http {
            command.args(["--http", "127.0.0.1:0"]);
        } else {
            command.arg("--stdio");
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .context("starting rpcsmith-bench-mcp")?;
        let stdin = child.stdin.take().context("no pipe")?;
        let stdout = child.stdout.take().context("no pipe")?;
        if !http {
            return Ok(Server {
                child,
                url: None,
                pipes: Some((stdin, stdout)),
            });
        }
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .context("no address printed within 60 s")??
            .context("the server exited before printing its address")?;
        let url = line
            .split_whitespace()
            .last()
            .unwrap_or_default()
            .to_owned();
        ensure!(url.starts_with("http://"), "it printed {line:?}");
        // Its stdin stays open: closing it ends the server.
        Ok(Server {
            child,
            url: Some(url),
            pipes: Some((stdin, lines.into_inner().into_inner())),
        })
    }

    fn pid(&self) -> anyhow::Result<u32> {
        self.child.id().context("the server has exited")
    }

    /// Closes its standard input and waits for it to exit (a profiler writes its figures).
    async fn end(mut self) -> anyhow::Result<()> {
        drop(self.pipes.take());
        let status = tokio::time::timeout(Duration::from_secs(120), self.child.wait())
            .await
            .context("the server did not exit when its stdin closed")??;
        ensure!(status.success(), "the server exited with {status}");
        Ok(())
    }
}

/// An MCP session on its own keep-alive HTTP/1.1 connection.
struct HttpSession {
    sender: SendRequest<Full<Bytes>>,
    uri: hyper::Uri,
    session: hyper::header::HeaderValue,
}

impl HttpSession {
    async fn open(url: &str) -> anyhow::Result<Self> {
        let uri: hyper::Uri = url.parse().context("parsing the server's URL")?;
        let authority = uri.authority().context("the URL has no host")?.clone();
        let stream = TcpStream::connect(authority.as_str()).await?;
        stream.set_nodelay(true)?;
        let (sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(connection);
        let mut session = HttpSession {
            sender,
            uri,
            session: hyper::header::HeaderValue::from_static(""),
        };
        let (answer, headers) = session.post(initialize(), false).await?;
        let answer = answer.context("no answer to initialize")?;
        ensure!(
            answer["result"]["protocolVersion"] == REVISION,
            "initialize: {answer}"
        );
        session.session = headers
            .get("mcp-session-id")
            .context("no Mcp-Session-Id")?
            .clone();
        let (none, _) = session.post(INITIALIZED.to_owned(), true).await?;
        ensure!(none.is_none(), "an answer to a notification");
        Ok(session)
    }

    /// Posts `body`; its response (`None` for a `202` with no body) and headers.
    async fn post(
        &mut self,
        body: String,
        in_session: bool,
    ) -> anyhow::Result<(Option<Value>, hyper::HeaderMap)> {
        let authority = self.uri.authority().context("no host")?.as_str();
        let mut request = hyper::Request::post(self.uri.path())
            .header(hyper::header::HOST, authority)
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .header(hyper::header::ACCEPT, "application/json, text/event-stream");
        if in_session {
            request = request
                .header("mcp-session-id", self.session.clone())
                .header("mcp-protocol-version", REVISION);
        }
        self.sender
            .ready()
            .await
            .context("the HTTP connection closed")?;
        let response = self
            .sender
            .send_request(request.body(Full::new(Bytes::from(body)))?)
            .await?;
        let (parts, body) = response.into_parts();
        let body = body.collect().await?.to_bytes();
        if parts.status == hyper::StatusCode::ACCEPTED {
            return Ok((None, parts.headers));
        }
        ensure!(
            parts.status == hyper::StatusCode::OK,
            "HTTP status {}: {body:?}",
            parts.status
        );
        let events = parts
            .headers
            .get(hyper::header::CONTENT_TYPE)
            .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
        Ok((Some(message_in(&body, events)?), parts.headers))
    }

    /// Calls `add` in a loop while `gauge` says so, or `limit` times.
    async fn run(mut self, gauge: Gauge, limit: Option<u64>) -> anyhow::Result<()> {
        let mut id = 1;
        while gauge.running() && limit.is_none_or(|limit| id <= limit) {
            let (answer, _) = self.post(call(id), true).await?;
            check(&answer.context("no answer")?, Some(id))?;
            gauge.add(1);
            id += 1;
        }
        Ok(())
    }
}

/// Sessions over `connections` connections to `url`, each calling in a loop; with
/// `calls`, exactly that many calls spread over them.
async fn http_load(url: &str, connections: usize, calls: Option<u64>) -> anyhow::Result<Load> {
    let mut load = Load::default();
    let each = calls.map(|calls| calls.div_ceil(connections as u64));
    for _ in 0..connections {
        let session = HttpSession::open(url).await?;
        load.spawn(move |gauge| session.run(gauge, each));
    }
    Ok(load)
}

/// The stdio client: `initialize`, then `in_flight` calls kept in flight on the
/// server's stdin while `gauge` says so (or until `limit` calls), answers read by line.
async fn stdio_run(
    (mut stdin, stdout): (ChildStdin, ChildStdout),
    in_flight: usize,
    gauge: Gauge,
    limit: Option<u64>,
) -> anyhow::Result<()> {
    let mut lines = BufReader::new(stdout).lines();
    let send = |line: String| {
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        bytes
    };
    stdin.write_all(&send(initialize())).await?;
    let answer: Value = serde_json::from_str(&lines.next_line().await?.context("closed")?)?;
    ensure!(
        answer["result"]["protocolVersion"] == REVISION,
        "initialize: {answer}"
    );
    stdin.write_all(&send(INITIALIZED.to_owned())).await?;
    let (mut sent, mut answered) = (0_u64, 0_u64);
    loop {
        let more = gauge.running() && limit.is_none_or(|limit| sent < limit);
        if more && sent - answered < in_flight as u64 {
            sent += 1;
            stdin.write_all(&send(call(sent))).await?;
            continue;
        }
        if sent == answered {
            return Ok(());
        }
        let line = lines
            .next_line()
            .await?
            .context("the server closed its stdout")?;
        let answer: Value = serde_json::from_str(&line).context("a JSON line")?;
        check(&answer, None)?;
        answered += 1;
        gauge.add(1);
    }
}

/// Counts and durations of the scenario.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub(crate) rounds: usize,
    pub(crate) warmup: Duration,
    pub(crate) window: Duration,
    pub(crate) workers: usize,
    /// HTTP connections, one session each.
    pub(crate) connections: usize,
    /// Calls in flight over stdio.
    pub(crate) in_flight: usize,
}

/// What one window measured.
#[derive(Debug, Clone, Copy)]
struct Sample {
    calls: u64,
    elapsed: Duration,
    server_cpu: Duration,
}

impl Sample {
    fn calls_per_s(&self) -> f64 {
        self.calls as f64 / self.elapsed.as_secs_f64()
    }

    fn cpu_per_call_us(&self) -> f64 {
        self.server_cpu.as_secs_f64() * 1e6 / self.calls as f64
    }
}

/// Starts `implementation` over `transport`, loads it, and measures one window.
async fn measure(implementation: &str, http: bool, settings: &Settings) -> anyhow::Result<Sample> {
    let mut server = Server::start(implementation, http, settings.workers, &[]).await?;
    let pid = server.pid()?;
    let load = if http {
        let url = server.url.clone().context("no URL")?;
        http_load(&url, settings.connections, None).await?
    } else {
        let pipes = server.pipes.take().context("no pipes")?;
        let in_flight = settings.in_flight;
        let mut load = Load::default();
        load.spawn(move |gauge| stdio_run(pipes, in_flight, gauge, None));
        load
    };
    // Wall-clock windows are what the bench measures: calls and CPU within them.
    tokio::time::sleep(settings.warmup).await;
    let (at, calls, cpu) = (
        Instant::now(),
        load.calls(),
        crate::proc::cpu_time(Some(pid))?,
    );
    tokio::time::sleep(settings.window).await;
    let sample = Sample {
        calls: load.calls() - calls,
        elapsed: at.elapsed(),
        server_cpu: crate::proc::cpu_time(Some(pid))?.saturating_sub(cpu),
    };
    load.stop().await?;
    ensure!(sample.calls > 0, "no call completed in the window");
    Ok(sample)
}

/// Runs the rounds and prints the table and the `ratio mcp_*` lines (rpcsmith over
/// rmcp).
///
/// # Errors
///
/// When a server cannot be built or started, or answers wrongly.
pub(crate) fn report(settings: &Settings) -> anyhow::Result<()> {
    build_server()?;
    println!(
        "\nMCP: the tool `add` served by rpcsmith (generated from schemas/mcp.json) and by \
         rmcp 3.x; Streamable HTTP with {} sessions on as many connections, stdio with {} \
         calls in flight",
        settings.connections, settings.in_flight
    );
    let runtime = crate::serve::runtime(settings.workers)?;
    // (transport, implementation) → samples.
    let mut samples: BTreeMap<(&str, &str), Vec<Sample>> = BTreeMap::new();
    for round in 0..settings.rounds {
        eprintln!("mcp: round {} of {}", round + 1, settings.rounds);
        let mut order = IMPLS;
        order.rotate_left(round % IMPLS.len());
        for (transport, http) in [("http", true), ("stdio", false)] {
            for &implementation in &order {
                let sample = runtime
                    .block_on(measure(implementation, http, settings))
                    .with_context(|| format!("mcp_{transport} with {implementation}"))?;
                samples
                    .entry((transport, implementation))
                    .or_default()
                    .push(sample);
            }
        }
    }
    let empty = Vec::new();
    let of =
        |transport, implementation| samples.get(&(transport, implementation)).unwrap_or(&empty);
    println!("| scenario | server | calls/s | server CPU µs/call |");
    println!("|---|---|---:|---:|");
    for transport in ["http", "stdio"] {
        for implementation in IMPLS {
            let list = of(transport, implementation);
            let rate = median(list.iter().map(Sample::calls_per_s).collect());
            let cpu = median(list.iter().map(Sample::cpu_per_call_us).collect());
            println!("| mcp_{transport} | {implementation} | {rate:.0} | {cpu:.1} |");
        }
    }
    for transport in ["http", "stdio"] {
        let pairs = || of(transport, "rpcsmith").iter().zip(of(transport, "rmcp"));
        let rate = median(
            pairs()
                .map(|(r, m)| r.calls_per_s() / m.calls_per_s())
                .collect(),
        );
        let cpu = median(
            pairs()
                .map(|(r, m)| r.cpu_per_call_us() / m.cpu_per_call_us())
                .collect(),
        );
        println!("ratio mcp_{transport}_calls_per_s {rate:.3}");
        println!("ratio mcp_{transport}_cpu_per_call {cpu:.3}");
    }
    Ok(())
}

/// Exactly `calls` calls against one server (`implementation` over `transport`, started
/// under `wrap`), which is then ended by closing its stdin: for instruction counts.
///
/// # Errors
///
/// When the server cannot be built or started, answers wrongly, or exits badly.
pub(crate) fn fixed_calls(
    implementation: &str,
    transport: &str,
    calls: u64,
    settings: &Settings,
    wrap: &[String],
) -> anyhow::Result<()> {
    ensure!(IMPLS.contains(&implementation), "--impl: rpcsmith or rmcp");
    let http = match transport {
        "http" => true,
        "stdio" => false,
        _ => bail!("--transport: http or stdio"),
    };
    if std::env::var_os("RPCSMITH_BENCH_MCP_SERVER").is_none() {
        build_server()?;
    }
    let runtime = crate::serve::runtime(settings.workers)?;
    runtime.block_on(async {
        let mut server = Server::start(implementation, http, settings.workers, wrap).await?;
        let load = if http {
            let url = server.url.clone().context("no URL")?;
            // Whole calls per connection.
            let connections = settings.connections.min(calls.max(1) as usize);
            ensure!(
                calls.is_multiple_of(connections as u64),
                "--calls: a multiple of {connections}"
            );
            http_load(&url, connections, Some(calls)).await?
        } else {
            let pipes = server.pipes.take().context("no pipes")?;
            let in_flight = settings.in_flight;
            let mut load = Load::default();
            load.spawn(move |gauge| stdio_run(pipes, in_flight, gauge, Some(calls)));
            load
        };
        load.finish().await?;
        server.end().await?;
        println!("mcp {implementation} {transport}: {calls} calls");
        Ok(())
    })
}
