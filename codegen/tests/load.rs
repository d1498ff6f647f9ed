//! Broken documents: every diagnostic, by its exact text.
//!
//! Fixtures are named by a relative path, as a user names them in build.rs (tests run in
//! the package directory), so diagnostics show that path.

use rpcsmith_build::{ErrorKind, Options, load_document};

const DIR: &str = "tests/fixtures/broken";

/// Loads a fixture that must fail; returns the error's kind and text.
fn failure(name: &str, options: &Options) -> (ErrorKind, String) {
    match load_document(format!("{DIR}/{name}"), options) {
        Ok(doc) => panic!("{name} loaded, with warnings {:?}", doc.warnings),
        Err(e) => (e.kind(), e.to_string()),
    }
}

fn lines(text: &[&str]) -> String {
    text.join("\n")
}

#[test]
fn bad_json() {
    let (kind, text) = failure("bad_json.json", &Options::new());
    assert_eq!(kind, ErrorKind::Syntax);
    assert_eq!(
        text,
        "tests/fixtures/broken/bad_json.json:5:79: at /methods/0/params/0: invalid JSON: trailing comma"
    );
}

#[test]
fn unreadable_file() {
    let (kind, text) = failure("absent.json", &Options::new());
    assert_eq!(kind, ErrorKind::Io);
    assert_eq!(
        text,
        format!(
            "tests/fixtures/broken/absent.json: at (root): cannot read file: no file at {here}/tests/fixtures/broken/absent.json (a relative path is read from the current directory, {here}; a build script runs in its package's folder)",
            here = env!("CARGO_MANIFEST_DIR"),
        )
    );
}

#[test]
fn unresolvable_local_refs() {
    let (kind, text) = failure("unresolvable_local.json", &Options::new());
    assert_eq!(kind, ErrorKind::Resolve);
    assert_eq!(
        text,
        lines(&[
            "tests/fixtures/broken/unresolvable_local.json:7:20: at /methods/0/params/0/$ref: unresolvable $ref \"#/components/contentDescriptors/Missing\": no value at /components/contentDescriptors/Missing",
            "tests/fixtures/broken/unresolvable_local.json:8:44: at /methods/0/result/schema/$ref: unresolvable $ref \"#/components/schemas/Nope\": no value at /components/schemas/Nope",
        ])
    );
}

#[test]
fn unresolvable_cross_file_refs() {
    let broken = absolute(DIR);
    let (kind, text) = failure("unresolvable_file.json", &Options::new());
    assert_eq!(kind, ErrorKind::Resolve);
    assert_eq!(
        text,
        lines(&[
            "tests/fixtures/broken/unresolvable_file.json:8:36: at /methods/0/params/0/schema/$ref: unresolvable $ref \"defs/types.json#/Nope\": no value at /Nope in tests/fixtures/broken/defs/types.json",
            &format!(
                "tests/fixtures/broken/unresolvable_file.json:9:36: at /methods/0/params/1/schema/$ref: unresolvable $ref \"defs/absent.json#/A\": file not found: tried {broken}/defs/absent.json (resolved against {broken}, the folder of the file holding the $ref)"
            ),
            "tests/fixtures/broken/defs/types.json:5:31: at /Inner/properties/next/$ref: unresolvable $ref \"#/Gone\": no value at /Gone",
        ])
    );
}

#[test]
fn include_dirs_are_tried_after_the_referring_file() {
    let options = Options::new().include_dir("tests/fixtures/broken/defs");
    let (_, text) = failure("unresolvable_file.json", &options);
    let broken = absolute(DIR);
    let expected = format!(
        "file not found: tried {broken}/defs/absent.json (resolved against {broken}, the folder of the file holding the $ref), then {broken}/defs/defs/absent.json (include directory {broken}/defs)\n"
    );
    assert!(text.contains(&expected), "{text}");
}

/// A `$ref` written relative to a folder above the document (Starknet's `./api/…`,
/// relative to its repository's root): the error names the include directory that
/// finds it, as the document's path was given, and with it the document loads.
#[test]
fn a_ref_relative_to_a_folder_above_names_the_include_dir_that_finds_it() {
    let rooted = absolute("tests/fixtures/rooted");
    let e = load_document("tests/fixtures/rooted/api/main.json", &Options::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Resolve);
    assert_eq!(
        e.to_string(),
        format!(
            "tests/fixtures/rooted/api/main.json:8:48: at /methods/0/result/schema/$ref: unresolvable $ref \"./api/types.json#/components/schemas/Value\": file not found: tried {rooted}/api/api/types.json (resolved against {rooted}/api, the folder of the file holding the $ref); it exists under {rooted}: add `.include_dir(\"tests/fixtures/rooted\")` to the builder (CLI: `-I tests/fixtures/rooted`)"
        )
    );
    let fixed = Options::new().include_dir("tests/fixtures/rooted");
    load_document("tests/fixtures/rooted/api/main.json", &fixed)
        .expect("found through the include directory");
}

/// `dir` (relative to the package, where tests run) as an absolute path.
fn absolute(dir: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(dir)
        .display()
        .to_string()
}

#[test]
fn ref_cycle_is_reported_once() {
    let (kind, text) = failure("ref_cycle.json", &Options::new());
    assert_eq!(kind, ErrorKind::Resolve);
    assert_eq!(
        text,
        "tests/fixtures/broken/ref_cycle.json:9:14: at /components/schemas/A/$ref: $ref cycle: #/components/schemas/A -> #/components/schemas/B -> #/components/schemas/A"
    );
}

#[test]
fn unknown_type() {
    let (kind, text) = failure("unknown_type.json", &Options::new());
    assert_eq!(kind, ErrorKind::Invalid);
    assert_eq!(
        text,
        lines(&[
            "tests/fixtures/broken/unknown_type.json:7:45: at /methods/0/params/0/schema/type: unknown type \"int\" (expected one of array, boolean, integer, null, number, object, string)",
            "tests/fixtures/broken/unknown_type.json:8:63: at /methods/0/result/schema/type/1: unknown type \"bigint\" (expected one of array, boolean, integer, null, number, object, string)",
        ])
    );
}

#[test]
fn duplicate_method_names() {
    let (kind, text) = failure("duplicate_method.json", &Options::new());
    assert_eq!(kind, ErrorKind::Invalid);
    assert_eq!(
        text,
        "tests/fixtures/broken/duplicate_method.json:7:7: at /methods/2/name: duplicate method name \"get\" (first at #/methods/0)"
    );
}

#[test]
fn unsupported_version_stops_before_resolution() {
    let (kind, text) = failure("unsupported_version.json", &Options::new());
    assert_eq!(kind, ErrorKind::Invalid);
    assert_eq!(
        text,
        "tests/fixtures/broken/unsupported_version.json:2:3: at /openrpc: unsupported OpenRPC version \"2.0.0\": rpcsmith reads 1.0.0-rc1 to 1.3.2 and 1.4.x"
    );
}

#[test]
fn reserved_method_name() {
    let (kind, text) = failure("reserved_name.json", &Options::new());
    assert_eq!(kind, ErrorKind::Invalid);
    assert_eq!(
        text,
        "tests/fixtures/broken/reserved_name.json:4:17: at /methods/0/name: method name \"rpc.discover\" is reserved: names starting with \"rpc.\" belong to JSON-RPC itself"
    );
}

#[test]
fn structure_errors_and_warnings_are_all_collected() {
    let (kind, text) = failure("structure.json", &Options::new());
    assert_eq!(kind, ErrorKind::Invalid);
    assert_eq!(
        text,
        lines(&[
            "warning: tests/fixtures/broken/structure.json:3:3: at /info: missing member \"title\" of the info object (the specification requires it): generated without it",
            "tests/fixtures/broken/structure.json:6:7: at /methods/0/name: must not be empty",
            "tests/fixtures/broken/structure.json:7:7: at /methods/0/paramStructure: paramStructure must be \"by-name\", \"by-position\" or \"either\", not \"positional\"",
            "tests/fixtures/broken/structure.json:8:18: at /methods/0/params/0: missing required member \"name\" of the content descriptor object",
            "tests/fixtures/broken/structure.json:8:68: at /methods/0/params/1/required: expected a boolean, found a string",
            "tests/fixtures/broken/structure.json:9:20: at /methods/0/errors/0/code: expected an integer, found a string",
            "warning: tests/fixtures/broken/structure.json:13:3: at /extra: unknown member \"extra\" in the OpenRPC document: ignored",
        ])
    );
}

const PARAMS_WARNINGS: [&str; 4] = [
    "tests/fixtures/broken/params.json:25:57: at /components/errors/Oops/description: unknown member \"description\" in the error object: ignored",
    "tests/fixtures/broken/params.json:12:35: at /methods/0/links/0/method: link to method \"nowhere\", which the document does not define",
    "tests/fixtures/broken/params.json:10:9: at /methods/0/params/1: required param \"to\" comes after optional param \"from\": positional calls must send null for \"from\"",
    "tests/fixtures/broken/params.json:20:9: at /methods/1/params/2: duplicate param name \"from\" (first at #/methods/1/params/0): the later one is ignored",
];

#[test]
fn param_problems_are_warnings_and_the_duplicate_is_dropped() {
    let doc = load_document(format!("{DIR}/params.json"), &Options::new()).unwrap();
    let warnings: Vec<String> = doc.warnings.iter().map(ToString::to_string).collect();
    let expected: Vec<String> = PARAMS_WARNINGS
        .iter()
        .map(|w| format!("warning: {w}"))
        .collect();
    assert_eq!(warnings, expected);
    let names: Vec<&str> = doc.methods[1]
        .params
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["from", "to"]);
}

/// Left out of an array, a repeated param would move every later one to the wrong place
/// (`positional(a, a, c)` would send `c` second): in a method called by position (or
/// either way) it is an error, not a dropped duplicate.
#[test]
fn a_repeated_param_name_is_an_error_where_params_go_by_position() {
    let (kind, text) = failure("duplicate_param.json", &Options::new());
    assert_eq!(kind, ErrorKind::Invalid);
    assert_eq!(
        text,
        lines(&[
            "tests/fixtures/broken/duplicate_param.json:10:9: at /methods/0/params/1: duplicate param name \"a\" (first at #/methods/0/params/0) in a method called by position: leaving one out would shift the params after it; give each param its own name",
            "tests/fixtures/broken/duplicate_param.json:19:9: at /methods/1/params/1: duplicate param name \"x\" (first at #/methods/1/params/0) in a method called by position: leaving one out would shift the params after it; give each param its own name",
        ])
    );
}

#[test]
fn strict_turns_the_warnings_into_errors() {
    let (kind, text) = failure("params.json", &Options::new().strict(true));
    assert_eq!(kind, ErrorKind::Invalid);
    assert_eq!(text, lines(&PARAMS_WARNINGS));
}

#[test]
fn a_document_that_is_not_an_object() {
    let (kind, text) = failure("not_an_object.json", &Options::new());
    assert_eq!(kind, ErrorKind::Invalid);
    assert_eq!(
        text,
        "tests/fixtures/broken/not_an_object.json:1:1: at (root): expected an object (an OpenRPC document), found an array"
    );
}

#[test]
fn a_mistyped_member_is_an_error_even_where_absence_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("info.json");
    std::fs::write(
        &file,
        r#"{"openrpc": "1.4.1", "info": "text", "methods": []}"#,
    )
    .unwrap();
    let e = load_document(&file, &Options::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Invalid);
    assert_eq!(
        e.to_string(),
        "info.json:1:22: at /info: expected an object (an info object), found a string"
    );
}

/// Starknet's trace API of v0.6.0, as it was published: `$ref`s inside
/// `components/errors`, which OpenRPC does not allow, are followed with a warning each,
/// and the methods' errors reach the other file's error objects through them.
#[test]
fn references_in_components_are_followed_with_a_warning() {
    let dir = "tests/fixtures/starknet-v0.6.0";
    let options = Options::new().include_dir(dir);
    let doc = load_document(
        format!("{dir}/api/starknet_trace_api_openrpc.json"),
        &options,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let warnings: Vec<String> = doc.warnings.iter().map(ToString::to_string).collect();
    let file = "tests/fixtures/starknet-v0.6.0/api/starknet_trace_api_openrpc.json";
    let expected: Vec<String> = [
        (479, "TXN_HASH_NOT_FOUND"),
        (482, "BLOCK_NOT_FOUND"),
        (485, "TRANSACTION_EXECUTION_ERROR"),
    ]
    .iter()
    .map(|(line, key)| {
        format!(
            "warning: {file}:{line}:17: at /components/errors/{key}/$ref: a $ref where OpenRPC wants an error object (the specification allows no reference here): followed"
        )
    })
    .collect();
    assert_eq!(warnings, expected);
    let simulate = &doc.methods[1];
    let codes: Vec<(i64, &str)> = simulate
        .errors
        .iter()
        .map(|e| (e.error.code, e.location.pointer.as_str()))
        .collect();
    assert_eq!(
        codes,
        [
            (24, "/components/errors/BLOCK_NOT_FOUND"),
            (41, "/components/errors/TRANSACTION_EXECUTION_ERROR"),
        ]
    );
    let model = doc.model.components.expect("components");
    assert_eq!(
        model.errors["BLOCK_NOT_FOUND"].reference(),
        Some("./api/starknet_api_openrpc.json#/components/errors/BLOCK_NOT_FOUND")
    );
}
