//! The big corpus documents' GENERATED servers, served over HTTP and called by their
//! generated clients: Starknet's main API (refs into other files) and Ethereum's
//! `refs-openrpc.json`. A test node implements a few methods behind the generated
//! dispatcher; the trait needs every method, so the others are written compactly by
//! [`not_served!`] and answer `-32601`. Left out, with a message, where the corpus is
//! absent.
#![cfg(corpus)]

mod support;

use rpcsmith::client::{Client, Error};
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Failure, Server};
use serde_json::Value;
use std::collections::BTreeMap;
use std::convert::Infallible;

/// Trait methods a test node does not serve: each answers `-32601`. One line per method:
/// `name(param types) -> result, declared error;`.
macro_rules! not_served {
    ($($name:ident($($arg:ty),*) -> $result:ty, $error:ty;)*) => {
        $(
            async fn $name(&self, _: Context $(, _: $arg)*) -> Result<$result, Failure<$error>> {
                Err(ErrorObject::method_not_found().into())
            }
        )*
    };
}

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

        not_served! {
            starknet_get_block_with_txs(types::BlockId, Option<Vec<types::TxnResponseFlag>>) -> StarknetGetBlockWithTxsResult, StarknetGetBlockWithTxsError;
            starknet_get_block_with_receipts(types::BlockId, Option<Vec<types::TxnResponseFlag>>) -> StarknetGetBlockWithReceiptsResult, StarknetGetBlockWithReceiptsError;
            starknet_get_state_update(types::BlockId, Option<Vec<types::Felt>>) -> StarknetGetStateUpdateResult, StarknetGetStateUpdateError;
            starknet_get_transaction_status(types::Felt) -> StarknetGetTransactionStatusResult, StarknetGetTransactionStatusError;
            starknet_get_messages_status(types::NumAsHex) -> StarknetGetMessagesStatusResult, StarknetGetMessagesStatusError;
            starknet_get_transaction_by_hash(types::Felt, Option<Vec<types::TxnResponseFlag>>) -> StarknetGetTransactionByHashResult, StarknetGetTransactionByHashError;
            starknet_get_transaction_by_block_id_and_index(types::BlockId, u64, Option<Vec<types::TxnResponseFlag>>) -> StarknetGetTransactionByBlockIdAndIndexResult, StarknetGetTransactionByBlockIdAndIndexError;
            starknet_get_transaction_receipt(types::Felt) -> StarknetGetTransactionReceiptResult, StarknetGetTransactionReceiptError;
            starknet_get_class(types::BlockId, types::Felt) -> StarknetGetClassResult, StarknetGetClassError;
            starknet_get_class_hash_at(types::BlockId, types::Felt) -> StarknetGetClassHashAtResult, StarknetGetClassHashAtError;
            starknet_get_class_at(types::BlockId, types::Felt) -> StarknetGetClassAtResult, StarknetGetClassAtError;
            starknet_get_block_transaction_count(types::BlockId) -> StarknetGetBlockTransactionCountResult, StarknetGetBlockTransactionCountError;
            starknet_call(types::FunctionCall, types::BlockId) -> StarknetCallResult, StarknetCallError;
            starknet_estimate_fee(Vec<types::BroadcastedTxn>, Vec<types::SimulationFlagForEstimateFee>, types::BlockId) -> StarknetEstimateFeeResult, StarknetEstimateFeeError;
            starknet_estimate_message_fee(types::MsgFromL1, types::BlockId) -> StarknetEstimateMessageFeeResult, StarknetEstimateMessageFeeError;
            starknet_block_hash_and_number() -> StarknetBlockHashAndNumberResult, StarknetBlockHashAndNumberError;
            starknet_chain_id() -> StarknetChainIdResult, Infallible;
            starknet_syncing() -> StarknetSyncingResult, Infallible;
            starknet_get_events(types::EventsRequest) -> StarknetGetEventsResult, StarknetGetEventsError;
            starknet_get_nonce(types::BlockId, types::Felt) -> StarknetGetNonceResult, StarknetGetNonceError;
            starknet_get_storage_proof(types::BlockId, Option<Vec<types::Felt>>, Option<Vec<types::Felt>>, Option<Vec<types::StarknetGetStorageProofContractsStorageKeysItem>>) -> StarknetGetStorageProofResult, StarknetGetStorageProofError;
        }
    }

    #[tokio::test]
    async fn the_generated_server_answers_the_generated_client() {
        let (inner, _stop) = over_http(StarknetDispatcher::new(Node)).await;
        let c = StarknetClient::new(inner.clone());
        assert_eq!(c.starknet_spec_version().await.unwrap(), "0.10.0");
        assert_eq!(c.starknet_block_number().await.unwrap(), 7);
        let stored = c
            .starknet_get_storage_at("0xa".into(), "0xb".into(), types::BlockId::Latest, None)
            .await
            .unwrap();
        assert_eq!(stored, types::StorageValueResult::Felt("0xb1".into()));
        let missing = c
            .starknet_get_storage_at("0xc".into(), "0xb".into(), types::BlockId::Latest, None)
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

        not_served! {
            debug_get_bad_blocks() -> DebugGetBadBlocksResult, Infallible;
            debug_get_raw_block(types::BlockNumberOrTag) -> DebugGetRawBlockResult, DebugGetRawBlockError;
            debug_get_raw_block_access_list(types::BlockNumberOrTag) -> DebugGetRawBlockAccessListResult, DebugGetRawBlockAccessListError;
            debug_get_raw_header(types::BlockNumberOrTag) -> DebugGetRawHeaderResult, DebugGetRawHeaderError;
            debug_get_raw_receipts(types::BlockNumberOrTag) -> DebugGetRawReceiptsResult, DebugGetRawReceiptsError;
            debug_get_raw_transaction(types::Hash32) -> DebugGetRawTransactionResult, DebugGetRawTransactionError;
            debug_trace_block_by_hash(types::Hash32, Option<types::TraceConfig>) -> DebugTraceBlockByHashResult, DebugTraceBlockByHashError;
            debug_trace_block_by_number(types::BlockNumberOrTag, Option<types::TraceConfig>) -> DebugTraceBlockByNumberResult, DebugTraceBlockByNumberError;
            debug_trace_transaction(types::Hash32, Option<types::TraceConfig>) -> DebugTraceTransactionResult, DebugTraceTransactionError;
            engine_exchange_capabilities(Vec<String>) -> EngineExchangeCapabilitiesResult, Infallible;
            engine_exchange_transition_configuration_v1(types::TransitionConfigurationV1) -> EngineExchangeTransitionConfigurationV1Result, Infallible;
            engine_forkchoice_updated_v1(types::ForkchoiceStateV1, Option<types::PayloadAttributesV1>) -> EngineForkchoiceUpdatedV1Result, EngineForkchoiceUpdatedV1Error;
            engine_forkchoice_updated_v2(types::ForkchoiceStateV1, Option<types::PayloadAttributesV2>) -> EngineForkchoiceUpdatedV2Result, EngineForkchoiceUpdatedV2Error;
            engine_forkchoice_updated_v3(types::ForkchoiceStateV1, Option<types::PayloadAttributesV3>) -> EngineForkchoiceUpdatedV3Result, EngineForkchoiceUpdatedV3Error;
            engine_forkchoice_updated_v4(types::ForkchoiceStateV1, Option<types::PayloadAttributesV4>, Option<types::Bytes16>) -> EngineForkchoiceUpdatedV4Result, EngineForkchoiceUpdatedV4Error;
            engine_forkchoice_updated_v5(types::ForkchoiceStateV1, Option<types::PayloadAttributesV5>, Option<types::Bytes16>) -> EngineForkchoiceUpdatedV5Result, EngineForkchoiceUpdatedV5Error;
            engine_get_blobs_v1(Vec<types::Hash32>) -> EngineGetBlobsV1Result, EngineGetBlobsV1Error;
            engine_get_blobs_v2(Vec<types::Hash32>) -> EngineGetBlobsV2Result, EngineGetBlobsV2Error;
            engine_get_blobs_v3(Vec<types::Hash32>) -> EngineGetBlobsV3Result, EngineGetBlobsV3Error;
            engine_get_blobs_v4(Vec<types::Hash32>, types::Bytes16) -> EngineGetBlobsV4Result, EngineGetBlobsV4Error;
            engine_get_inclusion_list_v1() -> EngineGetInclusionListV1Result, Infallible;
            engine_get_payload_bodies_by_hash_v1(Vec<types::Hash32>) -> EngineGetPayloadBodiesByHashV1Result, EngineGetPayloadBodiesByHashV1Error;
            engine_get_payload_bodies_by_hash_v2(Vec<types::Hash32>) -> EngineGetPayloadBodiesByHashV2Result, EngineGetPayloadBodiesByHashV2Error;
            engine_get_payload_bodies_by_range_v1(types::Uint64, types::Uint64) -> EngineGetPayloadBodiesByRangeV1Result, EngineGetPayloadBodiesByRangeV1Error;
            engine_get_payload_bodies_by_range_v2(types::Uint64, types::Uint64) -> EngineGetPayloadBodiesByRangeV2Result, EngineGetPayloadBodiesByRangeV2Error;
            engine_get_payload_v1(types::Bytes8) -> EngineGetPayloadV1Result, EngineGetPayloadV1Error;
            engine_get_payload_v2(types::Bytes8) -> EngineGetPayloadV2Result, EngineGetPayloadV2Error;
            engine_get_payload_v3(types::Bytes8) -> EngineGetPayloadV3Result, EngineGetPayloadV3Error;
            engine_get_payload_v4(types::Bytes8) -> EngineGetPayloadV4Result, EngineGetPayloadV4Error;
            engine_get_payload_v5(types::Bytes8) -> EngineGetPayloadV5Result, EngineGetPayloadV5Error;
            engine_get_payload_v6(types::Bytes8) -> EngineGetPayloadV6Result, EngineGetPayloadV6Error;
            engine_new_payload_v1(types::ExecutionPayloadV1) -> EngineNewPayloadV1Result, Infallible;
            engine_new_payload_v2(types::EngineNewPayloadV2ExecutionPayload) -> EngineNewPayloadV2Result, EngineNewPayloadV2Error;
            engine_new_payload_v3(types::ExecutionPayloadV3, Vec<types::Hash32>, types::Hash32) -> EngineNewPayloadV3Result, EngineNewPayloadV3Error;
            engine_new_payload_v4(types::ExecutionPayloadV3, Vec<types::Hash32>, types::Hash32, Vec<types::Bytes>) -> EngineNewPayloadV4Result, EngineNewPayloadV4Error;
            engine_new_payload_v5(types::ExecutionPayloadV4, Vec<types::Hash32>, types::Hash32, Vec<types::Bytes>) -> EngineNewPayloadV5Result, EngineNewPayloadV5Error;
            engine_new_payload_v6(types::ExecutionPayloadV4, Vec<types::Hash32>, types::Hash32, Vec<types::Bytes>, Vec<types::Bytes>) -> EngineNewPayloadV6Result, EngineNewPayloadV6Error;
            eth_accounts() -> EthAccountsResult, Infallible;
            eth_base_fee() -> EthBaseFeeResult, Infallible;
            eth_blob_base_fee() -> EthBlobBaseFeeResult, Infallible;
            eth_capabilities() -> EthCapabilitiesResult, Infallible;
            eth_coinbase() -> EthCoinbaseResult, Infallible;
            eth_config() -> EthConfigResult, Infallible;
            eth_create_access_list(types::GenericTransaction, Option<types::BlockNumberOrTag>) -> EthCreateAccessListResult, Infallible;
            eth_estimate_gas(types::GenericTransaction, Option<types::BlockNumberOrTag>) -> EthEstimateGasResult, EthEstimateGasError;
            eth_fee_history(types::Uint, types::BlockNumberOrTag, Vec<serde_json::Number>) -> EthFeeHistoryResult, Infallible;
            eth_fill_transaction(types::GenericTransaction) -> EthFillTransactionResult, Infallible;
            eth_gas_price() -> EthGasPriceResult, Infallible;
            eth_get_block_access_list(types::BlockNumberOrTagOrHash) -> EthGetBlockAccessListResult, EthGetBlockAccessListError;
            eth_get_block_by_hash(types::Hash32, bool) -> EthGetBlockByHashResult, EthGetBlockByHashError;
            eth_get_block_by_number(types::BlockNumberOrTag, bool) -> EthGetBlockByNumberResult, EthGetBlockByNumberError;
            eth_get_block_receipts(types::BlockNumberOrTagOrHash) -> EthGetBlockReceiptsResult, EthGetBlockReceiptsError;
            eth_get_block_transaction_count_by_hash(Option<types::Hash32>) -> EthGetBlockTransactionCountByHashResult, EthGetBlockTransactionCountByHashError;
            eth_get_block_transaction_count_by_number(Option<types::BlockNumberOrTag>) -> EthGetBlockTransactionCountByNumberResult, EthGetBlockTransactionCountByNumberError;
            eth_get_code(types::Address, Option<types::BlockNumberOrTagOrHash>) -> EthGetCodeResult, Infallible;
            eth_get_filter_changes(types::Uint) -> EthGetFilterChangesResult, Infallible;
            eth_get_filter_logs(types::Uint) -> EthGetFilterLogsResult, Infallible;
            eth_get_logs(types::Filter) -> EthGetLogsResult, EthGetLogsError;
            eth_get_proof(types::Address, Vec<types::BytesMax32>, Option<types::BlockNumberOrTagOrHash>) -> EthGetProofResult, Infallible;
            eth_get_storage_at(types::Address, types::BytesMax32, Option<types::BlockNumberOrTagOrHash>) -> EthGetStorageAtResult, Infallible;
            eth_get_storage_values(BTreeMap<String, Vec<types::BytesMax32>>, Option<types::BlockNumberOrTagOrHash>) -> EthGetStorageValuesResult, Infallible;
            eth_get_transaction_by_block_hash_and_index(types::Hash32, types::Uint) -> EthGetTransactionByBlockHashAndIndexResult, EthGetTransactionByBlockHashAndIndexError;
            eth_get_transaction_by_block_number_and_index(types::BlockNumberOrTag, types::Uint) -> EthGetTransactionByBlockNumberAndIndexResult, EthGetTransactionByBlockNumberAndIndexError;
            eth_get_transaction_by_hash(types::Hash32) -> EthGetTransactionByHashResult, Infallible;
            eth_get_transaction_count(types::Address, Option<types::BlockNumberOrTagOrHash>) -> EthGetTransactionCountResult, Infallible;
            eth_get_transaction_receipt(types::Hash32) -> EthGetTransactionReceiptResult, EthGetTransactionReceiptError;
            eth_max_priority_fee_per_gas() -> EthMaxPriorityFeePerGasResult, Infallible;
            eth_new_block_filter() -> EthNewBlockFilterResult, Infallible;
            eth_new_filter(types::Filter) -> EthNewFilterResult, Infallible;
            eth_new_pending_transaction_filter() -> EthNewPendingTransactionFilterResult, Infallible;
            eth_send_raw_transaction(types::Bytes) -> EthSendRawTransactionResult, EthSendRawTransactionError;
            eth_send_transaction(types::GenericTransaction) -> EthSendTransactionResult, EthSendTransactionError;
            eth_sign(types::Address, types::Bytes) -> EthSignResult, Infallible;
            eth_sign_transaction(types::GenericTransaction) -> EthSignTransactionResult, Infallible;
            eth_simulate_v1(types::EthSimulatePayload, Option<types::BlockNumberOrTagOrHash>) -> EthSimulateV1Result, EthSimulateV1Error;
            eth_syncing() -> EthSyncingResult, Infallible;
            eth_uninstall_filter(types::Uint) -> EthUninstallFilterResult, Infallible;
            net_version() -> NetVersionResult, Infallible;
            testing_build_block_v1(types::Hash32, types::PayloadAttributesV3_2, Option<Vec<types::Bytes>>, Option<types::Bytes>) -> TestingBuildBlockV1Result, TestingBuildBlockV1Error;
            txpool_content() -> TxpoolContentResult, Infallible;
            txpool_content_from(types::Address) -> TxpoolContentFromResult, Infallible;
            txpool_status() -> TxpoolStatusResult, Infallible;
        }
    }

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
            c.eth_get_balance("0xab".into(), latest).await.unwrap(),
            "0x2a"
        );
        // The generated client sends by name; the generated server also takes an array.
        let by_position: String = inner
            .request("eth_getBalance", &("0xab", "latest"))
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
}
