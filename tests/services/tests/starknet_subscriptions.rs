//! Starknet's WebSocket API (corpus D16) as the generator reads it by default: the
//! Starknet convention makes `starknet_subscribeNewHeads` a typed subscription. The
//! generated client's `Subscription<BlockHeader>` against the generated server's
//! `Items<BlockHeader>`, over a real WebSocket on a loopback port and over `wss://` with
//! a certificate made for the test. Left out, with a message, where the corpus is absent.
#![cfg(corpus)]

#[path = "../../../runtime/tests/tls_support/mod.rs"]
mod tls_support;

mod starknet_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use rpcsmith::client::{Error, Subscription, SubscriptionError};
use rpcsmith::http::{self, Serve};
use rpcsmith::server::{Context, Failure, Items, Server, Sink, channel};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::ws::{self, Settings};
use rpcsmith_services::starknet_subs::{
    StarknetSubsClient, StarknetSubsDispatcher, StarknetSubsServer, StarknetSubscribeEventsError,
    StarknetSubscribeNewHeadsError, StarknetSubscribeNewTransactionReceiptsError,
    StarknetSubscribeNewTransactionsError, StarknetUnsubscribeError, types,
};
use starknet_support::not_served;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};

const PATIENCE: Duration = Duration::from_secs(10);

fn header(number: u64) -> types::BlockHeader {
    serde_json::from_value(starknet_support::header_json(number)).expect("a block header")
}

/// The node: each new-heads subscription gets a channel; its sink is kept to publish to
/// and handed to the test, which so sees the subscription end from the server's side.
struct Node {
    sinks: Mutex<Vec<Sink<types::BlockHeader>>>,
    subscribed: mpsc::UnboundedSender<Sink<types::BlockHeader>>,
}

impl Node {
    async fn publish(&self, number: u64) {
        let sinks: Vec<_> = self.sinks.lock().unwrap().clone();
        for sink in sinks {
            let _ = sink.send(header(number)).await;
        }
    }
}

impl StarknetSubsServer for Node {
    async fn starknet_subscribe_new_heads(
        &self,
        _cx: Context,
        _block_id: Option<types::SubscriptionBlockId>,
    ) -> Result<Items<types::BlockHeader>, Failure<StarknetSubscribeNewHeadsError>> {
        let (sink, items) = channel(16);
        self.sinks.lock().unwrap().push(sink.clone());
        let _ = self.subscribed.send(sink);
        Ok(items)
    }

    async fn starknet_subscribe_events(
        &self,
        _: Context,
        _: Option<types::StarknetSubscribeEventsFromAddress>,
        _: Option<types::EventKeys>,
        _: Option<types::SubscriptionBlockId>,
        _: Option<types::StarknetSubscribeEventsFinalityStatus>,
    ) -> Result<Items<types::StarknetSubscriptionEventsResult>, Failure<StarknetSubscribeEventsError>>
    {
        Err(not_served().into())
    }

    async fn starknet_subscribe_transaction_status(
        &self,
        _: Context,
        _: types::Felt,
    ) -> Result<Items<types::NewTxnStatus>, Failure> {
        Err(not_served().into())
    }

    async fn starknet_subscribe_new_transaction_receipts(
        &self,
        _: Context,
        _: Option<Vec<types::TxnFinalityStatus>>,
        _: Option<Vec<types::Felt>>,
    ) -> Result<
        Items<types::TxnReceiptWithBlockInfo>,
        Failure<StarknetSubscribeNewTransactionReceiptsError>,
    > {
        Err(not_served().into())
    }

    async fn starknet_subscribe_new_transactions(
        &self,
        _: Context,
        _: Option<Vec<types::TxnStatusWithoutL1>>,
        _: Option<Vec<types::Felt>>,
        _: Option<Vec<types::SubscriptionTag>>,
    ) -> Result<
        Items<types::StarknetSubscriptionNewTransactionResultKind>,
        Failure<StarknetSubscribeNewTransactionsError>,
    > {
        Err(not_served().into())
    }
}

/// A node served over HTTP and WebSocket on `listener` (over TLS with `tls`), until the
/// returned sender is dropped; and the receiver of its subscriptions' sinks.
fn serve(
    listener: TcpListener,
    tls: Option<rustls::ServerConfig>,
) -> (
    Arc<Node>,
    mpsc::UnboundedReceiver<Sink<types::BlockHeader>>,
    oneshot::Sender<()>,
) {
    let (subscribed, sinks) = mpsc::unbounded_channel();
    let node = Arc::new(Node {
        sinks: Mutex::default(),
        subscribed,
    });
    let server = Server::new(StarknetSubsDispatcher::from_arc(Arc::clone(&node)));
    let service = http::Service::new(server).websocket(Peer::builder(), Settings::default());
    let mut serve = Serve::new(listener, service);
    if let Some(tls) = tls {
        serve = serve.tls(tls);
    }
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve.run(async {
        let _ = stopped.await;
    }));
    (node, sinks, stop)
}

async fn next_sink(
    sinks: &mut mpsc::UnboundedReceiver<Sink<types::BlockHeader>>,
) -> Sink<types::BlockHeader> {
    tokio::time::timeout(PATIENCE, sinks.recv())
        .await
        .expect("a subscription in time")
        .expect("the node is alive")
}

async fn ended(sink: &Sink<types::BlockHeader>) {
    tokio::time::timeout(PATIENCE, sink.closed())
        .await
        .expect("the server ends the subscription in time");
}

async fn next(
    heads: &mut Subscription<types::BlockHeader>,
) -> Option<Result<types::BlockHeader, SubscriptionError>> {
    tokio::time::timeout(PATIENCE, heads.next())
        .await
        .expect("the subscription yields in time")
}

/// The whole life of new-heads subscriptions against a node at `url`: typed heads,
/// unsubscribe on drop (the server sees it), the declared error for an unknown id, and
/// the connection closing ending the server's sink.
async fn new_heads_end_to_end(
    url: String,
    settings: Settings,
    node: &Node,
    sinks: &mut mpsc::UnboundedReceiver<Sink<types::BlockHeader>>,
) {
    let peer = ws::connect(url, Peer::builder(), settings).await.unwrap();
    let client = StarknetSubsClient::new(peer.client().clone());

    let mut heads = client.starknet_subscribe_new_heads(None).await.unwrap();
    let id = heads.id().to_string();
    let first = next_sink(sinks).await;
    node.publish(1).await;
    node.publish(2).await;
    assert_eq!(next(&mut heads).await, Some(Ok(header(1))));
    assert_eq!(next(&mut heads).await, Some(Ok(header(2))));

    // Dropped: `starknet_unsubscribe` is sent; the server ends its side.
    drop(heads);
    ended(&first).await;
    // The id is unknown now: the runtime answers the document's declared error.
    let stale: types::SubscriptionId = serde_json::from_str(&id).unwrap();
    let again = client.starknet_unsubscribe(stale).await;
    assert!(
        matches!(
            again,
            Err(Error::Declared(
                StarknetUnsubscribeError::InvalidSubscriptionId
            ))
        ),
        "{again:?}"
    );

    // The connection closing ends the server's sink, and the client's stream.
    let mut heads = client.starknet_subscribe_new_heads(None).await.unwrap();
    let second = next_sink(sinks).await;
    node.publish(3).await;
    assert_eq!(next(&mut heads).await, Some(Ok(header(3))));
    peer.close();
    ended(&second).await;
    assert_eq!(next(&mut heads).await, Some(Err(SubscriptionError::Closed)));
    assert_eq!(next(&mut heads).await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_heads_are_typed_subscriptions_over_a_websocket() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/", listener.local_addr().unwrap());
    let (node, mut sinks, _stop) = serve(listener, None);
    new_heads_end_to_end(url, Settings::default(), &node, &mut sinks).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_heads_are_typed_subscriptions_over_wss() {
    let (tls, cert) = tls_support::certified();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("wss://localhost:{}/", listener.local_addr().unwrap().port());
    let (node, mut sinks, _stop) = serve(listener, Some(tls));
    let settings = Settings::default().tls_config(tls_support::trusting(cert));
    new_heads_end_to_end(url, settings, &node, &mut sinks).await;
}
