//! The streams golden (`codegen/tests/fixtures/services/streams.json`) served and called
//! over a real loopback TCP connection: the generated client's subscribe methods return
//! typed subscriptions, the generated server trait's return the items, and the generated
//! dispatcher hands both subscribe and unsubscribe methods to the runtime.

use futures_util::StreamExt as _;
use rpcsmith::server::{Context, Failure, Items, Server};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith_goldens::services::streams::{
    StreamsClient, StreamsDispatcher, StreamsServer, WatchSubscribeTicksError,
    WatchUnsubscribeError, types,
};
use std::convert::Infallible;

/// Three ticks for any symbol but `NOPE` (then none, until unsubscribed); `steps` steps
/// of progress for a job, then its end.
struct Exchange;

impl StreamsServer for Exchange {
    async fn watch_subscribe_ticks(
        &self,
        _cx: Context,
        symbol: String,
    ) -> Result<Items<types::Tick>, Failure<WatchSubscribeTicksError>> {
        if symbol == "NOPE" {
            return Err(WatchSubscribeTicksError::UnknownSymbol.into());
        }
        let ticks = (1..=3).map(move |cents| types::Tick {
            symbol: symbol.clone(),
            cents,
        });
        let live = futures_util::stream::iter(ticks).chain(futures_util::stream::pending());
        Ok(Items::new(live))
    }

    async fn jobs_start(
        &self,
        _cx: Context,
        steps: u64,
    ) -> Result<Items<types::Progress>, Failure<Infallible>> {
        let of = i64::try_from(steps).unwrap_or(i64::MAX);
        let progress = (1..=of).map(move |done| types::Progress { done, of });
        Ok(Items::new(futures_util::stream::iter(progress)))
    }

    async fn ping(&self, _cx: Context) -> Result<String, Failure<Infallible>> {
        Ok("pong".to_owned())
    }
}

/// A client of a generated `Exchange` server on a loopback TCP port.
async fn connect() -> (StreamsClient, Peer) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let served = Peer::builder().serve(Server::new(StreamsDispatcher::new(Exchange)));
    tokio::spawn(stream::serve_tcp(
        listener,
        served,
        Codec::Newline,
        std::future::pending(),
    ));
    let peer = stream::connect_tcp(Peer::builder(), Codec::Newline, address)
        .await
        .unwrap();
    (StreamsClient::new(peer.client().clone()), peer)
}

#[tokio::test]
async fn a_recognised_subscription_is_pushed_typed_and_its_unsubscribe_answered_by_the_runtime() {
    let (client, _peer) = connect().await;
    let mut ticks = client
        .watch_subscribe_ticks("ABC".to_owned())
        .await
        .unwrap();
    for cents in 1..=3 {
        let tick = ticks.next().await.expect("an item").expect("a tick");
        assert_eq!(
            tick,
            types::Tick {
                symbol: "ABC".to_owned(),
                cents
            }
        );
    }
    // The id the runtime assigned, as the server's unsubscribe reads it.
    let id: String = serde_json::from_str(&ticks.id().to_string()).unwrap();
    assert!(
        ticks.unsubscribe().await.unwrap(),
        "a live subscription ends"
    );
    // Gone: the method's one declared error answers an unknown id.
    match client.watch_unsubscribe(id).await {
        Err(rpcsmith::client::Error::Declared(e)) => {
            assert_eq!(e, WatchUnsubscribeError::InvalidSubscriptionId);
        }
        other => panic!("expected the declared error, got {other:?}"),
    }
    // The subscribe method's own declared errors come typed.
    match client.watch_subscribe_ticks("NOPE".to_owned()).await {
        Err(rpcsmith::client::Error::Declared(e)) => {
            assert_eq!(e, WatchSubscribeTicksError::UnknownSymbol);
        }
        other => panic!("expected the declared error, got {other:?}"),
    }
    assert_eq!(client.ping().await.unwrap(), "pong");
}

#[tokio::test]
async fn a_declared_pull_subscription_is_pulled_to_its_end() {
    let (client, _peer) = connect().await;
    let mut progress = client.jobs_start(2).await.unwrap();
    for done in 1..=2 {
        let step = progress.next().await.expect("an item").expect("progress");
        assert_eq!(step, types::Progress { done, of: 2 });
    }
    assert!(progress.next().await.is_none(), "a pulled stream ends");
    // No declared error: an unknown id is answered `false`.
    assert!(!client.jobs_cancel(12_345).await.unwrap());
}
