//! Push subscriptions served by the runtime (`server::subscribe`) on real loopback
//! sockets, seen by raw clients: the answer, then every item as the feed's notification
//! with the document's param names; unsubscribing, closing, the per-connection limit,
//! batches, and slow connections.

mod subscription_support;

use rpcsmith::http::{self, Service};
use rpcsmith::server::{Limits, Server, TrySendError};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith::transport::ws::Settings;
use serde_json::{Value, json};
use std::net::SocketAddr;
use subscription_support::{Feeds, Lined, Piped, Socket, call, closed, feeds, next_sink, until};

/// Serves `feeds` over newline-framed TCP, each connection a peer made by `builder`.
async fn tcp(feeds: Feeds, limits: Limits) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server = Server::builder(feeds).limits(limits).build();
    let builder = Peer::builder().serve(server);
    tokio::spawn(stream::serve_tcp(
        listener,
        builder,
        Codec::Newline,
        std::future::pending(),
    ));
    address
}

/// Serves `feeds` over HTTP and WebSocket on one port.
async fn websocket(feeds: Feeds) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = Service::new(Server::new(feeds)).websocket(Peer::builder(), Settings::default());
    tokio::spawn(http::serve(listener, service, std::future::pending()));
    address
}

fn is_random_id(id: &Value) -> bool {
    id.as_str().is_some_and(|id| {
        id.len() == 34 && id.starts_with("0x") && id[2..].bytes().all(|b| b.is_ascii_hexdigit())
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_answer_comes_first_then_every_item_by_name_in_order() {
    let (feeds, mut sinks) = feeds(8);
    let mut client = Lined::connect(tcp(feeds, Limits::default()).await).await;
    // The handler puts three items in the channel before it even returns: they must
    // still follow the answer on the wire.
    client
        .send(&call(1, "subscribeNewHeads", &json!({"items": [1, 2, 3]})))
        .await;
    let answer = client.recv().await;
    assert_eq!(answer["id"], 1, "{answer}");
    let id = answer["result"].clone();
    assert!(is_random_id(&id), "a random 128-bit id: {id}");
    let sink = next_sink(&mut sinks).await;
    sink.send(json!({"n": 4})).await.unwrap();
    for item in [json!(1), json!(2), json!(3), json!({"n": 4})] {
        assert_eq!(
            client.recv().await,
            json!({
                "jsonrpc": "2.0",
                "method": "starknet_subscriptionNewHeads",
                "params": {"subscription_id": id, "result": item}
            })
        );
    }

    // A second subscription gets another id.
    client.send(&call(2, "subscribeNewHeads", &json!({}))).await;
    let other = client.recv().await["result"].clone();
    assert!(is_random_id(&other) && other != id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn items_by_position_with_integer_ids_over_websocket() {
    let (feeds, mut sinks) = feeds(8);
    let address = websocket(feeds).await;
    let mut socket = Socket::connect(&format!("ws://{address}/")).await;
    socket
        .send(&call(1, "subscribeTicks", &json!({"items": ["a"]})))
        .await;
    assert_eq!(
        socket.recv().await,
        json!({"jsonrpc": "2.0", "result": 1, "id": 1})
    );
    assert_eq!(
        socket.recv().await,
        json!({"jsonrpc": "2.0", "method": "tick", "params": [1, "a"]})
    );
    let first = next_sink(&mut sinks).await;

    socket.send(&call(2, "subscribeTicks", &json!({}))).await;
    assert_eq!(
        socket.recv().await["result"],
        2,
        "ids count up per connection"
    );
    let second = next_sink(&mut sinks).await;
    second.send(json!("b")).await.unwrap();
    first.send(json!("c")).await.unwrap();
    let mut seen = [socket.recv().await, socket.recv().await];
    seen.sort_by_key(|m| m["params"][0].as_u64());
    assert_eq!(seen[0]["params"], json!([1, "c"]));
    assert_eq!(seen[1]["params"], json!([2, "b"]));

    // Another connection counts from 1 again.
    let mut other = Socket::connect(&format!("ws://{address}/")).await;
    other.send(&call(1, "subscribeTicks", &json!({}))).await;
    assert_eq!(other.recv().await["result"], 1);

    // Unsubscribing by position; the sink learns it.
    socket.send(&call(3, "untick", &json!([1]))).await;
    assert_eq!(socket.recv().await["result"], true);
    closed(&first).await;
    assert!(!second.is_closed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsubscribing_ends_the_sink_and_no_item_follows() {
    let (feeds, mut sinks) = feeds(8);
    let mut client = Lined::connect(tcp(feeds, Limits::default()).await).await;
    client.send(&call(1, "subscribeNewHeads", &json!({}))).await;
    let id = client.recv().await["result"].clone();
    let sink = next_sink(&mut sinks).await;
    sink.send(json!(1)).await.unwrap();
    assert_eq!(client.recv().await["params"]["result"], 1);

    client
        .send(&call(
            2,
            "starknet_unsubscribe",
            &json!({"subscription_id": id}),
        ))
        .await;
    assert_eq!(
        client.recv().await,
        json!({"jsonrpc": "2.0", "result": true, "id": 2})
    );
    closed(&sink).await;
    assert!(sink.send(json!(2)).await.is_err());
    assert!(matches!(
        sink.try_send(json!(3)),
        Err(TrySendError::Closed(_))
    ));
    // The next message is the answer to the next call: no item came in between.
    client.send(&call(3, "ping", &json!([]))).await;
    assert_eq!(
        client.recv().await,
        json!({"jsonrpc": "2.0", "result": "pong", "id": 3})
    );

    // Gone now; and params that name no id are refused precisely.
    client
        .send(&call(4, "starknet_unsubscribe", &json!([id])))
        .await;
    assert_eq!(client.recv().await["result"], false);
    client
        .send(&call(5, "starknet_unsubscribe", &json!({"id": id})))
        .await;
    assert_eq!(
        client.recv().await["error"],
        json!({
            "code": -32602,
            "message": "invalid params: expected the subscription id, as [<id>] or {\"subscription_id\": <id>}"
        })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_the_connection_ends_every_sink() {
    let (feeds, mut sinks) = feeds(8);
    let address = tcp(feeds, Limits::default()).await;
    let mut client = Lined::connect(address).await;
    client.send(&call(1, "subscribeNewHeads", &json!({}))).await;
    client.send(&call(2, "subscribeTicks", &json!({}))).await;
    let (a, b) = (next_sink(&mut sinks).await, next_sink(&mut sinks).await);
    client.recv().await;
    client.recv().await;
    assert!(!a.is_closed() && !b.is_closed());
    drop(client);
    closed(&a).await;
    closed(&b).await;

    // The same over WebSocket.
    let (ws_feeds, mut sinks) = subscription_support::feeds(8);
    let address = websocket(ws_feeds).await;
    let mut socket = Socket::connect(&format!("ws://{address}/")).await;
    socket.send(&call(1, "subscribeNewHeads", &json!({}))).await;
    socket.recv().await;
    let sink = next_sink(&mut sinks).await;
    drop(socket);
    closed(&sink).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_limit_per_connection_refuses_with_a_precise_error() {
    let (feeds, mut sinks) = feeds(8);
    let mut limits = Limits::default();
    limits.max_subscriptions = 2;
    let address = tcp(feeds, limits).await;
    let mut client = Lined::connect(address).await;
    client.send(&call(1, "subscribeNewHeads", &json!({}))).await;
    let first = client.recv().await["result"].clone();
    client.send(&call(2, "subscribeTicks", &json!({}))).await;
    client.recv().await;
    client.send(&call(3, "subscribeNewHeads", &json!({}))).await;
    assert_eq!(
        client.recv().await,
        json!({
            "jsonrpc": "2.0",
            "error": {"code": -32014, "message": "too many subscriptions on this connection (limit: 2)"},
            "id": 3
        })
    );
    // Refused before the handler ran: two sinks only.
    let _sinks = (next_sink(&mut sinks).await, next_sink(&mut sinks).await);
    assert!(sinks.try_recv().is_err());

    // The limit is per connection.
    let mut other = Lined::connect(address).await;
    other.send(&call(1, "subscribeNewHeads", &json!({}))).await;
    assert!(other.recv().await["result"].is_string());

    // Room again once one ends.
    client
        .send(&call(4, "starknet_unsubscribe", &json!([first])))
        .await;
    assert_eq!(client.recv().await["result"], true);
    client.send(&call(5, "subscribeNewHeads", &json!({}))).await;
    assert!(client.recv().await["result"].is_string());

    // A handler's failure is answered as any call's, and takes no room.
    other.send(&call(2, "subscribeRefused", &json!({}))).await;
    assert_eq!(
        other.recv().await["error"],
        json!({"code": -32000, "message": "no heads"})
    );
    other.send(&call(3, "subscribeNewHeads", &json!({}))).await;
    assert!(
        other.recv().await["result"].is_string(),
        "the second of two"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_in_a_batch_follow_the_batch_answer() {
    let (feeds, _sinks) = feeds(8);
    let mut client = Lined::connect(tcp(feeds, Limits::default()).await).await;
    let batch = format!(
        "[{},{},{}]",
        call(1, "subscribeNewHeads", &json!({"items": ["x", "y"]})),
        call(2, "subscribeCount", &json!([2])),
        call(3, "ping", &json!([])),
    );
    client.send(&batch).await;
    let answer = client.recv().await;
    let answers = answer.as_array().expect("the batch answer comes first");
    assert_eq!(answers.len(), 3);
    let heads = answers[0]["result"].clone();
    let count = answers[1]["result"].clone();
    assert_eq!(answers[2]["result"], "pong");
    let mut items: Vec<(Value, Value)> = Vec::new();
    for _ in 0..4 {
        let item = client.recv().await;
        items.push((
            item["params"]["subscription_id"].clone(),
            item["params"]["result"].clone(),
        ));
    }
    let of = |id: &Value| -> Vec<Value> {
        items
            .iter()
            .filter(|(i, _)| i == id)
            .map(|(_, v)| v.clone())
            .collect()
    };
    assert_eq!(of(&heads), [json!("x"), json!("y")], "in order");
    assert_eq!(of(&count), [json!(0), json!(1)], "in order");
}

/// Over a real connection: items that end (Starknet has no "ended" message) leave the
/// subscription to the client, whose unsubscribe is answered `true`, then `false`.
/// (`subscription_engine.rs` shows the state right after the items end, on one thread.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscription_whose_items_end_stays_until_unsubscribed() {
    let (feeds, _sinks) = feeds(8);
    let mut client = Lined::connect(tcp(feeds, Limits::default()).await).await;
    client.send(&call(1, "subscribeCount", &json!([1]))).await;
    let id = client.recv().await["result"].clone();
    assert_eq!(client.recv().await["params"]["result"], 0);
    client
        .send(&call(2, "starknet_unsubscribe", &json!([id])))
        .await;
    assert_eq!(client.recv().await["result"], true);
    client
        .send(&call(3, "starknet_unsubscribe", &json!([id])))
        .await;
    assert_eq!(client.recv().await["result"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pull_only_feed_is_pulled_even_where_pushing_is_possible() {
    let (feeds, mut sinks) = feeds(8);
    let mut client = Lined::connect(tcp(feeds, Limits::default()).await).await;
    client
        .send(&call(1, "subscribePulled", &json!({"items": [5]})))
        .await;
    let id = client.recv().await["result"].clone();
    assert!(is_random_id(&id));
    let sink = next_sink(&mut sinks).await;
    client
        .send(&call(2, "rpc.stream.next", &json!({"stream": id})))
        .await;
    assert_eq!(
        client.recv().await,
        json!({"jsonrpc": "2.0", "result": {"item": 5}, "id": 2}),
        "no notification came first"
    );
    client
        .send(&call(3, "rpc.stream.cancel", &json!({"stream": id})))
        .await;
    assert_eq!(client.recv().await["result"], true);
    closed(&sink).await;
}

/// Accepts one TCP connection on `listener` and serves it as a peer with `byte_budget`,
/// returning the server's end of it (to watch what it holds).
async fn accept_one(
    listener: &tokio::net::TcpListener,
    server: &Server,
    byte_budget: usize,
) -> Peer {
    let (stream, _) = listener.accept().await.unwrap();
    let (reader, writer) = stream.into_split();
    Peer::builder()
        .serve(server.clone())
        .byte_budget(byte_budget)
        .framed(Codec::Newline, reader, writer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_holds_up_only_itself_and_bounded_memory() {
    const BUDGET: usize = 64 << 10;
    const CAPACITY: usize = 4;
    let (feeds, mut sinks) = feeds(CAPACITY);
    let server = Server::new(feeds);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();

    // A subscribes, then never reads anything.
    let mut stalled_client = Lined::connect(address).await;
    let stalled = accept_one(&listener, &server, BUDGET).await;
    stalled_client
        .send(&call(1, "subscribeNewHeads", &json!({})))
        .await;
    let stalled_sink = next_sink(&mut sinks).await;

    // Its items pile up until the kernel's buffers and then the connection's budget are
    // full: then its pump waits for room, and its channel fills.
    let big = Value::String("x".repeat(16 << 10));
    let producer = {
        let sink = stalled_sink.clone();
        let big = big.clone();
        tokio::spawn(async move { while sink.send(big.clone()).await.is_ok() {} })
    };
    until("the stalled connection's budget fills", || {
        stalled.queued_bytes() >= BUDGET
    })
    .await;
    until("the channel fills", || {
        let sent = stalled_sink.try_send(big.clone());
        matches!(sent, Err(TrySendError::Full(_)))
    })
    .await;

    // B is served as if A did not exist.
    let mut client = Lined::connect(address).await;
    let _served = accept_one(&listener, &server, BUDGET).await;
    client.send(&call(1, "subscribeNewHeads", &json!({}))).await;
    let id = client.recv().await["result"].clone();
    let sink = next_sink(&mut sinks).await;
    for n in 0..3 {
        sink.send(json!(n)).await.unwrap();
        let item = client.recv().await;
        assert_eq!(item["params"], json!({"subscription_id": id, "result": n}));
    }
    client.send(&call(2, "ping", &json!([]))).await;
    assert_eq!(client.recv().await["result"], "pong");

    // What the server holds for A stayed within its budget, plus one item and the answer.
    let item_message = 200 + (16 << 10);
    assert!(
        stalled.queued_bytes_peak() <= BUDGET + item_message,
        "{}",
        stalled.queued_bytes_peak()
    );
    assert!(!stalled_sink.is_closed(), "A is slow, not gone");
    assert!(!producer.is_finished(), "A's producer waits for room");
    producer.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_item_follows_the_unsubscribe_answer_even_with_items_queued() {
    const QUEUED: usize = 256 << 10;
    let (feeds, mut sinks) = feeds(4);
    // A pipe with a small buffer: the server writes only as fast as the client reads.
    let (served, mut client) = Piped::piped(Server::new(feeds), 1024);
    client.send(&call(1, "subscribeNewHeads", &json!({}))).await;
    let id = client.recv().await["result"].clone();
    let sink = next_sink(&mut sinks).await;

    // 32 items of 16 KiB, unread: past what the pipe and the writer's buffer take, the
    // rest waits in the connection's queue (within its budget: it still reads).
    let big = Value::String("x".repeat(16 << 10));
    let producer = {
        let sink = sink.clone();
        tokio::spawn(async move {
            for _ in 0..32 {
                if sink.send(big.clone()).await.is_err() {
                    break; // unsubscribed before the last ones
                }
            }
        })
    };
    until("items wait in the queue", || {
        served.queued_bytes() >= QUEUED
    })
    .await;
    client
        .send(&call(2, "starknet_unsubscribe", &json!([id])))
        .await;
    client.send(&call(3, "ping", &json!([]))).await;

    // The answers may come in either order (the ping's may pass the queue); items
    // only before the unsubscribe's.
    let (mut items_before, mut ponged) = (0, false);
    loop {
        let message = client.recv().await;
        match message["id"].as_u64() {
            Some(2) => break assert_eq!(message["result"], true),
            Some(3) => ponged = true,
            _ => {
                assert_eq!(message["params"]["subscription_id"], id, "{message}");
                items_before += 1;
            }
        }
    }
    assert!(items_before > 0, "items were queued when it was read");
    // Nothing of the subscription after its answer: only the answers to the pings.
    client.send(&call(4, "ping", &json!([]))).await;
    for _ in 0..if ponged { 1 } else { 2 } {
        let message = client.recv().await;
        assert_eq!(
            message["result"], "pong",
            "no item after the unsubscribe's answer"
        );
    }
    closed(&sink).await;
    producer.await.unwrap();
}
