//! Docs checked against what they describe.
//!
//! - Every Rust snippet of the guide (`src/guide/*.md`, the `rpcsmith::guide` module) is a
//!   doctest: none is fenced `ignore` (those that need generated code use the modules of
//!   `tests/guide-api`).
//! - The README's quickstart is `examples/quickstart`, which the workspace builds and CI
//!   runs: a fence after `<!-- file PATH -->` must be that file exactly, and one after
//!   `<!-- dependencies of PATH -->` the dependency sections of that `Cargo.toml`, with its
//!   relative paths written `…/`.
//! - The README is a front page: at most 250 lines.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
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
fn no_rust_snippet_of_the_docs_is_ignored() {
    let mut problems = Vec::new();
    for (doc, text) in documents() {
        for (at, line) in text.lines().enumerate() {
            let fence = line.trim();
            if fence.starts_with("```rust") && fence.contains("ignore") {
                problems.push(format!("{doc}:{}: {fence}", at + 1));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "Rust snippets are doctests (no_run where they need a network), never ignored:\n{}",
        problems.join("\n")
    );
}

/// `(line number of the fence, marker's rest, the fence's text)` for every fence that
/// follows a line starting with `marker`.
fn marked_fences<'a>(doc: &'a str, marker: &str) -> Vec<(usize, String, String)> {
    let lines: Vec<&'a str> = doc.lines().collect();
    let mut fences = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let Some(rest) = line.trim().strip_prefix(marker) else {
            continue;
        };
        let path = rest.strip_suffix(" -->").unwrap_or(rest).to_owned();
        let open = at + 1;
        assert!(
            lines.get(open).is_some_and(|l| l.starts_with("```")),
            "README.md:{}: no fence after the marker",
            at + 1
        );
        let close = (open + 1..lines.len())
            .find(|&n| lines[n] == "```")
            .unwrap_or_else(|| panic!("README.md:{}: the fence never ends", open + 1));
        let mut text = lines[open + 1..close].join("\n");
        text.push('\n');
        fences.push((open + 1, path, text));
    }
    fences
}

/// The dependency sections of a manifest (from `[dependencies]` on), relative paths
/// written `…/` as the README writes them.
fn dependency_sections(manifest: &str) -> String {
    let from = manifest
        .find("[dependencies]")
        .expect("a [dependencies] section");
    manifest[from..].replace("\"../../", "\"…/")
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).expect("README.md")
}

#[test]
fn the_quickstart_is_the_example_file_for_file() {
    let readme = readme();
    let files = marked_fences(&readme, "<!-- file ");
    let manifests = marked_fences(&readme, "<!-- dependencies of ");
    assert!(
        files.len() >= 3,
        "the quickstart's document, build.rs and main.rs"
    );
    assert_eq!(manifests.len(), 1, "the quickstart's Cargo.toml");
    let mut problems = Vec::new();
    for (line, path, text) in files {
        let file = std::fs::read_to_string(root().join(&path)).expect(&path);
        if file != text {
            problems.push(format!("README.md:{line}: differs from {path}"));
        }
    }
    for (line, path, text) in manifests {
        let file = std::fs::read_to_string(root().join(&path)).expect(&path);
        if dependency_sections(&file) != text {
            problems.push(format!(
                "README.md:{line}: differs from the dependencies of {path}"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_readme_is_a_front_page() {
    let lines = readme().lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines; the guide holds the reference"
    );
}
