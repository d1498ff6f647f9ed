//! The symmetric connection over byte streams, end to end on 127.0.0.1 (TCP), a Unix
//! socket and an in-memory duplex: calls both ways, batches, notifications, push,
//! cancellation, a peer that goes away, and size limits; what a raw client writing bytes
//! by hand meets in `raw.rs`.

#[path = "../peer_support/mod.rs"]
mod peer_support;
mod pipelined;
mod raw;

use futures_util::FutureExt;
use peer_support::{PATIENCE, ServerSide, client_side, eventually, next_event};
use raw::{json_lines, next_answer, two_slot_server};
use rpcsmith::client::{Client, Error};
use rpcsmith::server::Server;
use rpcsmith::transport::peer::{Hub, Peer};
use rpcsmith::transport::stream::{self, Codec};
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

#[derive(Debug, Clone, Copy)]
enum Wire {
    Duplex(Codec),
    Tcp(Codec),
    Unix(Codec),
}

const WIRES: [Wire; 5] = [
    Wire::Duplex(Codec::Newline),
    Wire::Tcp(Codec::Newline),
    Wire::Tcp(Codec::ContentLength),
    Wire::Unix(Codec::Newline),
    Wire::Unix(Codec::ContentLength),
];

/// A connected client peer, what the server pushes to it, and the server's off switch
/// (dropping it closes the server side).
struct Setup {
    peer: Peer,
    pushed: mpsc::UnboundedReceiver<String>,
    stop: Option<oneshot::Sender<()>>,
    _dir: Option<tempfile::TempDir>,
}

async fn setup(wire: Wire, server: ServerSide, hub: &Hub, cancel: bool) -> Setup {
    let (handlers, pushed) = client_side();
    let client = Peer::builder()
        .serve(handlers)
        .cancel(cancel)
        .timeout(PATIENCE);
    let builder = Peer::builder()
        .serve(Server::new(server))
        .cancel(cancel)
        .hub(hub);
    let (stop, stopped) = oneshot::channel::<()>();
    let shutdown = async move {
        let _ = stopped.await;
    };
    let (peer, dir) = match wire {
        Wire::Duplex(codec) => {
            let (near, far) = tokio::io::duplex(4096);
            let (far_read, far_write) = tokio::io::split(far);
            let server_peer = builder.framed(codec, far_read, far_write);
            tokio::spawn(async move {
                tokio::select! { () = shutdown => {}, () = server_peer.closed() => {} }
            });
            let (read, write) = tokio::io::split(near);
            (client.framed(codec, read, write), None)
        }
        Wire::Tcp(codec) => {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let address = listener.local_addr().unwrap();
            tokio::spawn(stream::serve_tcp(listener, builder, codec, shutdown));
            (
                stream::connect_tcp(client, codec, address).await.unwrap(),
                None,
            )
        }
        Wire::Unix(codec) => {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("rpc.sock");
            let listener = tokio::net::UnixListener::bind(&path).unwrap();
            tokio::spawn(stream::serve_unix(listener, builder, codec, shutdown));
            (
                stream::connect_unix(client, codec, &path).await.unwrap(),
                Some(dir),
            )
        }
    };
    Setup {
        peer,
        pushed,
        stop: Some(stop),
        _dir: dir,
    }
}

async fn next(pushed: &mut mpsc::UnboundedReceiver<String>) -> String {
    tokio::time::timeout(PATIENCE, pushed.recv())
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_batches_and_notifications_both_ways() {
    for wire in WIRES {
        let (notified, mut notes) = mpsc::unbounded_channel();
        let server = ServerSide {
            notified: Some(notified),
            ..ServerSide::default()
        };
        let mut setup = setup(wire, server, &Hub::new(), false).await;
        let client = setup.peer.client().clone();
        let sum: i64 = client.request("add", &[2, 3]).await.unwrap();
        assert_eq!(sum, 5, "{wire:?}");

        let mut batch = client.batch();
        let a = batch.request::<i64, _>("add", &[1, 1]);
        let b = batch.request::<Vec<String>, _>("echo", &["x"]);
        batch.notify("note", &["in a batch"]).unwrap();
        let mut replies = batch.send().await.unwrap();
        assert_eq!(replies.take(b).unwrap(), ["x"], "{wire:?}");
        assert_eq!(replies.take(a).unwrap(), 2);
        assert_eq!(next(&mut notes).await, r#"["in a batch"]"#);

        client.notify("note", &["alone"]).await.unwrap();
        assert_eq!(next(&mut notes).await, r#"["alone"]"#);

        // Push from inside a handler, and a call from the server back to the client.
        let pushed: String = client.request("push", &[7]).await.unwrap();
        assert_eq!(pushed, "pushed");
        assert_eq!(next(&mut setup.pushed).await, "[7]", "{wire:?}");
        let doubled: i64 = client.request("ask", &[21]).await.unwrap();
        assert_eq!(doubled, 42, "{wire:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_are_routed_by_id() {
    for wire in WIRES {
        let setup = setup(wire, ServerSide::default(), &Hub::new(), false).await;
        let client = setup.peer.client().clone();
        let calls = (0..100_i64).map(|n| {
            let client = client.clone();
            async move { (n, client.request::<i64, _>("add", &[n, n]).await) }
        });
        for (n, sum) in futures_util::future::join_all(calls).await {
            assert_eq!(sum.unwrap(), 2 * n, "{wire:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hub_pushes_to_every_connection() {
    let hub = Hub::new();
    let mut setups = Vec::new();
    for wire in WIRES {
        setups.push(setup(wire, ServerSide::default(), &hub, false).await);
    }
    // Every connection has answered once, so each has registered in the hub.
    for setup in &setups {
        let _: i64 = setup.peer.client().request("add", &[0, 0]).await.unwrap();
    }
    let pushed = hub.notify_all("pushed", &["all"]).unwrap();
    assert_eq!((pushed.sent, pushed.full.len()), (WIRES.len(), 0));
    for setup in &mut setups {
        assert_eq!(next(&mut setup.pushed).await, r#"["all"]"#);
    }
}

// One thread: nothing runs between the steps of this test but what it awaits, so the
// stalled connection's queue, once full, stays full until the test reads from it.
#[tokio::test]
async fn a_stalled_connection_delays_no_push_and_is_reported_full() {
    let hub = Hub::new();
    let server = || {
        Peer::builder()
            .serve(Server::new(ServerSide::default()))
            .hub(&hub)
    };

    // A live connection, whose client reports what is pushed to it.
    let (near, far) = tokio::io::duplex(4096);
    let (far_read, far_write) = tokio::io::split(far);
    let _live_server = server().framed(Codec::Newline, far_read, far_write);
    let (handlers, mut pushed) = client_side();
    let (read, write) = tokio::io::split(near);
    let _live_client = Peer::builder()
        .serve(handlers)
        .framed(Codec::Newline, read, write);

    // A connection whose other end never reads: fill its queue to the brim.
    let (stalled_end, far) = tokio::io::duplex(64);
    let (far_read, far_write) = tokio::io::split(far);
    let stalled = server().framed(Codec::Newline, far_read, far_write);
    // Unconstrained: Tokio's cooperative budget would otherwise turn a send `Pending`
    // after 128 of them, with room still in the queue.
    let queued = tokio::task::unconstrained(async {
        let mut queued = 0;
        while let Some(sent) = stalled.client().notify("filler", &[queued]).now_or_never() {
            sent.unwrap();
            queued += 1;
        }
        queued
    })
    .await;

    let report = hub.notify_all("pushed", &["now"]).unwrap();
    assert_eq!(report.sent, 1, "the live connection took it");
    assert_eq!(report.full.len(), 1, "the stalled one is reported");
    assert_eq!(next(&mut pushed).await, r#"["now"]"#);

    // Once its peer reads again, the stalled connection gets the next pushes.
    let (stalled_read, _stalled_write) = tokio::io::split(stalled_end);
    let mut frames = stream::FrameReader::new(
        tokio::io::BufReader::new(stalled_read),
        Codec::Newline,
        1 << 20,
    );
    for n in 0..queued {
        let filler = next_answer(&mut frames).await;
        assert_eq!(filler["params"], serde_json::json!([n]));
    }
    let report = hub.notify_all("pushed", &["later"]).unwrap();
    assert_eq!((report.sent, report.full.len()), (2, 0));
    assert_eq!(next(&mut pushed).await, r#"["later"]"#);
    assert_eq!(
        next_answer(&mut frames).await["params"],
        serde_json::json!(["later"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_or_timed_out_call_cancels_its_handler() {
    for wire in WIRES {
        let (server, mut events) = ServerSide::with_events();
        let setup = setup(wire, server, &Hub::new(), true).await;
        let client = setup.peer.client().clone();

        // Dropped: its future goes away while the handler runs.
        let mut call = Box::pin(client.request::<(), _>("hold", &()));
        tokio::select! {
            outcome = &mut call => panic!("{wire:?}: hold answered {outcome:?}"),
            event = next_event(&mut events) => assert_eq!(event, "started", "{wire:?}"),
        }
        drop(call);
        assert_eq!(
            next_event(&mut events).await,
            "dropped",
            "{wire:?}: aborted"
        );

        // Timed out: the same. A real timeout is what is tested; it only has to outlast
        // the handler's start (a loopback round trip, some thousand times shorter).
        let quick = client.with_timeout(Duration::from_millis(300));
        let mut late = Box::pin(quick.request::<(), _>("hold", &()));
        tokio::select! {
            outcome = &mut late => panic!("{wire:?}: timed out before starting: {outcome:?}"),
            event = next_event(&mut events) => assert_eq!(event, "started", "{wire:?}"),
        }
        let late = late.await;
        assert!(matches!(late, Err(Error::Timeout)), "{wire:?}: {late:?}");
        assert_eq!(
            next_event(&mut events).await,
            "dropped",
            "{wire:?}: aborted"
        );

        // The connection still serves.
        let sum: i64 = client.request("add", &[1, 2]).await.unwrap();
        assert_eq!(sum, 3, "{wire:?}");
    }
}

/// What a raw server reads from a client peer built with the defaults for `codec`
/// that starts a call, drops it, then sends a notification: the method of the second
/// message, and the id of the call.
async fn second_message_after_a_dropped_call(
    codec: Codec,
) -> (serde_json::Value, serde_json::Value) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let peer = stream::connect_tcp(Peer::builder(), codec, address)
        .await
        .unwrap();
    let (socket, _) = listener.accept().await.unwrap();
    let mut frames = stream::FrameReader::new(tokio::io::BufReader::new(socket), codec, 1 << 20);

    let mut call = Box::pin(peer.client().request::<(), _>("slow", &()));
    let first = tokio::select! {
        outcome = &mut call => panic!("nobody answers, yet: {outcome:?}"),
        first = next_answer(&mut frames) => first,
    };
    drop(call);
    peer.client().notify("after", &()).await.unwrap();
    let second = next_answer(&mut frames).await;
    (second, first["id"].clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_requests_are_sent_by_default_only_with_content_length_framing() {
    let (second, id) = second_message_after_a_dropped_call(Codec::ContentLength).await;
    assert_eq!(
        second,
        serde_json::json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": id}})
    );
    let (second, _) = second_message_after_a_dropped_call(Codec::Newline).await;
    assert_eq!(second["method"], "after", "no $/cancelRequest: {second}");
}

// One thread, so that nothing runs between `closed` returning and the check after it.
#[tokio::test]
async fn closed_means_what_was_queued_is_written_and_the_stream_closed() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (near, far) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(near);
    let peer = Peer::builder().framed(Codec::Newline, read, write);
    for n in 0..100 {
        // Queued, not yet written: the writer has not run.
        peer.client()
            .notify("note", &[n])
            .now_or_never()
            .expect("room in the queue")
            .unwrap();
    }
    // The other side stops sending: this side's reading ends.
    let (mut far_read, mut far_write) = tokio::io::split(far);
    far_write.shutdown().await.unwrap();
    peer.closed().await;
    let mut written = Vec::new();
    far_read
        .read_to_end(&mut written)
        .now_or_never()
        .expect("everything is written and the stream closed")
        .unwrap();
    let notes: Vec<serde_json::Value> = written
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice::<serde_json::Value>(line).unwrap()["params"][0].clone())
        .collect();
    assert_eq!(
        notes,
        (0..100).map(serde_json::Value::from).collect::<Vec<_>>()
    );
    assert!(matches!(
        peer.client().notify("late", &()).await,
        Err(Error::Closed)
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_batch_cancels_each_of_its_calls_still_waiting() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let peer = stream::connect_tcp(Peer::builder().cancel(true), Codec::Newline, address)
        .await
        .unwrap();
    let (socket, _) = listener.accept().await.unwrap();
    let (read, mut write) = socket.into_split();
    let mut frames =
        stream::FrameReader::new(tokio::io::BufReader::new(read), Codec::Newline, 1 << 20);

    let mut batch = peer.client().batch();
    let _handles: Vec<rpcsmith::client::Handle<i64>> =
        (0..3).map(|n| batch.request("add", &[n, n])).collect();
    let mut sending = Box::pin(batch.send());
    let sent = tokio::select! {
        outcome = &mut sending => panic!("nobody answers, yet: {outcome:?}"),
        sent = next_answer(&mut frames) => sent,
    };
    let ids: Vec<serde_json::Value> = sent
        .as_array()
        .expect("a batch")
        .iter()
        .map(|call| call["id"].clone())
        .collect();
    // The first call is answered. The client reads in order, so once it has replied to
    // the request sent after that answer, the answer has reached the first call.
    let answer = serde_json::json!({"jsonrpc": "2.0", "result": 0, "id": ids[0]});
    stream::write_frame(&mut write, Codec::Newline, answer.to_string().as_bytes())
        .await
        .unwrap();
    let probe = br#"{"jsonrpc":"2.0","method":"probe","id":"p"}"#;
    stream::write_frame(&mut write, Codec::Newline, probe)
        .await
        .unwrap();
    let reply = tokio::select! {
        outcome = &mut sending => panic!("two calls are still unanswered: {outcome:?}"),
        reply = next_answer(&mut frames) => reply,
    };
    assert_eq!(reply["id"], "p", "{reply}");

    drop(sending);
    peer.client().notify("after", &()).await.unwrap();
    let mut cancelled = Vec::new();
    loop {
        let message = next_answer(&mut frames).await;
        if message["method"] == "after" {
            break;
        }
        cancelled.push(message);
    }
    let cancel = |id: &serde_json::Value| serde_json::json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": id}});
    assert_eq!(cancelled, [cancel(&ids[1]), cancel(&ids[2])]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_cancellation_a_cancel_request_is_an_ordinary_notification() {
    use tokio::io::AsyncWriteExt;
    let (server, mut events) = ServerSide::with_events();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let builder = Peer::builder().serve(Server::new(server));
    tokio::spawn(stream::serve_tcp(
        listener,
        builder,
        Codec::Newline,
        std::future::pending(),
    ));
    let mut socket = tokio::net::TcpStream::connect(address).await.unwrap();
    let hold = br#"{"jsonrpc":"2.0","method":"hold","id":1}"#;
    stream::write_frame(&mut socket, Codec::Newline, hold)
        .await
        .unwrap();
    assert_eq!(next_event(&mut events).await, "started");
    let cancel = br#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#;
    stream::write_frame(&mut socket, Codec::Newline, cancel)
        .await
        .unwrap();
    // Handed to the dispatcher like any notification, and the call runs on.
    assert_eq!(next_event(&mut events).await, "unknown $/cancelRequest");
    // Until the connection closes, which aborts it.
    socket.shutdown().await.unwrap();
    drop(socket);
    assert_eq!(next_event(&mut events).await, "dropped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_goes_away_fails_pending_calls_at_once() {
    for wire in WIRES {
        let server = ServerSide::default();
        let aborted = server.aborted.clone();
        let started = server.started.clone();
        let mut setup = setup(wire, server, &Hub::new(), false).await;
        let client: Client = setup.peer.client().clone();
        let calls: Vec<_> = (0..3)
            .map(|_| tokio::spawn(client.request::<(), _>("hang", &())))
            .collect();
        assert!(eventually(|| started.load(Ordering::SeqCst) == 3).await);
        drop(setup.stop.take());
        for call in calls {
            let outcome = call.await.unwrap();
            // Closed, not a timeout (the calls wait up to PATIENCE): the close did it.
            assert!(
                matches!(outcome, Err(Error::Closed)),
                "{wire:?}: {outcome:?}"
            );
        }
        setup.peer.closed().await;
        assert!(matches!(
            client.request::<i64, _>("add", &[1, 1]).await,
            Err(Error::Closed)
        ));
        assert!(
            eventually(|| aborted.load(Ordering::SeqCst) == 3).await,
            "{wire:?}: {}",
            aborted.load(Ordering::SeqCst)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_closes_a_connection_whose_client_a_handler_task_holds() {
    for codec in [Codec::Newline, Codec::ContentLength] {
        let (server, mut events) = ServerSide::with_events();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let serving = tokio::spawn(stream::serve_tcp(
            listener,
            Peer::builder().serve(Server::new(server)),
            codec,
            async {
                let _ = stopped.await;
            },
        ));
        let (handlers, mut pushed) = client_side();
        let peer = stream::connect_tcp(Peer::builder().serve(handlers), codec, address)
            .await
            .unwrap();
        let answer: String = peer.client().request("pushing", &()).await.unwrap();
        assert_eq!(answer, "pushing");
        assert_eq!(next(&mut pushed).await, "[0]", "{codec:?}");

        drop(stop);
        serving.await.unwrap();
        // The server closed the connection, though the handler's task holds its client...
        tokio::time::timeout(PATIENCE, peer.closed())
            .await
            .expect("the connection is closed");
        // ...and that task's next push fails at once.
        assert_eq!(
            next_event(&mut events).await,
            "push failed: Closed",
            "{codec:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_beyond_max_in_flight_are_refused_without_waiting() {
    use tokio::io::{AsyncWriteExt, BufReader};
    let (server, started) = two_slot_server();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(stream::serve_tcp(
        listener,
        Peer::builder().serve(server),
        Codec::Newline,
        std::future::pending(),
    ));
    let mut socket = BufReader::new(tokio::net::TcpStream::connect(address).await.unwrap());
    let hang = |id: u32| format!("{{\"jsonrpc\":\"2.0\",\"method\":\"hang\",\"id\":{id}}}\n");
    socket
        .get_mut()
        .write_all((hang(1) + &hang(2)).as_bytes())
        .await
        .unwrap();
    assert!(eventually(|| started.load(Ordering::SeqCst) == 2).await);
    // Both slots are taken by calls that wait: a request, a notification and a batch.
    let refused = [
        hang(3),
        "{\"jsonrpc\":\"2.0\",\"method\":\"hang\"}\n".to_owned(),
        "[{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":[1,2],\"id\":4}]\n".to_owned(),
    ];
    socket
        .get_mut()
        .write_all(refused.concat().as_bytes())
        .await
        .unwrap();
    let answers = json_lines(&mut socket, 2).await;
    let busy = |id: serde_json::Value| serde_json::json!({"jsonrpc": "2.0", "error": {"code": -32009, "message": "Server busy"}, "id": id});
    assert_eq!(answers, [busy(3.into()), busy(serde_json::Value::Null)]);
    assert_eq!(started.load(Ordering::SeqCst), 2, "none of them ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_over_the_limit_is_refused_and_the_connection_goes_on() {
    for wire in [Wire::Tcp(Codec::Newline), Wire::Tcp(Codec::ContentLength)] {
        let (handlers, _pushed) = client_side();
        let mut limits = rpcsmith::server::Limits::default();
        limits.max_request_size = 1024;
        let server = Server::builder(ServerSide::default())
            .limits(limits)
            .build();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let Wire::Tcp(codec) = wire else {
            unreachable!()
        };
        let builder = Peer::builder().serve(server);
        tokio::spawn(stream::serve_tcp(
            listener,
            builder,
            codec,
            std::future::pending(),
        ));
        let peer = stream::connect_tcp(Peer::builder().serve(handlers), codec, address)
            .await
            .unwrap();
        // The refusal has id null, so no call can be told: the big call times out (a real
        // timeout, what is tested; nothing else can end the call).
        let client = peer.client().with_timeout(Duration::from_millis(300));
        let big = "x".repeat(4096);
        let refused = client.request::<Vec<String>, _>("echo", &[&big]).await;
        assert!(
            matches!(refused, Err(Error::Timeout)),
            "{wire:?}: {refused:?}"
        );
        let small: Vec<String> = peer.client().request("echo", &["y"]).await.unwrap();
        assert_eq!(small, ["y"], "{wire:?}");
    }
}
