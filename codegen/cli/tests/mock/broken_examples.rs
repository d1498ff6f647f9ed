//! Corpus examples that break their own schemas: each one known, with the reason it is
//! the document's fault, and the test that finds exactly these.

use super::*;

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
