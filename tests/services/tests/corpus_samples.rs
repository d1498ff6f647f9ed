//! The bigger corpus documents: MetaMask's multichain API served and called end to end,
//! its wallet's notifications pushed to the dapp's generated listener; Starknet's main API (refs into other files) and Ethereum's
//! `refs-openrpc.json`: a sample of their generated client methods against a canned
//! server, their generated params decoders, declared errors, and the embedded document.
//! Left out, with a message, where the corpus is absent.
#![cfg(corpus)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rpcsmith::client::{Client, Error};
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Failure, Reply, Server};
use rpcsmith::transport::memory;
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// A server that records each call (method and params as sent) and answers from a table.
#[derive(Clone, Default)]
struct Canned {
    answers: Arc<Vec<(&'static str, Result<Value, ErrorObject>)>>,
    calls: Arc<Mutex<Vec<(String, Value)>>>,
}

impl Dispatch for Canned {
    fn call(&self, method: &str, params: Option<&RawValue>, _cx: Context) -> Reply {
        let sent = params.map_or(Value::Null, |p| serde_json::from_str(p.get()).unwrap());
        self.calls.lock().unwrap().push((method.to_owned(), sent));
        match self.answers.iter().find(|(m, _)| *m == method) {
            Some((_, Ok(v))) => Reply::ok(v),
            Some((_, Err(e))) => Reply::err(e.clone()),
            None => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

fn canned(answers: Vec<(&'static str, Result<Value, ErrorObject>)>) -> (Client, Canned) {
    let canned = Canned {
        answers: Arc::new(answers),
        calls: Arc::default(),
    };
    (memory::connect(Server::new(canned.clone())), canned)
}

/// Every `$ref` of `document` stays inside it.
fn self_contained(document: &Value) -> bool {
    match document {
        Value::Object(map) => map.iter().all(|(k, v)| match (k.as_str(), v) {
            ("$ref", Value::String(r)) => r.starts_with('#'),
            _ => self_contained(v),
        }),
        Value::Array(items) => items.iter().all(self_contained),
        _ => true,
    }
}

mod multichain {
    use super::*;
    use rpcsmith::transport::peer::{self, Peer};
    use rpcsmith::transport::stream::Codec;
    use rpcsmith_services::multichain::{
        MultichainClient, MultichainDispatcher, MultichainListener, MultichainListenerDispatcher,
        MultichainPush, MultichainServer, WalletCreateSessionError, WalletRevokeSessionError,
        types,
    };
    use tokio::sync::mpsc;

    /// The wallet: on a connection, `wallet_invokeMethod` of `eth_subscribe` pushes a
    /// `wallet_notify`, and `wallet_revokeSession` a `wallet_sessionChanged`.
    struct Wallet;

    fn push(cx: &Context) -> Option<MultichainPush> {
        peer::remote(cx).map(MultichainPush::new)
    }

    impl MultichainServer for Wallet {
        async fn wallet_invoke_method(
            &self,
            cx: Context,
            scope: String,
            request: types::WalletNotifyNotification,
        ) -> Result<Value, Failure> {
            if let (Some(push), Some("eth_subscribe")) = (push(&cx), request.method.as_deref()) {
                let event = types::WalletNotifyNotification {
                    method: Some("eth_subscription".into()),
                    params: Some(json!({"subscription": "0x1"})),
                };
                let _ = push.wallet_notify(scope.clone(), event).await;
            }
            Ok(json!({ "scope": scope, "method": request.method }))
        }

        async fn wallet_revoke_session(
            &self,
            cx: Context,
        ) -> Result<bool, Failure<WalletRevokeSessionError>> {
            if let Some(push) = push(&cx) {
                let _ = push.wallet_session_changed(Some(Default::default())).await;
            }
            Ok(true)
        }

        async fn wallet_get_session(
            &self,
            _cx: Context,
        ) -> Result<types::WalletGetSessionResult, Failure> {
            Ok(types::WalletGetSessionResult {
                session_scopes: None,
            })
        }

        async fn wallet_create_session(
            &self,
            _cx: Context,
            required: Option<std::collections::BTreeMap<String, types::Scope>>,
            _optional: Option<std::collections::BTreeMap<String, types::Scope>>,
            _properties: Option<serde_json::Map<String, Value>>,
        ) -> Result<types::WalletCreateSessionResult, Failure<WalletCreateSessionError>> {
            match required {
                Some(scopes) if scopes.contains_key("bitcoin:mainnet") => {
                    Err(WalletCreateSessionError::RequestedNetworksAreNotSupported.into())
                }
                scopes => Ok(types::WalletCreateSessionResult {
                    session_scopes: scopes,
                    session_properties: None,
                }),
            }
        }
    }

    /// The dapp's side: what the wallet sends it, as text.
    struct Dapp(mpsc::UnboundedSender<String>);

    impl MultichainListener for Dapp {
        async fn wallet_notify(
            &self,
            _cx: Context,
            scope: String,
            n: types::WalletNotifyNotification,
        ) {
            let _ = self
                .0
                .send(format!("{scope} {}", n.method.unwrap_or_default()));
        }

        async fn wallet_session_changed(&self, _cx: Context, scopes: Option<types::SessionScopes>) {
            let _ = self
                .0
                .send(format!("changed {:?}", scopes.map(|s| s.len())));
        }
    }

    async fn calls(c: &MultichainClient) {
        let request = types::WalletNotifyNotification {
            method: Some("eth_chainId".into()),
            params: None,
        };
        let invoked = c
            .wallet_invoke_method("eip155:1".into(), request)
            .await
            .unwrap();
        assert_eq!(
            invoked,
            json!({"scope": "eip155:1", "method": "eth_chainId"})
        );
        assert_eq!(c.wallet_get_session().await.unwrap().session_scopes, None);
        let scope = types::Scope {
            references: None,
            methods: vec![],
            notifications: vec![],
            accounts: None,
            extra: Default::default(),
        };
        let bad = [("bitcoin:mainnet".to_owned(), scope)]
            .into_iter()
            .collect();
        let refused = c.wallet_create_session(Some(bad), None, None).await;
        assert!(matches!(
            refused,
            Err(Error::Declared(
                WalletCreateSessionError::RequestedNetworksAreNotSupported
            ))
        ));
        let document: Value = c.inner().request("rpc.discover", &()).await.unwrap();
        assert_eq!(document["methods"].as_array().map(Vec::len), Some(6));
    }

    async fn run(over_http: bool) {
        let server = Server::new(MultichainDispatcher::new(Wallet));
        let (inner, _stop) = super::support::connect(server, over_http).await;
        let c = MultichainClient::new(inner);
        calls(&c).await;
        // Without a connection to push on, the wallet pushes nothing.
        assert!(c.wallet_revoke_session().await.unwrap());
    }

    #[tokio::test]
    async fn over_memory() {
        run(false).await;
    }

    #[tokio::test]
    async fn over_http() {
        run(true).await;
    }

    /// On a symmetric connection (an in-process byte stream), the wallet's pushes reach
    /// the dapp's generated listener, typed.
    #[tokio::test]
    async fn the_wallet_pushes_to_the_dapp() {
        let (dapp_end, wallet_end) = tokio::io::duplex(64 * 1024);
        let (read, write) = tokio::io::split(wallet_end);
        let wallet = Peer::builder()
            .serve(Server::new(MultichainDispatcher::new(Wallet)))
            .framed(Codec::Newline, read, write);
        let (seen, mut received) = mpsc::unbounded_channel();
        let (read, write) = tokio::io::split(dapp_end);
        let dapp = Peer::builder()
            .serve(Server::new(MultichainListenerDispatcher::new(Dapp(seen))))
            .framed(Codec::Newline, read, write);
        let c = MultichainClient::new(dapp.client().clone());
        calls(&c).await;
        let subscribe = types::WalletNotifyNotification {
            method: Some("eth_subscribe".into()),
            params: None,
        };
        c.wallet_invoke_method("eip155:1".into(), subscribe)
            .await
            .unwrap();
        assert!(c.wallet_revoke_session().await.unwrap());
        let mut next = async || {
            tokio::time::timeout(Duration::from_secs(5), received.recv())
                .await
                .unwrap()
                .unwrap()
        };
        assert_eq!(next().await, "eip155:1 eth_subscription");
        assert_eq!(next().await, "changed Some(0)");
        drop(wallet);
    }
}

mod starknet {
    use super::*;
    use rpcsmith_services::starknet::{
        DOCUMENT, StarknetClient as ApiClient, StarknetGetBlockWithTxHashesError,
        StarknetGetStorageAtParams, StarknetGetTransactionStatusParams, types,
    };

    #[tokio::test]
    async fn a_sample_of_methods_runs() {
        let (inner, canned) = canned(vec![
            ("starknet_specVersion", Ok(json!("0.10.0"))),
            ("starknet_blockNumber", Ok(json!(7))),
            ("starknet_getStorageAt", Ok(json!("0x1"))),
            (
                "starknet_getBlockWithTxHashes",
                Err(ErrorObject::new(24, "Block not found")),
            ),
        ]);
        let c = ApiClient::new(inner);
        assert_eq!(c.starknet_spec_version().await.unwrap(), "0.10.0");
        assert_eq!(c.starknet_block_number().await.unwrap(), 7);
        let value = c
            .starknet_get_storage_at("0xa".into(), "0xb".into(), types::BlockId::Latest, None)
            .await;
        assert!(value.is_ok(), "{value:?}");
        let missing = c
            .starknet_get_block_with_tx_hashes(types::BlockId::BlockNumber(9))
            .await;
        assert!(matches!(
            missing,
            Err(Error::Declared(
                StarknetGetBlockWithTxHashesError::BlockNotFound
            ))
        ));
        let calls = canned.calls.lock().unwrap().clone();
        // No paramStructure: by position, the default of `Settings::either_default`.
        assert_eq!(
            calls[2],
            (
                "starknet_getStorageAt".to_owned(),
                json!(["0xa", "0xb", "latest"])
            )
        );
        assert_eq!(calls[3].1, json!([{"block_number": 9}]));
    }

    #[test]
    fn params_decode_from_either_shape_or_by_name_only() {
        let by_name = r#"{"contract_address":"0xa","key":"0xb","block_id":{"block_hash":"0xc"}}"#;
        let by_position = r#"["0xa","0xb",{"block_hash":"0xc"}]"#;
        for json in [by_name, by_position] {
            let raw = RawValue::from_string(json.into()).unwrap();
            let params = StarknetGetStorageAtParams::decode(Some(&raw).into()).unwrap();
            assert_eq!(params.block_id, types::BlockId::BlockHash("0xc".into()));
            assert_eq!(params.response_flags, None);
        }
        let raw = RawValue::from_string(
            r#"{"contract_address":"0xa","key":"0xb","block_id":"newest"}"#.into(),
        )
        .unwrap();
        let e = StarknetGetStorageAtParams::decode(Some(&raw).into()).unwrap_err();
        assert!(
            e.message.starts_with("invalid param `block_id`"),
            "{}",
            e.message
        );
        // `starknet_getTransactionStatus` is by name only.
        let raw = RawValue::from_string(r#"["0x1"]"#.into()).unwrap();
        let e = StarknetGetTransactionStatusParams::decode(Some(&raw).into()).unwrap_err();
        assert_eq!(e.message, "params must be an object (by name)");
    }

    #[test]
    fn the_embedded_document_bundles_the_other_files() {
        let document: Value = serde_json::from_str(DOCUMENT).unwrap();
        assert!(self_contained(&document));
        assert!(!DOCUMENT.contains("starknet_api_openrpc.json#"));
    }
}

mod starknet_ws {
    use rpcsmith_services::starknet_ws::DOCUMENT;

    #[test]
    fn the_embedded_document_bundles_the_other_files() {
        let document: serde_json::Value = serde_json::from_str(DOCUMENT).unwrap();
        assert!(super::self_contained(&document));
        assert!(document["components"]["schemas"]["BLOCK_HEADER"].is_object());
    }
}

mod ethereum {
    use super::*;
    use rpcsmith_services::ethereum::{
        DOCUMENT, EthGetBalanceParams, EthereumClient as ApiClient, types,
    };

    #[tokio::test]
    async fn a_sample_of_methods_runs() {
        let (inner, canned) = canned(vec![
            ("eth_chainId", Ok(json!("0x1"))),
            ("eth_blockNumber", Ok(json!("0x10"))),
            ("eth_getBalance", Ok(json!("0x0"))),
        ]);
        let c = ApiClient::new(inner);
        assert_eq!(c.eth_chain_id().await.unwrap(), "0x1");
        assert_eq!(c.eth_block_number().await.unwrap(), "0x10");
        let tag = Some(types::BlockNumberOrTagOrHash::BlockTag(
            types::BlockTag::Latest,
        ));
        assert_eq!(c.eth_get_balance("0xab".into(), tag).await.unwrap(), "0x0");
        let calls = canned.calls.lock().unwrap().clone();
        // `either` (no paramStructure) sends by position, the default of
        // `Settings::either_default`: Ethereum nodes take nothing else.
        assert_eq!(
            calls[2],
            ("eth_getBalance".to_owned(), json!(["0xab", "latest"]))
        );
    }

    #[test]
    fn params_decode_from_either_shape() {
        for json in [
            r#"["0xab","latest"]"#,
            r#"{"Block":"latest","Address":"0xab"}"#,
        ] {
            let raw = RawValue::from_string(json.into()).unwrap();
            let params = EthGetBalanceParams::decode(Some(&raw).into()).unwrap();
            assert_eq!(params.address, "0xab");
        }
    }

    #[test]
    fn the_embedded_document_parses() {
        let document: Value = serde_json::from_str(DOCUMENT).unwrap();
        assert!(self_contained(&document));
        assert!(
            document["methods"]
                .as_array()
                .is_some_and(|m| m.len() == 86)
        );
    }
}
