//! Batches: concurrency, order, and the concurrency limit.

mod support;

use std::time::Duration;

use rpcsmith::server::{Limits, Metadata, Server};
use support::{TestMethods, json, request};
use tokio::time::Instant;

fn server(batch_concurrency: usize) -> Server {
    let mut limits = Limits::default();
    limits.batch_concurrency = batch_concurrency;
    Server::builder(TestMethods::default())
        .limits(limits)
        .build()
}

/// Handlers that finish out of order (30, 10, 20 ms, and at once) are answered in request
/// order, and run concurrently: the batch takes as long as its slowest call.
#[tokio::test(start_paused = true)]
async fn out_of_order_finishes_are_answered_in_request_order() {
    let batch = format!(
        "[{},{},{},{},{},{}]",
        request("sleep", "[30]", 1),
        request("sleep", "[10]", 2),
        r#"{"jsonrpc":"2.0","method":"sleep","params":[5]}"#,
        request("sleep", "[20]", 3),
        "7",
        request("add", "[1,1]", 4),
    );
    let started = Instant::now();
    let answer = server(64)
        .handle(batch.as_bytes(), Metadata::default())
        .await
        .unwrap();
    assert_eq!(started.elapsed(), Duration::from_millis(30)); // paused clock: exact
    let answer = json(&answer);
    let ids: Vec<_> = answer
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    assert_eq!(
        ids,
        [
            json(b"1"),
            json(b"2"),
            json(b"3"),
            json(b"null"),
            json(b"4")
        ]
    );
    let results: Vec<_> = answer
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["result"].clone())
        .collect();
    assert_eq!(results[..3], [json(b"30"), json(b"10"), json(b"20")]);
    assert_eq!(answer[3]["error"]["code"], -32600);
    assert_eq!(answer[4]["result"], 2);
}

#[tokio::test(start_paused = true)]
async fn concurrency_limit_bounds_waiting_calls() {
    let batch = format!(
        "[{},{},{},{}]",
        request("sleep", "[10]", 1),
        request("sleep", "[10]", 2),
        request("sleep", "[10]", 3),
        request("sleep", "[10]", 4),
    );
    for (concurrency, expected_ms) in [(1, 40), (2, 20), (3, 20), (4, 10), (0, 40)] {
        let started = Instant::now();
        let answer = server(concurrency)
            .handle(batch.as_bytes(), Metadata::default())
            .await;
        assert_eq!(
            started.elapsed(),
            Duration::from_millis(expected_ms),
            "{concurrency}"
        );
        assert_eq!(json(&answer.unwrap()).as_array().map(Vec::len), Some(4));
    }
}

#[tokio::test]
async fn one_element_batch_is_an_array_of_one() {
    let batch = format!("[{}]", request("add", "[2,2]", 1));
    let answer = server(64)
        .handle(batch.as_bytes(), Metadata::default())
        .await
        .unwrap();
    assert_eq!(
        json(&answer),
        json(br#"[{"jsonrpc":"2.0","result":4,"id":1}]"#)
    );
}

#[tokio::test(start_paused = true)]
async fn large_batch_in_order() {
    let calls: Vec<String> = (0..1000)
        .map(|i| match i % 3 {
            0 => request("sleep", &format!("[{}]", (1000 - i) % 7), i),
            1 => request("add", &format!("[{i},1]"), i),
            _ => format!(r#"{{"jsonrpc":"2.0","method":"add","params":[{i},1]}}"#),
        })
        .collect();
    let batch = format!("[{}]", calls.join(","));
    let answer = json(
        &server(8)
            .handle(batch.as_bytes(), Metadata::default())
            .await
            .unwrap(),
    );
    let ids: Vec<u64> = answer
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    let expected: Vec<u64> = (0..1000).filter(|i| i % 3 != 2).collect();
    assert_eq!(ids, expected);
}
