//! Instructions instead of time, for a machine too loaded for wall-clock figures: with
//! `RPCSMITH_BENCH_CALLGRIND=<dir>` set, every server process the bench starts runs
//! under `valgrind --tool=callgrind` (its profiles in `<dir>`), its counters are zeroed
//! when a measured window starts and dumped when it ends (`callgrind_control`), and the
//! server's instructions in the window go beside the calls or items counted in it:
//! `instructions <scenario> <impl> <per call>` lines and `ratio …_instructions_…`.
//! Callgrind runs the server's threads one at a time, some fifty times slower, so only
//! instruction counts from such a run mean anything; its calls per second and CPU
//! times do not.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail, ensure};

/// The environment variable naming the directory of the profiles.
const VARIABLE: &str = "RPCSMITH_BENCH_CALLGRIND";

/// The directory of the profiles, when servers run under callgrind.
pub(crate) fn dir() -> Option<PathBuf> {
    std::env::var_os(VARIABLE)
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
}

/// The command that runs `exe` under callgrind, its profile in `dir`.
pub(crate) fn command(exe: &Path, dir: &Path) -> Command {
    let mut command = Command::new("valgrind");
    command
        .arg("--tool=callgrind")
        .arg("--quiet")
        // A profile per thread: one profile of every thread together attributes all
        // to `clone`, which `callgrind_annotate` cannot break down.
        .arg("--separate-threads=yes")
        // Names written out in every dump: a dump whose names were given in an earlier
        // one cannot be read alone (`callgrind_annotate` finds no function in it).
        .arg("--compress-strings=no")
        .arg("--compress-pos=no")
        .arg(format!(
            "--callgrind-out-file={}/callgrind.out.%p",
            dir.display()
        ))
        .arg(exe);
    command
}

/// Zeroes the counters of the server `pid`.
///
/// # Errors
///
/// When `callgrind_control` fails.
pub(crate) fn zero(pid: u32) -> anyhow::Result<()> {
    control(&["--zero", &pid.to_string()])
}

/// Dumps the counters of the server `pid` and returns the instructions counted since
/// they were last zeroed.
///
/// # Errors
///
/// When `callgrind_control` fails or the dump holds no total.
pub(crate) fn dump(pid: u32, dir: &Path) -> anyhow::Result<u64> {
    let before = dumps(pid, dir)?;
    control(&["--dump", &pid.to_string()])?;
    let after = dumps(pid, dir)?;
    // One profile per thread, each dump: their totals together.
    let new: Vec<PathBuf> = after
        .into_iter()
        .filter(|path| !before.contains(path))
        .collect();
    ensure!(!new.is_empty(), "callgrind_control --dump wrote no profile");
    let mut sum = 0;
    for path in new {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        sum += total(&text)
            .with_context(|| format!("no `summary:` or `totals:` in {}", path.display()))?;
    }
    Ok(sum)
}

fn control(args: &[&str]) -> anyhow::Result<()> {
    let output = Command::new("callgrind_control")
        .args(args)
        .output()
        .context("running callgrind_control")?;
    ensure!(
        output.status.success(),
        "callgrind_control {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(())
}

/// The profiles of `pid` in `dir`.
fn dumps(pid: u32, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let prefix = format!("callgrind.out.{pid}.");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.starts_with(&prefix) {
            found.push(path);
        }
    }
    Ok(found)
}

/// The instruction total of a profile (its first event).
fn total(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|line| {
            line.strip_prefix("summary:")
                .or_else(|| line.strip_prefix("totals:"))
        })
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
}

/// Fails when callgrind's tools are missing.
///
/// # Errors
///
/// When `valgrind` or `callgrind_control` cannot be run.
pub(crate) fn check() -> anyhow::Result<()> {
    for tool in ["valgrind", "callgrind_control"] {
        let found = Command::new(tool).arg("--version").output();
        if !found.is_ok_and(|output| output.status.success()) {
            bail!("{VARIABLE} is set but `{tool} --version` fails: install valgrind");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_are_read_from_either_line() {
        assert_eq!(total("events: Ir\nsummary: 1234\n"), Some(1234));
        assert_eq!(total("events: Ir\ntotals: 99 3\n"), Some(99));
        assert_eq!(total("events: Ir\n"), None);
    }
}
