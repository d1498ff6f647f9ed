//! The params-object override on Canton's signing API (its generator describes each
//! method's params object as one by-name param `params`): the client sends the object as
//! the params themselves, the server reads them so, and refuses anything but an object.

use rpcsmith::__private::serde_json::value::RawValue;
use rpcsmith_goldens::services::canton_signing_params_object::GetTransactionParams;
use rpcsmith_goldens::services::canton_signing_params_object::types::GetTransactionParamsObject;
use serde_json::json;

fn raw(text: &str) -> Box<RawValue> {
    RawValue::from_string(text.to_owned()).expect("JSON")
}

#[test]
fn the_one_param_is_sent_as_the_params_object() {
    let params = GetTransactionParams {
        params: serde_json::from_value::<GetTransactionParamsObject>(json!({"txId": "t-1"}))
            .expect("decodes"),
    };
    assert_eq!(
        serde_json::to_value(&params).expect("encodes"),
        json!({"txId": "t-1"})
    );
}

#[test]
fn the_server_reads_the_params_object_as_the_one_param() {
    let decoded =
        GetTransactionParams::decode(Some(&raw(r#"{"txId":"t-1"}"#)).into()).expect("decodes");
    assert_eq!(decoded.params.tx_id, "t-1");
    // Wrapped as the document literally says, it is refused: `txId` is missing.
    let wrapped = GetTransactionParams::decode(Some(&raw(r#"{"params":{"txId":"t-1"}}"#)).into());
    assert_eq!(wrapped.err().map(|e| e.code), Some(-32602));
    let array = GetTransactionParams::decode(Some(&raw(r#"["t-1"]"#)).into()).expect_err("refused");
    assert_eq!(
        (array.code, &*array.message),
        (-32602, "params must be an object (`params`)")
    );
}
