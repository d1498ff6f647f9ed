//! One fixture document per type-space feature, each with a golden of the exact output
//! (`tests/golden/types/<feature>.rs`). The goldens are compiled under
//! `#![deny(warnings)]` by the `tests/goldens` crate.
//!
//! `RPCSMITH_BLESS=1 cargo test -p rpcsmith-build --test types_golden` rewrites them;
//! review the diff.

mod support;

use std::path::{Path, PathBuf};

use rpcsmith_build::{Error, ErrorKind, Generated, Options, Settings, generate, write_if_changed};

fn dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(sub)
}

/// The types alone of the document at `path`, loaded with `options`.
fn render_types(path: impl AsRef<Path>, options: &Options) -> Result<Generated, Error> {
    let mut settings = Settings::types_only();
    settings.load = options.clone();
    generate(path, &settings)
}

/// The types of the document at `path`, written to `out` only when they changed.
fn generate_types(
    path: impl AsRef<Path>,
    out: impl AsRef<Path>,
    options: &Options,
) -> Result<Generated, Error> {
    let generated = render_types(path, options)?;
    write_if_changed(out.as_ref(), &generated.source)?;
    Ok(generated)
}

fn fixtures() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir("fixtures/types"))
        .expect("fixtures directory")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    out.sort();
    out
}

#[test]
fn every_fixture_matches_its_golden() {
    let bless = std::env::var_os("RPCSMITH_BLESS").is_some_and(|v| v == "1");
    let mut mismatches = Vec::new();
    let fixtures = fixtures();
    assert!(fixtures.len() >= 18, "fixtures missing: {}", fixtures.len());
    for fixture in fixtures {
        let stem = fixture
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("utf-8 name")
            .to_owned();
        let report =
            render_types(&fixture, &Options::new()).unwrap_or_else(|e| panic!("{stem}: {e}"));
        let golden = dir("golden/types").join(format!("{stem}.rs"));
        if bless {
            std::fs::write(&golden, &report.source).expect("write golden");
            continue;
        }
        match std::fs::read_to_string(&golden) {
            Ok(expected) if expected == report.source => {}
            Ok(expected) => mismatches.push(format!(
                "{stem}: output differs from {}:\n{}",
                golden.display(),
                support::diff(&expected, &report.source)
            )),
            Err(_) => mismatches.push(format!("{stem}: no golden at {}", golden.display())),
        }
    }
    assert!(
        mismatches.is_empty(),
        "{}\n(rerun with RPCSMITH_BLESS=1 and review the diff)",
        mismatches.join("\n")
    );
}

/// The types-only output written as the builder and the CLI write it: the same source as
/// `generate` returns, written (with its directory) only when it changed.
#[test]
fn generate_types_writes_the_module_only_when_it_changed() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("nested/types.rs");
    let fixture = dir("fixtures/types").join("maps.json");
    let report = generate_types(&fixture, &out, &Options::new()).expect("generates");
    let written = std::fs::read_to_string(&out).expect("written");
    assert_eq!(written, report.source);
    assert_eq!(
        written,
        render_types(&fixture, &Options::new()).unwrap().source
    );
    assert!(report.types > 0);
    assert_eq!(report.files_read, std::slice::from_ref(&fixture));
    // Dated long ago: a rewrite would date it now, with no wait for the clock.
    let before = support::backdate(&out);
    generate_types(&fixture, &out, &Options::new()).expect("generates again");
    assert_eq!(
        support::modified(&out),
        before,
        "rewritten though unchanged"
    );
    // A directory where the file should go: an I/O error naming it.
    let err = generate_types(&fixture, temp.path(), &Options::new()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io);
    assert!(
        err.to_string().starts_with(&format!(
            "{}: at (root): cannot write: ",
            temp.path().display()
        )),
        "{err}"
    );
    // A document that fails writes nothing.
    let missing = temp.path().join("absent.rs");
    generate_types(
        dir("fixtures/types-broken").join("unknown_type.json"),
        &missing,
        &Options::new(),
    )
    .unwrap_err();
    assert!(!missing.exists());
}

#[test]
fn output_is_deterministic() {
    for fixture in fixtures() {
        let a = render_types(&fixture, &Options::new())
            .expect("generates")
            .source;
        let b = render_types(&fixture, &Options::new())
            .expect("generates")
            .source;
        assert_eq!(a, b, "{}", fixture.display());
    }
}

#[test]
fn fallbacks_are_warnings_naming_the_pointer() {
    let report =
        render_types(dir("fixtures/types/fallbacks.json"), &Options::new()).expect("generates");
    let warnings: Vec<String> = report.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "warning: tests/fixtures/types/fallbacks.json:6:3: at /components/schemas/NotOnly: a schema made only of `not` cannot be expressed: generated as serde_json::Value",
            "warning: tests/fixtures/types/fallbacks.json:7:3: at /components/schemas/Conditional: `if`/`then`/`else` cannot be expressed: generated as serde_json::Value",
            "warning: tests/fixtures/types/fallbacks.json:8:3: at /components/schemas/StringNotEmpty: `not` is not expressed in the type (not enforced)",
            "warning: tests/fixtures/types/fallbacks.json:9:3: at /components/schemas/Mixed: an `enum` mixing JSON types: generated as serde_json::Value",
            "warning: tests/fixtures/types/fallbacks.json:10:51: at /components/schemas/NotPending/allOf/1: `not` is not expressed in the type (not enforced)",
            "warning: tests/fixtures/types/fallbacks.json:11:3: at /components/schemas/AlwaysTrue: `const` true is not expressed in the type (not enforced)",
            "warning: tests/fixtures/types/fallbacks.json:12:3: at /components/schemas/OnlyFalse: `enum` [false] is not expressed in the type (not enforced)",
            "warning: tests/fixtures/types/fallbacks.json:14:3: at /components/schemas/Half: `const` 0.5 is not expressed in the type (not enforced)",
            "warning: tests/fixtures/types/fallbacks.json:15:3: at /components/schemas/Halves: `enum` [0.5, 1, 1.5] is not expressed in the type (not enforced)",
            "warning: tests/fixtures/types/fallbacks.json:16:3: at /components/schemas/Descriptor: a content descriptor (`name` and `schema`) where a schema belongs: typed by its `schema`; refer to its `schema` instead",
        ]
    );
    assert_eq!(report.fallbacks, 3);
}

#[test]
fn strict_turns_fallbacks_into_errors() {
    let err = render_types(
        dir("fixtures/types/fallbacks.json"),
        &Options::new().strict(true),
    )
    .expect_err("strict fails on warnings");
    assert_eq!(err.diagnostics().len(), 10);
    assert!(err.diagnostics().iter().all(|d| d.is_error()));
}

#[test]
fn a_cycle_through_required_fields_is_an_error() {
    let err = render_types(
        dir("fixtures/types-broken/required_cycle.json"),
        &Options::new(),
    )
    .expect_err("no finite value");
    assert_eq!(
        err.to_string(),
        "tests/fixtures/types-broken/required_cycle.json:7:7: at /components/schemas/Egg: type `Egg` has no finite value: required fields refer back to it (Egg → Chicken → Egg)\n\
         tests/fixtures/types-broken/required_cycle.json:8:7: at /components/schemas/Chicken: type `Chicken` has no finite value: required fields refer back to it (Chicken → Egg → Chicken)"
    );
}

/// Detected by validation (the front half), before the type space runs.
#[test]
fn an_unknown_type_is_an_error() {
    let err = render_types(
        dir("fixtures/types-broken/unknown_type.json"),
        &Options::new(),
    )
    .expect_err("unknown type");
    assert_eq!(
        err.to_string(),
        "tests/fixtures/types-broken/unknown_type.json:7:61: at /components/schemas/Typo/properties/name/type: \
         unknown type \"strnig\" (expected one of array, boolean, integer, null, number, object, string)"
    );
}

#[test]
fn the_report_lists_examples_with_their_types() {
    let report =
        render_types(dir("fixtures/types/methods.json"), &Options::new()).expect("generates");
    let examples: Vec<(String, String)> = report
        .examples
        .iter()
        .map(|e| (e.rust_type.clone(), e.value.to_string()))
        .collect();
    assert_eq!(
        examples,
        [
            ("i64".to_owned(), "7".to_owned()),
            (
                "::std::option::Option<types::Block>".to_owned(),
                "{\"number\":7}".to_owned()
            ),
            (
                "types::FilecoinChainHeadResult".to_owned(),
                "{\"Height\":1}".to_owned()
            ),
        ]
    );
}

#[test]
fn every_golden_is_compiled_by_the_goldens_crate() {
    let lib = std::fs::read_to_string(dir("../../tests/goldens/src/lib.rs"))
        .expect("tests/goldens/src/lib.rs");
    for fixture in fixtures() {
        let stem = fixture
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("utf-8 name");
        let include = format!("include!(\"../../../codegen/tests/golden/types/{stem}.rs\");");
        assert!(
            lib.contains(&include),
            "tests/goldens/src/lib.rs does not include the golden of {stem}"
        );
    }
}
