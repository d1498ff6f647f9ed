//! `rpcsmith diff`: its text, its JSON, and its exit status (0 when nothing breaks, 1 when
//! something does, 2 when a document does not load).

use super::*;

fn pets(version: &str) -> String {
    format!("tests/fixtures/diff/pets/{version}.json")
}

#[test]
fn breaking_changes_are_listed_with_both_places_and_exit_1() {
    let out = rpcsmith(&["diff", &pets("v1"), &pets("v2")]);
    assert_eq!(text(&out.stderr), "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "\
breaks clients and servers: param `id` renamed `pet_id` (sent by name) (in get_pet)
  old: tests/fixtures/diff/pets/v1.json:8:18: at /methods/0/params/0
  new: tests/fixtures/diff/pets/v2.json:8:18: at /methods/0/params/0
breaks clients and servers: type integer → string (in get_pet params.pet_id)
  old: tests/fixtures/diff/pets/v1.json:8:62: at /methods/0/params/0/schema/type
  new: tests/fixtures/diff/pets/v2.json:8:66: at /methods/0/params/0/schema/type
breaks clients: `Pet`.name: member `name` no longer required (in get_pet result.name, list_pets result[].name)
  old: tests/fixtures/diff/pets/v1.json:23:11: at /components/schemas/Pet/properties/name
  new: tests/fixtures/diff/pets/v2.json:23:11: at /components/schemas/Pet/properties/name
breaks clients: `Pet`.kind: values added: \"bird\" (in get_pet result.kind, list_pets result[].kind)
  old: tests/fixtures/diff/pets/v1.json:24:38: at /components/schemas/Pet/properties/kind/enum
  new: tests/fixtures/diff/pets/v2.json:24:38: at /components/schemas/Pet/properties/kind/enum
compatible: `Pet`.tag: new optional member `tag` (in get_pet result.tag, list_pets result[].tag)
  old: tests/fixtures/diff/pets/v1.json:21:9: at /components/schemas/Pet/properties
  new: tests/fixtures/diff/pets/v2.json:25:11: at /components/schemas/Pet/properties/tag
5 differences: 4 break clients, 2 break servers, 1 compatible
"
    );
}

#[test]
fn compatible_changes_exit_0_and_json_names_every_field() {
    let out = rpcsmith(&["diff", "--format", "json", &pets("v1"), &pets("v1.1")]);
    assert_eq!(text(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        json,
        serde_json::json!({"findings": [{
            "kind": "member-added",
            "breaks": {"clients": false, "servers": false},
            "message": "new optional member `tag`",
            "schema": "`Pet`.tag",
            "uses": ["get_pet result.tag", "list_pets result[].tag"],
            "old": {"file": "tests/fixtures/diff/pets/v1.json", "line": 21, "column": 9,
                    "pointer": "/components/schemas/Pet/properties"},
            "new": {"file": "tests/fixtures/diff/pets/v1.1.json", "line": 26, "column": 11,
                    "pointer": "/components/schemas/Pet/properties/tag"}
        }]})
    );
    let same = rpcsmith(&["diff", &pets("v1"), &pets("v1")]);
    assert_eq!(same.status.code(), Some(0));
    assert_eq!(
        text(&same.stdout),
        "0 differences: 0 break clients, 0 break servers, 0 compatible\n"
    );
}

#[test]
fn a_document_that_does_not_load_exits_2_with_its_problems() {
    let out = rpcsmith(&["diff", &pets("v1"), "tests/fixtures/diff/pets/none.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        format!(
            "tests/fixtures/diff/pets/none.json: at (root): new document: cannot read file: no file at {here}/tests/fixtures/diff/pets/none.json (a relative path is read from the current directory, {here}; a build script runs in its package's folder)\n",
            here = env!("CARGO_MANIFEST_DIR"),
        )
    );
    let usage = rpcsmith(&["diff", &pets("v1")]);
    assert_eq!(usage.status.code(), Some(2));
    assert!(text(&usage.stderr).contains("Usage: rpcsmith diff"));
}

#[test]
fn help_explains_the_exit_status() {
    let out = rpcsmith(&["help", "diff"]);
    let help = text(&out.stdout);
    assert!(
        help.contains("Usage: rpcsmith diff [OPTIONS] <OLD> <NEW>"),
        "{help}"
    );
    assert!(help.contains("--format <FORMAT>"), "{help}");
    assert!(help.contains("--server-to-client <PATTERN>"), "{help}");
    assert!(
        help.contains("Exit status: 0 when\nnothing breaks"),
        "{help}"
    );
}
