//! One server of three corpus documents at once: Starknet's read, write and trace APIs,
//! each a generated (partial) dispatcher, mounted on a `Router` and served over HTTP.
//! Each document's generated client reaches its methods; `rpc.discover` answers one
//! merged document; per-mount middleware sees only its mount's calls, the server's
//! middleware all; an overlapping mount is refused naming both. Left out, with a
//! message, where the corpus is absent.
#![cfg(corpus)]

mod support;

use std::sync::Arc;

use rpcsmith::client::{Client, Error};
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::router::Error as RouterError;
use rpcsmith::server::{
    BoxFuture, Call, CallResult, Context, Dispatch, Failure, Middleware, Mount, Next, Reply,
    Router, Server,
};
use rpcsmith_services::{starknet, starknet_trace, starknet_write};
use serde_json::Value;
use serde_json::value::RawValue;

/// A node serving a method or two of each document.
struct Node;

impl starknet::StarknetServer for Node {
    async fn starknet_chain_id(&self, _: Context) -> Result<String, Failure> {
        Ok("0x534e5f5345504f4c4941".into())
    }

    async fn starknet_block_number(
        &self,
        _: Context,
    ) -> Result<u64, Failure<starknet::StarknetBlockNumberError>> {
        Ok(7)
    }
}

impl starknet_write::StarknetWriteServer for Node {
    async fn starknet_add_invoke_transaction(
        &self,
        _: Context,
        transaction: starknet_write::types::BroadcastedInvokeTxn,
    ) -> Result<
        starknet_write::StarknetAddInvokeTransactionResult,
        Failure<starknet_write::StarknetAddInvokeTransactionError>,
    > {
        if transaction.nonce != "0x0" {
            return Err(
                starknet_write::StarknetAddInvokeTransactionError::InvalidTransactionNonce(
                    format!("expected 0x0, got {}", transaction.nonce),
                )
                .into(),
            );
        }
        Ok(starknet_write::types::StarknetAddInvokeTransactionResult {
            transaction_hash: "0x123".into(),
        })
    }
}

impl starknet_trace::StarknetTraceServer for Node {
    async fn starknet_trace_transaction(
        &self,
        _: Context,
        _: starknet_trace::types::Felt,
    ) -> Result<
        starknet_trace::StarknetTraceTransactionResult,
        Failure<starknet_trace::StarknetTraceTransactionError>,
    > {
        Err(starknet_trace::StarknetTraceTransactionError::TxnHashNotFound.into())
    }
}

/// Counts the calls it sees, by method name as it sees it.
#[derive(Clone, Default)]
struct Count(Arc<std::sync::Mutex<Vec<String>>>);

impl Middleware for Count {
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, CallResult> {
        self.0.lock().unwrap().push(call.method.to_owned());
        next.run(call)
    }
}

impl Count {
    fn seen(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

fn router(write_calls: &Count) -> Result<Router, RouterError> {
    let node = Arc::new(Node);
    Router::builder()
        .mount(Mount::new(
            "read",
            starknet::StarknetDispatcher::from_arc(node.clone()),
        ))
        .mount(
            Mount::new(
                "write",
                starknet_write::StarknetWriteDispatcher::from_arc(node.clone()),
            )
            .middleware(write_calls.clone()),
        )
        .mount(Mount::new(
            "trace",
            starknet_trace::StarknetTraceDispatcher::from_arc(node),
        ))
        .build()
}

fn invoke(nonce: &str) -> starknet_write::types::BroadcastedInvokeTxn {
    let bounds = serde_json::json!({"max_amount": "0x0", "max_price_per_unit": "0x0"});
    serde_json::from_value(serde_json::json!({
        "type": "INVOKE", "sender_address": "0x1", "calldata": [], "version": "0x3",
        "signature": [], "nonce": nonce,
        "resource_bounds": {"l1_gas": bounds, "l1_data_gas": bounds, "l2_gas": bounds},
        "tip": "0x0", "paymaster_data": [], "account_deployment_data": [],
        "nonce_data_availability_mode": "L1", "fee_data_availability_mode": "L1"
    }))
    .unwrap()
}

async fn serve(router: Router, all_calls: &Count) -> (Client, tokio::sync::oneshot::Sender<()>) {
    let server = Server::builder(router)
        .middleware(all_calls.clone())
        .build();
    let (client, stop) = support::connect(server, true).await;
    (client, stop.unwrap())
}

#[tokio::test]
async fn three_documents_on_one_server() {
    let (write_calls, all_calls) = (Count::default(), Count::default());
    let (inner, _stop) = serve(router(&write_calls).unwrap(), &all_calls).await;

    let read = starknet::StarknetClient::new(inner.clone());
    assert_eq!(read.starknet_block_number().await.unwrap(), 7);
    assert_eq!(
        read.starknet_chain_id().await.unwrap(),
        "0x534e5f5345504f4c4941"
    );
    let not_served = read.starknet_syncing().await;
    assert!(
        matches!(not_served, Err(Error::Undeclared(ref e)) if e.code == -32601),
        "{not_served:?}"
    );

    let write = starknet_write::StarknetWriteClient::new(inner.clone());
    let added = write
        .starknet_add_invoke_transaction(invoke("0x0"))
        .await
        .unwrap();
    assert_eq!(added.transaction_hash, "0x123");
    let refused = write.starknet_add_invoke_transaction(invoke("0x5")).await;
    assert!(
        matches!(
            refused,
            Err(Error::Declared(
                starknet_write::StarknetAddInvokeTransactionError::InvalidTransactionNonce(ref why)
            )) if why == "expected 0x0, got 0x5"
        ),
        "{refused:?}"
    );

    let trace = starknet_trace::StarknetTraceClient::new(inner.clone());
    let missing = trace.starknet_trace_transaction("0x9".into()).await;
    assert!(
        matches!(
            missing,
            Err(Error::Declared(
                starknet_trace::StarknetTraceTransactionError::TxnHashNotFound
            ))
        ),
        "{missing:?}"
    );

    // A name none of the three documents has.
    let unknown: Result<Value, _> = inner.request("starknet_nothing", &()).await;
    assert!(matches!(unknown, Err(Error::Undeclared(ref e)) if e.code == -32601));

    // The write mount's middleware saw its calls only; the server's saw every call.
    let add = "starknet_addInvokeTransaction";
    assert_eq!(write_calls.seen(), [add, add]);
    // block number, chain id, syncing, two invokes, a trace, the unknown name.
    assert_eq!(all_calls.seen().len(), 7);
}

#[tokio::test]
async fn rpc_discover_answers_one_merged_document() {
    let (inner, _stop) = serve(router(&Count::default()).unwrap(), &Count::default()).await;
    let merged: Value = inner.request("rpc.discover", &()).await.unwrap();
    let sources: Vec<Value> = [
        starknet::DOCUMENT,
        starknet_write::DOCUMENT,
        starknet_trace::DOCUMENT,
    ]
    .iter()
    .map(|text| serde_json::from_str(text).unwrap())
    .collect();

    assert_eq!(
        merged["info"],
        serde_json::json!({
            "title": "StarkNet Node API + StarkNet Node Write API + StarkNet Trace API",
            "version": "0.10.4-rc.1"
        })
    );
    let names = |doc: &Value| -> Vec<String> {
        doc["methods"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let expected: Vec<String> = sources.iter().flat_map(names).collect();
    assert_eq!(expected.len(), 25 + 3 + 3);
    assert_eq!(names(&merged), expected);
    let listed: Vec<String> = inner.request("rpc.methods", &()).await.unwrap();
    assert_eq!(listed, expected);

    // Every component of every document is in the merged one: under its own name, or,
    // where an earlier document has a different one of that name, namespaced
    // `<mount>.<name>`.
    let schemas = &merged["components"]["schemas"];
    for (mount, source) in ["read", "write", "trace"].iter().zip(&sources) {
        for name in source["components"]["schemas"].as_object().unwrap().keys() {
            assert!(schemas.get(name).is_some(), "{mount}: {name}");
        }
    }
    // The read API comes first: its components keep their names and values.
    for (name, schema) in sources[0]["components"]["schemas"].as_object().unwrap() {
        assert_eq!(&schemas[name], schema, "{name}");
    }
    // The write API's `FELT` is an alias of its bundled copy of the read API's; it
    // clashes with the read API's own, so it is namespaced. The copy it names is equal
    // to the trace API's copy, which is kept once.
    let write = &sources[1]["components"]["schemas"];
    assert_eq!(
        write["FELT"],
        serde_json::json!({"$ref": "#/components/schemas/FELT_2"})
    );
    assert_eq!(schemas["write.FELT"], write["FELT"]);
    assert_eq!(schemas["FELT_2"], write["FELT_2"]);
    assert_eq!(
        schemas["FELT_2"],
        sources[2]["components"]["schemas"]["FELT_2"]
    );
    assert!(schemas.get("trace.FELT").is_some());
    assert!(schemas.get("trace.FELT_2").is_none());
    // The write API's methods refer to its own components, renamed where they clash.
    let add = &merged["methods"][25];
    assert_eq!(add["name"], "starknet_addInvokeTransaction");
    assert_eq!(
        add["params"][0]["schema"]["$ref"],
        "#/components/schemas/write.BROADCASTED_INVOKE_TXN"
    );
    // Every `$ref` of the merged document resolves inside it.
    let mut refs = Vec::new();
    collect_refs(&merged, &mut refs);
    assert!(refs.len() > 100);
    for target in refs {
        let pointer = target.trim_start_matches('#');
        assert!(
            merged.pointer(pointer).is_some(),
            "{target} does not resolve"
        );
    }
}

fn collect_refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, member) in map {
                match (key.as_str(), member) {
                    ("$ref", Value::String(target)) => out.push(target.clone()),
                    _ => collect_refs(member, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_refs(item, out)),
        _ => {}
    }
}

/// A hand-written dispatcher that claims a name the read API has too.
struct Legacy;

impl Dispatch for Legacy {
    fn call(&self, _: &str, _: Option<&RawValue>, _: Context) -> Reply {
        Reply::err(ErrorObject::method_not_found())
    }

    fn methods(&self) -> Option<Vec<&str>> {
        Some(vec!["legacy_version", "starknet_chainId"])
    }
}

#[test]
fn an_overlap_is_refused_naming_both_mounts() {
    let refused = Router::builder()
        .mount(Mount::new("read", starknet::StarknetDispatcher::new(Node)))
        .mount(Mount::new("legacy", Legacy))
        .build()
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "method `starknet_chainId` is answered by both mount `read` and mount `legacy`"
    );
    // With a prefix, the two live side by side.
    let side_by_side = Router::builder()
        .mount(Mount::new("read", starknet::StarknetDispatcher::new(Node)))
        .mount(Mount::new("legacy", Legacy).prefix("old_"))
        .build()
        .unwrap();
    let names = side_by_side.methods().unwrap();
    assert!(names.contains(&"old_starknet_chainId"));
    assert!(names.contains(&"starknet_chainId"));
    assert_eq!(names.len(), 25 + 2);
}
