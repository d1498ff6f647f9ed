//! `rpcsmith check`: a document's diagnostics, and its exit status.

use super::*;

#[test]
fn check_passes_a_good_document() {
    let out = rpcsmith(&["check", &fixture("pets.json"), "-I", &fixture("include")]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        "../tests/fixtures/builder/pets.json: ok, 0 warnings\n"
    );
}

#[test]
fn check_passes_warnings_unless_strict() {
    let warning = "../tests/fixtures/builder/warns.json:6:5: at /components/schemas/Anything: a schema made only of `not` cannot be expressed: generated as serde_json::Value";
    let out = rpcsmith(&["check", &fixture("warns.json")]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stderr),
        format!("warning: {warning}\n../tests/fixtures/builder/warns.json: ok, 1 warning\n")
    );
    let out = rpcsmith(&["check", "--strict", &fixture("warns.json")]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!("{warning}\n../tests/fixtures/builder/warns.json: failed, 1 error\n")
    );
}

#[test]
fn check_prints_the_diagnostics_of_a_broken_document_and_fails() {
    let out = rpcsmith(&["check", &fixture("broken.json")]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        "../tests/fixtures/builder/broken.json:5:71: at /methods/0/result/schema/$ref: unresolvable $ref \"#/components/schemas/Nope\": no value at /components/schemas/Nope\n\
         ../tests/fixtures/builder/broken.json: failed, 1 error\n"
    );
    // A missing $ref target in another file, found through no include directory.
    let out = rpcsmith(&["check", &fixture("pets.json")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("common.json"),
        "{}",
        text(&out.stderr)
    );
}
