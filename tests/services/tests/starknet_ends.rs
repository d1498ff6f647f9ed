//! Design decision 14 on the generated Starknet WebSocket API (corpus D16, read in
//! place): Starknet has no "ended" notification, so a subscription whose items the node
//! stops sending (a transaction status stream, once the transaction is final) stays
//! the node's, silent, until the client unsubscribes (`Ok(true)`) or disconnects; an id
//! the node does not know reads as `Ok(false)` (the document's `INVALID_SUBSCRIPTION_ID`,
//! 66). Over a real WebSocket and a newline-framed TCP byte stream on loopback.
//!
//! The tests run on one thread: the node's items tell the test, from inside the poll
//! in which they end, that they have ended, so nothing of the runtime runs between
//! that end and what the test checks next.
#![cfg(corpus)]

mod peer_support;
mod starknet_support;

use std::time::Duration;

use futures_util::StreamExt;
use peer_support::Over;
use rpcsmith::client::Subscription;
use rpcsmith::server::{Context, Failure, Items, Server};
use rpcsmith::transport::peer::Peer;
use rpcsmith_services::starknet_subs::{
    StarknetSubsClient, StarknetSubsDispatcher, StarknetSubsServer, StarknetSubscribeEventsError,
    StarknetSubscribeNewHeadsError, StarknetSubscribeNewTransactionReceiptsError,
    StarknetSubscribeNewTransactionsError, types,
};
use serde_json::json;
use starknet_support::not_served;
use tokio::sync::mpsc;

const PATIENCE: Duration = Duration::from_secs(10);

/// The statuses a transaction goes through, as the node sends them.
const STATUSES: [&str; 3] = ["PRE_CONFIRMED", "ACCEPTED_ON_L2", "ACCEPTED_ON_L1"];

fn status(hash: &types::Felt, finality: &str) -> types::NewTxnStatus {
    let status = json!({
        "transaction_hash": hash,
        "status": {"finality_status": finality, "execution_status": "SUCCEEDED"},
    });
    serde_json::from_value(status).expect("a transaction status")
}

/// Tells its channel when dropped.
struct Tell(mpsc::UnboundedSender<()>);

impl Drop for Tell {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

/// The node: a transaction's statuses, up to final, then no more. The test hears when
/// they have ended (`ended`) and when the runtime drops them (`dropped`: the node's
/// subscription is over).
struct Node {
    ended: mpsc::UnboundedSender<()>,
    dropped: mpsc::UnboundedSender<()>,
}

impl StarknetSubsServer for Node {
    async fn starknet_subscribe_transaction_status(
        &self,
        _: Context,
        transaction_hash: types::Felt,
    ) -> Result<Items<types::NewTxnStatus>, Failure> {
        let statuses: Vec<_> = STATUSES
            .iter()
            .map(|s| status(&transaction_hash, s))
            .collect();
        let ended = self.ended.clone();
        let end = futures_util::stream::poll_fn(move |_| {
            let _ = ended.send(());
            std::task::Poll::Ready(None)
        });
        let dropped = Tell(self.dropped.clone());
        let items = futures_util::stream::iter(statuses)
            .chain(end)
            .map(move |status| {
                let _ = &dropped;
                status
            });
        Ok(Items::new(items))
    }

    async fn starknet_subscribe_new_heads(
        &self,
        _: Context,
        _: Option<types::SubscriptionBlockId>,
    ) -> Result<Items<types::BlockHeader>, Failure<StarknetSubscribeNewHeadsError>> {
        Err(not_served().into())
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

/// What the test hears from the node.
struct Heard {
    ended: mpsc::UnboundedReceiver<()>,
    dropped: mpsc::UnboundedReceiver<()>,
}

impl Heard {
    async fn ended(&mut self) {
        told(&mut self.ended, "the statuses end").await;
    }

    async fn dropped(&mut self) {
        told(&mut self.dropped, "the node's subscription is over").await;
    }
}

async fn told(channel: &mut mpsc::UnboundedReceiver<()>, what: &str) {
    tokio::time::timeout(PATIENCE, channel.recv())
        .await
        .unwrap_or_else(|_| panic!("{what}, in time"))
        .expect("the node is alive");
}

fn node() -> (Server, Heard) {
    let (ended, ended_rx) = mpsc::unbounded_channel();
    let (dropped, dropped_rx) = mpsc::unbounded_channel();
    let server = Server::new(StarknetSubsDispatcher::new(Node { ended, dropped }));
    let heard = Heard {
        ended: ended_rx,
        dropped: dropped_rx,
    };
    (server, heard)
}

/// A node served on a loopback port, and a client connected to it.
async fn connected(over: Over) -> (Peer, StarknetSubsClient, Heard) {
    let (server, heard) = node();
    let peer = peer_support::connected(server, over).await;
    let client = StarknetSubsClient::new(peer.client().clone());
    (peer, client, heard)
}

type Statuses = Subscription<types::NewTxnStatus>;

/// Subscribes to a transaction's statuses and reads them all, until the node has
/// ended them.
async fn every_status(client: &StarknetSubsClient, heard: &mut Heard) -> Statuses {
    let hash: types::Felt = serde_json::from_value(json!("0x5ca1ab1e")).unwrap();
    let mut statuses = client
        .starknet_subscribe_transaction_status(hash.clone())
        .await
        .unwrap();
    for finality in STATUSES {
        let next = tokio::time::timeout(PATIENCE, statuses.next()).await;
        let next = next.expect("a status in time").expect("the stream goes on");
        assert_eq!(next.unwrap(), status(&hash, finality));
    }
    heard.ended().await;
    statuses
}

async fn ended_items_leave_the_subscription_to_the_client(over: Over) {
    let (peer, client, mut heard) = connected(over).await;

    // The statuses are over; the subscription is not: unsubscribing is answered `true`.
    let statuses = every_status(&client, &mut heard).await;
    assert!(
        heard.dropped.try_recv().is_err(),
        "the node's subscription lives on"
    );
    assert!(statuses.unsubscribe().await.unwrap(), "answered true");
    heard.dropped().await;

    // Unsubscribed behind its back: the node answers `INVALID_SUBSCRIPTION_ID` (66),
    // which the subscription reads as "nothing to unsubscribe".
    let statuses = every_status(&client, &mut heard).await;
    let id: types::SubscriptionId = serde_json::from_str(&statuses.id().to_string()).unwrap();
    assert!(client.starknet_unsubscribe(id).await.unwrap());
    heard.dropped().await;
    assert!(
        !statuses.unsubscribe().await.unwrap(),
        "nothing to unsubscribe"
    );

    // A silent subscription ends with its connection.
    let statuses = every_status(&client, &mut heard).await;
    assert!(heard.dropped.try_recv().is_err());
    peer.close();
    heard.dropped().await;
    drop(statuses);
}

#[tokio::test]
async fn over_a_websocket_ended_items_leave_the_subscription_to_the_client() {
    ended_items_leave_the_subscription_to_the_client(Over::WebSocket).await;
}

#[tokio::test]
async fn over_tcp_ended_items_leave_the_subscription_to_the_client() {
    ended_items_leave_the_subscription_to_the_client(Over::Tcp).await;
}
