//! Writing generated code and telling cargo about it.
//!
//! The output file is written only when its content changed, so a build whose document
//! did not change leaves the file's modification time alone and cargo does not rebuild
//! the crate that includes it. Every file the generator read (the document, each file its
//! `$ref`s reach, user templates) becomes a `cargo:rerun-if-changed` line, and every warning a
//! `cargo:warning` line.
//!
//! Two documents generated into one file by one build (two `compile` calls with the same
//! module name and output directory) are an error naming both, instead of the second
//! silently replacing the first: see [`claim`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex, PoisonError};

use crate::error::{Diagnostic, Error, ErrorKind};

/// Which document each output file was generated from by this process.
///
/// A registry in the process, not a marker file in `OUT_DIR`: cargo runs a build script
/// in a new process each time, so this starts empty on every rerun (a marker file would
/// have to tell this run's writes from the last run's, and would be left behind).
static GENERATED_FROM: LazyLock<Mutex<HashMap<PathBuf, (PathBuf, PathBuf)>>> =
    LazyLock::new(Mutex::default);

/// Records that `module`'s `file` is generated from `document`.
///
/// Generating the same document into it again is fine (a rerun in a long-lived process);
/// another document is not.
///
/// # Errors
///
/// [`ErrorKind::Invalid`], at `document`, naming the document `file` was already
/// generated from in this process.
pub(crate) fn claim(file: &Path, module: &str, document: &Path) -> Result<(), Error> {
    let identity = |p: &Path| {
        std::fs::canonicalize(p)
            .or_else(|_| std::path::absolute(p))
            .unwrap_or_else(|_| p.to_path_buf())
    };
    let mut registry = GENERATED_FROM
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let this = identity(document);
    let file = identity(file);
    match registry.get(&file) {
        Some((first, shown)) if *first != this => {
            let message = format!(
                "module `{module}` is already generated in this build from {}: give one of the two documents another `.module(…)` name",
                shown.display()
            );
            let d = Diagnostic::error(document, (0, 0), "", message);
            Err(Error::new(ErrorKind::Invalid, vec![d]))
        }
        Some(_) => Ok(()),
        None => {
            registry.insert(file, (this, document.to_path_buf()));
            Ok(())
        }
    }
}

/// Writes `contents` to `path` (creating its directory) unless the file already holds
/// exactly that text, so an unchanged output keeps its modification time and nothing that
/// depends on it is rebuilt. Returns whether the file was written.
///
/// # Errors
///
/// [`ErrorKind::Io`] naming `path` when it cannot be written.
pub fn write_if_changed(path: &Path, contents: &str) -> Result<bool, Error> {
    let unchanged = std::fs::read(path).is_ok_and(|old| old == contents.as_bytes());
    if unchanged {
        return Ok(false);
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| io_error(dir, "cannot create directory", &e))?;
    }
    std::fs::write(path, contents).map_err(|e| io_error(path, "cannot write", &e))?;
    Ok(true)
}

/// An [`ErrorKind::Io`] error about `path`.
pub(crate) fn io_error(path: &Path, what: &str, e: &std::io::Error) -> Error {
    let d = Diagnostic::error(path, (0, 0), "", format!("{what}: {e}"));
    Error::new(ErrorKind::Io, vec![d])
}

/// The lines a build script prints for one generation: `cargo:rerun-if-changed=` for each
/// file read (in order, each once), then `cargo:warning=` for each warning, one line each.
pub(crate) fn cargo_lines(files_read: &[PathBuf], warnings: &[Diagnostic]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut lines: Vec<String> = files_read
        .iter()
        .filter(|f| seen.insert(*f))
        .map(|f| {
            format!(
                "cargo:rerun-if-changed={}",
                one_line(&f.display().to_string())
            )
        })
        .collect();
    lines.extend(
        warnings
            .iter()
            .map(|w| format!("cargo:warning={}", one_line(&w.to_string()))),
    );
    lines
}

/// Cargo reads its instructions line by line: a line break would end one early.
pub(crate) fn one_line(text: &str) -> String {
    text.replace(['\r', '\n'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_only_when_the_content_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/out.rs");
        assert!(write_if_changed(&path, "a").unwrap());
        assert!(!write_if_changed(&path, "a").unwrap());
        assert!(write_if_changed(&path, "b").unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "b");
    }

    #[test]
    fn a_write_failure_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_if_changed(dir.path(), "x").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Io);
        assert!(
            err.to_string().contains(": at (root): cannot write: "),
            "{err}"
        );
    }

    #[test]
    fn lines_for_cargo_are_one_per_file_and_warning() {
        let files = [
            PathBuf::from("a.json"),
            PathBuf::from("b.json"),
            PathBuf::from("a.json"),
        ];
        let warning = Diagnostic::warning("a.json", (2, 3), "/x", "two\nlines");
        assert_eq!(
            cargo_lines(&files, &[warning]),
            [
                "cargo:rerun-if-changed=a.json",
                "cargo:rerun-if-changed=b.json",
                "cargo:warning=warning: a.json:2:3: at /x: two lines",
            ]
        );
    }
}
