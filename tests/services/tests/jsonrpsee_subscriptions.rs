//! Subscriptions as jsonrpsee-based servers describe them (`documents/sui-events.json`,
//! modelled on Sui's published document: the subscribe method's `result` is the item,
//! neither the notification nor the unsubscribe method listed), followed by the
//! generated client against a real jsonrpsee server on loopback over WebSocket: with
//! jsonrpsee's integer subscription ids (its default) and with string ids; and the other
//! way round, jsonrpsee's WebSocket client against the generated server.

use std::time::Duration;

use futures_util::StreamExt;
use jsonrpsee::server::{RandomStringIdProvider, RpcModule, Server, ServerConfig, ServerHandle};
use rpcsmith::client::Subscription;
use rpcsmith::http;
use rpcsmith::server::{Context, Failure, Items};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::ws;
use rpcsmith_services::sui_events::{
    SuiEventsClient, SuiEventsDispatcher, SuiEventsServer,
    SuixGetLatestCheckpointSequenceNumberResult, types,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;

const PATIENCE: Duration = Duration::from_secs(10);

/// The `seq`th event the node sends for `filter`, as JSON (Sui's field names).
fn event_json(seq: u64, filter: &Value) -> Value {
    let sender = filter["Sender"].as_str().unwrap_or("0x0");
    json!({
        "id": {"txDigest": format!("digest{seq}"), "eventSeq": seq.to_string()},
        "packageId": "0x2",
        "sender": sender,
        "transactionModule": "coin",
        "type": "0x2::coin::Minted",
        "parsedJson": {"amount": seq * 10},
        "timestampMs": null,
    })
}

/// A jsonrpsee node serving `suix_subscribeEvent` as jsonrpsee serves any
/// subscription: it sends three events, then keeps the subscription until the client
/// unsubscribes (`suix_unsubscribeEvent`, jsonrpsee's name for it) or goes, and then
/// tells the test (`over`).
async fn node(string_ids: bool) -> (String, ServerHandle, mpsc::UnboundedReceiver<()>) {
    let mut builder = Server::builder();
    if string_ids {
        let config = ServerConfig::builder()
            .set_id_provider(RandomStringIdProvider::new(16))
            .build();
        builder = builder.set_config(config);
    }
    let server = builder.build("127.0.0.1:0").await.expect("bind loopback");
    let address = server.local_addr().expect("its address");
    let (over, heard) = mpsc::unbounded_channel::<()>();
    let mut module = RpcModule::new(over);
    module
        .register_subscription(
            "suix_subscribeEvent",
            "suix_subscribeEvent",
            "suix_unsubscribeEvent",
            |params, pending, over, _| async move {
                let Ok([filter]) = params.parse::<[Value; 1]>() else {
                    pending
                        .reject(jsonrpsee::types::ErrorObjectOwned::owned(
                            -32602,
                            "expected [filter]",
                            None::<()>,
                        ))
                        .await;
                    return;
                };
                let Ok(sink) = pending.accept().await else {
                    return;
                };
                for seq in 0..3 {
                    let event = serde_json::value::to_raw_value(&event_json(seq, &filter));
                    // Unsubscribed before all three went out (the client may drop
                    // its subscription after the first): the end is told all the same.
                    if sink.send(event.expect("JSON")).await.is_err() {
                        break;
                    }
                }
                sink.closed().await;
                let _ = over.send(());
            },
        )
        .expect("registered");
    module
        .register_method("suix_getLatestCheckpointSequenceNumber", |_, _, _| "42")
        .expect("registered");
    (format!("ws://{address}"), server.start(module), heard)
}

async fn next_event(events: &mut Subscription<types::Event>) -> types::Event {
    let next = tokio::time::timeout(PATIENCE, events.next()).await;
    match next.expect("an event in time") {
        Some(Ok(event)) => event,
        other => panic!("expected an event, got {other:?}"),
    }
}

async fn ended(heard: &mut mpsc::UnboundedReceiver<()>) {
    tokio::time::timeout(PATIENCE, heard.recv())
        .await
        .expect("the node ends the subscription in time")
        .expect("the node is alive");
}

async fn follows_a_jsonrpsee_node(string_ids: bool) {
    let (url, handle, mut heard) = node(string_ids).await;
    let peer = ws::connect(url, Peer::builder(), ws::Settings::default())
        .await
        .expect("connected");
    let client = SuiEventsClient::new(peer.client().clone());
    let filter: types::EventFilter = serde_json::from_value(json!({"Sender": "0xa11ce"})).unwrap();

    let mut events = client.suix_subscribe_event(filter.clone()).await.unwrap();
    // The wire result was jsonrpsee's id (a number, or a string), not an event.
    let id: Value = serde_json::from_str(&events.id().to_string()).unwrap();
    assert_eq!(id.is_string(), string_ids, "{id}");
    for seq in 0..3 {
        let expected: types::Event =
            serde_json::from_value(event_json(seq, &json!({"Sender": "0xa11ce"}))).unwrap();
        assert_eq!(next_event(&mut events).await, expected);
    }
    // A plain call beside it, on the same connection.
    assert_eq!(
        client
            .suix_get_latest_checkpoint_sequence_number()
            .await
            .unwrap(),
        "42"
    );
    // Unsubscribed with jsonrpsee's method, which the document does not list: the node
    // answers `true`, and its side ends.
    assert!(events.unsubscribe().await.unwrap());
    ended(&mut heard).await;

    // Dropped: unsubscribed as well.
    let mut events = client.suix_subscribe_event(filter).await.unwrap();
    next_event(&mut events).await;
    drop(events);
    ended(&mut heard).await;

    peer.close();
    handle.stop().expect("stops");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_generated_client_follows_a_jsonrpsee_node_with_integer_ids() {
    follows_a_jsonrpsee_node(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_generated_client_follows_a_jsonrpsee_node_with_string_ids() {
    follows_a_jsonrpsee_node(true).await;
}

/// Tells its channel when dropped.
struct Tell(mpsc::UnboundedSender<()>);

impl Drop for Tell {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

/// The generated server's node: two events for the filter, then none, its items held
/// until the subscription ends (`over` is told then).
struct Node {
    over: mpsc::UnboundedSender<()>,
}

impl SuiEventsServer for Node {
    async fn suix_subscribe_event(
        &self,
        _cx: Context,
        filter: types::EventFilter,
    ) -> Result<Items<types::Event>, Failure> {
        let filter = serde_json::to_value(filter).expect("JSON");
        let events: Vec<types::Event> = (0..2)
            .map(|seq| serde_json::from_value(event_json(seq, &filter)).expect("an event"))
            .collect();
        let over = Tell(self.over.clone());
        let events = futures_util::stream::iter(events)
            .chain(futures_util::stream::pending())
            .map(move |event| {
                let _ = &over;
                event
            });
        Ok(Items::new(events))
    }

    async fn suix_get_latest_checkpoint_sequence_number(
        &self,
        _cx: Context,
    ) -> Result<SuixGetLatestCheckpointSequenceNumberResult, Failure> {
        Ok("7".to_owned())
    }
}

/// jsonrpsee's own client subscribes to the generated server as to a jsonrpsee node:
/// the items come as `suix_subscribeEvent` notifications with `subscription` and
/// `result`, and its `suix_unsubscribeEvent [id]` (a method the document does not list)
/// ends the server's side.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jsonrpsee_client_follows_the_generated_server() {
    use jsonrpsee::core::client::{ClientT as _, SubscriptionClientT as _};

    let (over, mut heard) = mpsc::unbounded_channel();
    let server = rpcsmith::server::Server::new(SuiEventsDispatcher::new(Node { over }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = http::Service::new(server).websocket(Peer::builder(), ws::Settings::default());
    tokio::spawn(http::serve(listener, service, std::future::pending()));

    let client = jsonrpsee::ws_client::WsClientBuilder::default()
        .build(format!("ws://{address}"))
        .await
        .expect("connected");
    let filter = json!({"Sender": "0xb0b"});
    let mut events: jsonrpsee::core::client::Subscription<Value> = client
        .subscribe(
            "suix_subscribeEvent",
            jsonrpsee::rpc_params![filter.clone()],
            "suix_unsubscribeEvent",
        )
        .await
        .expect("subscribed");
    for seq in 0..2 {
        let event = tokio::time::timeout(PATIENCE, events.next()).await;
        let event = event.expect("in time").expect("an item").expect("JSON");
        assert_eq!(event, event_json(seq, &filter));
    }
    let latest: String = client
        .request(
            "suix_getLatestCheckpointSequenceNumber",
            jsonrpsee::rpc_params![],
        )
        .await
        .expect("answered");
    assert_eq!(latest, "7");
    events.unsubscribe().await.expect("unsubscribed");
    ended(&mut heard).await;
}
