//! Ethereum's execution-apis document, bent by two overrides to what real nodes and
//! client libraries send (issue 13): transactions without `blockTimestamp` (two widely
//! used dev nodes leave it out), and `eth_call`'s calldata as `data` (viem, ethers and
//! web3.py send it so, where the document's closed object lists `input`).
#![cfg(corpus)]

use rpcsmith_overrides::eth::EthGetTransactionByHashResult;
use rpcsmith_overrides::eth::types::{GenericTransaction, TransactionInfo};
use serde_json::json;

/// A legacy transaction as a dev node answers it: every member but `blockTimestamp`.
fn from_a_dev_node() -> serde_json::Value {
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

#[test]
fn a_transaction_without_block_timestamp_decodes() {
    let info: TransactionInfo = serde_json::from_value(from_a_dev_node()).expect("decodes");
    assert_eq!(info.block_timestamp, None);
    let answer: EthGetTransactionByHashResult =
        rpcsmith::protocol::mismatch::from_str(&from_a_dev_node().to_string()).expect("decodes");
    assert!(
        format!("{answer:?}").contains("TransactionInfo"),
        "{answer:?}"
    );
    // Only the member made optional may be left out.
    let mut without_hash = from_a_dev_node();
    without_hash.as_object_mut().unwrap().remove("hash");
    assert!(serde_json::from_value::<TransactionInfo>(without_hash).is_err());
}

#[test]
fn calldata_sent_as_data_is_the_input() {
    let call = json!({
        "from": "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
        "to": "0x5fbdb2315678afecb367f032d93f642f64180aa3",
        "data": "0x70a08231000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266"
    });
    let tx: GenericTransaction = serde_json::from_value(call.clone()).expect("decodes");
    assert_eq!(
        tx.input.as_deref(),
        Some("0x70a08231000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266")
    );
    // Written back under the document's name.
    let written = serde_json::to_value(&tx).unwrap();
    assert_eq!(written["input"], call["data"]);
    assert!(written.get("data").is_none());
    // As the generated server decodes `eth_call`'s first param.
    let param = call.to_string();
    rpcsmith::protocol::mismatch::from_str::<GenericTransaction>(&param).expect("decodes");
    // Other unknown members are still refused: the object stays closed.
    let typo = json!({"to": "0x5fbdb2315678afecb367f032d93f642f64180aa3", "dta": "0x"});
    assert!(serde_json::from_value::<GenericTransaction>(typo).is_err());
}
