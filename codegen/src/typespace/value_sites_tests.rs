//! No silent `serde_json::Value` over the corpus: every place the type space types as a
//! JSON value either accepts any value (judged from the schema itself) or has a warning.

use rpcsmith_corpus as corpus;

use super::TypeSpace;

/// Every schema of the corpus typed `serde_json::Value` either accepts any JSON value
/// (judged here from the schema itself, `$ref`s followed) or has a warning at its place:
/// no silent `Value`.
#[test]
fn no_silent_value_in_the_corpus() {
    let Some(dir) = corpus::dir() else { return };
    let mut silent = Vec::new();
    for (id, doc) in corpus::DOCUMENTS {
        let mut options = crate::Options::new();
        for inc in corpus::include_dirs(doc) {
            options = options.include_dir(dir.join(inc));
        }
        let mut document = crate::load_document(dir.join(doc), &options).unwrap();
        let space = TypeSpace::build(&mut document);
        let warned: std::collections::HashSet<(std::path::PathBuf, &str)> = space
            .diagnostics()
            .iter()
            .map(|d| (d.file.clone(), d.pointer.as_str()))
            .collect();
        for site in space.value_sites() {
            let Ok(target) = document.resolver.deref(site) else {
                continue; // an unresolvable `$ref` is an error of its own
            };
            let schema = document.resolver.get(&target).unwrap();
            let file = document.resolver.display_path(target.file).to_path_buf();
            let at_site = (
                document.resolver.display_path(site.file).to_path_buf(),
                site.pointer.as_str(),
            );
            if accepts_anything(schema)
                || warned.contains(&(file, target.pointer.as_str()))
                || warned.contains(&at_site)
            {
                continue;
            }
            silent.push(format!("{id} {doc}#{}: {schema}", target.pointer));
        }
    }
    assert!(silent.is_empty(), "silent Value:\n{}", silent.join("\n"));
}

/// Whether `schema` accepts every JSON value of every type it does not constrain: no
/// keyword that says what the value is, only annotations and keywords that constrain
/// values of one JSON type. The list is written out here on purpose, not taken from the
/// generator: the test judges the schemas on its own.
fn accepts_anything(schema: &serde_json::Value) -> bool {
    const ANNOTATION_OR_TYPE_BOUND: &[&str] = &[
        "title",
        "description",
        "examples",
        "example",
        "default",
        "deprecated",
        "$comment",
        "$schema",
        "$id",
        "definitions",
        "$defs",
        "readOnly",
        "writeOnly",
        "format",
        "pattern",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "required",
    ];
    match schema {
        serde_json::Value::Bool(b) => *b,
        serde_json::Value::Object(o) => o
            .keys()
            .all(|k| k.starts_with("x-") || ANNOTATION_OR_TYPE_BOUND.contains(&k.as_str())),
        _ => false,
    }
}
