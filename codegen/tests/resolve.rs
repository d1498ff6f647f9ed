//! `$ref` resolution: local pointers, other files, include directories, cycles.

use std::fs;
use std::path::{Path, PathBuf};

use rpcsmith_build::{Location, Resolver};

/// Writes `files` (relative path, text) under a fresh directory.
fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    dir
}

fn at(resolver: &mut Resolver, file: &Path, pointer: &str) -> (Location, String) {
    let id = resolver.load(file).unwrap();
    let from = Location::new(id, pointer);
    let reference = resolver.ref_at(&from).unwrap().to_owned();
    (from, reference)
}

#[test]
fn local_pointers_with_escapes_and_percent_encoding() {
    let doc = r##"{"a": {"$ref": "#/x/a~1b/c%20d/1"}, "x": {"a/b": {"c d": [0, {"ok": true}]}}}"##;
    let dir = tree(&[("doc.json", doc)]);
    let mut r = Resolver::new(vec![]);
    let (from, reference) = at(&mut r, &dir.path().join("doc.json"), "/a");
    let to = r.resolve_ref(&from, &reference).unwrap();
    assert_eq!(to.pointer, "/x/a~1b/c d/1");
    assert_eq!(r.get(&to).unwrap()["ok"], true);
    assert_eq!(r.deref(&from).unwrap(), to);
}

#[test]
fn relative_file_first_then_include_dirs() {
    let dir = tree(&[
        (
            "repo/api/a.json",
            r##"{"s": {"$ref": "b.json#/t"}, "u": {"$ref": "./api/c.json#/v"}}"##,
        ),
        ("repo/api/b.json", r##"{"t": 1}"##),
        ("repo/api/c.json", r##"{"v": 2}"##),
    ]);
    let root = dir.path().join("repo");
    let mut r = Resolver::new(vec![root.clone()]);
    let (from, reference) = at(&mut r, &root.join("api/a.json"), "/s");
    let to = r.resolve_ref(&from, &reference).unwrap();
    assert_eq!(r.get(&to).unwrap(), 1);
    assert_eq!(r.display_path(to.file), Path::new("b.json"));
    let from = Location::new(from.file, "/u");
    let to = r.resolve_ref(&from, "./api/c.json#/v").unwrap();
    assert_eq!(r.get(&to).unwrap(), 2);
    assert_eq!(r.files_read().len(), 3);
}

#[test]
fn unresolvable_refs_name_the_ref_and_where_it_was_written() {
    let dir = tree(&[
        (
            "d/a.json",
            "{\n  \"s\": {\"$ref\": \"#/nope\"},\n  \"f\": {\"$ref\": \"../b.json#/x\"},\n  \"g\": {\"$ref\": \"e.json#/x\"}\n}",
        ),
        ("b.json", r##"{"y": 1}"##),
    ]);
    let mut r = Resolver::new(vec![PathBuf::from("/nonexistent-include")]);
    let (from, reference) = at(&mut r, &dir.path().join("d/a.json"), "/s");
    let e = r.resolve_ref(&from, &reference).unwrap_err();
    assert_eq!(
        e.to_string(),
        "a.json:2:9: at /s/$ref: unresolvable $ref \"#/nope\": no value at /nope"
    );
    let e = r.deref(&Location::new(from.file, "/f")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "a.json:3:9: at /f/$ref: unresolvable $ref \"../b.json#/x\": no value at /x in ../b.json"
    );
    let e = r.deref(&Location::new(from.file, "/g")).unwrap_err();
    let d = std::fs::canonicalize(dir.path().join("d")).unwrap();
    let d = d.display();
    assert_eq!(
        e.to_string(),
        format!(
            "a.json:4:9: at /g/$ref: unresolvable $ref \"e.json#/x\": file not found: tried {d}/e.json (resolved against {d}, the folder of the file holding the $ref), then /nonexistent-include/e.json (include directory /nonexistent-include)"
        )
    );
}

#[test]
fn pure_ref_cycles_are_errors() {
    let doc = r##"{"a": {"$ref": "#/b"}, "b": {"$ref": "#/a"}, "c": {"$ref": "#/c"}}"##;
    let dir = tree(&[("doc.json", doc)]);
    let mut r = Resolver::new(vec![]);
    let id = r.load(dir.path().join("doc.json")).unwrap();
    let e = r.deref(&Location::new(id, "/a")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "doc.json:1:8: at /a/$ref: $ref cycle: #/a -> #/b -> #/a"
    );
    let e = r.deref(&Location::new(id, "/c")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "doc.json:1:52: at /c/$ref: $ref cycle: #/c -> #/c"
    );
}

#[test]
fn definitions_resolve_inside_the_enclosing_schema() {
    let doc = r##"{"components": {"schemas": {"S": {"$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {"p": {"$ref": "#/definitions/D"}}, "definitions": {"D": {"type": "string"}}}}}}"##;
    let dir = tree(&[("doc.json", doc)]);
    let mut r = Resolver::new(vec![]);
    let (from, reference) = at(
        &mut r,
        &dir.path().join("doc.json"),
        "/components/schemas/S/properties/p",
    );
    let to = r.resolve_ref(&from, &reference).unwrap();
    assert_eq!(to.pointer, "/components/schemas/S/definitions/D");
}

#[test]
fn remote_refs_are_refused() {
    let dir = tree(&[(
        "doc.json",
        r##"{"a": {"$ref": "https://example.com/s.json#/x"}}"##,
    )]);
    let mut r = Resolver::new(vec![]);
    let (from, reference) = at(&mut r, &dir.path().join("doc.json"), "/a");
    let e = r.resolve_ref(&from, &reference).unwrap_err();
    assert_eq!(
        e.to_string(),
        "doc.json:1:8: at /a/$ref: unresolvable $ref \"https://example.com/s.json#/x\": remote references are not supported"
    );
}

const FEATURES: &str = "tests/fixtures/front/features.json";

/// A method given by `$ref` into an extension, with a result schema in another extension,
/// and a notification keeping its `x-` members.
#[test]
fn methods_by_ref_and_notifications() {
    let doc = rpcsmith_build::load_document(FEATURES, &rpcsmith_build::Options::new()).unwrap();
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    assert_eq!(doc.ref_count, 10);
    assert_eq!(doc.resolver.file_count(), 2);
    let names: Vec<&str> = doc.methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["ping", "pet.get", "notify"]);
    let ping = &doc.methods[0];
    assert_eq!(ping.location.pointer, "/x-methods/ping");
    let mut resolver = doc.resolver;
    let pong = resolver
        .deref(&ping.result.as_ref().unwrap().schema)
        .unwrap();
    assert_eq!(pong.pointer, "/x-schemas/Pong");
    let notify = &doc.methods[2];
    assert!(notify.result.is_none());
    assert_eq!(notify.extensions["x-notification"], true);
}

/// Params, errors, tags and examples by `$ref`; refs into schema insides with `~1` and
/// `%20`; another file that refers back.
#[test]
fn params_errors_tags_and_examples_by_ref() {
    use rpcsmith_build::openrpc::ParamStructure;
    let doc = rpcsmith_build::load_document(FEATURES, &rpcsmith_build::Options::new()).unwrap();
    let get = &doc.methods[1];
    let mut resolver = doc.resolver;
    assert_eq!(get.param_structure, ParamStructure::ByName);
    assert_eq!(get.tags[0].name, "pets");
    let id = &get.params[0];
    assert_eq!((id.name.as_str(), id.required), ("id", true));
    assert_eq!(id.site.pointer, "/methods/1/params/0");
    assert_eq!(id.location.pointer, "/components/contentDescriptors/PetId");
    assert_eq!(
        id.schema.pointer,
        "/components/contentDescriptors/PetId/schema"
    );
    let fields = resolver.deref(&get.params[1].schema).unwrap();
    assert_eq!(fields.pointer, "/components/schemas/Pet/properties/a~1b");
    let pet = resolver
        .deref(&get.result.as_ref().unwrap().schema)
        .unwrap();
    let shown = resolver.display_path(pet.file);
    assert_eq!(shown, Path::new("tests/fixtures/front/shared/types.json"));
    assert_eq!(pet.pointer, "/definitions/Pet Record");
    let back = resolver.deref(&pet.key("properties").key("id")).unwrap();
    assert_eq!(back, Location::new(doc.root, "/components/schemas/Id"));
    let codes: Vec<i64> = get.errors.iter().map(|e| e.error.code).collect();
    assert_eq!(codes, [404, 2]);
    assert_eq!(
        get.errors[0].location.pointer,
        "/components/errors/NotFound"
    );
    let example = &get.examples[0];
    assert_eq!(example.params[0].example.value, Some(serde_json::json!(7)));
    assert_eq!(
        example.params[0].location.pointer,
        "/components/examples/Id"
    );
    assert!(example.result.is_some());
    assert_eq!(resolver.files_read().len(), 2, "each file read once");
}

/// The corpus quirks: Starknet's root-relative cross-file refs need an include directory
/// (and fail precisely without one), its proving API refers document-relatively, and
/// midnight-node's `#/definitions/…` resolve inside their component schema.
#[test]
fn corpus_cross_file_and_nested_definitions() {
    use rpcsmith_build::{Options, load_document};
    use rpcsmith_corpus as corpus;
    let Some(dir) = corpus::dir() else { return };
    let trace = dir.join("starknet-specs/api/starknet_trace_api_openrpc.json");
    let e = load_document(&trace, &Options::new()).unwrap_err();
    let first = e.diagnostics()[0].to_string();
    // The document is named by an absolute path outside the current directory, so the
    // include directory is named absolute too.
    let specs = std::fs::canonicalize(dir.join("starknet-specs")).unwrap();
    let specs = specs.display();
    let expected = format!(
        ": file not found: tried {specs}/api/api/starknet_api_openrpc.json (resolved against {specs}/api, the folder of the file holding the $ref); it exists under {specs}: add `.include_dir(\"{specs}\")` to the builder (CLI: `-I {specs}`)"
    );
    assert!(
        first.contains(": unresolvable $ref \"./api/starknet_api_openrpc.json#/components/")
            && first.ends_with(&expected),
        "{first}"
    );
    let options = Options::new().include_dir(dir.join("starknet-specs"));
    let mut doc = load_document(&trace, &options).unwrap();
    assert_eq!(doc.resolver.file_count(), 2);
    let read = doc.resolver.files_read();
    let opened = read[1].to_string_lossy();
    assert!(
        opened.ends_with("/starknet-specs/api/starknet_api_openrpc.json"),
        "{read:?}"
    );
    let errors: Vec<Location> = doc
        .methods
        .iter()
        .flat_map(|m| &m.errors)
        .map(|e| e.location.clone())
        .collect();
    let elsewhere = errors
        .iter()
        .find(|l| l.file != doc.root)
        .expect("an error from the other file");
    assert_eq!(
        doc.resolver.display_path(elsewhere.file),
        Path::new("starknet_api_openrpc.json")
    );
    let _ = doc.resolver.deref(elsewhere).unwrap();

    let proving = dir.join("starknet-specs/proving-api/starknet_proving_api_openrpc.json");
    let doc = load_document(&proving, &Options::new()).unwrap();
    assert_eq!(doc.resolver.file_count(), 2);

    let mut doc = load_document(dir.join("midnight-node/openrpc.json"), &Options::new()).unwrap();
    let root = doc.root;
    let schemas = Location::new(root, "/components/schemas");
    let names: Vec<String> = doc
        .resolver
        .get(&schemas)
        .unwrap()
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let mut nested = 0;
    for name in names {
        let mut sites = Vec::new();
        collect_refs(&doc.resolver, &schemas.key(&name), &mut sites);
        for site in sites {
            if doc
                .resolver
                .ref_at(&site)
                .unwrap()
                .starts_with("#/definitions/")
            {
                let target = doc.resolver.deref(&site).unwrap();
                let inside = format!("/components/schemas/{name}/definitions/");
                assert!(
                    target.pointer.starts_with(&inside),
                    "{} -> {}",
                    site.pointer,
                    target.pointer
                );
                nested += 1;
            }
        }
    }
    assert_eq!(nested, 4, "the MANIFEST counts 4 nested definitions refs");
}

fn collect_refs(resolver: &Resolver, at: &Location, out: &mut Vec<Location>) {
    match resolver.get(at) {
        Some(serde_json::Value::Object(members)) => {
            if resolver.ref_at(at).is_some() {
                out.push(at.clone());
            }
            for k in members.keys() {
                collect_refs(resolver, &at.key(k), out);
            }
        }
        Some(serde_json::Value::Array(items)) => {
            for i in 0..items.len() {
                collect_refs(resolver, &at.index(i), out);
            }
        }
        _ => {}
    }
}
