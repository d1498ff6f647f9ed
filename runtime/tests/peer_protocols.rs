//! What protocols on a symmetric peer ask of it: cancellation by their own
//! notification ([`Cancellation::LSP`], [`Cancellation::MCP`]), both ways, and
//! notifications (or all messages) handled in arrival order ([`Order`]).
//!
//! The other side is raw frames on an in-memory byte stream, so that what is sent and
//! what is answered (or not) is seen exactly.

use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Reply, Server, encode};
use rpcsmith::transport::peer::{Cancellation, Order, Peer};
use rpcsmith::transport::stream::{Codec, FrameReader, write_frame};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::mpsc;

/// Every wait is bounded by this.
const PATIENCE: Duration = Duration::from_secs(10);

/// The served side: `change [n]` (a notification) yields `n % 4` times, then records
/// `n`; `changes` answers what was recorded; `hold` reports `started <id>` and never
/// answers, reporting `dropped` when its future is dropped; `echo` answers its params.
#[derive(Clone)]
struct Editor {
    changes: Arc<Mutex<Vec<u64>>>,
    events: mpsc::UnboundedSender<String>,
}

struct Dropped(mpsc::UnboundedSender<String>);

impl Drop for Dropped {
    fn drop(&mut self) {
        let _ = self.0.send("dropped".to_owned());
    }
}

impl Dispatch for Editor {
    fn call(&self, method: &str, params: Option<&RawValue>, _: Context) -> Reply {
        let params: Value = params.map_or(Value::Null, |p| serde_json::from_str(p.get()).unwrap());
        match method {
            "change" => {
                let n = params[0].as_u64().unwrap_or(u64::MAX);
                let changes = Arc::clone(&self.changes);
                Reply::future(async move {
                    for _ in 0..n % 4 {
                        tokio::task::yield_now().await;
                    }
                    changes.lock().unwrap().push(n);
                    encode(&())
                })
            }
            "changes" => Reply::ok(&*self.changes.lock().unwrap()),
            "hold" => {
                let _ = self.events.send(format!("started {}", params[0]));
                let guard = Dropped(self.events.clone());
                Reply::future(async move {
                    std::future::pending::<()>().await;
                    drop(guard);
                    encode(&())
                })
            }
            "echo" => Reply::ok(&params),
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

/// The raw other side of a peer.
struct Far {
    frames: FrameReader<BufReader<ReadHalf<DuplexStream>>>,
    write: WriteHalf<DuplexStream>,
}

impl Far {
    async fn send(&mut self, message: Value) {
        write_frame(
            &mut self.write,
            Codec::Newline,
            message.to_string().as_bytes(),
        )
        .await
        .unwrap();
    }

    async fn next(&mut self) -> Value {
        let frame = tokio::time::timeout(PATIENCE, self.frames.read())
            .await
            .expect("a message in time")
            .unwrap()
            .expect("the connection is open");
        serde_json::from_slice(&frame).unwrap()
    }
}

/// A peer made by `builder` (serving an [`Editor`]), its raw other side, what the
/// editor recorded, and its events.
fn start(
    builder: rpcsmith::transport::peer::Builder,
) -> (Peer, Far, Editor, mpsc::UnboundedReceiver<String>) {
    let (events, receiver) = mpsc::unbounded_channel();
    let editor = Editor {
        changes: Arc::default(),
        events,
    };
    let (near, far) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(near);
    let peer = builder
        .serve(Server::new(editor.clone()))
        .framed(Codec::Newline, read, write);
    let (far_read, far_write) = tokio::io::split(far);
    let far = Far {
        frames: FrameReader::new(BufReader::new(far_read), Codec::Newline, 1 << 20),
        write: far_write,
    };
    (peer, far, editor, receiver)
}

async fn next_event(events: &mut mpsc::UnboundedReceiver<String>) -> String {
    tokio::time::timeout(PATIENCE, events.recv())
        .await
        .expect("an event in time")
        .expect("the editor is alive")
}

/// Sends `count` `change` notifications in one write (so the peer reads them in one
/// burst), and returns once the editor recorded them all: what it recorded.
async fn changes_applied(order: Order, count: u64) -> Vec<u64> {
    let (_peer, mut far, editor, _events) = start(Peer::builder().order(order));
    let mut burst = Vec::new();
    for n in 0..count {
        burst.extend_from_slice(
            json!({"jsonrpc": "2.0", "method": "change", "params": [n]})
                .to_string()
                .as_bytes(),
        );
        burst.push(b'\n');
    }
    far.write.write_all(&burst).await.unwrap();
    // A request is not ordered under `Order::Notifications`: ask until all are in.
    let deadline = tokio::time::Instant::now() + PATIENCE;
    for id in 0.. {
        far.send(json!({"jsonrpc": "2.0", "method": "changes", "id": id}))
            .await;
        let answer = far.next().await;
        let seen = answer["result"].as_array().expect("a list").len();
        if seen as u64 == count {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "only {seen} changes applied"
        );
        tokio::task::yield_now().await;
    }
    editor.changes.lock().unwrap().clone()
}

// One thread: what runs when is then decided by the runtime alone, so the concurrent
// run below interleaves the same way every time.
#[tokio::test]
async fn ordered_notifications_take_effect_in_arrival_order() {
    let in_order: Vec<u64> = (0..300).collect();
    assert_eq!(changes_applied(Order::Notifications, 300).await, in_order);
    assert_eq!(changes_applied(Order::All, 300).await, in_order);
    // The control: concurrently, a change that does not wait (`n % 4 == 0`) takes
    // effect before earlier ones that do.
    let concurrent = changes_applied(Order::Concurrent, 300).await;
    assert_ne!(concurrent, in_order);
    let mut sorted = concurrent.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, in_order, "every change applied once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_order_all_a_request_waits_for_the_notifications_before_it() {
    let (_peer, mut far, _editor, _events) = start(Peer::builder().order(Order::All));
    for n in 0..300 {
        far.send(json!({"jsonrpc": "2.0", "method": "change", "params": [n]}))
            .await;
    }
    far.send(json!({"jsonrpc": "2.0", "method": "changes", "id": 1}))
        .await;
    let answer = far.next().await;
    let expected: Vec<u64> = (0..300).collect();
    assert_eq!(answer["result"], json!(expected));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancellation_bypasses_the_order_and_mcp_cancelled_calls_get_no_answer() {
    let builder = Peer::builder()
        .order(Order::All)
        .cancellation(Cancellation::MCP);
    let (_peer, mut far, _editor, mut events) = start(builder);
    let cancel = |id: u32| json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "test"}});
    // A call runs on the lane, a second waits behind it.
    far.send(json!({"jsonrpc": "2.0", "method": "hold", "params": [1], "id": 1}))
        .await;
    assert_eq!(next_event(&mut events).await, "started 1");
    far.send(json!({"jsonrpc": "2.0", "method": "echo", "params": [2], "id": 2}))
        .await;
    // The cancellation does not wait behind the running call: it aborts it.
    far.send(cancel(1)).await;
    assert_eq!(next_event(&mut events).await, "dropped");
    // The next answer is the waiting call's: none for the cancelled one.
    assert_eq!(
        far.next().await,
        json!({"jsonrpc": "2.0", "result": [2], "id": 2})
    );

    // A call still waiting on the lane is cancelled too: it never runs.
    far.send(json!({"jsonrpc": "2.0", "method": "hold", "params": [3], "id": 3}))
        .await;
    assert_eq!(next_event(&mut events).await, "started 3");
    far.send(json!({"jsonrpc": "2.0", "method": "hold", "params": [4], "id": 4}))
        .await;
    far.send(cancel(4)).await;
    far.send(cancel(3)).await;
    assert_eq!(next_event(&mut events).await, "dropped");
    far.send(json!({"jsonrpc": "2.0", "method": "echo", "params": [5], "id": 5}))
        .await;
    assert_eq!(
        far.next().await,
        json!({"jsonrpc": "2.0", "result": [5], "id": 5})
    );
    // `hold 4` never started (it would have reported it first).
    assert!(events.try_recv().is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lsp_preset_answers_a_cancelled_call_minus_32800() {
    let builder = Peer::builder().cancellation(Cancellation::LSP);
    let (_peer, mut far, _editor, mut events) = start(builder);
    far.send(json!({"jsonrpc": "2.0", "method": "hold", "params": ["a"], "id": "a"}))
        .await;
    assert_eq!(next_event(&mut events).await, "started \"a\"");
    // MCP's notification means nothing here: an ordinary (unknown) notification.
    far.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "a"}})).await;
    far.send(json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "a"}}))
        .await;
    assert_eq!(next_event(&mut events).await, "dropped");
    let answer = far.next().await;
    assert_eq!(answer["id"], "a");
    assert_eq!(answer["error"]["code"], -32800, "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_call_sends_the_presets_notification() {
    for (cancellation, expected) in [
        (Cancellation::MCP, ("notifications/cancelled", "requestId")),
        (Cancellation::LSP, ("$/cancelRequest", "id")),
    ] {
        let (peer, mut far, _editor, _events) = start(Peer::builder().cancellation(cancellation));
        let mut call = Box::pin(peer.client().request::<Value, _>("slow", &()));
        let sent = tokio::select! {
            outcome = &mut call => panic!("nobody answers, yet: {outcome:?}"),
            sent = far.next() => sent,
        };
        drop(call);
        let (method, param) = expected;
        assert_eq!(
            far.next().await,
            json!({"jsonrpc": "2.0", "method": method, "params": {param: sent["id"]}})
        );
    }
}

// Paused time: the call's timeout passes as soon as nothing else can run.
#[tokio::test(start_paused = true)]
async fn a_call_that_times_out_sends_mcps_notification() {
    let builder = Peer::builder()
        .cancellation(Cancellation::MCP)
        .timeout(Duration::from_secs(5));
    let (peer, mut far, _editor, _events) = start(builder);
    let outcome = peer.client().request::<Value, _>("slow", &()).await;
    assert!(
        matches!(outcome, Err(rpcsmith::client::Error::Timeout)),
        "{outcome:?}"
    );
    let sent = far.next().await;
    assert_eq!(
        far.next().await,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": sent["id"]}})
    );
}
