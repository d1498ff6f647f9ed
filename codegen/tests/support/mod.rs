//! Helpers of the generator's tests: what a golden mismatch prints (the lines that
//! differ, not only "output differs"), and file dates that do not depend on the clock.

#![allow(dead_code, reason = "each test crate uses a different part")]

use std::path::Path;
use std::time::{Duration, SystemTime};

/// At most this many changed lines of each side are printed.
const SHOWN: usize = 40;

/// A unified-style diff of `expected` (the golden) against `actual` (the output): the
/// lines both share at the start and the end are left out, the differing run between
/// them is printed as `-` (golden) and `+` (output) lines numbered from 1, with up to
/// three lines of context before it.
pub(crate) fn diff(expected: &str, actual: &str) -> String {
    let old: Vec<&str> = expected.lines().collect();
    let new: Vec<&str> = actual.lines().collect();
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = format!(
        "@@ golden lines {}..{}, output lines {}..{} @@\n",
        prefix + 1,
        old.len() - suffix,
        prefix + 1,
        new.len() - suffix
    );
    for (n, line) in old
        .iter()
        .enumerate()
        .take(prefix)
        .skip(prefix.saturating_sub(3))
    {
        out.push_str(&format!("  {:>5} {line}\n", n + 1));
    }
    side(&mut out, '-', prefix, &old[prefix..old.len() - suffix]);
    side(&mut out, '+', prefix, &new[prefix..new.len() - suffix]);
    if old.len() == new.len() && prefix == old.len() {
        out.push_str(
            "(the lines are equal: the files differ in line endings or a final newline)\n",
        );
    }
    out
}

fn side(out: &mut String, sign: char, first: usize, lines: &[&str]) {
    for (n, line) in lines.iter().enumerate().take(SHOWN) {
        out.push_str(&format!("{sign} {:>5} {line}\n", first + n + 1));
    }
    if lines.len() > SHOWN {
        out.push_str(&format!("{sign} … {} more lines\n", lines.len() - SHOWN));
    }
}

/// Dates `path` far in the past and returns that date, as the file system keeps it. A
/// rewrite, however soon after, dates the file now: "was it written again?" is then
/// answered without waiting for the clock to pass the file system's mtime granularity.
pub(crate) fn backdate(path: &Path) -> SystemTime {
    let long_ago = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    let file = std::fs::File::options()
        .write(true)
        .open(path)
        .expect("open to date");
    file.set_modified(long_ago)
        .expect("set the modification time");
    drop(file);
    let kept = modified(path);
    assert!(
        kept < SystemTime::now() - Duration::from_secs(3600),
        "{kept:?}"
    );
    kept
}

/// When `path` was last written.
pub(crate) fn modified(path: &Path) -> SystemTime {
    std::fs::metadata(path)
        .expect("metadata")
        .modified()
        .expect("mtime")
}
