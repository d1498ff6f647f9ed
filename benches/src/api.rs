//! The one method every implementation serves, `add(a, b)`: rpcsmith's generated module
//! (built from `add.json` by `build.rs`) with its trait implemented, jsonrpsee's
//! `RpcModule` with the same method, and the request bodies both are given.

use jsonrpsee::RpcModule;
use jsonrpsee::types::ErrorObjectOwned;
use rpcsmith::server::{Context, Failure, Server};

rpcsmith::include_api!("add");

pub(crate) use add::AddClient;
use add::{AddDispatcher, AddServer};

/// The handler behind rpcsmith's generated `AddServer` trait.
struct Adder;

impl AddServer for Adder {
    async fn add(&self, _cx: Context, a: i64, b: i64) -> Result<i64, Failure> {
        Ok(a + b)
    }
}

/// rpcsmith's server engine on the generated dispatcher, with the default limits.
pub(crate) fn rpcsmith_server() -> Server {
    Server::new(AddDispatcher::new(Adder))
}

/// jsonrpsee's module with the same method, registered the usual way.
pub(crate) fn jsonrpsee_module() -> RpcModule<()> {
    let mut module = RpcModule::new(());
    module
        .register_method("add", |params, _, _| {
            let (a, b): (i64, i64) = params.parse()?;
            Ok::<_, ErrorObjectOwned>(a + b)
        })
        .expect("`add` is registered once");
    module
}

/// The body of one call, `add(id, 2)` with that id. The load generator sends `call(1)`:
/// `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`.
pub(crate) fn call(id: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"add","params":[{id},2],"id":{id}}}"#)
}

/// A batch of `len` calls, ids 1 to `len`.
pub(crate) fn batch(len: usize) -> String {
    let calls: Vec<String> = (1..=len as u64).map(call).collect();
    format!("[{}]", calls.join(","))
}

/// The body a load generator sends for batches of `len` (a single call when 1).
pub(crate) fn body(len: usize) -> String {
    if len == 1 { call(1) } else { batch(len) }
}

/// What the bare hyper server (the floor) answers to everything: what the others answer
/// to `call(1)`.
pub(crate) const FLOOR_ANSWER: &str = r#"{"jsonrpc":"2.0","result":3,"id":1}"#;

/// Checks an answer to `body(len)`: one response with result `id + 2` per call, in any
/// order, whatever the member order or spacing.
///
/// # Errors
///
/// What is wrong with the answer, quoting its beginning.
pub(crate) fn check_answer(answer: &[u8], len: usize) -> anyhow::Result<()> {
    let value: serde_json::Value = serde_json::from_slice(answer)
        .map_err(|e| anyhow::anyhow!("answer is not JSON ({e}): {}", quote(answer)))?;
    let responses = match (&value, len) {
        (serde_json::Value::Array(items), n) if n > 1 => items.iter().collect::<Vec<_>>(),
        (single, 1) => vec![single],
        _ => anyhow::bail!("expected {len} responses, got {}", quote(answer)),
    };
    anyhow::ensure!(
        responses.len() == len,
        "expected {len} responses, got {}: {}",
        responses.len(),
        quote(answer)
    );
    for response in responses {
        let id = response["id"].as_i64();
        let result = response["result"].as_i64();
        match (id, result) {
            (Some(id), Some(result)) if result == id + 2 => {}
            _ => anyhow::bail!("wrong response {response} in {}", quote(answer)),
        }
    }
    Ok(())
}

/// The first 200 bytes of `bytes`, quoted, for error messages.
pub(crate) fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]);
    format!("{text:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_answers_what_a_server_answers() {
        check_answer(FLOOR_ANSWER.as_bytes(), 1).unwrap();
        assert_eq!(
            body(1),
            r#"{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}"#
        );
        check_answer(
            br#"[{"jsonrpc":"2.0","id":2,"result":4},{"result":3,"id":1}]"#,
            2,
        )
        .unwrap();
        assert!(check_answer(br#"{"jsonrpc":"2.0","result":4,"id":1}"#, 1).is_err());
        assert!(check_answer(br#"[{"jsonrpc":"2.0","result":3,"id":1}]"#, 2).is_err());
    }
}
