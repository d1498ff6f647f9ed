//! What a client or a server says when a value does not fit its generated type: where in
//! the value, what was wanted, which schema says so (its pointer and `file:line:col`),
//! and for an untagged enum, why the nearest variant failed. Exact texts, on Ethereum's
//! execution-apis document (`refs-openrpc.json`), with the values real nodes and client
//! libraries send where they deviate from it (issue 13).

use rpcsmith::protocol::mismatch;
use rpcsmith_corpus_types::CORPUS_PRESENT;
use rpcsmith_corpus_types::d10::types::GenericTransaction;
use rpcsmith_corpus_types::d10::{EthGetBlockByHashResult, EthGetTransactionByHashResult};
use serde_json::{Value, json};

/// A legacy transaction as a dev node answers it: all but `blockTimestamp`.
fn transaction() -> Value {
    json!({
        "blockHash": "0x6b8d6bbe3ba2ae4df5e6e31ee39ab1e1b2e3ba7b4b0c6ea7e2d1a8cc1f1e2a3b",
        "blockNumber": "0x1",
        "from": "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
        "gas": "0x5208",
        "gasPrice": "0x3b9aca00",
        "hash": "0x9fc76417374aa880d4449a1f7f31ec597f00b1f6f3dd2d66f4c9c6c445836d8b",
        "input": "0x",
        "nonce": "0x0",
        "to": "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
        "transactionIndex": "0x0",
        "value": "0xde0b6b3a7640000",
        "type": "0x0",
        "chainId": "0x7a69",
        "v": "0xf4f5",
        "r": "0x3c3bd3e9a5f1e3f2c0c9e8e45d4f7c4f2b1f1f0f3e2d1c0b0a09080706050403",
        "s": "0x1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a"
    })
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
         (schema #/components/schemas/TransactionInfo at refs-openrpc.json:3240:7); \
         nearest of 2 variants: `FullTransactions` of \
         #/components/schemas/Block/properties/transactions at refs-openrpc.json:553:11"
    );
    assert_eq!(
        error::<EthGetTransactionByHashResult>(&transaction()),
        "missing member `blockTimestamp` \
         (schema #/components/schemas/TransactionInfo at refs-openrpc.json:3240:7)"
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
         (schema #/components/schemas/Block/properties/transactions at refs-openrpc.json:553:11); \
         nearest of 2 variants: `TransactionHashes` of \
         #/components/schemas/Block/properties/transactions at refs-openrpc.json:553:11"
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
         (schema #/components/schemas/GenericTransaction at refs-openrpc.json:1813:7)"
    );
}
