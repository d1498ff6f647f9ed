//! The `rust ignore` snippets of the README and of the guide (`src/guide/*.md`): those
//! that need a generated module, so cannot be doctests of this crate (their other Rust
//! snippets are: the guide's modules and `ReadmeSnippets` in `src/lib.rs`). Each is an
//! excerpt of a file that the workspace compiles and runs (`examples/petstore`, the
//! end-to-end tests), named by the HTML comment `<!-- excerpt of PATH -->` on the line
//! before its fence. Its lines, trimmed, must appear in that order in that file; a line
//! holding `…` stands for what was left out.

use std::path::{Path, PathBuf};

/// The marker that names the file a snippet is taken from.
const MARKER: &str = "<!-- excerpt of ";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `(line number of the fence, file named by the marker, the snippet's lines)` for every
/// `rust ignore` snippet; `None` as the file where the marker is missing.
fn ignored_snippets(doc: &str) -> Vec<(usize, Option<String>, Vec<&str>)> {
    let lines: Vec<&str> = doc.lines().collect();
    let mut snippets = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        if lines[at].trim() == "```rust ignore" {
            let file = at
                .checked_sub(1)
                .and_then(|before| lines[before].trim().strip_prefix(MARKER))
                .and_then(|rest| rest.strip_suffix(" -->"))
                .map(str::to_owned);
            let end = (at + 1..lines.len())
                .find(|&n| lines[n].trim() == "```")
                .unwrap_or_else(|| panic!("line {}: the snippet never ends", at + 1));
            snippets.push((at + 1, file, lines[at + 1..end].to_vec()));
            at = end;
        }
        at += 1;
    }
    snippets
}

/// The first line of `snippet` (trimmed, `…` lines skipped) not found, in order, in `source`.
fn first_missing<'a>(snippet: &[&'a str], source: &str) -> Option<&'a str> {
    let mut source = source.lines().map(str::trim);
    snippet
        .iter()
        .map(|line| line.trim())
        .filter(|line| !line.is_empty() && !line.contains('…'))
        .find(|line| !source.any(|candidate| candidate == *line))
}

/// The README and every chapter of the guide, as `(path from the root, text)`.
fn documents() -> Vec<(String, String)> {
    let mut paths = vec!["README.md".to_owned()];
    let guide = root().join("runtime/src/guide");
    let mut chapters: Vec<String> = std::fs::read_dir(&guide)
        .expect("runtime/src/guide")
        .map(|entry| entry.expect("a guide entry").file_name())
        .filter_map(|name| name.into_string().ok())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("runtime/src/guide/{name}"))
        .collect();
    chapters.sort();
    assert!(!chapters.is_empty(), "no chapter in runtime/src/guide");
    paths.extend(chapters);
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(root().join(&path)).expect(&path);
            (path, text)
        })
        .collect()
}

#[test]
fn every_ignored_snippet_is_an_excerpt_of_compiled_code() {
    let mut problems = Vec::new();
    for (doc, text) in documents() {
        for (line, file, snippet) in ignored_snippets(&text) {
            let Some(file) = file else {
                problems.push(format!(
                    "{doc}:{line}: no `{MARKER}PATH -->` line before it"
                ));
                continue;
            };
            let Ok(source) = std::fs::read_to_string(root().join(&file)) else {
                problems.push(format!("{doc}:{line}: {file} cannot be read"));
                continue;
            };
            if let Some(missing) = first_missing(&snippet, &source) {
                problems.push(format!(
                    "{doc}:{line}: not in {file} (or out of order): {missing}"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn an_excerpt_must_keep_the_order_of_its_file() {
    let source = "fn a() {\n    one();\n    two();\n}\n";
    assert_eq!(first_missing(&["one();", "// …", "two();"], source), None);
    assert_eq!(first_missing(&["two();", "one();"], source), Some("one();"));
    assert_eq!(first_missing(&["three();"], source), Some("three();"));
}
