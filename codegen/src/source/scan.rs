//! Scanning JSON text: the byte offset of the value at a pointer, and the pointer open at
//! the place of a syntax error.
//!
//! The text has already been parsed, so the scan builds nothing but, for each container
//! on a pointer's path, a table of its members' offsets, kept for the next diagnostic:
//! the first position in a file costs one pass over the containers on its path, later
//! ones a few lookups. Every step is bounds-checked: no text makes it panic.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::pointer;

/// The member tables of the containers scanned so far, by their start offset.
#[derive(Debug, Default)]
pub(super) struct Index {
    tables: Mutex<HashMap<usize, Arc<Table>>>,
    /// The offset where each line starts, computed on first use.
    lines: OnceLock<Vec<usize>>,
}

#[derive(Debug)]
enum Table {
    /// (unescaped key, key offset, value offset), in text order.
    Object(Vec<(String, usize, usize)>),
    /// Element offsets.
    Array(Vec<usize>),
    Scalar,
}

impl Index {
    /// The offset of the value at `pointer`: its key for an object member, the element
    /// for an array element; the deepest existing value on the path when it leads nowhere.
    pub(super) fn offset_of(&self, text: &str, pointer: &str) -> usize {
        let mut scan = Scanner::new(text, 0);
        scan.ws();
        let mut at = scan.i;
        let mut mark = at;
        let Some(tokens) = pointer::tokens(pointer) else {
            return mark;
        };
        for token in &tokens {
            let table = self.table(text, at);
            let found = match &*table {
                // The last member of that name: serde_json keeps the last duplicate.
                Table::Object(members) => members
                    .iter()
                    .rev()
                    .find(|(k, _, _)| k == token.as_ref())
                    .map(|&(_, key, value)| (key, value)),
                Table::Array(items) => token
                    .parse::<usize>()
                    .ok()
                    .and_then(|n| items.get(n))
                    .map(|&i| (i, i)),
                Table::Scalar => None,
            };
            match found {
                Some((key, value)) => (mark, at) = (key, value),
                None => return mark,
            }
        }
        mark
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub(super) fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let lines = self.lines.get_or_init(|| {
            let starts = text.bytes().enumerate().filter(|&(_, b)| b == b'\n');
            std::iter::once(0)
                .chain(starts.map(|(i, _)| i + 1))
                .collect()
        });
        let offset = offset.min(text.len());
        let line = lines.partition_point(|&start| start <= offset).max(1);
        let start = lines.get(line - 1).copied().unwrap_or(0);
        let column = text.get(start..offset).map_or(0, |s| s.chars().count()) + 1;
        (line, column)
    }

    fn table(&self, text: &str, at: usize) -> Arc<Table> {
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        tables
            .entry(at)
            .or_insert_with(|| Arc::new(Scanner::new(text, at).table()))
            .clone()
    }
}

/// A forward scanner over JSON text.
struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    i: usize,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str, i: usize) -> Self {
        Scanner {
            text,
            bytes: text.as_bytes(),
            i,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// Moves to the first byte at or after `i` that `stop` accepts (or the end).
    fn seek(&mut self, stop: impl Fn(u8) -> bool) {
        let rest = self.bytes.get(self.i..).unwrap_or_default();
        self.i += rest.iter().position(|&b| stop(b)).unwrap_or(rest.len());
    }

    /// At `"`: moves past the closing quote.
    fn skip_string(&mut self) {
        self.i += 1;
        loop {
            self.seek(|b| b == b'"' || b == b'\\');
            match self.peek() {
                Some(b'\\') => self.i += 2,
                Some(_) => {
                    self.i += 1;
                    return;
                }
                None => return,
            }
        }
    }

    fn skip_value(&mut self) {
        match self.peek() {
            Some(b'"') => self.skip_string(),
            Some(b'{' | b'[') => self.skip_container(),
            _ => self.seek(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')),
        }
    }

    fn skip_container(&mut self) {
        let mut depth = 0usize;
        loop {
            self.seek(|b| matches!(b, b'"' | b'{' | b'[' | b'}' | b']'));
            match self.peek() {
                Some(b'"') => self.skip_string(),
                Some(b'{' | b'[') => {
                    depth += 1;
                    self.i += 1;
                }
                Some(_) => {
                    self.i += 1;
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                None => return,
            }
        }
    }

    /// The member table of the value here.
    fn table(mut self) -> Table {
        match self.peek() {
            Some(b'{') => Table::Object(self.members()),
            Some(b'[') => Table::Array(self.elements()),
            _ => Table::Scalar,
        }
    }

    fn members(&mut self) -> Vec<(String, usize, usize)> {
        let mut members = Vec::new();
        self.i += 1;
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return members;
            }
            let key_at = self.i;
            self.skip_string();
            let key = unquote(self.text.get(key_at..self.i).unwrap_or_default());
            self.ws();
            if self.peek() != Some(b':') {
                return members;
            }
            self.i += 1;
            self.ws();
            members.push((key, key_at, self.i));
            self.skip_value();
            self.ws();
            if self.peek() != Some(b',') {
                return members;
            }
            self.i += 1;
        }
    }

    fn elements(&mut self) -> Vec<usize> {
        let mut items = Vec::new();
        self.i += 1;
        loop {
            self.ws();
            if matches!(self.peek(), None | Some(b']')) {
                return items;
            }
            items.push(self.i);
            self.skip_value();
            self.ws();
            if self.peek() != Some(b',') {
                return items;
            }
            self.i += 1;
        }
    }
}

/// A quoted JSON key, unescaped.
fn unquote(raw: &str) -> String {
    let inner = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(raw);
    if inner.contains('\\') {
        serde_json::from_str(raw).unwrap_or_default()
    } else {
        inner.to_string()
    }
}

/// The pointer of the innermost value open at byte `end` (a syntax error's place), found
/// by a tolerant scan of the text before it.
pub(super) fn pointer_before(text: &str, end: usize) -> String {
    let mut scan = Scanner::new(text, 0);
    let bytes = &text.as_bytes()[..end.min(text.len())];
    // Each frame: (is_array, key or index, whether the member's value has begun).
    let mut frames: Vec<(bool, String, bool)> = Vec::new();
    while scan.i < bytes.len() {
        match bytes[scan.i] {
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
                let start = scan.i;
                scan.skip_string();
                if let Some(f) = frames.last_mut().filter(|f| !f.0 && !f.2) {
                    f.1 = unquote(text.get(start..scan.i).unwrap_or_default());
                }
                continue;
            }
            _ => {}
        }
        scan.i += 1;
    }
    frames
        .iter()
        .take_while(|f| f.2)
        .fold(String::new(), |p, f| pointer::push(&p, &f.1))
}
