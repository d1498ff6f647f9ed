//! The generated clients in a browser: compiled to `wasm32-unknown-unknown` and run by
//! `wasm-bindgen-test-runner` in headless Chromium, against the servers that
//! `tests/chromium.rs` (the harness, native) starts on loopback and names at compile
//! time (`RPCSMITH_BROWSER_*`). Run through the harness: `cargo test -p rpcsmith-browser`.
#![cfg(target_arch = "wasm32")]

use std::time::Duration;

use futures_util::StreamExt;
use rpcsmith::client::{Client, Error, Handle, TransportErrorKind};
use rpcsmith::transport::browser::{Fetch, WebSocket};
use rpcsmith_browser::eth_newheads::{EthNewheadsClient, types::SubscriptionType};
use rpcsmith_browser::petstore::types::{Kind, Pet};
use rpcsmith_browser::petstore::{GetPetError, PetstoreClient};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// What the harness serves, named when it built these tests.
const PETSTORE: Option<&str> = option_env!("RPCSMITH_BROWSER_PETSTORE");
const ETH: Option<&str> = option_env!("RPCSMITH_BROWSER_ETH");
/// A loopback port that accepts connections and never answers.
const SILENT: Option<&str> = option_env!("RPCSMITH_BROWSER_SILENT");
/// A loopback port nothing listens on.
const CLOSED: Option<&str> = option_env!("RPCSMITH_BROWSER_CLOSED");

/// `http://127.0.0.1:PORT/` of `server`.
fn url(server: Option<&'static str>) -> &'static str {
    server.expect("built by tests/chromium.rs, which names its servers (RPCSMITH_BROWSER_*)")
}

/// `ws://…` for the server at `http://…`.
fn ws(server: Option<&'static str>) -> String {
    url(server).replacen("http://", "ws://", 1)
}

/// The petstore's calls, whatever carries them: each pet the server stores is new (the
/// harness's store starts empty for each test only in that the names are unique).
async fn petstore_calls(pets: &PetstoreClient, name: &str) {
    let added: Pet = pets
        .add_pet(name.into(), Kind::Bird, Some(vec!["browser".into()]))
        .await
        .unwrap();
    assert_eq!(added.name, name);
    assert_eq!(pets.get_pet(added.id).await.unwrap(), added);
    let birds = pets.list_pets(Kind::Bird, None).await.unwrap();
    assert!(birds.contains(&added), "{birds:?}");
    match pets.get_pet(u64::MAX >> 12).await {
        Err(Error::Declared(GetPetError::PetNotFound(missing))) => {
            assert_eq!(missing.id, u64::MAX >> 12);
        }
        other => panic!("expected PetNotFound, got {other:?}"),
    }
    // A notification: no answer (HTTP 204), nothing to wait for.
    pets.pet_visited(added.id).await.unwrap();
}

#[wasm_bindgen_test]
async fn petstore_over_fetch() {
    let client = Client::new(Fetch::new(url(PETSTORE)));
    petstore_calls(&PetstoreClient::new(client.clone()), "fetched").await;
    // A batch is one POST; its answers are read by their handles. The petstore takes
    // its params by position.
    let mut batch = client.batch();
    let dogs: Handle<Vec<Pet>> = batch.request("list_pets", &["dog"]);
    let missing: Handle<Pet> = batch.request("get_pet", &[0]);
    let mut replies = batch.send().await.unwrap();
    assert!(
        replies
            .take(dogs)
            .unwrap()
            .iter()
            .all(|pet| pet.kind == Kind::Dog)
    );
    assert!(replies.take(missing).is_err());
}

#[wasm_bindgen_test]
async fn petstore_over_a_websocket() {
    let socket = WebSocket::connect(&ws(PETSTORE)).await.unwrap();
    petstore_calls(&PetstoreClient::new(Client::new(socket)), "socketed").await;
}

#[wasm_bindgen_test]
async fn a_call_that_gets_no_answer_times_out_on_the_pages_timer() {
    let client = Client::new(Fetch::new(url(SILENT)));
    let late = client
        .with_timeout(Duration::from_millis(300))
        .request::<serde_json::Value, _>("anything", &[1])
        .await;
    assert!(matches!(late, Err(Error::Timeout)), "{late:?}");
}

#[wasm_bindgen_test]
async fn an_unreachable_server_is_a_connect_error() {
    let client = Client::new(Fetch::new(url(CLOSED)));
    match client
        .request::<serde_json::Value, _>("anything", &[1])
        .await
    {
        Err(Error::Transport(error)) => assert_eq!(error.kind(), TransportErrorKind::Connect),
        other => panic!("expected a transport error, got {other:?}"),
    }
    let refused = WebSocket::connect(&ws(CLOSED)).await;
    assert_eq!(refused.unwrap_err().kind(), TransportErrorKind::Connect);
}

/// Heads 1, 2 and 3 (the harness publishes them to every new subscription), then the
/// subscription is cancelled: pushed over a WebSocket, pulled over fetch.
async fn three_heads(client: Client) {
    let eth = EthNewheadsClient::new(client);
    let mut heads = eth.eth_subscribe(SubscriptionType::NewHeads).await.unwrap();
    for number in ["0x1", "0x2", "0x3"] {
        let head = heads
            .next()
            .await
            .expect("a head")
            .expect("a head, not an error");
        assert_eq!(head.number, number);
    }
    assert!(heads.unsubscribe().await.unwrap());
}

#[wasm_bindgen_test]
async fn a_subscription_pushed_over_a_websocket() {
    three_heads(Client::new(WebSocket::connect(&ws(ETH)).await.unwrap())).await;
}

#[wasm_bindgen_test]
async fn a_subscription_pulled_over_fetch() {
    three_heads(Client::new(Fetch::new(url(ETH)))).await;
}
