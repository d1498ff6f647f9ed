//! One loaded JSON file: its text, its parsed value, and JSON pointer → `line:col`.
//!
//! Parsing goes straight to a [`serde_json::Value`]; positions are not recorded while
//! parsing. When a diagnostic needs one, [`Source::position`] scans the text along the
//! pointer (keeping a table of member offsets for each container it crosses, for the
//! next diagnostic), so the fast path (no diagnostics) pays nothing for positions.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Diagnostic, ErrorKind};

mod scan;

/// A parsed JSON file with its text, for positions.
#[derive(Debug)]
pub(crate) struct Source {
    path: PathBuf,
    text: String,
    value: Value,
    index: scan::Index,
}

impl Source {
    /// Parses `text`; `path` is the name diagnostics use.
    ///
    /// # Errors
    ///
    /// A [`Diagnostic`] at serde_json's `line:col` when the text is not valid JSON.
    pub(crate) fn parse(path: impl Into<PathBuf>, mut text: String) -> Result<Self, Diagnostic> {
        let path = path.into();
        // A byte order mark (editors on Windows write one) is not part of the JSON text;
        // positions are counted without it, as editors show them. Removed in place: the
        // document is not copied.
        if text.starts_with('\u{feff}') {
            text.remove(0);
        }
        match serde_json::from_str::<Value>(&text) {
            Ok(value) => Ok(Source {
                path,
                text,
                value,
                index: scan::Index::default(),
            }),
            Err(e) => Err(syntax_diagnostic(path, &text, &e)),
        }
    }

    /// Reads and parses the file at `opened`; `path` is the name diagnostics use.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`] when the file cannot be read (or is not UTF-8: UTF-16 is named
    /// as such), [`ErrorKind::Syntax`] when it is not valid JSON, each with its
    /// diagnostic. A UTF-8 byte order mark is skipped.
    pub(crate) fn read(
        opened: &Path,
        path: impl Into<PathBuf>,
    ) -> Result<Self, (ErrorKind, Diagnostic)> {
        let path = path.into();
        let fail = |message: String| {
            let d = Diagnostic::error(path.clone(), (0, 0), "", message);
            (ErrorKind::Io, d)
        };
        let bytes = std::fs::read(opened).map_err(|e| fail(unreadable(opened, &e)))?;
        if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
            let message = "cannot read file: it is UTF-16 (it starts with a UTF-16 byte order mark); JSON documents are UTF-8";
            return Err(fail(message.to_owned()));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            fail(format!(
                "cannot read file: not UTF-8 (invalid byte at offset {at})"
            ))
        })?;
        Source::parse(path, text).map_err(|d| (ErrorKind::Syntax, d))
    }

    /// The name diagnostics use for this file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The parsed value.
    pub(crate) fn value(&self) -> &Value {
        &self.value
    }

    /// The 1-based `(line, column)` of the value at `pointer`.
    ///
    /// For an object member this is its key; for an array element, the element. When
    /// the pointer leads nowhere (a missing field), it is the deepest value that exists
    /// on its path, so "missing field" diagnostics point at the object lacking it.
    pub(crate) fn position(&self, pointer: &str) -> (usize, usize) {
        let offset = self.index.offset_of(&self.text, pointer);
        self.index.line_col(&self.text, offset)
    }
}

fn syntax_diagnostic(path: PathBuf, text: &str, e: &serde_json::Error) -> Diagnostic {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    let (line, column) = (e.line().max(1), e.column().max(1));
    let line_start = match line {
        1 => 0,
        _ => text
            .match_indices('\n')
            .nth(line - 2)
            .map_or(text.len(), |(i, _)| i + 1),
    };
    let pointer = scan::pointer_before(text, line_start + column - 1);
    Diagnostic::error(
        path,
        (line, column),
        pointer,
        format!("invalid JSON: {message}"),
    )
}

/// An I/O error's message without the OS error number (stable across machines).
/// Why the file at `opened` cannot be read; for a missing file, where it was looked for
/// (a relative path is read from the current directory, which a newcomer's build script
/// may not expect to be its package's folder).
fn unreadable(opened: &Path, e: &std::io::Error) -> String {
    if e.kind() != std::io::ErrorKind::NotFound {
        return format!("cannot read file: {}", io_message(e));
    }
    let Ok(current) = std::env::current_dir() else {
        return format!("cannot read file: no file at {}", opened.display());
    };
    if opened.is_absolute() {
        return format!("cannot read file: no file at {}", opened.display());
    }
    format!(
        "cannot read file: no file at {} (a relative path is read from the current directory, {}; a build script runs in its package's folder)",
        current.join(opened).display(),
        current.display(),
    )
}

pub(crate) fn io_message(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "{\n  \"a\": {\"b\": [1, {\"c\": \"x\"}], \"a/b\": 2, \"t~\": 3},\n  \"é\": true,\n  \"q\\\"k\": null\n}";

    fn pos(p: &str) -> (usize, usize) {
        Source::parse("t.json", DOC.to_string())
            .unwrap()
            .position(p)
    }

    #[test]
    fn positions_follow_the_pointer() {
        assert_eq!(pos(""), (1, 1));
        assert_eq!(pos("/a"), (2, 3));
        assert_eq!(pos("/a/b"), (2, 9));
        assert_eq!(pos("/a/b/0"), (2, 15));
        assert_eq!(pos("/a/b/1/c"), (2, 19));
        assert_eq!(pos("/a/a~1b"), (2, 31));
        assert_eq!(pos("/a/t~0"), (2, 41));
        assert_eq!(pos("/é"), (3, 3));
        assert_eq!(pos("/q\"k"), (4, 3));
    }

    #[test]
    fn missing_values_point_at_the_deepest_existing_one() {
        assert_eq!(pos("/a/zz"), (2, 3));
        assert_eq!(pos("/a/b/7"), (2, 9));
        assert_eq!(pos("/a/b/0/x"), (2, 15));
        assert_eq!(pos("bad"), (1, 1));
    }

    #[test]
    fn duplicate_keys_point_at_the_last_one_like_serde() {
        let s = Source::parse("d.json", "{\"k\": 1, \"k\": 2}".into()).unwrap();
        assert_eq!(s.value()["k"], 2);
        assert_eq!(s.position("/k"), (1, 10));
    }

    #[test]
    fn bad_json_is_a_diagnostic_with_serde_position() {
        let e = Source::parse("b.json", "{\n  \"a\": [1, 2,]\n}".into()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "b.json:2:14: at /a/2: invalid JSON: trailing comma"
        );
        let e = Source::parse("b.json", String::new()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "b.json:1:1: at (root): invalid JSON: EOF while parsing a value"
        );
    }

    #[test]
    fn a_utf8_byte_order_mark_is_skipped() {
        let s = Source::parse("bom.json", "\u{feff}{\n  \"a\": 1}".into()).unwrap();
        assert_eq!(s.value()["a"], 1);
        assert_eq!(s.position("/a"), (2, 3));
        assert_eq!(s.position(""), (1, 1));
        let e = Source::parse("bom.json", "\u{feff}{\"a\": }".into()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bom.json:1:7: at /a: invalid JSON: expected value"
        );
    }

    #[test]
    fn utf16_and_other_encodings_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let utf16 = dir.path().join("utf16.json");
        std::fs::write(&utf16, [0xff, 0xfe, b'{', 0, b'}', 0]).unwrap();
        let (kind, d) = Source::read(&utf16, "utf16.json").unwrap_err();
        assert_eq!(kind, ErrorKind::Io);
        assert_eq!(
            d.to_string(),
            "utf16.json: at (root): cannot read file: it is UTF-16 (it starts with a UTF-16 byte order mark); JSON documents are UTF-8"
        );
        let latin1 = dir.path().join("latin1.json");
        std::fs::write(&latin1, b"{\"caf\xe9\": 1}").unwrap();
        let (_, d) = Source::read(&latin1, "latin1.json").unwrap_err();
        assert_eq!(
            d.to_string(),
            "latin1.json: at (root): cannot read file: not UTF-8 (invalid byte at offset 5)"
        );
    }

    #[test]
    fn a_missing_file_is_named_where_it_was_looked_for() {
        let (kind, d) = Source::read(Path::new("/nonexistent/x.json"), "x.json").unwrap_err();
        assert_eq!(kind, ErrorKind::Io);
        assert_eq!(
            d.to_string(),
            "x.json: at (root): cannot read file: no file at /nonexistent/x.json"
        );
    }

    #[test]
    fn positions_never_panic() {
        let text = "{\"a\": [1, {\"é\\\"\": \"x\\\\\"}], \"b\": true}";
        let source = Source::parse("x.json", text.to_string()).unwrap();
        for p in [
            "",
            "/",
            "/a",
            "/a/1/é\"",
            "/a/9",
            "/a/-",
            "/a/1/x/y",
            "~",
            "/b/c",
            "//",
        ] {
            let (line, column) = source.position(p);
            assert!(line >= 1 && column >= 1, "{p}");
        }
        for cut in 0..text.len() {
            if text.is_char_boundary(cut) {
                let e = Source::parse("x.json", text[..cut].to_string()).unwrap_err();
                assert!(e.line == 1 && e.column >= 1, "{e}");
            }
        }
    }
}
