//! The mock on every corpus document: each example pairing is answered with its result,
//! and each generated value (results, and the params the mock samples) is valid against
//! its schema by an independent validator (the `jsonschema` crate, draft 7, formats
//! checked), `$ref`s to other files included.

use std::path::PathBuf;

use jsonschema::{Draft, Registry, Resource, Validator};
use rpcsmith_build::{Document, Location, Options, Resolver, load_document};
use rpcsmith_cli::mock::{Answer, Mock, Origin};
use rpcsmith_corpus as corpus;
use serde_json::{Value, json};

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

/// Corpus examples that break a constraint of their own schema, found by the mock's
/// checks (the runtime's constraint checks) and confirmed by the independent validator:
/// `(document, method, example, param or "result", keyword, why it is the document's
/// fault)`. The checks are not weakened for them: a generated server refuses these
/// params, and a client opted into checks refuses to send them.
const BREAK_THEIR_SCHEMA: &[(&str, &str, &str, &str, &str, &str)] = &[
    (
        "D08",
        "eth_getFilterChanges",
        "eth_getFilterChanges example",
        "Filter identifier",
        "pattern",
        LEADING_ZERO,
    ),
    (
        "D08",
        "eth_getFilterLogs",
        "eth_getFilterLogs example",
        "Filter identifier",
        "pattern",
        LEADING_ZERO,
    ),
    (
        "D08",
        "eth_getProof",
        "eth_getProof example",
        "StorageKeys",
        "pattern",
        NOT_HEX,
    ),
    (
        "D08",
        "eth_newBlockFilter",
        "eth_newBlockFilter example",
        "result",
        "pattern",
        LEADING_ZERO,
    ),
    (
        "D08",
        "eth_newFilter",
        "eth_newFilter example",
        "result",
        "pattern",
        LEADING_ZERO,
    ),
    (
        "D08",
        "eth_newPendingTransactionFilter",
        "eth_newPendingTransactionFilter example",
        "result",
        "pattern",
        LEADING_ZERO,
    ),
    (
        "D08",
        "eth_sendRawTransaction",
        "eth_sendRawTransaction example",
        "result",
        "pattern",
        SHORT_HASH,
    ),
    (
        "D08",
        "eth_uninstallFilter",
        "eth_uninstallFilter example",
        "Filter identifier",
        "pattern",
        LEADING_ZERO,
    ),
    (
        "D09",
        "engine_getPayloadV2",
        "engine_getPayloadV2 example",
        "Payload id",
        "pattern",
        SHORT_PAYLOAD_ID,
    ),
    (
        "D09",
        "engine_getPayloadV3",
        "engine_getPayloadV3 example",
        "Payload id",
        "pattern",
        SHORT_PAYLOAD_ID,
    ),
    (
        "D09",
        "engine_getPayloadV4",
        "engine_getPayloadV4 example",
        "Payload id",
        "pattern",
        SHORT_PAYLOAD_ID,
    ),
    (
        "D09",
        "engine_getPayloadV5",
        "engine_getPayloadV5 example",
        "Payload id",
        "pattern",
        SHORT_PAYLOAD_ID,
    ),
    (
        "D09",
        "engine_getPayloadV6",
        "engine_getPayloadV6 example",
        "Payload id",
        "pattern",
        SHORT_PAYLOAD_ID,
    ),
    (
        "D09",
        "eth_getFilterChanges",
        "eth_getFilterChanges example",
        "Filter identifier",
        "pattern",
        LEADING_ZERO,
    ),
    (
        "D09",
        "eth_getFilterLogs",
        "eth_getFilterLogs example",
        "Filter identifier",
        "pattern",
        LEADING_ZERO,
    ),
    (
        "D09",
        "eth_newBlockFilter",
        "eth_newBlockFilter example",
        "result",
        "pattern",
        LEADING_ZERO,
    ),
    (
        "D09",
        "eth_newFilter",
        "eth_newFilter example",
        "result",
        "pattern",
        LEADING_ZERO,
    ),
    (
        "D09",
        "eth_newPendingTransactionFilter",
        "eth_newPendingTransactionFilter example",
        "result",
        "pattern",
        LEADING_ZERO,
    ),
    (
        "D09",
        "eth_sendRawTransaction",
        "eth_sendRawTransaction example",
        "result",
        "pattern",
        SHORT_HASH,
    ),
    (
        "D09",
        "eth_sendTransaction",
        "eth_sendTransaction example",
        "result",
        "pattern",
        SHORT_HASH,
    ),
    (
        "D09",
        "eth_uninstallFilter",
        "eth_uninstallFilter example",
        "Filter identifier",
        "pattern",
        LEADING_ZERO,
    ),
    (
        "D10",
        "engine_getPayloadV2",
        "engine_getPayloadV2 example",
        "Payload id",
        "pattern",
        SHORT_PAYLOAD_ID,
    ),
    (
        "D10",
        "engine_getPayloadV3",
        "engine_getPayloadV3 example",
        "Payload id",
        "pattern",
        SHORT_PAYLOAD_ID,
    ),
    (
        "D10",
        "engine_getPayloadV4",
        "engine_getPayloadV4 example",
        "Payload id",
        "pattern",
        SHORT_PAYLOAD_ID,
    ),
    (
        "D10",
        "engine_getPayloadV5",
        "engine_getPayloadV5 example",
        "Payload id",
        "pattern",
        SHORT_PAYLOAD_ID,
    ),
    (
        "D10",
        "engine_getPayloadV6",
        "engine_getPayloadV6 example",
        "Payload id",
        "pattern",
        SHORT_PAYLOAD_ID,
    ),
    (
        "D10",
        "eth_getFilterChanges",
        "eth_getFilterChanges example",
        "Filter identifier",
        "pattern",
        LEADING_ZERO,
    ),
    (
        "D10",
        "eth_getFilterLogs",
        "eth_getFilterLogs example",
        "Filter identifier",
        "pattern",
        LEADING_ZERO,
    ),
    (
        "D10",
        "eth_newBlockFilter",
        "eth_newBlockFilter example",
        "result",
        "pattern",
        LEADING_ZERO,
    ),
    (
        "D10",
        "eth_newFilter",
        "eth_newFilter example",
        "result",
        "pattern",
        LEADING_ZERO,
    ),
    (
        "D10",
        "eth_newPendingTransactionFilter",
        "eth_newPendingTransactionFilter example",
        "result",
        "pattern",
        LEADING_ZERO,
    ),
    (
        "D10",
        "eth_sendRawTransaction",
        "eth_sendRawTransaction example",
        "result",
        "pattern",
        SHORT_HASH,
    ),
    (
        "D10",
        "eth_sendTransaction",
        "eth_sendTransaction example",
        "result",
        "pattern",
        SHORT_HASH,
    ),
    (
        "D10",
        "eth_uninstallFilter",
        "eth_uninstallFilter example",
        "Filter identifier",
        "pattern",
        LEADING_ZERO,
    ),
];

/// `"0x01"` where the pattern of an unsigned quantity refuses a leading zero.
const LEADING_ZERO: &str = "a quantity written with a leading zero";
/// `0x0000000038fa5dd`: 15 hex digits where the pattern wants 16.
const SHORT_PAYLOAD_ID: &str = "a payload id one hex digit short";
/// `0x283s34…`: an `s` in a hex storage key.
const NOT_HEX: &str = "a storage key with a letter that is not hex";
/// `0xe670ec…527331`: 63 hex digits where a hash has 64.
const SHORT_HASH: &str = "a transaction hash one hex digit short";

/// Examples that break the structure of their schema rather than a constraint (a JSON
/// type, a required member, no alternative fitting, an unknown member, a value not in
/// its `enum`): what the generated types refuse on decode already. By document and
/// keyword, with how many; each confirmed by the independent validator too.
const BREAK_THEIR_STRUCTURE: &[(&str, &str, usize)] = &[
    ("D08", "oneOf", 5),
    ("D08", "required", 2),
    ("D08", "type", 6),
    ("D09", "additionalProperties", 1),
    ("D09", "anyOf", 1),
    ("D09", "oneOf", 8),
    ("D09", "required", 3),
    ("D09", "type", 8),
    ("D10", "additionalProperties", 1),
    ("D10", "anyOf", 1),
    ("D10", "oneOf", 8),
    ("D10", "required", 3),
    ("D10", "type", 8),
    ("D23", "enum", 1),
    ("D23", "required", 4),
    ("D23", "type", 36),
    ("D24", "type", 4),
];

/// The keywords of the structure of a schema, as opposed to its constraints.
const STRUCTURE: [&str; 7] = [
    "type",
    "required",
    "oneOf",
    "anyOf",
    "additionalProperties",
    "enum",
    "not",
];

#[test]
fn corpus_examples_that_break_their_own_schemas_are_the_known_ones() {
    let Some(dir) = corpus::dir() else { return };
    let mut found = Vec::new();
    let mut checked = 0;
    for (id, path) in corpus::DOCUMENTS {
        let mut document = load(&dir, path);
        let registry = registry(&mut document);
        let mut mock = Mock::new(load(&dir, path), 7);
        for method in &document.methods {
            for pairing in &method.examples {
                let by_name = pairing
                    .params
                    .iter()
                    .all(|p| method.params.iter().any(|q| q.name == p.example.name));
                let mut parts = Vec::new();
                for (i, p) in pairing.params.iter().enumerate() {
                    let declared = if by_name {
                        method.params.iter().find(|q| q.name == p.example.name)
                    } else {
                        method.params.get(i)
                    };
                    if let (Some(declared), Some(value)) = (declared, &p.example.value) {
                        parts.push((
                            declared.name.clone(),
                            declared.schema.clone(),
                            value.clone(),
                        ));
                    }
                }
                if let (Some(result), Some(example)) = (&method.result, &pairing.result)
                    && let Some(value) = &example.example.value
                {
                    parts.push(("result".to_owned(), result.schema.clone(), value.clone()));
                }
                for (part, schema, value) in parts {
                    checked += 1;
                    let Err(violation) = mock.check_value(&schema, &value) else {
                        continue;
                    };
                    let independent = validator(&registry, &document.resolver, &schema);
                    let confirmed = !independent.is_valid(&value);
                    println!(
                        "{id} {} {:?} {part}: {violation} [{}] confirmed: {confirmed}",
                        method.name,
                        pairing.name,
                        violation.keyword()
                    );
                    found.push((
                        id.to_string(),
                        method.name.clone(),
                        pairing.name.clone(),
                        part,
                        violation.keyword().to_owned(),
                        confirmed,
                    ));
                }
            }
        }
    }
    let unconfirmed: Vec<_> = found.iter().filter(|f| !f.5).collect();
    assert!(
        unconfirmed.is_empty(),
        "refused by the mock alone: {unconfirmed:?}"
    );
    let (structure, constraints): (Vec<_>, Vec<_>) = found
        .into_iter()
        .partition(|f| STRUCTURE.contains(&f.4.as_str()));
    let constraints: Vec<_> = constraints
        .into_iter()
        .map(|(id, m, e, part, keyword, _)| (id, m, e, part, keyword))
        .collect();
    let known: Vec<_> = BREAK_THEIR_SCHEMA
        .iter()
        .map(|(id, m, e, part, keyword, _)| {
            let owned = |s: &str| s.to_owned();
            (owned(id), owned(m), owned(e), owned(part), owned(keyword))
        })
        .collect();
    assert_eq!(constraints, known);
    let mut counts: std::collections::BTreeMap<(String, String), usize> = Default::default();
    for (id, _, _, _, keyword, _) in structure {
        *counts.entry((id, keyword)).or_default() += 1;
    }
    let counts: Vec<_> = counts.into_iter().map(|((id, k), n)| (id, k, n)).collect();
    let known: Vec<_> = BREAK_THEIR_STRUCTURE
        .iter()
        .map(|(id, k, n)| ((*id).to_owned(), (*k).to_owned(), *n))
        .collect();
    assert_eq!(counts, known);
    assert!(checked > 300, "{checked} example values checked");
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
