//! A document diffed with itself has no difference: every document of the shared corpus,
//! every fixture document of the generator's and the CLI's tests that loads, and every
//! document the workspace's service, override, example-schema and bench tests generate from.
//!
//! Anything found here is a false claim: the diff paired two things that are not the same
//! (errors by code alone, alternatives by position, …).

use std::path::{Path, PathBuf};

use rpcsmith_cli::diff::{self, Options};
use rpcsmith_corpus as corpus;

/// Diffs `path` with itself; a description of every finding, if any.
fn self_diff(path: &Path, includes: &[PathBuf]) -> Result<(), String> {
    let mut options = Options::new();
    for include in includes {
        options = options.include_dir(include);
    }
    let report = diff::diff(path, path, &options).map_err(|e| format!("{e}"))?;
    match report.findings.is_empty() && !report.is_breaking() {
        true => Ok(()),
        false => Err(format!("{}:\n{report}", path.display())),
    }
}

#[test]
fn every_corpus_document_diffed_with_itself_has_no_difference() {
    let Some(dir) = corpus::dir() else { return };
    let mut failures = Vec::new();
    for (id, path) in corpus::DOCUMENTS {
        let includes: Vec<PathBuf> = corpus::include_dirs(path)
            .into_iter()
            .map(|i| dir.join(i))
            .collect();
        if let Err(e) = self_diff(&dir.join(path), &includes) {
            failures.push(format!("{id} {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every `.json` file under `dir`, recursively, sorted.
fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    out.sort();
}

#[test]
fn every_fixture_and_golden_document_diffed_with_itself_has_no_difference() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    json_files(&root.join("tests/fixtures"), &mut files);
    json_files(&root.join("../tests/fixtures"), &mut files);
    json_files(&root.join("../../tests/services/documents"), &mut files);
    json_files(&root.join("../../tests/overrides"), &mut files);
    json_files(&root.join("../../schemas"), &mut files);
    json_files(&root.join("../../benches"), &mut files);
    let (mut compared, mut failures) = (Vec::new(), Vec::new());
    for file in &files {
        // Documents that are meant not to load (broken fixtures, fragments that other
        // documents `$ref`) are not documents to diff.
        let text = std::fs::read_to_string(file).unwrap();
        let is_document = text.contains("\"openrpc\"") && text.contains("\"methods\"");
        let broken = file.components().any(|c| {
            let c = c.as_os_str();
            c == "broken" || c == "types-broken" || c == "broken-partial"
        });
        if !is_document || broken {
            continue;
        }
        let includes = [
            file.parent().unwrap().to_path_buf(),
            root.join("tests/fixtures/diff/starknet-specs-v0.10.0"),
        ];
        match self_diff(file, &includes) {
            Ok(()) => compared.push(file),
            Err(e) if e.contains("difference") => failures.push(e),
            // A fixture that does not load on purpose (the builder's error tests).
            Err(_) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    eprintln!("{} documents diffed with themselves", compared.len());
    assert!(compared.len() >= 60, "only {} compared", compared.len());
    // Starknet v0.6.0's receipt result (a `oneOf` of two unions sharing a title) once
    // self-diffed as alternatives removed and added: it must load here and be compared.
    let receipts = "starknet-v0.6.0/api/starknet_api_openrpc.json";
    assert!(
        compared.iter().any(|f| f.ends_with(receipts)),
        "{receipts} not compared"
    );
}
