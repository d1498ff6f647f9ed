//! Server processes and what `/proc` says about them: each scenario's server is a fresh
//! child (this binary, re-executed with `serve`), whose CPU time (user + system, every
//! thread) and peak resident memory are read around the measured window.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context as _, bail, ensure};

use crate::serve::{Impl, Transport};

/// How long a child may take to print its address.
const STARTUP: Duration = Duration::from_secs(60);

/// Fails with a clear message where there is no `/proc` to read.
///
/// # Errors
///
/// When `/proc/self/stat` or `/proc/self/status` cannot be read.
pub(crate) fn check() -> anyhow::Result<()> {
    cpu_time(None).context("this benchmark reads CPU time and memory from /proc (Linux)")?;
    peak_rss_kib(None).context("this benchmark reads peak memory from /proc/<pid>/status")?;
    Ok(())
}

/// A server process serving `add` on loopback; killed when dropped.
#[derive(Debug)]
pub(crate) struct Server {
    child: std::process::Child,
    url: String,
}

impl Server {
    /// Starts this binary as `serve --impl <implementation> --http|--ws 127.0.0.1:0`
    /// and waits for the URL it prints.
    ///
    /// # Errors
    ///
    /// When the process cannot start, exits, or prints no URL in time.
    pub(crate) fn start(
        implementation: Impl,
        transport: Transport,
        workers: usize,
    ) -> anyhow::Result<Self> {
        let flag = listen_flag(transport);
        Self::spawn(implementation, &[flag, "127.0.0.1:0"], workers)
    }

    /// [`Server::start`], with room for `connections` connections at once (`serve
    /// --max-connections`) rather than each implementation's default limit.
    ///
    /// # Errors
    ///
    /// When the process cannot start, exits, or prints no URL in time.
    pub(crate) fn start_with_connections(
        implementation: Impl,
        transport: Transport,
        workers: usize,
        connections: usize,
    ) -> anyhow::Result<Self> {
        let flag = listen_flag(transport);
        let connections = connections.to_string();
        let args = [flag, "127.0.0.1:0", "--max-connections", &connections];
        Self::spawn(implementation, &args, workers)
    }

    /// Starts this binary as `serve --impl <implementation> --ws 127.0.0.1:0 --fan-out`
    /// (the `items` subscription, publishing once [`Server::publish`] says so; `--http`
    /// for SSE sessions instead), taking `subscribers` connections, and waits for the
    /// URL it prints.
    ///
    /// # Errors
    ///
    /// When the process cannot start, exits, or prints no URL in time.
    pub(crate) fn start_fan_out(
        implementation: Impl,
        workers: usize,
        subscribers: usize,
        transport: Transport,
    ) -> anyhow::Result<Self> {
        let connections = (subscribers + 64).to_string();
        let args = [
            listen_flag(transport),
            "127.0.0.1:0",
            "--fan-out",
            "--max-connections",
            &connections,
        ];
        Self::spawn(implementation, &args, workers)
    }

    fn spawn(implementation: Impl, args: &[&str], workers: usize) -> anyhow::Result<Self> {
        let exe = match implementation {
            Impl::RpcsmithMetrics => metrics_server()?,
            _ => std::env::current_exe().context("finding this program's own path")?,
        };
        let mut command = match crate::callgrind::dir() {
            Some(dir) => crate::callgrind::command(&exe, &dir),
            None => Command::new(exe),
        };
        let child = command
            .args(["serve", "--impl", implementation.name()])
            .args(args)
            .args(["--workers", &workers.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("starting a server process")?;
        let mut server = Server {
            child,
            url: String::new(),
        };
        server.url = server.read_url().with_context(|| {
            format!("the {} server process did not start", implementation.name())
        })?;
        Ok(server)
    }

    /// Tells a fan-out server to start publishing.
    ///
    /// # Errors
    ///
    /// When the server's standard input is closed.
    pub(crate) fn publish(&mut self) -> anyhow::Result<()> {
        let stdin = self.child.stdin.as_mut().context("no pipe to the child")?;
        stdin
            .write_all(b"publish\n")
            .and_then(|()| stdin.flush())
            .context("telling the server to publish")
    }

    /// Reads the first line the child prints (on a thread, so a silent child cannot
    /// hang the benchmark) and takes its last word.
    fn read_url(&mut self) -> anyhow::Result<String> {
        let stdout = self.child.stdout.take().context("no pipe to the child")?;
        let (send, receive) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let read = BufReader::new(stdout).read_line(&mut line);
            let _ = send.send(read.map(|_| line));
        });
        let line = match receive.recv_timeout(STARTUP) {
            Ok(read) => read.context("reading the child's output")?,
            Err(_) => bail!("no address printed within {STARTUP:?}"),
        };
        match line.split_whitespace().last() {
            Some(url) if url.contains("://") => Ok(url.to_owned()),
            _ => {
                let status = self.child.try_wait().ok().flatten();
                bail!("it printed {line:?} (exit status: {status:?})")
            }
        }
    }

    /// The URL it serves on.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// Its process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `serve` option that listens with `transport`.
fn listen_flag(transport: Transport) -> &'static str {
    match transport {
        Transport::Http => "--http",
        Transport::Ws => "--ws",
    }
}

/// The binary of `rpcsmith-bench-metrics`: beside this one, in the same profile's
/// directory.
///
/// # Errors
///
/// When this program's own path is unknown.
fn metrics_server() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("finding this program's own path")?;
    Ok(exe.with_file_name(format!(
        "rpcsmith-bench-metrics{}",
        std::env::consts::EXE_SUFFIX
    )))
}

/// Builds `rpcsmith-bench-metrics` (its own package, so that its runtime has the
/// `metrics` feature and this one's does not) in this program's profile, with the Cargo
/// that runs this program (`$CARGO`; `cargo` otherwise). Cargo does nothing when it is
/// up to date.
///
/// # Errors
///
/// When Cargo fails, or the binary is not where this program expects it.
pub(crate) fn build_metrics_server() -> anyhow::Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("metrics-server/Cargo.toml");
    let mut command = Command::new(cargo);
    command
        .args(["build", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    eprintln!("building rpcsmith-bench-metrics (the runtime with `metrics`)");
    let status = command
        .status()
        .context("running cargo to build rpcsmith-bench-metrics")?;
    ensure!(
        status.success(),
        "building rpcsmith-bench-metrics failed ({status})"
    );
    let binary = metrics_server()?;
    ensure!(
        binary.is_file(),
        "rpcsmith-bench-metrics is not at {} (another target directory?)",
        binary.display()
    );
    Ok(())
}

/// CPU time (user + system, all threads) of process `pid`, or of this process.
///
/// # Errors
///
/// When `/proc/<pid>/stat` cannot be read or parsed.
pub(crate) fn cpu_time(pid: Option<u32>) -> anyhow::Result<Duration> {
    Ok(cpu_times(pid)?.total)
}

/// A process's CPU time, and its user part.
pub(crate) struct CpuTimes {
    /// User + system, all threads.
    pub(crate) total: Duration,
    /// The process's own code (the rest is the kernel's work for it: sockets,
    /// scheduling, which a server's code changes little).
    pub(crate) user: Duration,
}

/// [`cpu_time`], with its user part, read at once.
///
/// # Errors
///
/// When `/proc/<pid>/stat` cannot be read or parsed.
pub(crate) fn cpu_times(pid: Option<u32>) -> anyhow::Result<CpuTimes> {
    let path = proc_path(pid, "stat");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
    let ticks = |field| stat_field(&text, field).with_context(|| format!("parsing {path}"));
    let (user, system) = (ticks(14)?, ticks(15)?);
    let time = |ticks: u64| Duration::from_secs_f64(ticks as f64 / clock_ticks() as f64);
    Ok(CpuTimes {
        total: time(user + system),
        user: time(user),
    })
}

/// CPU time of the calling thread: the first field of `/proc/thread-self/schedstat`
/// (the time the scheduler ran it, in nanoseconds, brought up to date at each scheduler
/// tick: 4 ms at 250 Hz). Unlike the process's [`cpu_time`] (10 ms clock ticks, every
/// thread), it counts no other thread; measure a second or so of work for a figure
/// within a fraction of a percent.
///
/// # Errors
///
/// When the file cannot be read or parsed.
pub(crate) fn thread_cpu_time() -> anyhow::Result<Duration> {
    let path = "/proc/thread-self/schedstat";
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
    let nanos: u64 = text
        .split_whitespace()
        .next()
        .and_then(|field| field.parse().ok())
        .with_context(|| format!("parsing {path}: {text:?}"))?;
    Ok(Duration::from_nanos(nanos))
}

/// CPU time (user + system) of this process's children that have ended and been waited
/// for (a `cargo build` it ran, with the compilers cargo ran).
///
/// # Errors
///
/// When `/proc/self/stat` cannot be read or parsed.
pub(crate) fn children_cpu_time() -> anyhow::Result<Duration> {
    let text = std::fs::read_to_string("/proc/self/stat").context("reading /proc/self/stat")?;
    let ticks = parse_stat_ticks(&text, 16).context("parsing /proc/self/stat")?;
    Ok(Duration::from_secs_f64(ticks as f64 / clock_ticks() as f64))
}

/// The sum of fields `first` and `first + 1` of `/proc/<pid>/stat` (14 and 15: utime +
/// stime; 16 and 17: cutime + cstime). The second field (the command name, in
/// parentheses) may hold spaces, so fields are counted after its `)`.
fn parse_stat_ticks(stat: &str, first: usize) -> Option<u64> {
    Some(stat_field(stat, first)? + stat_field(stat, first + 1)?)
}

/// Field `n` (counted from 1) of a `/proc/<pid>/stat` line, as a number.
fn stat_field(stat: &str, n: usize) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(n - 3)?.parse().ok()
}

/// Peak resident set size (`VmHWM`) of process `pid`, or of this process, in KiB.
///
/// # Errors
///
/// When `/proc/<pid>/status` cannot be read or has no `VmHWM` line.
pub(crate) fn peak_rss_kib(pid: Option<u32>) -> anyhow::Result<u64> {
    status_kib(pid, "VmHWM")
}

/// Resident set size now (`VmRSS`) of process `pid`, or of this process, in KiB.
///
/// # Errors
///
/// When `/proc/<pid>/status` cannot be read or has no `VmRSS` line.
pub(crate) fn rss_kib(pid: Option<u32>) -> anyhow::Result<u64> {
    status_kib(pid, "VmRSS")
}

fn status_kib(pid: Option<u32>, field: &str) -> anyhow::Result<u64> {
    let path = proc_path(pid, "status");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
    parse_status_kib(&text, field).with_context(|| format!("no {field} in {path}"))
}

/// The KiB of line `<field>:` of `/proc/<pid>/status`.
fn parse_status_kib(status: &str, field: &str) -> Option<u64> {
    let line = status.lines().find(|l| {
        l.strip_prefix(field)
            .is_some_and(|rest| rest.starts_with(':'))
    })?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn proc_path(pid: Option<u32>, file: &str) -> String {
    match pid {
        Some(pid) => format!("/proc/{pid}/{file}"),
        None => format!("/proc/self/{file}"),
    }
}

/// Clock ticks per second (`CLK_TCK`), from the `AT_CLKTCK` entry of this process's
/// auxiliary vector (no `libc` call: the workspace forbids unsafe code); 100, the value
/// on every common Linux, when it cannot be read.
pub(crate) fn clock_ticks() -> u64 {
    static TICKS: OnceLock<u64> = OnceLock::new();
    *TICKS.get_or_init(|| {
        std::fs::read(Path::new("/proc/self/auxv"))
            .ok()
            .and_then(|auxv| auxv_entry(&auxv, AT_CLKTCK))
            .filter(|&ticks| ticks > 0)
            .unwrap_or(100)
    })
}

const AT_CLKTCK: u64 = 17;

/// The value of entry `key` in an auxiliary vector: pairs of native-endian words.
fn auxv_entry(auxv: &[u8], key: u64) -> Option<u64> {
    let word = std::mem::size_of::<usize>();
    let read = |bytes: &[u8]| -> u64 {
        let mut buf = [0u8; 8];
        if cfg!(target_endian = "little") {
            buf[..word].copy_from_slice(bytes);
            u64::from_le_bytes(buf)
        } else {
            buf[8 - word..].copy_from_slice(bytes);
            u64::from_be_bytes(buf)
        }
    };
    auxv.chunks_exact(2 * word)
        .map(|pair| (read(&pair[..word]), read(&pair[word..])))
        .take_while(|&(k, _)| k != 0)
        .find(|&(k, _)| k == key)
        .map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_after_the_name() {
        let stat = "42 (a (weird) name) S 1 42 42 0 -1 4194560 100 0 0 0 7 3 5 6 20 0 2 0";
        assert_eq!(parse_stat_ticks(stat, 14), Some(10));
        assert_eq!(parse_stat_ticks(stat, 16), Some(11));
        assert_eq!(parse_stat_ticks("garbage", 14), None);
        assert_eq!(stat_field(stat, 14), Some(7));
        assert_eq!(stat_field(stat, 15), Some(3));
    }

    #[test]
    fn status_gives_the_peak() {
        let status = "Name:\tx\nVmPeak:\t  9000 kB\nVmHWM:\t    1234 kB\nVmRSS:\t 1000 kB\n";
        assert_eq!(parse_status_kib(status, "VmHWM"), Some(1234));
        assert_eq!(parse_status_kib(status, "VmRSS"), Some(1000));
        assert_eq!(parse_status_kib(status, "VmSwap"), None);
    }

    #[test]
    fn this_process_is_readable() {
        assert!(clock_ticks() > 0);
        assert!(peak_rss_kib(None).unwrap() > 0);
        assert!(rss_kib(None).unwrap() > 0);
        cpu_time(None).unwrap();
    }
}
