//! What the Starknet WebSocket tests share: a block header as the node sends it, for
//! whichever generated module's `BlockHeader` the test decodes it into, and the answer
//! to what the test node does not serve.
#![allow(dead_code, unreachable_pub)]

use rpcsmith::protocol::ErrorObject;
use serde_json::{Value, json};

/// What the test node answers to the subscriptions it does not serve.
pub fn not_served() -> ErrorObject {
    ErrorObject::new(-32000, "not served by this test node")
}

/// Block `number`'s header, as JSON.
pub fn header_json(number: u64) -> Value {
    let felt = |n: u64| format!("{n:#x}");
    let price = json!({"price_in_fri": felt(1), "price_in_wei": felt(2)});
    json!({
        "block_hash": felt(0x100 + number),
        "parent_hash": felt(0x100 + number - 1),
        "block_number": number,
        "new_root": felt(7),
        "timestamp": 1_700_000_000 + number,
        "sequencer_address": felt(9),
        "l1_gas_price": price,
        "l2_gas_price": price,
        "l1_data_gas_price": price,
        "l1_da_mode": "BLOB",
        "starknet_version": "0.14.0",
        "event_commitment": felt(0),
        "transaction_commitment": felt(0),
        "receipt_commitment": felt(0),
        "state_diff_commitment": felt(0),
        "event_count": 0,
        "transaction_count": 0,
        "state_diff_length": 0,
    })
}
