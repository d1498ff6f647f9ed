//! Diagnostics and the generator's error type.
//!
//! Every stage of the pipeline reports problems as [`Diagnostic`]s: a severity, the file
//! (as the user named it, never made absolute), a 1-based line and column, the JSON pointer
//! of the value concerned and a message. A stage collects all its problems in a
//! [`Diagnostics`] collector before failing, so one run shows every mistake.
//!
//! A diagnostic prints as
//!
//! ```text
//! openrpc.json:12:7: at /methods/0/params/1: duplicate param name "id"
//! warning: openrpc.json:40:9: at /components/errors/E: unknown field "description"
//! ```
//!
//! Conventions: warnings carry the prefix `warning: `; the document root's pointer (the
//! empty string) prints as `(root)`; a diagnostic without a known position (an unreadable
//! file) prints without `line:col`.

use std::fmt;
use std::path::PathBuf;

/// How serious a [`Diagnostic`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Generation cannot go on.
    Error,
    /// Generation goes on; under `strict` it fails.
    Warning,
}

/// One problem found in a document, with its place.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Diagnostic {
    /// Whether this stops generation.
    pub severity: Severity,
    /// The file, as the user named it or relative to the root document's directory.
    pub file: PathBuf,
    /// 1-based line; 0 when no position is known (the file could not be read).
    pub line: usize,
    /// 1-based column in characters; 0 when no position is known.
    pub column: usize,
    /// The JSON pointer (RFC 6901, escaped) of the value concerned; empty for the root.
    pub pointer: String,
    /// What is wrong, in one line.
    pub message: String,
    /// What the problem is about, for a program that acts on it (a tool suggesting a
    /// fix); `None` for most.
    pub cause: Option<Cause>,
}

/// What a [`Diagnostic`] is about, where a program may act on it rather than read its
/// message.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Cause {
    /// A `$ref` names a file found in none of the folders tried (the referring file's,
    /// then each include directory).
    MissingFile {
        /// The file as the reference names it: a relative path, percent-decoded.
        path: PathBuf,
    },
}

impl Diagnostic {
    /// An error-level diagnostic.
    pub fn error(
        file: impl Into<PathBuf>,
        (line, column): (usize, usize),
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Error,
            file: file.into(),
            line,
            column,
            pointer: pointer.into(),
            message: message.into(),
            cause: None,
        }
    }

    /// A warning-level diagnostic.
    pub fn warning(
        file: impl Into<PathBuf>,
        position: (usize, usize),
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(file, position, pointer, message)
        }
    }

    /// Whether this is an error (as opposed to a warning).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.severity == Severity::Warning {
            f.write_str("warning: ")?;
        }
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        if self.pointer.is_empty() {
            write!(f, ": at (root): {}", self.message)
        } else {
            write!(f, ": at {}: {}", self.pointer, self.message)
        }
    }
}

/// What kind of problem made generation fail (the first error's kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A file could not be read.
    Io,
    /// A file is not valid JSON.
    Syntax,
    /// The document breaks the OpenRPC specification or a rule of the generator
    /// (including an unsupported `openrpc` version, and warnings under `strict`).
    Invalid,
    /// A `$ref` cannot be resolved, or a chain of `$ref`s is a cycle.
    Resolve,
    /// A later stage (type space, rendering, formatting) failed.
    Generate,
}

/// The generator's error: a kind and every diagnostic collected before failing.
#[derive(Debug, Clone)]
pub struct Error {
    kind: ErrorKind,
    diagnostics: Vec<Diagnostic>,
}

impl Error {
    /// An error from one kind and its diagnostics.
    pub fn new(kind: ErrorKind, diagnostics: Vec<Diagnostic>) -> Self {
        Error { kind, diagnostics }
    }

    /// The kind of the first error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Every problem found, errors and warnings, in the order found.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Collects diagnostics across a stage, then decides whether it failed.
///
/// Identical diagnostics are kept once (a broken shared file reached by many refs is
/// reported once).
#[derive(Debug, Default, Clone)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
    first_error: Option<ErrorKind>,
    seen: std::collections::HashSet<Diagnostic>,
}

impl Diagnostics {
    /// An empty collector.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a diagnostic; `kind` classifies it if it is an error.
    pub fn push(&mut self, kind: ErrorKind, diagnostic: Diagnostic) {
        if !self.seen.insert(diagnostic.clone()) {
            return;
        }
        if diagnostic.is_error() && self.first_error.is_none() {
            self.first_error = Some(kind);
        }
        self.items.push(diagnostic);
    }

    /// Records every diagnostic of a failed stage's [`Error`].
    pub fn extend_from_error(&mut self, error: Error) {
        let kind = error.kind;
        for d in error.diagnostics {
            self.push(kind, d);
        }
    }

    /// Whether an error (not a warning) has been recorded.
    pub fn has_errors(&self) -> bool {
        self.first_error.is_some()
    }

    /// Every diagnostic recorded so far.
    pub fn as_slice(&self) -> &[Diagnostic] {
        &self.items
    }

    /// How many warnings were recorded.
    pub fn warning_count(&self) -> usize {
        self.items.iter().filter(|d| !d.is_error()).count()
    }

    /// Turns every warning into an error (the `strict` option).
    pub fn make_strict(&mut self) {
        let mut any = false;
        for d in &mut self.items {
            if d.severity == Severity::Warning {
                d.severity = Severity::Error;
                any = true;
            }
        }
        if any && self.first_error.is_none() {
            self.first_error = Some(ErrorKind::Invalid);
        }
    }

    /// Ends the stage: `Ok` with the warnings if no error was recorded.
    ///
    /// # Errors
    ///
    /// An [`Error`] holding every diagnostic, classified by the first error, when any
    /// error was recorded.
    pub fn finish(self) -> Result<Vec<Diagnostic>, Error> {
        match self.first_error {
            Some(kind) => Err(Error::new(kind, self.items)),
            None => Ok(self.items),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_error_and_warning() {
        let e = Diagnostic::error("a.json", (3, 7), "/methods/0", "boom");
        assert_eq!(e.to_string(), "a.json:3:7: at /methods/0: boom");
        let w = Diagnostic::warning("dir/b.json", (1, 1), "", "hm");
        assert_eq!(w.to_string(), "warning: dir/b.json:1:1: at (root): hm");
        let n = Diagnostic::error("c.json", (0, 0), "", "cannot read");
        assert_eq!(n.to_string(), "c.json: at (root): cannot read");
    }

    #[test]
    fn collector_dedups_and_classifies() {
        let mut d = Diagnostics::new();
        d.push(
            ErrorKind::Invalid,
            Diagnostic::warning("a", (1, 1), "", "w"),
        );
        assert!(!d.has_errors());
        d.push(
            ErrorKind::Resolve,
            Diagnostic::error("a", (1, 1), "/x", "e"),
        );
        d.push(ErrorKind::Syntax, Diagnostic::error("a", (1, 1), "/x", "e"));
        d.push(ErrorKind::Syntax, Diagnostic::error("a", (2, 1), "/y", "f"));
        let err = d.finish().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Resolve);
        assert_eq!(err.diagnostics().len(), 3);
        assert_eq!(
            err.to_string(),
            "warning: a:1:1: at (root): w\na:1:1: at /x: e\na:2:1: at /y: f"
        );
    }

    #[test]
    fn strict_turns_warnings_into_errors() {
        let mut d = Diagnostics::new();
        d.push(
            ErrorKind::Invalid,
            Diagnostic::warning("a", (1, 1), "", "w"),
        );
        d.make_strict();
        let err = d.finish().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Invalid);
        assert_eq!(err.to_string(), "a:1:1: at (root): w");
    }
}
