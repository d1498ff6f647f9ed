//! One loaded JSON file: its text, its parsed value, and JSON pointer → `line:col`.
//!
//! Parsing goes straight to a [`serde_json::Value`]; positions are not recorded while
//! parsing. When a diagnostic needs one, [`Source::position`] scans the text along the
//! pointer, skipping every sibling value without building anything, so the fast path
//! (no diagnostics) pays nothing for positions.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Diagnostic, ErrorKind};
use crate::pointer;

/// A parsed JSON file with its text, for positions.
#[derive(Debug)]
pub struct Source {
    path: PathBuf,
    text: String,
    value: Value,
}

impl Source {
    /// Parses `text`; `path` is the name diagnostics use.
    ///
    /// # Errors
    ///
    /// A [`Diagnostic`] at serde_json's `line:col` when the text is not valid JSON.
    pub fn parse(path: impl Into<PathBuf>, text: String) -> Result<Self, Diagnostic> {
        let path = path.into();
        match serde_json::from_str::<Value>(&text) {
            Ok(value) => Ok(Source { path, text, value }),
            Err(e) => Err(syntax_diagnostic(path, &text, &e)),
        }
    }

    /// Reads and parses the file at `opened`; `path` is the name diagnostics use.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`] when the file cannot be read (or is not UTF-8),
    /// [`ErrorKind::Syntax`] when it is not valid JSON, each with its diagnostic.
    pub fn read(opened: &Path, path: impl Into<PathBuf>) -> Result<Self, (ErrorKind, Diagnostic)> {
        let path = path.into();
        let text = std::fs::read_to_string(opened).map_err(|e| {
            let message = format!("cannot read file: {}", io_message(&e));
            (
                ErrorKind::Io,
                Diagnostic::error(path.clone(), (0, 0), "", message),
            )
        })?;
        Source::parse(path, text).map_err(|d| (ErrorKind::Syntax, d))
    }

    /// The name diagnostics use for this file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The parsed value.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The 1-based `(line, column)` of the value at `pointer`.
    ///
    /// For an object member this is its key; for an array element, the element. When
    /// the pointer leads nowhere (a missing field), it is the deepest value that exists
    /// on its path, so "missing field" diagnostics point at the object lacking it.
    pub fn position(&self, pointer: &str) -> (usize, usize) {
        line_col(&self.text, offset_of(&self.text, pointer))
    }
}

/// The byte offset of the value at `pointer` (see [`Source::position`]).
fn offset_of(text: &str, pointer: &str) -> usize {
    let mut scan = Scanner {
        text,
        bytes: text.as_bytes(),
        i: 0,
    };
    scan.ws();
    let Some(tokens) = pointer::tokens(pointer) else {
        return scan.i;
    };
    let mut mark = scan.i;
    for token in &tokens {
        scan.ws();
        let found = match scan.peek() {
            Some(b'{') => scan.find_member(token),
            Some(b'[') => token
                .parse::<usize>()
                .ok()
                .and_then(|n| scan.find_element(n)),
            _ => None,
        };
        match found {
            Some((at, value)) => {
                mark = at;
                scan.i = value;
            }
            None => return mark,
        }
    }
    mark
}

/// 1-based line and column (in characters) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// A forward-only scanner over text already known to be valid JSON. Every step is
/// bounds-checked, so even invalid text cannot make it panic.
struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// At `"`: moves past the closing quote.
    fn skip_string(&mut self) {
        self.i += 1;
        while let Some(b) = self.peek() {
            self.i += 1;
            match b {
                b'\\' => self.i += 1,
                b'"' => return,
                _ => {}
            }
        }
    }

    fn skip_value(&mut self) {
        match self.peek() {
            Some(b'"') => self.skip_string(),
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                while let Some(b) = self.peek() {
                    match b {
                        b'"' => {
                            self.skip_string();
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                self.i += 1;
                                return;
                            }
                        }
                        _ => {}
                    }
                    self.i += 1;
                }
            }
            _ => {
                while let Some(b) = self.peek() {
                    if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                        return;
                    }
                    self.i += 1;
                }
            }
        }
    }

    /// At `{`: the (key offset, value offset) of the last member named `token`.
    fn find_member(&mut self, token: &str) -> Option<(usize, usize)> {
        self.i += 1;
        let mut found = None;
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return found;
            }
            let key_start = self.i;
            self.skip_string();
            let raw = self.text.get(key_start..self.i)?;
            self.ws();
            if self.peek() != Some(b':') {
                return found;
            }
            self.i += 1;
            self.ws();
            if key_matches(raw, token) {
                found = Some((key_start, self.i));
            }
            self.skip_value();
            self.ws();
            if self.peek() != Some(b',') {
                return found;
            }
            self.i += 1;
        }
    }

    /// At `[`: the offset of element `n` (twice: it is both the mark and the value).
    fn find_element(&mut self, n: usize) -> Option<(usize, usize)> {
        self.i += 1;
        for _ in 0..n {
            self.ws();
            if matches!(self.peek(), None | Some(b']')) {
                return None;
            }
            self.skip_value();
            self.ws();
            if self.peek() != Some(b',') {
                return None;
            }
            self.i += 1;
        }
        self.ws();
        match self.peek() {
            None | Some(b']') => None,
            Some(_) => Some((self.i, self.i)),
        }
    }
}

/// Whether a quoted JSON key (with its quotes) is `token`.
fn key_matches(raw: &str, token: &str) -> bool {
    let inner = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(raw);
    if !inner.contains('\\') {
        return inner == token;
    }
    serde_json::from_str::<String>(raw).is_ok_and(|k| k == token)
}

fn syntax_diagnostic(path: PathBuf, text: &str, e: &serde_json::Error) -> Diagnostic {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    let (line, column) = (e.line().max(1), e.column().max(1));
    let pointer = pointer_before(text, line, column);
    Diagnostic::error(
        path,
        (line, column),
        pointer,
        format!("invalid JSON: {message}"),
    )
}

/// The pointer of the innermost value open at `line:col` (serde's byte column), found
/// by a tolerant scan of the text before it: where a syntax error sits in the document.
fn pointer_before(text: &str, line: usize, column: usize) -> String {
    let line_start = text
        .match_indices('\n')
        .nth(line.saturating_sub(2))
        .map_or(0, |(i, _)| i + 1);
    let end = if line <= 1 {
        column - 1
    } else {
        line_start + column - 1
    };
    let bytes = &text.as_bytes()[..end.min(text.len())];
    // Each frame: (is_array, key or index, whether the member's value has begun).
    let mut frames: Vec<(bool, String, bool)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => frames.push((false, String::new(), false)),
            b'[' => frames.push((true, "0".to_string(), true)),
            b'}' | b']' => {
                frames.pop();
            }
            b':' => {
                if let Some(f) = frames.last_mut() {
                    f.2 = true;
                }
            }
            b',' => match frames.last_mut() {
                Some((true, index, _)) => {
                    *index = (index.parse::<usize>().unwrap_or(0) + 1).to_string();
                }
                Some(f) => *f = (false, String::new(), false),
                None => {}
            },
            b'"' => {
                let start = i;
                let mut scan = Scanner { text, bytes, i };
                scan.skip_string();
                i = scan.i;
                if let Some(f) = frames.last_mut().filter(|f| !f.0 && !f.2) {
                    let raw = text.get(start..i).unwrap_or_default();
                    f.1 = serde_json::from_str::<String>(raw).unwrap_or_default();
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    frames
        .iter()
        .take_while(|f| f.2)
        .fold(String::new(), |p, f| pointer::push(&p, &f.1))
}

/// An I/O error's message without the OS error number (stable across machines).
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
    fn unreadable_file_has_no_position() {
        let (kind, d) = Source::read(Path::new("/nonexistent/x.json"), "x.json").unwrap_err();
        assert_eq!(kind, ErrorKind::Io);
        assert_eq!(
            d.to_string(),
            "x.json: at (root): cannot read file: No such file or directory"
        );
    }
}
