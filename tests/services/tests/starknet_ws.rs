//! Starknet's WebSocket API end to end, over a real WebSocket on a loopback port.
//!
//! Generated with `conventions(false).server_to_client("starknet_subscription*")`: the
//! node's generated server answers `starknet_subscribeNewHeads` with a subscription id, and its
//! subscription task pushes typed `starknet_subscriptionNewHeads` notifications through
//! `StarknetWsPush` over `peer::remote(&cx)`; the client's generated `StarknetWsListener`
//! receives them typed; `starknet_unsubscribe` stops them. Left out, with a message,
//! where the corpus is absent.
#![cfg(corpus)]

mod starknet_support;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rpcsmith::client::Error;
use rpcsmith::http;
use rpcsmith::server::{Context, Failure, Server};
use rpcsmith::transport::peer::{self, Peer};
use rpcsmith::transport::ws;
use rpcsmith_services::starknet_ws::{
    StarknetSubscribeEventsError, StarknetSubscribeNewHeadsError,
    StarknetSubscribeNewTransactionReceiptsError, StarknetSubscribeNewTransactionsError,
    StarknetUnsubscribeError, StarknetWsClient, StarknetWsDispatcher, StarknetWsListener,
    StarknetWsListenerDispatcher, StarknetWsPush, StarknetWsServer, types,
};
use starknet_support::not_served;
use tokio::sync::{broadcast, mpsc, oneshot};

/// A node: new blocks are broadcast to every `newHeads` subscription's task.
#[derive(Default)]
struct Node {
    blocks: Option<broadcast::Sender<types::BlockHeader>>,
    next_id: AtomicU64,
    /// Each subscription's stop signal.
    subscriptions: Mutex<HashMap<u64, oneshot::Sender<()>>>,
    /// Every push made, as (subscription, block number): what the node sent.
    pushed: Arc<Mutex<Vec<(u64, u64)>>>,
}

impl Node {
    fn new() -> Node {
        Node {
            blocks: Some(broadcast::channel(16).0),
            ..Node::default()
        }
    }

    /// Broadcasts a new block to the subscriptions there are (perhaps none).
    fn new_block(&self, number: u64) {
        let blocks = self.blocks.as_ref().expect("a node has blocks");
        let _ = blocks.send(header(number));
    }
}

fn header(number: u64) -> types::BlockHeader {
    serde_json::from_value(starknet_support::header_json(number)).expect("a block header")
}

impl StarknetWsServer for Node {
    async fn starknet_subscribe_new_heads(
        &self,
        cx: Context,
        _block_id: Option<types::SubscriptionBlockId>,
    ) -> Result<String, Failure<StarknetSubscribeNewHeadsError>> {
        let client = peer::remote(&cx).ok_or_else(not_served)?;
        let push = StarknetWsPush::new(client);
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let (stop, mut stopped) = oneshot::channel();
        self.subscriptions.lock().unwrap().insert(id, stop);
        let mut blocks = self.blocks.as_ref().expect("blocks").subscribe();
        let pushed = Arc::clone(&self.pushed);
        tokio::spawn(async move {
            loop {
                let header = tokio::select! {
                    // Unsubscribed: no block is pushed after the answer to unsubscribe.
                    biased;
                    _ = &mut stopped => break,
                    header = blocks.recv() => match header {
                        Ok(header) => header,
                        Err(_) => break,
                    },
                };
                pushed.lock().unwrap().push((id, header.block_number));
                let sent = push
                    .starknet_subscription_new_heads(Some(id.to_string()), Some(header))
                    .await;
                if sent.is_err() {
                    break;
                }
            }
        });
        // Starknet's subscription ids are strings (`SUBSCRIPTION_ID`).
        Ok(id.to_string())
    }

    async fn starknet_unsubscribe(
        &self,
        _cx: Context,
        subscription_id: String,
    ) -> Result<bool, Failure<StarknetUnsubscribeError>> {
        let stop = subscription_id
            .parse::<u64>()
            .ok()
            .and_then(|id| self.subscriptions.lock().unwrap().remove(&id));
        match stop {
            Some(stop) => Ok(stop.send(()).is_ok()),
            None => Err(StarknetUnsubscribeError::InvalidSubscriptionId.into()),
        }
    }

    async fn starknet_subscribe_events(
        &self,
        _: Context,
        _: Option<types::StarknetSubscribeEventsFromAddress>,
        _: Option<types::EventKeys>,
        _: Option<types::SubscriptionBlockId>,
        _: Option<types::StarknetSubscribeEventsFinalityStatus>,
    ) -> Result<String, Failure<StarknetSubscribeEventsError>> {
        Err(not_served().into())
    }

    async fn starknet_subscribe_transaction_status(
        &self,
        _: Context,
        _: types::Felt,
    ) -> Result<String, Failure> {
        Err(not_served().into())
    }

    async fn starknet_subscribe_new_transaction_receipts(
        &self,
        _: Context,
        _: Option<Vec<types::TxnFinalityStatus>>,
        _: Option<Vec<types::Felt>>,
    ) -> Result<String, Failure<StarknetSubscribeNewTransactionReceiptsError>> {
        Err(not_served().into())
    }

    async fn starknet_subscribe_new_transactions(
        &self,
        _: Context,
        _: Option<Vec<types::TxnStatusWithoutL1>>,
        _: Option<Vec<types::Felt>>,
        _: Option<Vec<types::SubscriptionTag>>,
    ) -> Result<String, Failure<StarknetSubscribeNewTransactionsError>> {
        Err(not_served().into())
    }
}

/// The client's listener: reports each new head with its subscription.
struct Heads(mpsc::UnboundedSender<(String, types::BlockHeader)>);

impl StarknetWsListener for Heads {
    async fn starknet_subscription_new_heads(
        &self,
        _cx: Context,
        subscription_id: Option<String>,
        result: Option<types::BlockHeader>,
    ) {
        let (Some(id), Some(header)) = (subscription_id, result) else {
            panic!("a new head without its subscription or header");
        };
        let _ = self.0.send((id, header));
    }

    async fn starknet_subscription_events(
        &self,
        _: Context,
        _: Option<String>,
        _: Option<types::StarknetSubscriptionEventsResult>,
    ) {
    }

    async fn starknet_subscription_transaction_status(
        &self,
        _: Context,
        _: Option<String>,
        _: Option<types::NewTxnStatus>,
    ) {
    }

    async fn starknet_subscription_new_transaction_receipts(
        &self,
        _: Context,
        _: Option<String>,
        _: Option<types::TxnReceiptWithBlockInfo>,
    ) {
    }

    async fn starknet_subscription_new_transaction(
        &self,
        _: Context,
        _: Option<String>,
        _: Option<types::StarknetSubscriptionNewTransactionResultKind>,
    ) {
    }

    async fn starknet_subscription_reorg(
        &self,
        _: Context,
        _: Option<String>,
        _: Option<types::ReorgData>,
    ) {
    }
}

/// The next `n` heads received, in block order (the listener handles each notification
/// in a task of its own).
async fn next_heads(
    received: &mut mpsc::UnboundedReceiver<(String, types::BlockHeader)>,
    n: usize,
) -> Vec<(String, types::BlockHeader)> {
    let mut heads = Vec::new();
    for _ in 0..n {
        let head = tokio::time::timeout(Duration::from_secs(10), received.recv())
            .await
            .expect("a new head in time")
            .expect("the listener is alive");
        heads.push(head);
    }
    heads.sort_by_key(|(_, header)| header.block_number);
    heads
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_heads_are_pushed_typed_over_a_websocket_until_unsubscribed() {
    let node = Arc::new(Node::new());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/", listener.local_addr().unwrap());
    let server = Server::new(StarknetWsDispatcher::from_arc(Arc::clone(&node)));
    let service = http::Service::new(server).websocket(Peer::builder(), ws::Settings::default());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(http::serve(listener, service, async {
        let _ = stopped.await;
    }));

    let (heads, mut received) = mpsc::unbounded_channel();
    let listening =
        Peer::builder().serve(Server::new(StarknetWsListenerDispatcher::new(Heads(heads))));
    let peer = ws::connect(url, listening, ws::Settings::default())
        .await
        .unwrap();
    let client = StarknetWsClient::new(peer.client().clone());

    let first = client.starknet_subscribe_new_heads(None).await.unwrap();
    node.new_block(1);
    node.new_block(2);
    assert_eq!(
        next_heads(&mut received, 2).await,
        [(first.clone(), header(1)), (first.clone(), header(2))]
    );

    assert!(client.starknet_unsubscribe(first.clone()).await.unwrap());
    node.new_block(3);
    let second = client.starknet_subscribe_new_heads(None).await.unwrap();
    assert_ne!(first, second);
    node.new_block(4);
    assert_eq!(
        next_heads(&mut received, 1).await,
        [(second.clone(), header(4))]
    );
    // Block 3 came after the unsubscribe and before the second subscription: pushed to
    // no one.
    let (a, b) = (
        first.parse::<u64>().unwrap(),
        second.parse::<u64>().unwrap(),
    );
    assert_eq!(*node.pushed.lock().unwrap(), [(a, 1), (a, 2), (b, 4)]);

    let again = client.starknet_unsubscribe(first).await;
    assert!(
        matches!(
            again,
            Err(Error::Declared(
                StarknetUnsubscribeError::InvalidSubscriptionId
            ))
        ),
        "{again:?}"
    );
    drop(stop);
}
