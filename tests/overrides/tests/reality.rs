//! Ethereum's execution-apis document, bent by two overrides to what real nodes and
//! client libraries send (issue 13): transactions without `blockTimestamp` (two widely
//! used dev nodes leave it out), and `eth_call`'s calldata as `data` (viem, ethers and
//! web3.py send it so, where the document's closed object lists `input`).
#![cfg(corpus)]

use rpcsmith_overrides::eth::EthGetTransactionByHashResult;
use rpcsmith_overrides::eth::types::{GenericTransaction, TransactionInfo};
use serde_json::json;

/// A legacy transaction as a dev node answers it: all but `blockTimestamp`.
fn from_a_dev_node() -> serde_json::Value {
    serde_json::from_str(rpcsmith_corpus::DEV_NODE_TRANSACTION).expect("JSON")
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
