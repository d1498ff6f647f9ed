//! The client engine over a message stream transport: replies arrive through the
//! inbox, in any order, and are routed by id through the pending table.

use bytes::Bytes;
use rpcsmith::client::{
    Client, DeclaredError, Delivery, Error, Inbox, SendFuture, Transport, TransportError,
};
use rpcsmith::protocol::ErrorObject;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// A stream transport whose far end is the test: what the client sends arrives on a
/// channel, and the test answers through the inbox.
struct Stream {
    outgoing: mpsc::UnboundedSender<Bytes>,
    inbox: Arc<Mutex<Option<Inbox>>>,
}

impl Transport for Stream {
    fn attach(&mut self, inbox: Inbox) {
        *self.inbox.lock().expect("inbox lock") = Some(inbox);
    }

    fn send(&self, message: Bytes) -> SendFuture<'_> {
        let sent = self.outgoing.send(message);
        Box::pin(async move {
            sent.map(|()| Delivery::Routed)
                .map_err(|_| TransportError::closed())
        })
    }
}

struct Peer {
    incoming: mpsc::UnboundedReceiver<Bytes>,
    inbox: Inbox,
}

impl Peer {
    /// The next message the client sent, parsed.
    async fn next(&mut self) -> Value {
        let message = tokio::time::timeout(Duration::from_secs(5), self.incoming.recv())
            .await
            .expect("the client sends within 5 s")
            .expect("the client is alive");
        serde_json::from_slice(&message).expect("the client sends JSON")
    }

    fn reply(&self, json: &str) {
        self.inbox.deliver(Bytes::copy_from_slice(json.as_bytes()));
    }
}

fn connect(timeout: Duration) -> (Client, Peer) {
    let (outgoing, incoming) = mpsc::unbounded_channel();
    let slot = Arc::new(Mutex::new(None));
    let client = Client::builder().timeout(timeout).build(Stream {
        outgoing,
        inbox: Arc::clone(&slot),
    });
    let inbox = slot
        .lock()
        .expect("inbox lock")
        .take()
        .expect("attach was called");
    (client, Peer { incoming, inbox })
}

fn id_of(message: &Value) -> u64 {
    message["id"].as_u64().expect("a numeric id")
}

#[tokio::test]
async fn concurrent_calls_are_routed_by_id_whatever_the_order() {
    let (client, mut peer) = connect(Duration::from_secs(5));
    let calls: Vec<_> = (0..10_i64)
        .map(|n| tokio::spawn(client.request::<i64, _>("double", &[n])))
        .collect();
    let mut received = Vec::new();
    for _ in 0..10 {
        received.push(peer.next().await);
    }
    assert_eq!(client.pending(), 10);
    for message in received.iter().rev() {
        let n = message["params"][0].as_i64().expect("a number");
        peer.reply(&format!(
            r#"{{"jsonrpc":"2.0","result":{},"id":{}}}"#,
            n * 2,
            id_of(message)
        ));
    }
    for (n, call) in calls.into_iter().enumerate() {
        let doubled = call
            .await
            .expect("the task ends")
            .expect("the call succeeds");
        assert_eq!(doubled, 2 * n as i64);
    }
    assert_eq!(client.pending(), 0);
}

#[tokio::test]
async fn dropping_a_call_removes_it_from_the_pending_table() {
    let (client, mut peer) = connect(Duration::from_secs(60));
    let call = client.request::<i64, _>("slow", &());
    let mut call = Box::pin(call);
    tokio::select! {
        _ = &mut call => panic!("no answer was sent"),
        message = peer.next() => assert_eq!(message["method"], "slow"),
    }
    assert_eq!(client.pending(), 1);
    drop(call);
    assert_eq!(client.pending(), 0);
}

// On a paused clock (the transport is channels, no sockets): timeouts are exact.
#[tokio::test(start_paused = true)]
async fn a_call_without_answer_times_out_and_leaves_nothing() {
    let (client, mut peer) = connect(Duration::from_secs(60));
    let quick = client.with_timeout(Duration::from_millis(50)); // paused clock
    let result = quick.request::<i64, _>("slow", &()).await;
    assert!(matches!(result, Err(Error::Timeout)), "{result:?}");
    assert_eq!(client.pending(), 0);
    assert_eq!(peer.next().await["method"], "slow");
    assert_eq!(
        client.timeout(),
        Duration::from_secs(60),
        "the original keeps its timeout"
    );
}

// On a paused clock: the answered call cannot time out first, however slow the machine.
#[tokio::test(start_paused = true)]
async fn an_error_with_a_null_id_fails_no_call_on_a_stream() {
    let (client, mut peer) = connect(Duration::from_millis(300)); // paused clock
    let first = tokio::spawn(client.request::<i64, _>("a", &()));
    let second = tokio::spawn(client.request::<i64, _>("b", &()));
    let (one, two) = (peer.next().await, peer.next().await);
    peer.reply(r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#);
    let answered = if one["method"] == "a" { &one } else { &two };
    peer.reply(&format!(
        r#"{{"jsonrpc":"2.0","result":1,"id":{}}}"#,
        id_of(answered)
    ));
    assert_eq!(first.await.expect("task").expect("a is answered"), 1);
    let unanswered = second.await.expect("task");
    assert!(matches!(unanswered, Err(Error::Timeout)), "{unanswered:?}");
}

#[tokio::test]
async fn closing_fails_every_pending_call_at_once() {
    let (client, mut peer) = connect(Duration::from_secs(60));
    let calls: Vec<_> = (0..3)
        .map(|_| tokio::spawn(client.request::<i64, _>("wait", &())))
        .collect();
    for _ in 0..3 {
        peer.next().await;
    }
    peer.inbox.close();
    for call in calls {
        let result = tokio::time::timeout(Duration::from_secs(1), call)
            .await
            .expect("closed promptly")
            .expect("task");
        assert!(matches!(result, Err(Error::Closed)), "{result:?}");
    }
    assert!(client.is_closed());
    let later = client.request::<i64, _>("late", &()).await;
    assert!(matches!(later, Err(Error::Closed)), "{later:?}");
}

/// The errors a hypothetical `divide` declares.
#[derive(Debug, PartialEq)]
enum DivideError {
    ByZero { dividend: i64 },
}

impl DeclaredError for DivideError {
    fn from_object(error: ErrorObject) -> Result<Self, ErrorObject> {
        let data = error
            .data
            .as_deref()
            .map(|data| serde_json::from_str::<i64>(data.get()));
        match (error.code, data) {
            (1, Some(Ok(dividend))) => Ok(DivideError::ByZero { dividend }),
            _ => Err(error),
        }
    }
}

#[tokio::test]
async fn errors_are_declared_undeclared_or_decode_failures() {
    let (client, mut peer) = connect(Duration::from_secs(5));
    let answers = [
        r#""error":{"code":1,"message":"by zero","data":7}"#,
        r#""error":{"code":1,"message":"by zero","data":"not a number"}"#,
        r#""error":{"code":-32601,"message":"Method not found"}"#,
        r#""result":"not a number""#,
    ];
    let mut results = Vec::new();
    for answer in answers {
        let call = tokio::spawn(client.request_declared::<i64, DivideError, _>("divide", &[7, 0]));
        let message = peer.next().await;
        peer.reply(&format!(
            r#"{{"jsonrpc":"2.0",{answer},"id":{}}}"#,
            id_of(&message)
        ));
        results.push(call.await.expect("task"));
    }
    assert!(matches!(
        results[0],
        Err(Error::Declared(DivideError::ByZero { dividend: 7 }))
    ));
    assert!(matches!(&results[1], Err(Error::Undeclared(e)) if e.code == 1));
    assert!(matches!(&results[2], Err(Error::Undeclared(e)) if e.code == -32601));
    match &results[3] {
        Err(Error::Decode(mismatch)) => assert_eq!(
            mismatch.to_string(),
            r#"expected an integer, found a string "not a number""#
        ),
        other => panic!("expected a decode error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_batch_is_read_by_handle_whatever_the_order() {
    let (client, mut peer) = connect(Duration::from_secs(5));
    let mut batch = client.batch();
    let sum = batch.request::<i64, _>("add", &[1, 2]);
    batch.notify("log", &["x"]).expect("encodable");
    let name = batch.request::<String, _>("name", &());
    let failing = batch.request_declared::<i64, DivideError, _>("divide", &[1, 0]);
    assert_eq!(batch.len(), 4);
    let send = tokio::spawn(batch.send());
    let message = peer.next().await;
    let entries = message.as_array().expect("a batch is an array");
    assert_eq!(entries.len(), 4);
    assert!(entries[1].get("id").is_none(), "the notification has no id");
    let ids: Vec<u64> = [0, 2, 3].iter().map(|&i| id_of(&entries[i])).collect();
    peer.reply(&format!(
        r#"[{{"jsonrpc":"2.0","error":{{"code":1,"message":"z","data":1}},"id":{}}},
            {{"jsonrpc":"2.0","result":"rpcsmith","id":{}}},
            {{"jsonrpc":"2.0","result":3,"id":{}}}]"#,
        ids[2], ids[1], ids[0]
    ));
    let mut replies = send.await.expect("task").expect("the batch is answered");
    assert_eq!(replies.take(name).expect("name"), "rpcsmith");
    assert!(matches!(
        replies.take(failing),
        Err(Error::Declared(DivideError::ByZero { dividend: 1 }))
    ));
    assert_eq!(replies.take(sum).expect("sum"), 3);
    assert_eq!(client.pending(), 0);
}

// On a paused clock: the timeout is exact.
#[tokio::test(start_paused = true)]
async fn a_batch_times_out_as_a_whole() {
    let (client, mut peer) = connect(Duration::from_millis(50)); // paused clock
    let mut batch = client.batch();
    let _one = batch.request::<i64, _>("a", &());
    let _two = batch.request::<i64, _>("b", &());
    let result = batch.send().await;
    assert!(matches!(result, Err(Error::Timeout)), "{result:?}");
    assert_eq!(client.pending(), 0);
    assert!(peer.next().await.is_array());
}

#[tokio::test]
async fn params_that_are_not_structured_are_refused_before_sending() {
    let (client, mut peer) = connect(Duration::from_secs(5));
    let result = client.request::<i64, _>("m", &42).await;
    assert!(matches!(result, Err(Error::Encode(_))), "{result:?}");
    let mut batch = client.batch();
    let bad = batch.request::<i64, _>("m", &"scalar");
    assert!(batch.notify("n", &true).is_err());
    assert!(batch.is_empty());
    let mut replies = batch.send().await.expect("nothing to send");
    assert!(matches!(replies.take(bad), Err(Error::Encode(_))));
    client
        .notify("sent", &())
        .await
        .expect("a notification is sent");
    assert_eq!(
        peer.next().await["method"],
        "sent",
        "nothing was sent before"
    );
}
