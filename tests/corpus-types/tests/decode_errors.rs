//! What a client or a server says when a value does not fit its generated type: where in
//! the value, what was wanted, which schema says so (its pointer, and through a generated
//! client or dispatcher its `file:line:col`, under the method called),
//! and for an untagged enum, why the nearest variant failed. Exact texts, on Ethereum's
//! execution-apis document (`refs-openrpc.json`), with the values real nodes and client
//! libraries send where they deviate from it (issue 13).

use rpcsmith::protocol::mismatch;
use rpcsmith_corpus_types::CORPUS_PRESENT;
use rpcsmith_corpus_types::d10::types::GenericTransaction;
use rpcsmith_corpus_types::d10::{EthGetBlockByHashResult, EthGetTransactionByHashResult};
use serde_json::{Value, json};

/// A legacy transaction as a dev node answers it: all but `blockTimestamp`.
fn transaction() -> serde_json::Value {
    serde_json::from_str(rpcsmith_corpus::DEV_NODE_TRANSACTION).expect("JSON")
}

/// A block as a dev node answers `eth_getBlockByHash(…, true)`, holding `transactions`.
fn block(transactions: Value) -> Value {
    let zero32 = format!("0x{}", "0".repeat(64));
    json!({
        "hash": zero32, "parentHash": zero32, "sha3Uncles": zero32,
        "miner": "0x0000000000000000000000000000000000000000",
        "stateRoot": zero32, "transactionsRoot": zero32, "receiptsRoot": zero32,
        "logsBloom": format!("0x{}", "0".repeat(512)),
        "difficulty": "0x0", "number": "0x1", "gasLimit": "0x1c9c380", "gasUsed": "0x5208",
        "timestamp": "0x6553f100", "extraData": "0x", "mixHash": zero32,
        "nonce": "0x0000000000000000", "size": "0x2a0", "uncles": [],
        "transactions": transactions
    })
}

fn error<T: serde::de::DeserializeOwned + std::fmt::Debug>(value: &Value) -> String {
    mismatch::from_str::<T>(&value.to_string())
        .map(|v| format!("decoded: {v:?}"))
        .unwrap_or_else(|e| e.to_string())
}

#[test]
fn a_missing_required_member_deep_in_a_result() {
    if !CORPUS_PRESENT {
        return;
    }
    let answer = block(json!([transaction()]));
    assert_eq!(
        error::<EthGetBlockByHashResult>(&answer),
        "at /transactions/0: missing member `blockTimestamp` \
         (schema #/components/schemas/TransactionInfo); \
         nearest of 2 variants: `FullTransactions` of \
         #/components/schemas/Block/properties/transactions"
    );
    assert_eq!(
        error::<EthGetTransactionByHashResult>(&transaction()),
        "missing member `blockTimestamp` \
         (schema #/components/schemas/TransactionInfo)"
    );
}

#[test]
fn a_wrong_type_inside_an_untagged_enum() {
    if !CORPUS_PRESENT {
        return;
    }
    let answer = block(json!([5]));
    assert_eq!(
        error::<EthGetBlockByHashResult>(&answer),
        "at /transactions/0: expected a string, found an integer 5 \
         (schema #/components/schemas/Block/properties/transactions); \
         nearest of 2 variants: `TransactionHashes` of \
         #/components/schemas/Block/properties/transactions"
    );
}

#[test]
fn an_unknown_member_in_a_closed_object() {
    if !CORPUS_PRESENT {
        return;
    }
    // Client libraries send `eth_call`'s calldata as `data`; the document lists `input`.
    let call = json!({"to": "0x5fbdb2315678afecb367f032d93f642f64180aa3", "data": "0x70a08231"});
    assert_eq!(
        error::<GenericTransaction>(&call),
        "unknown member `data` \
         (schema #/components/schemas/GenericTransaction)"
    );
}

/// A transport that answers every call with `result`, as a node would.
struct Answers {
    result: Value,
}

impl rpcsmith::client::Transport for Answers {
    fn send(&self, message: bytes::Bytes) -> rpcsmith::client::SendFuture<'_> {
        let request: Value = serde_json::from_slice(&message).expect("a JSON request");
        let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": self.result});
        let body = bytes::Bytes::from(answer.to_string());
        Box::pin(async move { Ok(rpcsmith::client::Delivery::Answer(body)) })
    }

    fn is_request_response(&self) -> bool {
        true
    }
}

/// In the bundled execution-apis document (`openrpc.json`, every schema inline), the
/// transaction schema is written under every method that returns one; its type is named
/// and converted at the first place (`debug_getBadBlocks`, `#/methods/0/…`). A client
/// calling `eth_getTransactionByHash` is told the place under that method, with its
/// line and column in the file: the module's `PLACES` table, read only for the error.
#[test]
fn a_decode_error_cites_the_place_under_the_method_called() {
    if !CORPUS_PRESENT {
        return;
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let client = rpcsmith::client::Client::new(Answers {
        result: transaction(),
    });
    let client = rpcsmith_corpus_types::d09::EthereumJsonRpcSpecificationClient::new(client);
    let hash = format!("0x{}", "ab".repeat(32));
    let error = runtime
        .block_on(client.eth_get_transaction_by_hash(hash))
        .expect_err("a transaction without `blockTimestamp` does not decode");
    // The type is named and converted at `#/methods/0/result/schema/items/properties/
    // block/properties/transactions/anyOf/1/items`; line 16862, column 13 of the file is
    // the `{` that opens the transaction branch of `eth_getTransactionByHash`'s result.
    assert_eq!(
        error.to_string(),
        "could not decode result: missing member `blockTimestamp` \
         (schema #/methods/67/result/schema/oneOf/1 at openrpc.json:16862:13)"
    );
}

/// The server side of the same: in the bundled document the transaction a call takes is
/// written under each of `eth_call`, `eth_createAccessList`, `eth_estimateGas`, … and
/// its type converted at the first. A dispatcher answering `eth_estimateGas` with `-32602`
/// cites the place under `eth_estimateGas` (`#/methods/47`), with its line and column.
#[test]
fn a_params_error_cites_the_place_under_the_method_called() {
    if !CORPUS_PRESENT {
        return;
    }
    use rpcsmith_corpus_types::d09::{
        EthereumJsonRpcSpecificationDispatcher, EthereumJsonRpcSpecificationServer,
    };
    /// Serves nothing: every params error is answered before a handler would run.
    struct Node;
    impl EthereumJsonRpcSpecificationServer for Node {}
    let server = rpcsmith::server::Server::new(EthereumJsonRpcSpecificationDispatcher::new(Node));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let refused = |method: &str, params: Value| {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let answer = runtime
            .block_on(server.handle(call.to_string().as_bytes(), Default::default()))
            .expect("a call is answered");
        let answer: Value = serde_json::from_slice(&answer).expect("JSON");
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        answer["error"]["message"]
            .as_str()
            .expect("a message")
            .to_owned()
    };
    // Line 9935, column 11 of the file is the `"schema"` member of `eth_estimateGas`'s
    // `Transaction` param (checked by hand); line 8568, column 11 `eth_call`'s.
    assert_eq!(
        refused("eth_estimateGas", json!(["x"])),
        "invalid param `Transaction`: expected an object, found a string \"x\" \
         (schema #/methods/47/params/0/schema at openrpc.json:9935:11)"
    );
    assert_eq!(
        refused("eth_call", json!(["x"])),
        "invalid param `Transaction`: expected an object, found a string \"x\" \
         (schema #/methods/41/params/0/schema at openrpc.json:8568:11)"
    );
}
