//! What the subscription tests share: an Ethereum-shaped node implementing the generated
//! `EthNewheadsServer` (`schemas/eth-newheads.json`), served over HTTP and WebSocket on a
//! loopback port, whose subscriptions the tests watch from the server's side.
#![allow(dead_code, unreachable_pub)]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rpcsmith::http;
use rpcsmith::server::{Context, Failure, Items, Server, Sink, channel};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith::transport::ws;
use rpcsmith_services::eth_newheads::{
    EthBlockNumberResult, EthChainIdResult, EthGetBlockHeaderByNumberResult, EthNewheadsDispatcher,
    EthNewheadsServer, types,
};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};

/// Every wait of these tests is bounded by this.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// Items each subscription's channel holds before `publish` waits.
const CHANNEL: usize = 256;

/// The header of block `number`.
pub fn header(number: u64) -> types::Header {
    types::Header {
        number: format!("{number:#x}"),
        hash: format!("{:#066x}", u128::from(number) << 8 | 0xaa),
        parent_hash: format!("{:#066x}", u128::from(number.saturating_sub(1)) << 8 | 0xaa),
        timestamp: format!("{:#x}", 1_700_000_000 + number),
        gas_limit: "0x1c9c380".into(),
        gas_used: format!("{:#x}", 21_000 * number),
        base_fee_per_gas: Some("0x7".into()),
    }
}

/// A header's block number.
pub fn number(header: &types::Header) -> u64 {
    let digits = header.number.trim_start_matches("0x");
    u64::from_str_radix(digits, 16).expect("a hex quantity")
}

/// The node: every `eth_subscribe("newHeads")` gets a channel, whose sink is kept to
/// publish to and handed to the test (`subscribed`), so that the test sees from the
/// server's side when a subscription ends.
pub struct Node {
    sinks: Mutex<Vec<Sink<types::Header>>>,
    subscribed: mpsc::UnboundedSender<Sink<types::Header>>,
    latest: Mutex<u64>,
}

impl EthNewheadsServer for Node {
    async fn eth_chain_id(&self, _cx: Context) -> Result<EthChainIdResult, Failure> {
        Ok("0x1".into())
    }

    async fn eth_block_number(&self, _cx: Context) -> Result<EthBlockNumberResult, Failure> {
        Ok(format!("{:#x}", *self.latest.lock().unwrap()))
    }

    async fn eth_get_block_header_by_number(
        &self,
        _cx: Context,
        block_number: types::Quantity,
    ) -> Result<EthGetBlockHeaderByNumberResult, Failure> {
        let latest = *self.latest.lock().unwrap();
        let wanted = u64::from_str_radix(block_number.trim_start_matches("0x"), 16).ok();
        Ok(wanted.filter(|&n| n <= latest).map(header))
    }

    async fn eth_subscribe(
        &self,
        _cx: Context,
        subscription_type: types::SubscriptionType,
    ) -> Result<Items<types::Header>, Failure> {
        let types::SubscriptionType::NewHeads = subscription_type;
        let (sink, items) = channel(CHANNEL);
        self.sinks.lock().unwrap().push(sink.clone());
        let _ = self.subscribed.send(sink);
        Ok(items)
    }
}

impl Node {
    /// A node, and the receiver of each new subscription's sink.
    pub fn new() -> (Arc<Node>, mpsc::UnboundedReceiver<Sink<types::Header>>) {
        let (subscribed, sinks) = mpsc::unbounded_channel();
        let node = Node {
            sinks: Mutex::new(Vec::new()),
            subscribed,
            latest: Mutex::new(0),
        };
        (Arc::new(node), sinks)
    }

    /// Publishes block `number` to every live subscription, waiting where a channel is
    /// full; ended subscriptions are forgotten. Returns how many it reached.
    pub async fn publish(&self, number: u64) -> usize {
        *self.latest.lock().unwrap() = number;
        let sinks: Vec<_> = self.sinks.lock().unwrap().clone();
        let mut reached = 0;
        for sink in sinks {
            if sink.send(header(number)).await.is_ok() {
                reached += 1;
            }
        }
        self.sinks.lock().unwrap().retain(|sink| !sink.is_closed());
        reached
    }

    /// Ends every subscription from the server's side: their items end.
    pub fn end_all(&self) {
        self.sinks.lock().unwrap().clear();
    }
}

/// The next subscription the node accepted, from the server's side.
pub async fn next_subscription(
    sinks: &mut mpsc::UnboundedReceiver<Sink<types::Header>>,
) -> Sink<types::Header> {
    tokio::time::timeout(PATIENCE, sinks.recv())
        .await
        .expect("a subscription in time")
        .expect("the node is alive")
}

/// Waits until the server has ended the subscription of `sink` (unsubscribed, or its
/// connection closed).
pub async fn ended(sink: &Sink<types::Header>) {
    tokio::time::timeout(PATIENCE, sink.closed())
        .await
        .expect("the server ends the subscription in time");
}

/// A running server of a node: HTTP and WebSocket on one port.
pub struct Serving {
    pub address: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    serving: tokio::task::JoinHandle<()>,
}

impl Serving {
    /// The server's WebSocket URL.
    pub fn ws_url(&self) -> String {
        format!("ws://{}/", self.address)
    }

    /// The server's HTTP URL.
    pub fn http_url(&self) -> String {
        format!("http://{}/", self.address)
    }

    /// Stops the server, and waits until it has stopped and closed its connections.
    pub async fn stop(mut self) {
        drop(self.stop.take());
        tokio::time::timeout(PATIENCE, &mut self.serving)
            .await
            .expect("the server stops in time")
            .expect("the server task ends well");
    }
}

/// Serves `node` on `listener`: HTTP, and WebSocket upgrades served by peers.
pub fn serve(node: Arc<Node>, listener: TcpListener) -> Serving {
    let address = listener.local_addr().unwrap();
    let server = Server::new(EthNewheadsDispatcher::from_arc(node));
    let service = http::Service::new(server).websocket(Peer::builder(), ws::Settings::default());
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = tokio::spawn(http::serve(listener, service, async {
        let _ = stopped.await;
    }));
    Serving {
        address,
        stop: Some(stop),
        serving,
    }
}

/// Serves `node` on `listener` as a TCP byte stream (newline-framed JSON-RPC peers).
pub fn serve_tcp(node: Arc<Node>, listener: TcpListener) -> Serving {
    let address = listener.local_addr().unwrap();
    let server = Server::new(EthNewheadsDispatcher::from_arc(node));
    let builder = Peer::builder().serve(server);
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = tokio::spawn(stream::serve_tcp(
        listener,
        builder,
        Codec::Newline,
        async {
            let _ = stopped.await;
        },
    ));
    Serving {
        address,
        stop: Some(stop),
        serving,
    }
}

/// Serves `node` on a free loopback port.
pub async fn serve_anywhere(node: Arc<Node>) -> Serving {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    serve(node, listener)
}
