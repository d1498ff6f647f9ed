//! The big corpus documents' GENERATED servers, served over HTTP and called by their
//! generated clients: Starknet's main API (refs into other files) and Ethereum's
//! `refs-openrpc.json`, both generated PARTIAL (`partial(true)`): a test node implements
//! the few methods it serves, and every other method answers `-32601` by the trait's
//! default body — no stub written. Left out, with a message, where the corpus is absent.
#![cfg(corpus)]

mod support;

use rpcsmith::client::{Client, Error};
use rpcsmith::server::{Context, Dispatch, Failure, Server};
use serde_json::Value;

/// A client of `dispatcher` served over HTTP on a loopback port, and what stops the server.
async fn over_http(
    dispatcher: impl Dispatch,
) -> (Client, Option<tokio::sync::oneshot::Sender<()>>) {
    support::connect(Server::new(dispatcher), true).await
}

/// `Err(Undeclared(-32601))`: a method the node does not serve.
fn not_served_here<T: std::fmt::Debug, E: std::fmt::Debug>(result: Result<T, Error<E>>) -> bool {
    matches!(result, Err(Error::Undeclared(ref e)) if e.code == -32601)
}

mod starknet {
    use super::*;
    use rpcsmith_services::starknet::*;

    /// Knows one contract (`0xa`) and blocks up to 7.
    struct Node;

    impl StarknetServer for Node {
        async fn starknet_spec_version(&self, _: Context) -> Result<String, Failure> {
            Ok("0.10.0".into())
        }

        async fn starknet_block_number(
            &self,
            _: Context,
        ) -> Result<u64, Failure<StarknetBlockNumberError>> {
            Ok(7)
        }

        async fn starknet_get_storage_at(
            &self,
            _: Context,
            contract_address: types::Felt,
            key: types::StorageKey,
            _block_id: types::BlockId,
            _flags: Option<Vec<types::StorageResponseFlag>>,
        ) -> Result<StarknetGetStorageAtResult, Failure<StarknetGetStorageAtError>> {
            if contract_address != "0xa" {
                return Err(StarknetGetStorageAtError::ContractNotFound.into());
            }
            Ok(types::StorageValueResult::Felt(format!("{key}1")))
        }

        async fn starknet_get_block_with_tx_hashes(
            &self,
            _: Context,
            _block_id: types::BlockId,
        ) -> Result<StarknetGetBlockWithTxHashesResult, Failure<StarknetGetBlockWithTxHashesError>>
        {
            Err(StarknetGetBlockWithTxHashesError::BlockNotFound.into())
        }
    }

    #[tokio::test]
    async fn the_generated_server_answers_the_generated_client() {
        let (inner, _stop) = over_http(StarknetDispatcher::new(Node)).await;
        let c = StarknetClient::new(inner.clone());
        assert_eq!(c.starknet_spec_version().await.unwrap(), "0.10.0");
        assert_eq!(c.starknet_block_number().await.unwrap(), 7);
        let stored = c
            // A storage key's first hex digit is at most 7 (STORAGE_KEY's pattern): the
            // dispatcher checks it before the handler runs.
            .starknet_get_storage_at("0xa".into(), "0x5".into(), types::BlockId::Latest, None)
            .await
            .unwrap();
        assert_eq!(stored, types::StorageValueResult::Felt("0x51".into()));
        let missing = c
            .starknet_get_storage_at("0xc".into(), "0x5".into(), types::BlockId::Latest, None)
            .await;
        assert!(matches!(
            missing,
            Err(Error::Declared(StarknetGetStorageAtError::ContractNotFound))
        ));
        let block = c
            .starknet_get_block_with_tx_hashes(types::BlockId::BlockNumber(9))
            .await;
        assert!(matches!(
            block,
            Err(Error::Declared(
                StarknetGetBlockWithTxHashesError::BlockNotFound
            ))
        ));
        assert!(not_served_here(c.starknet_chain_id().await));
        let document: Value = inner.request("rpc.discover", &()).await.unwrap();
        assert_eq!(document["methods"].as_array().map(Vec::len), Some(25));
    }
}

mod ethereum {
    use super::*;
    use rpcsmith_services::ethereum::*;

    /// Chain 1 at block 16; every account holds 42 wei; every call reverts.
    struct Node;

    impl EthereumServer for Node {
        async fn eth_chain_id(&self, _: Context) -> Result<types::Uint, Failure> {
            Ok("0x1".into())
        }

        async fn eth_block_number(&self, _: Context) -> Result<types::Uint, Failure> {
            Ok("0x10".into())
        }

        async fn eth_get_balance(
            &self,
            _: Context,
            _address: types::Address,
            block: Option<types::BlockNumberOrTagOrHash>,
        ) -> Result<types::Uint, Failure> {
            match block {
                Some(types::BlockNumberOrTagOrHash::BlockTag(types::BlockTag::Latest)) | None => {
                    Ok("0x2a".into())
                }
                Some(_) => Ok("0x0".into()),
            }
        }

        async fn eth_call(
            &self,
            _: Context,
            _transaction: types::GenericTransaction,
            _block: Option<types::BlockNumberOrTagOrHash>,
        ) -> Result<EthCallResult, Failure<EthCallError>> {
            Err(EthCallError::ExecutionReverted("0xdead".into()).into())
        }
    }

    const ADDRESS: &str = "0xabababababababababababababababababababab";

    #[tokio::test]
    async fn the_generated_server_answers_the_generated_client() {
        let (inner, _stop) = over_http(EthereumDispatcher::new(Node)).await;
        let c = EthereumClient::new(inner.clone());
        assert_eq!(c.eth_chain_id().await.unwrap(), "0x1");
        assert_eq!(c.eth_block_number().await.unwrap(), "0x10");
        let latest = Some(types::BlockNumberOrTagOrHash::BlockTag(
            types::BlockTag::Latest,
        ));
        assert_eq!(
            // An address is 40 hex digits (its pattern, checked by the dispatcher).
            c.eth_get_balance(ADDRESS.into(), latest).await.unwrap(),
            "0x2a"
        );
        // The generated client sends by name; the generated server also takes an array.
        let by_position: String = inner
            .request("eth_getBalance", &(ADDRESS, "latest"))
            .await
            .unwrap();
        assert_eq!(by_position, "0x2a");
        let reverted = c.eth_call(types::GenericTransaction::default(), None).await;
        assert!(
            matches!(reverted, Err(Error::Declared(EthCallError::ExecutionReverted(ref data))) if data == "0xdead"),
            "{reverted:?}"
        );
        assert!(not_served_here(c.eth_accounts().await));
        let document: Value = inner.request("rpc.discover", &()).await.unwrap();
        assert_eq!(document["methods"].as_array().map(Vec::len), Some(86));
    }

    /// A partial server of the execution-apis document: four methods written, the 82
    /// others answered `-32601` by the trait's default bodies (with their params
    /// decoded first), and `rpc.discover` and `rpc.methods` still describe all 86.
    #[tokio::test]
    async fn a_partial_server_answers_what_it_implements_and_32601_for_the_rest() {
        let (inner, _stop) = over_http(EthereumDispatcher::new(Node)).await;
        let c = EthereumClient::new(inner.clone());
        assert!(not_served_here(c.eth_gas_price().await));
        assert!(not_served_here(c.txpool_status().await));
        assert!(not_served_here(
            c.eth_get_block_by_number(
                types::BlockNumberOrTag::BlockTag(types::BlockTag::Latest),
                false
            )
            .await
        ));
        assert!(not_served_here(
            c.engine_get_payload_v1("0x0000000000000001".into()).await
        ));
        // Params that do not fit are still -32602 (they are decoded first).
        let wrong: Result<Value, _> = inner.request("eth_getBlockByNumber", &[1, 2]).await;
        assert!(
            matches!(wrong, Err(Error::Undeclared(ref e)) if e.code == -32602),
            "{wrong:?}"
        );
        let names: Vec<String> = inner.request("rpc.methods", &()).await.unwrap();
        assert_eq!(names.len(), 86);
        assert!(names.iter().any(|n| n == "eth_chainId"));
        assert!(names.iter().any(|n| n == "engine_getPayloadV1"));
        // The implemented ones answer.
        assert_eq!(c.eth_chain_id().await.unwrap(), "0x1");
    }
}
