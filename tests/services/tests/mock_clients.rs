//! Generated clients of corpus documents against `rpcsmith_cli::mock` (served by its
//! `Dispatcher` on the in-memory transport, as `rpcsmith mock` serves it over HTTP,
//! WebSocket and stdio): methods with examples get the example's result, decoded into
//! the generated types; methods without get generated values that decode too; a declared
//! error asked of the mock arrives as the generated error type. Left out, with a
//! message, where the corpus is absent.
#![cfg(corpus)]

use rpcsmith::client::{Client, Error};
use rpcsmith::server::Server;
use rpcsmith::transport::memory;
use rpcsmith_build::{Options, load_document};
use rpcsmith_cli::mock::{Dispatcher, Mock};

/// The mock of a corpus document, with `prepare` applied, behind an in-memory client.
fn mocked(path: &str, prepare: impl FnOnce(&mut Mock)) -> Client {
    let dir = rpcsmith_corpus::dir().expect("the corpus (this file is compiled only with it)");
    let options = rpcsmith_corpus::include_dirs(path)
        .into_iter()
        .fold(Options::new(), |o, include| {
            o.include_dir(dir.join(include))
        });
    let document = load_document(dir.join(path), &options).unwrap_or_else(|e| panic!("{e}"));
    let mut mock = Mock::new(document, 11);
    prepare(&mut mock);
    memory::connect(Server::new(Dispatcher::new(mock)))
}

mod petstore {
    use super::*;
    use rpcsmith_services::petstore::{ListPetsError, PetstoreClient};

    #[tokio::test]
    async fn examples_generated_values_and_a_declared_error() {
        let c = PetstoreClient::new(mocked("open-rpc-examples/petstore-openrpc.json", |_| {}));
        // Examples: list_pets(1) and get_pet(7).
        let pets = c.list_pets(Some(1)).await.unwrap();
        assert_eq!(pets.len(), 1);
        assert_eq!(pets[0].name, "fluffy");
        assert_eq!(c.get_pet(7).await.unwrap().name, "fluffy");
        // No example fits: a generated pet and a generated id, of the generated types.
        let other = c.get_pet(8).await.unwrap();
        assert_eq!(
            c.get_pet(9).await.unwrap(),
            other,
            "the same for the same seed"
        );
        c.create_pet("Tom".into(), None).await.unwrap();

        let failing = mocked("open-rpc-examples/petstore-openrpc.json", |m| {
            m.fail("list_pets", Some(100)).unwrap();
        });
        let c = PetstoreClient::new(failing);
        assert!(matches!(
            c.list_pets(Some(1)).await,
            Err(Error::Declared(ListPetsError::PetsBusy))
        ));
    }
}

mod simple_math {
    use super::*;
    use rpcsmith_services::simple_math::SimpleMathClient;

    #[tokio::test]
    async fn examples_named_after_their_values_match_by_position() {
        let c = SimpleMathClient::new(mocked("open-rpc-examples/simple-math-openrpc.json", |_| {}));
        assert_eq!(c.addition(Some(2), Some(2)).await.unwrap(), 4);
        assert_eq!(c.addition(Some(4), Some(4)).await.unwrap(), 8);
        assert_eq!(c.subtraction(Some(4), Some(2)).await.unwrap(), 2);
        // No example: a generated integer.
        c.addition(Some(1), Some(1)).await.unwrap();
    }
}

mod starknet {
    use super::*;
    use rpcsmith_services::starknet::{StarknetClient, types};

    /// Starknet's node API has no examples: every answer is generated, and must decode
    /// into the generated types (unions, hex patterns, nested objects).
    #[tokio::test]
    async fn generated_values_decode_into_the_generated_types() {
        let c = StarknetClient::new(mocked(
            "starknet-specs/api/starknet_api_openrpc.json",
            |_| {},
        ));
        let version = c.starknet_spec_version().await.unwrap();
        assert!(!version.is_empty());
        c.starknet_block_number().await.unwrap();
        c.starknet_chain_id().await.unwrap();
        c.starknet_syncing().await.unwrap();
        let latest = || types::BlockId::Latest;
        c.starknet_get_block_with_tx_hashes(latest()).await.unwrap();
        c.starknet_get_state_update(latest(), None).await.unwrap();
        c.starknet_get_storage_at("0x1".into(), "0x2".into(), latest(), None)
            .await
            .unwrap();
    }
}

mod ethereum {
    use super::*;
    use rpcsmith_services::ethereum::{EthereumClient, types};

    #[tokio::test]
    async fn examples_answer_with_their_results() {
        let c = EthereumClient::new(mocked("ethereum-execution-apis/refs-openrpc.json", |_| {}));
        assert_eq!(c.eth_chain_id().await.unwrap(), "0x1");
        assert_eq!(c.eth_block_number().await.unwrap(), "0x2377");
        let tag = Some(types::BlockNumberOrTagOrHash::BlockTag(
            types::BlockTag::Latest,
        ));
        let balance = c
            .eth_get_balance("0xfe3b557e8fb62b89f4916b721be55ceb828dbd73".into(), tag)
            .await
            .unwrap();
        assert_eq!(balance, "0x1cfe56f3795885980000");
        c.eth_syncing().await.unwrap();
    }
}
