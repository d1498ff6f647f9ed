//! The minimal probes of issue 33, each a pair of documents whose right verdict is known:
//! an enum beside a `oneOf` gains a value, a `oneOf` of V0/V1/V3 narrowed to one `$ref`
//! V3, a hex pattern widened, errors sharing a code; and the keywords compared since
//! (`not`, `if`/`then`/`else`, `patternProperties`, tuples), subscriptions without a
//! flag, and which side fails to load.

use rpcsmith_cli::diff::{self, Options, Report};
use serde_json::{Value, json};

/// A document with one method `m` (params `params`, result `result`, errors `errors`)
/// and `schemas` as components.
fn document(params: Value, result: Value, errors: Value, schemas: Value) -> Value {
    json!({
        "openrpc": "1.3.2",
        "info": {"title": "Probe", "version": "1"},
        "methods": [{
            "name": "m",
            "params": params,
            "result": {"name": "r", "schema": result},
            "errors": errors
        }],
        "components": {"schemas": schemas}
    })
}

fn run_documents(old: &Value, new: &Value) -> Report {
    let dir = tempfile::tempdir().unwrap();
    let (o, n) = (dir.path().join("old.json"), dir.path().join("new.json"));
    std::fs::write(&o, serde_json::to_string_pretty(old).unwrap()).unwrap();
    std::fs::write(&n, serde_json::to_string_pretty(new).unwrap()).unwrap();
    diff::diff(&o, &n, &Options::new()).unwrap_or_else(|e| panic!("{e}"))
}

/// Each finding as `label: [schema: ]message (uses)`.
fn lines(report: &Report) -> Vec<String> {
    report
        .findings
        .iter()
        .map(|f| {
            let schema = f
                .schema
                .as_ref()
                .map_or(String::new(), |s| format!("{s}: "));
            let label = f.to_string();
            let label = label.split(": ").next().unwrap().to_owned();
            format!("{label}: {schema}{} ({})", f.message, f.uses.join(", "))
        })
        .collect()
}

/// The findings when the result schema's components go `old` → `new` (the result is
/// `{"$ref": "#/components/schemas/RECEIPT"}`).
fn receipts(old: Value, new: Value) -> Vec<String> {
    let receipt = json!({"$ref": "#/components/schemas/RECEIPT"});
    let doc = |schemas| document(json!([]), receipt.clone(), json!([]), schemas);
    lines(&run_documents(&doc(old), &doc(new)))
}

/// Starknet's layout: a receipt is `allOf` common members and a `oneOf` of kinds.
fn starknet_receipts(statuses: Value, common_members: Value) -> Value {
    json!({
        "RECEIPT": {"allOf": [
            {"$ref": "#/components/schemas/COMMON_RECEIPT_PROPERTIES"},
            {"oneOf": [
                {"$ref": "#/components/schemas/INVOKE_RECEIPT"},
                {"$ref": "#/components/schemas/DEPLOY_RECEIPT"}
            ]}
        ]},
        "COMMON_RECEIPT_PROPERTIES": {
            "type": "object",
            "properties": common_members,
            "required": ["execution_status"]
        },
        "STATUS": {"type": "string", "enum": statuses},
        "INVOKE_RECEIPT": {"type": "object", "properties": {
            "type": {"type": "string", "enum": ["INVOKE"]}
        }, "required": ["type"]},
        "DEPLOY_RECEIPT": {"type": "object", "properties": {
            "type": {"type": "string", "enum": ["DEPLOY"]},
            "contract_address": {"type": "string"}
        }, "required": ["type", "contract_address"]}
    })
}

/// A change met through several alternatives of one union is reported once, with each
/// alternative's path as a use.
#[test]
fn an_enum_beside_a_one_of_gaining_a_value_breaks_clients_once() {
    let members = json!({
        "execution_status": {"$ref": "#/components/schemas/STATUS"},
        "revert_reason": {"type": "string"}
    });
    let old = starknet_receipts(json!(["SUCCEEDED", "REVERTED"]), members.clone());
    let new = starknet_receipts(json!(["SUCCEEDED", "REVERTED", "PENDING"]), members);
    assert_eq!(
        receipts(old, new),
        [
            "breaks clients: `STATUS`: values added: \"PENDING\" (m result|INVOKE_RECEIPT.execution_status, m result|DEPLOY_RECEIPT.execution_status)"
        ]
    );
}

#[test]
fn a_member_beside_a_one_of_removed_or_an_inline_enum_widened_is_found() {
    let old_members = json!({
        "execution_status": {"type": "string", "enum": ["SUCCEEDED"]},
        "revert_reason": {"type": "string"}
    });
    let new_members = json!({
        "execution_status": {"type": "string", "enum": ["SUCCEEDED", "REVERTED"]}
    });
    let old = starknet_receipts(json!([]), old_members);
    let new = starknet_receipts(json!([]), new_members);
    assert_eq!(
        receipts(old, new),
        [
            "breaks clients: `COMMON_RECEIPT_PROPERTIES`.execution_status: values added: \"REVERTED\" (m result|INVOKE_RECEIPT.execution_status, m result|DEPLOY_RECEIPT.execution_status)",
            "compatible: `COMMON_RECEIPT_PROPERTIES`.revert_reason: optional member `revert_reason` removed (m result|INVOKE_RECEIPT.revert_reason, m result|DEPLOY_RECEIPT.revert_reason)",
        ]
    );
}

#[test]
fn properties_written_beside_a_one_of_in_the_same_object_are_compared() {
    let schema = |values: Value| {
        json!({"RECEIPT": {
            "type": "object",
            "properties": {"finality": {"type": "string", "enum": values}},
            "required": ["finality"],
            "oneOf": [
                {"title": "L1", "properties": {"l1": {"type": "string"}}},
                {"title": "L2", "properties": {"l2": {"type": "string"}}}
            ]
        }})
    };
    let found = receipts(
        schema(json!(["ACCEPTED_ON_L2"])),
        schema(json!(["ACCEPTED_ON_L2", "ACCEPTED_ON_L1"])),
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(
        found[0],
        "breaks clients: `RECEIPT`.finality: values added: \"ACCEPTED_ON_L1\" (m result|L1.finality, m result|L2.finality)"
    );
}

/// A param `txn` of schema `schema`, with V0, V1 and V3 invoke transactions as components.
fn invoke_document(schema: Value) -> Value {
    let version = |v: &str, extra: &str| {
        json!({"type": "object", "properties": {
            "version": {"type": "string", "enum": [v]},
            "sender_address": {"type": "string"},
            extra: {"type": "string"}
        }, "required": ["version", "sender_address", extra]})
    };
    let schemas = json!({
        "INVOKE_TXN_V0": version("0x0", "contract_address"),
        "INVOKE_TXN_V1": version("0x1", "max_fee"),
        "INVOKE_TXN_V3": version("0x3", "resource_bounds")
    });
    document(
        json!([{"name": "txn", "required": true, "schema": schema}]),
        json!({"type": "string"}),
        json!([]),
        schemas,
    )
}

#[test]
fn a_one_of_narrowed_to_one_of_its_branches_loses_the_others_only() {
    let union = json!({"oneOf": [
        {"$ref": "#/components/schemas/INVOKE_TXN_V0"},
        {"$ref": "#/components/schemas/INVOKE_TXN_V1"},
        {"$ref": "#/components/schemas/INVOKE_TXN_V3"}
    ]});
    let v3 = json!({"$ref": "#/components/schemas/INVOKE_TXN_V3"});
    let narrowed = run_documents(
        &invoke_document(union.clone()),
        &invoke_document(v3.clone()),
    );
    assert_eq!(
        lines(&narrowed),
        [
            "breaks clients: `INVOKE_TXN_V3`: alternatives removed: `INVOKE_TXN_V0`, `INVOKE_TXN_V1` (m params.txn)"
        ]
    );
    let widened = run_documents(&invoke_document(v3), &invoke_document(union));
    assert_eq!(
        lines(&widened),
        [
            "breaks servers: `INVOKE_TXN_V3`: alternatives added: `INVOKE_TXN_V0`, `INVOKE_TXN_V1` (m params.txn)"
        ]
    );
}

#[test]
fn alternatives_are_paired_by_discriminator_or_structure_not_position() {
    // Untitled inline alternatives, reordered, one gaining a member.
    let v = |v: &str, more: bool| {
        let mut properties = json!({"version": {"const": v}, "a": {"type": "string"}});
        if more {
            properties["b"] = json!({"type": "string"});
        }
        json!({"type": "object", "properties": properties})
    };
    let old = invoke_document(json!({"oneOf": [v("0x1", false), v("0x3", false)]}));
    let new = invoke_document(json!({"oneOf": [v("0x3", true), v("0x1", false)]}));
    assert_eq!(
        lines(&run_documents(&old, &new)),
        ["compatible: new optional member `b` (m params.txn|1.b)"]
    );
}

fn pattern_document(pattern: &str, in_params: bool) -> Value {
    let hex = json!({"type": "string", "pattern": pattern});
    let schemas = json!({"FELT": hex});
    let felt = json!({"$ref": "#/components/schemas/FELT"});
    match in_params {
        true => document(
            json!([{"name": "f", "required": true, "schema": felt}]),
            json!({"type": "boolean"}),
            json!([]),
            schemas,
        ),
        false => document(json!([]), felt, json!([]), schemas),
    }
}

#[test]
fn a_widened_hex_pattern_breaks_one_side_only() {
    let (old, new) = ("^0x[a-fA-F0-9]{1,63}$", "^0x[a-fA-F0-9]{1,64}$");
    let params = run_documents(&pattern_document(old, true), &pattern_document(new, true));
    assert_eq!(
        lines(&params),
        [
            "breaks servers: `FELT`: pattern `^0x[a-fA-F0-9]{1,63}$` → `^0x[a-fA-F0-9]{1,64}$` (m params.f)"
        ]
    );
    let result = run_documents(&pattern_document(old, false), &pattern_document(new, false));
    assert_eq!(
        lines(&result),
        [
            "breaks clients: `FELT`: pattern `^0x[a-fA-F0-9]{1,63}$` → `^0x[a-fA-F0-9]{1,64}$` (m result)"
        ]
    );
    let narrowed = run_documents(&pattern_document(new, true), &pattern_document(old, true));
    assert!(lines(&narrowed)[0].starts_with("breaks clients: "));
    let disjoint = run_documents(
        &pattern_document("^0x[0-9]+$", true),
        &pattern_document("^[0-9]+$", true),
    );
    assert!(lines(&disjoint)[0].starts_with("breaks clients and servers: "));
}

#[test]
fn a_pattern_outside_what_is_decided_is_of_unknown_direction_and_breaks_nobody_for_sure() {
    let report = run_documents(
        &pattern_document("^(?!0x)[0-9]+$", true),
        &pattern_document("^[0-9]+$", true),
    );
    let found = lines(&report);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].starts_with("direction unknown: `FELT`: pattern"),
        "{found:#?}"
    );
    assert!(
        found[0].contains("which allows more is unknown"),
        "{found:#?}"
    );
    assert!(!report.is_breaking());
    assert!(
        report
            .to_string()
            .ends_with("(1 of them of unknown direction: check by hand)")
    );
}

/// MetaMask's `wallet_addEthereumChain` declares six errors of code -32602.
fn metamask_errors() -> Vec<Value> {
    [
        "Expected 0x-prefixed, unpadded, non-zero hexadecimal string 'chainId'.",
        "Invalid chain ID: numerical value greater than max safe value.",
        "May not specify default MetaMask chain.",
        "Expected 2-6 character string 'nativeCurrency.symbol'.",
        "nativeCurrency.symbol does not match currency symbol for a network the user already has added with the same chainId.",
        "Expected null or array with at least one valid string HTTPS URL 'blockExplorerUrl'.",
    ]
    .iter()
    .map(|m| json!({"code": -32602, "message": m}))
    .chain([json!({"code": 4001, "message": "User rejected the request."})])
    .collect()
}

fn errors_document(errors: Vec<Value>) -> Value {
    document(
        json!([]),
        json!({"type": "null"}),
        Value::Array(errors),
        json!({}),
    )
}

#[test]
fn errors_sharing_a_code_are_paired_by_message_and_their_count_is_a_finding() {
    let all = metamask_errors();
    assert_eq!(
        lines(&run_documents(
            &errors_document(all.clone()),
            &errors_document(all.clone())
        )),
        Vec::<String>::new()
    );
    let mut reordered = all.clone();
    reordered.reverse();
    assert_eq!(
        lines(&run_documents(
            &errors_document(all.clone()),
            &errors_document(reordered)
        )),
        Vec::<String>::new()
    );
    let mut fewer = all.clone();
    fewer.remove(2);
    fewer[6 - 1]["message"] = json!("User rejected.");
    assert_eq!(
        lines(&run_documents(
            &errors_document(all.clone()),
            &errors_document(fewer)
        )),
        [
            "compatible: error -32602 (\"May not specify default MetaMask chain.\") no longer declared; other errors with code -32602 remain (m)",
            "compatible: error 4001 message \"User rejected the request.\" → \"User rejected.\" (m)",
            "compatible: errors with code -32602: 6 declared → 5 (m)",
        ]
    );
    let only_4001 = vec![all[6].clone()];
    let gone = lines(&run_documents(
        &errors_document(all),
        &errors_document(only_4001),
    ));
    assert_eq!(gone.len(), 6, "{gone:#?}");
    assert!(
        gone.iter()
            .all(|l| l.starts_with("breaks servers: error -32602")),
        "{gone:#?}"
    );
}

#[test]
fn not_conditionals_pattern_properties_and_tuples_are_compared() {
    let param = |schema: Value| {
        document(
            json!([{"name": "p", "required": true, "schema": schema}]),
            json!({"type": "null"}),
            json!([]),
            json!({}),
        )
    };
    let found = |old: Value, new: Value| lines(&run_documents(&param(old), &param(new)));
    // A wider `not` refuses more: narrowed, which breaks clients in params.
    assert_eq!(
        found(
            json!({"type": "string", "not": {"enum": ["a"]}}),
            json!({"type": "string", "not": {"enum": ["a", "b"]}})
        ),
        ["breaks clients: values added: \"b\" (m params.p!not)"]
    );
    assert_eq!(
        found(
            json!({"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}}),
            json!({"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b", "c"]}})
        ),
        ["breaks clients: new required member `c` (m params.p!then.c)"]
    );
    assert_eq!(
        found(
            json!({"type": "object", "patternProperties": {"^[0-9]+$": {"type": "string"}}, "additionalProperties": false}),
            json!({"type": "object", "patternProperties": {"^[0-9]+$": {"type": ["string", "null"]}}, "additionalProperties": false})
        ),
        ["breaks servers: type string → [null, string] (m params.p.<^[0-9]+$>)"]
    );
    assert_eq!(
        found(
            json!({"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}),
            json!({"type": "array", "items": [{"type": "string"}, {"type": "number"}, {"type": "string"}]})
        ),
        [
            "breaks servers: type integer → number (m params.p[1])",
            "breaks clients: tuple items: 2 positions → 3 (m params.p)",
        ]
    );
    assert_eq!(
        found(
            json!({"type": "integer", "multipleOf": 2}),
            json!({"type": "integer", "multipleOf": 4})
        ),
        ["breaks clients: multipleOf 2 → 4 (m params.p)"]
    );
}

#[test]
fn a_subscriptions_notifications_are_sent_by_the_server_without_a_flag() {
    let doc = |item: Value| {
        json!({
            "openrpc": "1.3.2",
            "info": {"title": "Subs", "version": "1"},
            "methods": [
                {"name": "starknet_subscribeNewHeads", "params": [], "result": {"name": "id", "schema": {"type": "string"}}},
                {"name": "starknet_subscriptionNewHeads", "params": [
                    {"name": "subscription_id", "required": true, "schema": {"type": "string"}},
                    {"name": "result", "required": true, "schema": item}
                ]}
            ]
        })
    };
    // The server may now send a value old clients refuse: it breaks clients.
    let report = run_documents(
        &doc(json!({"type": "integer"})),
        &doc(json!({"type": "number"})),
    );
    assert_eq!(
        lines(&report),
        ["breaks clients: type integer → number (starknet_subscriptionNewHeads params.result)"]
    );
}

#[test]
fn a_document_that_does_not_load_is_named_with_the_include_directory_it_needs() {
    let dir = tempfile::tempdir().unwrap();
    let api = dir.path().join("api");
    std::fs::create_dir(&api).unwrap();
    let shared = json!({"components": {"schemas": {"FELT": {"type": "string"}}}});
    std::fs::write(api.join("shared.json"), shared.to_string()).unwrap();
    // Written as Starknet does: relative to the repository's root, not to the file.
    let felt = json!({"$ref": "./api/shared.json#/components/schemas/FELT"});
    let new = document(json!([]), felt, json!([]), json!({}));
    let old = document(json!([]), json!({"type": "string"}), json!([]), json!({}));
    std::fs::write(api.join("old.json"), old.to_string()).unwrap();
    std::fs::write(api.join("new.json"), new.to_string()).unwrap();
    let error =
        diff::diff(api.join("old.json"), api.join("new.json"), &Options::new()).unwrap_err();
    let message = error.diagnostics()[0].message.clone();
    assert!(
        message.starts_with("new document: unresolvable $ref"),
        "{message}"
    );
    let root = std::path::absolute(dir.path()).unwrap();
    assert!(
        message.contains(&format!("pass --new-include {}", root.display())),
        "{message}"
    );
    let options = Options::new().new_include_dir(dir.path());
    let report = diff::diff(api.join("old.json"), api.join("new.json"), &options).unwrap();
    assert_eq!(lines(&report), Vec::<String>::new());
}

/// Starknet v0.6.0's receipt result: a `oneOf` of two `$ref`s to unions that share a title
/// (`Transaction Receipt`), the pending one here of one branch. `pending_finality` are the
/// values of the pending invoke receipt's `finality`; `declare` adds a declare receipt to
/// the accepted union.
fn receipt_unions(pending_finality: Value, declare: bool) -> Value {
    let kind = |kind: &str, finality: Value| {
        json!({"type": "object", "properties": {
            "type": {"type": "string", "enum": [kind]},
            "finality": {"type": "string", "enum": finality}
        }, "required": ["type", "finality"]})
    };
    let mut accepted = vec![
        json!({"$ref": "#/components/schemas/INVOKE_RECEIPT"}),
        json!({"$ref": "#/components/schemas/DEPLOY_RECEIPT"}),
    ];
    if declare {
        accepted.push(json!({"$ref": "#/components/schemas/DECLARE_RECEIPT"}));
    }
    json!({
        "RECEIPT": {"oneOf": [
            {"title": "Transaction receipt", "$ref": "#/components/schemas/ACCEPTED_RECEIPT"},
            {"title": "Pending receipt", "$ref": "#/components/schemas/PENDING_RECEIPT"}
        ]},
        "ACCEPTED_RECEIPT": {"title": "Transaction Receipt", "oneOf": accepted},
        "PENDING_RECEIPT": {"title": "Transaction Receipt", "oneOf": [
            {"$ref": "#/components/schemas/PENDING_INVOKE_RECEIPT"}
        ]},
        "INVOKE_RECEIPT": kind("INVOKE", json!(["ACCEPTED_ON_L2"])),
        "DEPLOY_RECEIPT": kind("DEPLOY", json!(["ACCEPTED_ON_L2"])),
        "DECLARE_RECEIPT": kind("DECLARE", json!(["ACCEPTED_ON_L2"])),
        "PENDING_INVOKE_RECEIPT": kind("INVOKE", pending_finality)
    })
}

/// Alternatives that share a title are told apart by their `$ref` names: the shape diffed
/// with itself has no difference, and a change inside it or to one of its unions is found.
#[test]
fn unions_sharing_a_title_are_paired_by_their_ref_names() {
    let pending = json!(["ACCEPTED_ON_L2"]);
    let same = receipts(
        receipt_unions(pending.clone(), false),
        receipt_unions(pending.clone(), false),
    );
    assert_eq!(same, Vec::<String>::new());
    let widened = receipts(
        receipt_unions(pending.clone(), false),
        receipt_unions(json!(["ACCEPTED_ON_L2", "PENDING"]), false),
    );
    assert_eq!(
        widened,
        [
            "breaks clients: `PENDING_INVOKE_RECEIPT`.finality: values added: \"PENDING\" (m result|PENDING_RECEIPT|PENDING_INVOKE_RECEIPT.finality)"
        ]
    );
    let declare = receipts(
        receipt_unions(pending.clone(), false),
        receipt_unions(pending, true),
    );
    assert_eq!(
        declare,
        [
            "breaks clients: `ACCEPTED_RECEIPT`: alternatives added: `DECLARE_RECEIPT` (m result|ACCEPTED_RECEIPT)"
        ]
    );
}

/// Inline alternatives that share a title, a type and (no) members, without a `$ref`, are
/// told apart by their text.
#[test]
fn inline_alternatives_sharing_a_title_are_paired_by_their_text() {
    let union = |length: u64| {
        json!({"RECEIPT": {"oneOf": [
            {"title": "Hash", "type": "string", "pattern": "^0x[0-9a-f]+$"},
            {"title": "Hash", "type": "string", "maxLength": length}
        ]}})
    };
    assert_eq!(receipts(union(66), union(66)), Vec::<String>::new());
    // The unchanged one is paired by its text, then the title names one partner left.
    assert_eq!(
        receipts(union(66), union(64)),
        ["breaks servers: `RECEIPT`: maxLength 66 → 64 (m result|Hash)"]
    );
}
