//! The client engine against the real server engine through the in-memory transport.

mod client_support;

use rpcsmith::client::{Client, Error, Handle};
use rpcsmith::transport::memory::{self, Link};
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn single_calls_by_position_and_by_name() {
    let client = memory::connect(client_support::server());
    assert_eq!(
        client
            .request::<i64, _>("subtract", &[42, 23])
            .await
            .expect("answered"),
        19
    );
    let by_name = json!({"minuend": 42, "subtrahend": 23});
    assert_eq!(
        client
            .request::<i64, _>("subtract", &by_name)
            .await
            .expect("answered"),
        19
    );
    let pair = client
        .request::<(String, u8), _>("get_data", &())
        .await
        .expect("answered");
    assert_eq!(pair, ("hello".to_owned(), 5));
}

#[tokio::test]
async fn errors_from_the_engine_are_undeclared() {
    let client = memory::connect(client_support::server());
    let missing = client.request::<i64, _>("no_such_method", &()).await;
    assert!(
        matches!(&missing, Err(Error::Undeclared(e)) if e.code == -32601),
        "{missing:?}"
    );
    let bad = client.request::<i64, _>("subtract", &["a", "b"]).await;
    assert!(
        matches!(&bad, Err(Error::Undeclared(e)) if e.code == -32602),
        "{bad:?}"
    );
    let reserved = client.request::<i64, _>("rpc.nothing", &()).await;
    assert!(
        matches!(&reserved, Err(Error::Undeclared(e)) if e.code == -32601),
        "{reserved:?}"
    );
}

#[tokio::test]
async fn notifications_get_no_answer() {
    let client = memory::connect(client_support::server());
    client
        .notify("update", &[1, 2, 3, 4, 5])
        .await
        .expect("sent");
    client
        .notify("foobar", &())
        .await
        .expect("unknown notifications are not answered either");
}

#[tokio::test]
async fn a_typed_batch_with_a_notification_and_an_error() {
    let client = memory::connect(client_support::server());
    let mut batch = client.batch();
    let sum: Handle<i64> = batch.request("sum", &[1, 2, 4]);
    batch.notify("notify_hello", &[7]).expect("encodable");
    let difference: Handle<i64> = batch.request("subtract", &[42, 23]);
    let unknown: Handle<i64> = batch.request("foo.get", &json!({"name": "myself"}));
    let data: Handle<(String, i64)> = batch.request("get_data", &());
    let mut replies = batch.send().await.expect("answered");
    assert_eq!(replies.len(), 4);
    assert_eq!(replies.take(data).expect("data"), ("hello".to_owned(), 5));
    assert!(matches!(replies.take(unknown), Err(Error::Undeclared(e)) if e.code == -32601));
    assert_eq!(replies.take(difference).expect("difference"), 19);
    assert_eq!(replies.take(sum).expect("sum"), 7);
}

#[tokio::test]
async fn a_batch_of_notifications_and_an_empty_batch() {
    let client = memory::connect(client_support::server());
    let mut batch = client.batch();
    batch.notify("update", &[1]).expect("encodable");
    batch.notify("update", &[2]).expect("encodable");
    assert!(batch.send().await.expect("sent").is_empty());
    assert!(
        client
            .batch()
            .send()
            .await
            .expect("nothing to send")
            .is_empty()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_calls_over_one_client() {
    let client = memory::connect(client_support::server());
    let calls: Vec<_> = (0..200_i64)
        .map(|n| tokio::spawn(client.request::<i64, _>("sleep", &(n as u64 % 5, n))))
        .collect();
    for (n, call) in calls.into_iter().enumerate() {
        assert_eq!(call.await.expect("task").expect("answered"), n as i64);
    }
    assert_eq!(client.pending(), 0);
}

// On a paused clock, so every call is sent before any 200 ms handler can finish (on a
// real clock that would be a guess about how long 300 spawns take).
#[tokio::test(start_paused = true)]
async fn a_link_is_one_connection_with_its_in_flight_limit() {
    let client = memory::connect(client_support::server());
    let calls: Vec<_> = (0..300_i64)
        .map(|n| tokio::spawn(client.request::<i64, _>("sleep", &(200, n))))
        .collect();
    let mut busy = 0;
    for call in calls {
        match call.await.expect("task") {
            Ok(_) => {}
            Err(Error::Undeclared(e)) if e.code == -32009 => busy += 1,
            Err(other) => panic!("unexpected {other:?}"),
        }
    }
    assert!(
        busy >= 300 - 256,
        "the default in-flight limit is 256 per connection: {busy} busy"
    );
}

// On a paused clock: the 50 ms timeout fires before the 5 s handler, exactly.
#[tokio::test(start_paused = true)]
async fn a_slow_handler_times_the_call_out() {
    let client = Client::builder()
        .timeout(Duration::from_millis(50)) // on the paused clock
        .build(Link::new(client_support::server()));
    let late = client.request::<i64, _>("sleep", &(5_000, 1)).await;
    assert!(matches!(late, Err(Error::Timeout)), "{late:?}");
    assert_eq!(client.pending(), 0);
    let quick = client
        .request::<i64, _>("sleep", &(0, 2))
        .await
        .expect("in time");
    assert_eq!(quick, 2);
}

#[tokio::test]
async fn raw_params_pass_through_verbatim() {
    let client = memory::connect(client_support::server());
    let raw = serde_json::value::RawValue::from_string(
        r#"{"big": 123456789012345678901234567890}"#.to_owned(),
    )
    .expect("valid JSON");
    let echoed = client
        .request::<Box<serde_json::value::RawValue>, _>("echo", &*raw)
        .await
        .expect("answered");
    assert_eq!(echoed.get(), r#"{"big": 123456789012345678901234567890}"#);
}
