//! The mock on every corpus document: each example pairing is answered with its result,
//! and each generated value (results, and the params the mock samples) is valid against
//! its schema by an independent validator (the `jsonschema` crate, draft 7, formats
//! checked), `$ref`s to other files included. The corpus examples that break their own
//! schemas, and why, are listed in `broken_examples.rs`.

use std::path::PathBuf;

use jsonschema::{Draft, Registry, Resource, Validator};
use rpcsmith_build::{Document, Location, Options, Resolver, load_document};
use rpcsmith_cli::mock::{Answer, Mock, Origin};
use rpcsmith_corpus as corpus;
use serde_json::{Value, json};

mod broken_examples;

fn load(dir: &std::path::Path, path: &str) -> Document {
    let options = corpus::include_dirs(path)
        .into_iter()
        .fold(Options::new(), |o, include| {
            o.include_dir(dir.join(include))
        });
    load_document(dir.join(path), &options).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn file_uri(resolver: &Resolver, file: rpcsmith_build::FileId) -> String {
    let opened: PathBuf = resolver.files_read()[file.index()].clone();
    let absolute = std::fs::canonicalize(&opened).unwrap_or(opened);
    format!("file://{}", absolute.display())
}

/// Every `$ref`, as (where it is written, the ref).
fn cross_file_refs(value: &Value, at: &Location, out: &mut Vec<(Location, String)>) {
    match value {
        Value::Object(members) => {
            if let Some(Value::String(r)) = members.get("$ref") {
                out.push((at.clone(), r.clone()));
            }
            for (k, v) in members {
                cross_file_refs(v, &at.key(k), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                cross_file_refs(v, &at.index(i), out);
            }
        }
        _ => {}
    }
}

/// The document's files, each under its `file://` URI, with every `$ref` rewritten to
/// the absolute URI of what the loader resolves it to: Starknet and Canton write refs
/// relative to their repository's root (found through an include directory), Midnight
/// refs into the draft-07 schemas it embeds (resolved against them), where a validator
/// would resolve against the referring file's root.
fn registry(document: &mut Document) -> Registry<'static> {
    let resolver = &mut document.resolver;
    let mut resources: Vec<(String, Value)> = Vec::new();
    let mut pending = vec![document.root];
    let mut seen = vec![document.root];
    while let Some(file) = pending.pop() {
        let root = Location::root(file);
        let mut value = resolver.get(&root).cloned().unwrap_or(Value::Null);
        // Embedded schemas' own `$id`s would move the base of what is now absolute.
        let mut refs = Vec::new();
        cross_file_refs(&value, &root, &mut refs);
        for (at, reference) in refs {
            let Ok(target) = resolver.resolve_ref(&at, &reference) else {
                continue;
            };
            let absolute = format!("{}#{}", file_uri(resolver, target.file), target.pointer);
            if let Some(slot) = value.pointer_mut(&format!("{}/$ref", at.pointer)) {
                *slot = Value::String(absolute);
            }
            if !seen.contains(&target.file) {
                seen.push(target.file);
                pending.push(target.file);
            }
        }
        resources.push((file_uri(resolver, file), value));
    }
    let pairs = resources
        .into_iter()
        .map(|(uri, value)| (uri, Resource::from_contents(value)));
    Registry::new()
        .draft(Draft::Draft7)
        .extend(pairs)
        .unwrap()
        .prepare()
        .unwrap()
}

/// A validator of the schema at `at`.
fn validator(registry: &Registry<'static>, resolver: &Resolver, at: &Location) -> Validator {
    let uri = format!("{}#{}", file_uri(resolver, at.file), at.pointer);
    jsonschema::options()
        .with_draft(Draft::Draft7)
        .with_registry(registry)
        .should_validate_formats(true)
        .build(&json!({"$ref": uri}))
        .unwrap_or_else(|e| panic!("{uri}: {e}"))
}

/// A value generated for one alternative of a `oneOf` is also valid under another
/// (objects that do not refuse other members): the mock does not check its values
/// against the other alternatives.
const ONE_OF: &str = "oneOf ambiguous";
/// The document's schema admits no value, checked by hand: `type: array` with an `enum`
/// of strings (D23 `statuses`); a required member that `properties` does not declare
/// under `additionalProperties: false` (D28, D29 `Provider.clientType`, D31
/// `createWallet`'s `networkId`).
const NO_VALUE: &str = "schema admits no value";

/// The methods whose generated values the validator refuses, and why.
const KNOWN: &[(&str, &str, &str)] = &[
    ("D09", "engine_newPayloadV2", ONE_OF),
    ("D09", "eth_fillTransaction", ONE_OF),
    ("D10", "engine_newPayloadV2", ONE_OF),
    ("D10", "eth_fillTransaction", ONE_OF),
    ("D11", "starknet_getBlockWithTxHashes", ONE_OF),
    ("D18", "wallet_getPermissions", ONE_OF),
    ("D23", "get_transactions", NO_VALUE),
    ("D28", "status", NO_VALUE),
    ("D29", "connected", NO_VALUE),
    ("D29", "onStatusChanged", NO_VALUE),
    ("D29", "status", NO_VALUE),
    ("D30", "signTransaction", ONE_OF),
    ("D31", "createWallet", NO_VALUE),
];

#[derive(Default)]
struct Tally {
    examples: usize,
    generated: usize,
    sampled_params: usize,
    failures: Vec<String>,
}

#[test]
fn every_corpus_method_is_answered_from_its_examples_or_with_valid_generated_values() {
    let Some(dir) = corpus::dir() else { return };
    let mut tally = Tally::default();
    println!(
        "| doc | methods | example answers | generated results (valid) | sampled params (valid) |"
    );
    println!("|---|---|---|---|---|");
    for (id, path) in corpus::DOCUMENTS {
        let mut checked = load(&dir, path);
        let registry = registry(&mut checked);
        let mut mock = Mock::new(load(&dir, path), 7);
        let before = (tally.examples, tally.generated, tally.sampled_params);
        for method in &checked.methods {
            check_method(
                id,
                method,
                &mut mock,
                &registry,
                &checked.resolver,
                &mut tally,
            );
        }
        println!(
            "| {id} | {} | {} | {} | {} |",
            checked.methods.len(),
            tally.examples - before.0,
            tally.generated - before.1,
            tally.sampled_params - before.2
        );
    }
    let mut failed: Vec<(String, String, &str)> = tally
        .failures
        .iter()
        .map(|f| {
            let mut words = f.split(' ');
            let (id, method) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
            let kind = if f
                .contains("is valid under more than one of the schemas listed in the 'oneOf'")
            {
                ONE_OF
            } else {
                NO_VALUE
            };
            (id.to_owned(), method.trim_end_matches(':').to_owned(), kind)
        })
        .collect();
    failed.sort();
    failed.dedup();
    let known: Vec<(String, String, &str)> = KNOWN
        .iter()
        .map(|(id, m, k)| ((*id).to_owned(), (*m).to_owned(), *k))
        .collect();
    assert_eq!(failed, known, "{}", tally.failures.join("\n"));
    assert!(
        tally.examples > 100 && tally.generated > 500,
        "{} {}",
        tally.examples,
        tally.generated
    );
}

fn check_method(
    id: &str,
    method: &rpcsmith_build::document::ResolvedMethod,
    mock: &mut Mock,
    registry: &Registry<'static>,
    resolver: &Resolver,
    tally: &mut Tally,
) {
    let name = method.name.as_str();
    check_examples(id, method, mock, tally);
    // Params sampled by the mock, then a generated result; both valid.
    let params = mock.sample_params(name).expect("a method of the document");
    for (param, value) in method.params.iter().zip(param_values(method, &params)) {
        let validator = validator(registry, resolver, &param.schema);
        if let Err(e) = validator.validate(&value) {
            tally.failures.push(format!(
                "{id} {name}: sampled param `{}` = {value}: {e}",
                param.name
            ));
        }
        tally.sampled_params += 1;
    }
    let Some(result) = &method.result else { return };
    let value = match mock.answer(name, Some(&params)) {
        Answer::Result {
            value,
            origin: Origin::Generated,
        } => value,
        // The sampled params equal an example's: checked above.
        Answer::Result { .. } => return,
        other => {
            return tally
                .failures
                .push(format!("{id} {name}: sampled params refused: {other:?}"));
        }
    };
    if let Err(e) = validator(registry, resolver, &result.schema).validate(&value) {
        tally
            .failures
            .push(format!("{id} {name}: result {value}: {e}"));
    }
    tally.generated += 1;
}

/// Each example pairing whose params fit the method is answered with its result.
fn check_examples(
    id: &str,
    method: &rpcsmith_build::document::ResolvedMethod,
    mock: &mut Mock,
    tally: &mut Tally,
) {
    let name = method.name.as_str();
    for pairing in &method.examples {
        let Some(expected) = pairing
            .result
            .as_ref()
            .and_then(|r| r.example.value.clone())
        else {
            continue;
        };
        // Named after the method's params, sent as the method takes them; named after
        // their values (`two`), sent by position.
        let by_name = pairing
            .params
            .iter()
            .all(|p| method.params.iter().any(|q| q.name == p.example.name));
        let sent = if by_name {
            let params: serde_json::Map<String, Value> = pairing
                .params
                .iter()
                .filter_map(|p| Some((p.example.name.clone(), p.example.value.clone()?)))
                .collect();
            as_sent(method, params)
        } else {
            Value::Array(
                pairing
                    .params
                    .iter()
                    .filter_map(|p| p.example.value.clone())
                    .collect(),
            )
        };
        let first = method.examples.iter().position(|p| p.name == pairing.name);
        match mock.answer(name, Some(&sent)) {
            Answer::Result {
                value,
                origin: Origin::Example(from),
            } => {
                let same = method.examples.iter().position(|p| p.name == from);
                if value != expected && same == first {
                    tally.failures.push(format!(
                        "{id} {name}: example {:?} answered {value}",
                        pairing.name
                    ));
                }
                tally.examples += 1;
            }
            // The document's own example does not fit its method (a param it does not
            // declare, a value of another type): the mock refuses it, as a server would.
            Answer::Error { code: -32602, .. } => {}
            other => tally.failures.push(format!(
                "{id} {name}: example {:?}: {other:?}",
                pairing.name
            )),
        }
    }
}

/// Params by name, as the method takes them (an array when by position only).
fn as_sent(
    method: &rpcsmith_build::document::ResolvedMethod,
    named: serde_json::Map<String, Value>,
) -> Value {
    match method.param_structure {
        rpcsmith_build::openrpc::ParamStructure::ByPosition => {
            let mut values: Vec<Value> = method
                .params
                .iter()
                .map(|p| named.get(&p.name).cloned().unwrap_or(Value::Null))
                .collect();
            while values.last() == Some(&Value::Null) {
                values.pop();
            }
            Value::Array(values)
        }
        _ => Value::Object(named),
    }
}

/// The value of each param in `params` (an array or an object), in declaration order.
fn param_values(method: &rpcsmith_build::document::ResolvedMethod, params: &Value) -> Vec<Value> {
    match params {
        Value::Array(values) => values.clone(),
        Value::Object(named) => method
            .params
            .iter()
            .map(|p| named.get(&p.name).cloned().unwrap_or(Value::Null))
            .collect(),
        _ => Vec::new(),
    }
}

/// The values the mock generates for params with every constraint keyword (the services
/// tests' `constraints.json`) satisfy them, by the independent validator and by the
/// mock's own checks, whatever the seed.
#[test]
fn generated_values_satisfy_the_constraint_keywords() {
    let path = std::path::Path::new("../../tests/services/documents/constraints.json");
    let mut document = load_document(path, &Options::new()).unwrap();
    let registry = registry(&mut document);
    for seed in 0..20 {
        let mut mock = Mock::new(load_document(path, &Options::new()).unwrap(), seed);
        for method in &document.methods {
            let params = mock.sample_params(&method.name).unwrap();
            for (param, value) in method.params.iter().zip(param_values(method, &params)) {
                let independent = validator(&registry, &document.resolver, &param.schema);
                assert!(
                    independent.is_valid(&value),
                    "seed {seed} {}: {value}",
                    param.name
                );
                assert_eq!(mock.check_value(&param.schema, &value), Ok(()));
            }
            match mock.answer(&method.name, Some(&params)) {
                Answer::Result { value, .. } => {
                    let result = &method.result.as_ref().unwrap().schema;
                    let independent = validator(&registry, &document.resolver, result);
                    assert!(independent.is_valid(&value), "seed {seed}: {value}");
                }
                other => panic!("seed {seed} {}: {other:?}", method.name),
            }
        }
    }
}
