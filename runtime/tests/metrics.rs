//! The `metrics` feature, read back through `metrics-util`'s `DebuggingRecorder`
//! (installed for each test's thread: every test runs on a current-thread runtime, so
//! its servers, clients and their tasks all record into its own recorder), with real
//! sockets on loopback: server calls by method and code (names outside the dispatcher's
//! table as `unknown`), latency, calls in flight and cancelled, batch sizes, connections
//! and bytes by transport, live subscriptions and pull streams; client calls and errors
//! by kind.

mod subscription_support;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};
use rpcsmith::client::{self, Client};
use rpcsmith::http::{self, Service};
use rpcsmith::metrics as names;
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Reply, Server};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith::transport::ws::Settings;
use serde_json::json;
use serde_json::value::RawValue;
use subscription_support::{Lined, PATIENCE, Socket, call, feeds, next_sink};

/// `add(a, b)`, `fail` (answers code 7), `hang` (never answers); its table names them.
struct Calc;

impl Dispatch for Calc {
    fn call(&self, method: &str, params: Option<&RawValue>, _cx: Context) -> Reply {
        match method {
            "add" => match serde_json::from_str::<(i64, i64)>(params.map_or("null", |p| p.get())) {
                Ok((a, b)) => Reply::future(async move { rpcsmith::server::encode(&(a + b)) }),
                Err(_) => Reply::err(ErrorObject::invalid_params("two integers")),
            },
            "fail" => Reply::err(ErrorObject::new(7, "failed on purpose")),
            "hang" => Reply::future(std::future::pending()),
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }

    fn methods(&self) -> Option<Vec<&str>> {
        Some(vec!["add", "fail", "hang"])
    }
}

/// What the recorder holds, accumulated over its snapshots (a snapshot hands out what
/// was recorded since the last one: counters and gauges as deltas from zero,
/// histograms' new values).
struct Recorded {
    snapshotter: Snapshotter,
    counters: BTreeMap<String, u64>,
    gauges: BTreeMap<String, f64>,
    histograms: BTreeMap<String, Vec<f64>>,
}

/// `name{k=v,…}` with the labels sorted.
fn series(name: &str, labels: &[(&str, &str)]) -> String {
    let mut labels: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    labels.sort();
    format!("{name}{{{}}}", labels.join(","))
}

impl Recorded {
    fn new(recorder: &DebuggingRecorder) -> Self {
        Recorded {
            snapshotter: recorder.snapshotter(),
            counters: BTreeMap::new(),
            gauges: BTreeMap::new(),
            histograms: BTreeMap::new(),
        }
    }

    fn refresh(&mut self) {
        for (key, _, _, value) in self.snapshotter.snapshot().into_vec() {
            let key = key.key();
            let labels: Vec<(&str, &str)> = key.labels().map(|l| (l.key(), l.value())).collect();
            let id = series(key.name(), &labels);
            match value {
                DebugValue::Counter(n) => *self.counters.entry(id).or_default() += n,
                DebugValue::Gauge(x) => *self.gauges.entry(id).or_default() += x.into_inner(),
                DebugValue::Histogram(xs) => self
                    .histograms
                    .entry(id)
                    .or_default()
                    .extend(xs.into_iter().map(|x| x.into_inner())),
            }
        }
    }

    fn counter(&mut self, name: &str, labels: &[(&str, &str)]) -> u64 {
        self.refresh();
        self.counters
            .get(&series(name, labels))
            .copied()
            .unwrap_or(0)
    }

    fn gauge(&mut self, name: &str, labels: &[(&str, &str)]) -> f64 {
        self.refresh();
        self.gauges
            .get(&series(name, labels))
            .copied()
            .unwrap_or(0.0)
    }

    /// Whether the gauge was ever set.
    fn has_gauge(&mut self, name: &str, labels: &[(&str, &str)]) -> bool {
        self.refresh();
        self.gauges.contains_key(&series(name, labels))
    }

    fn histogram(&mut self, name: &str, labels: &[(&str, &str)]) -> Vec<f64> {
        self.refresh();
        self.histograms
            .get(&series(name, labels))
            .cloned()
            .unwrap_or_default()
    }

    /// Every series of counter `name`.
    fn counter_series(&mut self, name: &str) -> Vec<String> {
        self.refresh();
        let prefix = format!("{name}{{");
        self.counters
            .keys()
            .filter(|id| id.starts_with(&prefix))
            .cloned()
            .collect()
    }

    /// Waits (polling, within [`PATIENCE`]) until gauge `name` reads `value`.
    async fn gauge_reaches(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        let what = series(name, labels);
        self.reaches(&what, value, |r| r.gauge(name, labels)).await;
    }

    /// Waits (polling, within [`PATIENCE`]) until counter `name` reads `value`.
    async fn counter_reaches(&mut self, name: &str, labels: &[(&str, &str)], value: u64) {
        let what = series(name, labels);
        self.reaches(&what, value, |r| r.counter(name, labels))
            .await;
    }

    /// Waits until `read` gives `value`, looking every few milliseconds, up to
    /// [`PATIENCE`]: a connection's end is seen by the server some time after the
    /// client lets go.
    async fn reaches<T: PartialEq + std::fmt::Debug>(
        &mut self,
        what: &str,
        value: T,
        mut read: impl FnMut(&mut Self) -> T,
    ) {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let now = read(self);
            if now == value {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{what} is {now:?}, not {value:?}"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

async fn listener() -> (tokio::net::TcpListener, SocketAddr) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    (listener, address)
}

/// `dispatch` over HTTP and WebSocket on one loopback port.
async fn serve_http(dispatch: impl Dispatch) -> SocketAddr {
    let (listener, address) = listener().await;
    let service =
        Service::new(Server::new(dispatch)).websocket(Peer::builder(), Settings::default());
    tokio::spawn(http::serve(listener, service, std::future::pending()));
    address
}

const CALLS: &str = names::SERVER_CALLS_TOTAL;

#[tokio::test]
async fn server_calls_errors_batches_and_http_connections() {
    let recorder = DebuggingRecorder::new();
    let _local = metrics::set_default_local_recorder(&recorder);
    let mut recorded = Recorded::new(&recorder);
    let address = serve_http(Calc).await;
    let client = Client::new(http::Client::new(&format!("http://{address}/")).unwrap());

    let sum: i64 = client.request("add", &(1, 2)).await.unwrap();
    assert_eq!(sum, 3);
    assert!(client.request::<i64, _>("fail", &()).await.is_err());
    for name in ["nope", "other", "rpc.nope"] {
        assert!(client.request::<i64, _>(name, &()).await.is_err());
    }
    let mut batch = client.batch();
    let handles = [
        batch.request::<i64, _>("add", &(2, 3)),
        batch.request::<i64, _>("add", &(4, 5)),
    ];
    batch.notify("add", &(0, 0)).unwrap();
    let mut replies = batch.send().await.unwrap();
    for (handle, want) in handles.into_iter().zip([5, 9]) {
        assert_eq!(replies.take(handle).unwrap(), want);
    }

    assert_eq!(
        recorded.counter(CALLS, &[("method", "add"), ("code", "ok")]),
        4
    );
    assert_eq!(
        recorded.counter(CALLS, &[("method", "fail"), ("code", "7")]),
        1
    );
    // Names outside the table make one series, not one each; a reserved name without a
    // provider too.
    assert_eq!(
        recorded.counter(CALLS, &[("method", "unknown"), ("code", "-32601")]),
        3
    );
    assert_eq!(
        recorded.counter_series(CALLS),
        vec![
            series(CALLS, &[("method", "unknown"), ("code", "-32601")]),
            series(CALLS, &[("method", "fail"), ("code", "7")]),
            series(CALLS, &[("method", "add"), ("code", "ok")]),
        ],
        "sorted as the series' text"
    );
    let durations = recorded.histogram(names::SERVER_CALL_DURATION_SECONDS, &[("method", "add")]);
    assert_eq!(durations.len(), 4);
    assert!(
        durations
            .iter()
            .all(|s| (0.0..PATIENCE.as_secs_f64()).contains(s))
    );
    assert_eq!(
        recorded.histogram(names::SERVER_BATCH_SIZE, &[]),
        vec![3.0],
        "one batch of three entries"
    );
    assert!(
        !recorded.has_gauge(names::SERVER_CALLS_IN_FLIGHT, &[]),
        "calls answered on their first poll are never counted in flight"
    );

    // Bytes both ways; the keep-alive connection is open until the client goes.
    let http = [("transport", "http")];
    assert!(recorded.counter(names::SERVER_RECEIVED_BYTES_TOTAL, &http) > 6 * 40);
    assert!(recorded.counter(names::SERVER_SENT_BYTES_TOTAL, &http) > 6 * 30);
    assert_eq!(recorded.gauge(names::SERVER_CONNECTIONS, &http), 1.0);
    drop(client);
    recorded
        .gauge_reaches(names::SERVER_CONNECTIONS, &http, 0.0)
        .await;
}

#[tokio::test]
async fn client_calls_and_errors_by_kind() {
    let recorder = DebuggingRecorder::new();
    let _local = metrics::set_default_local_recorder(&recorder);
    let mut recorded = Recorded::new(&recorder);
    let address = serve_http(Calc).await;
    let client = Client::new(http::Client::new(&format!("http://{address}/")).unwrap());

    let _: i64 = client.request("add", &(1, 2)).await.unwrap();
    let _ = client.request::<i64, _>("fail", &()).await.unwrap_err();
    let _ = client.request::<i64, _>("nope", &()).await.unwrap_err();
    let decode = client.request::<String, _>("add", &(1, 2)).await;
    assert!(
        matches!(decode, Err(client::Error::Decode(_))),
        "{decode:?}"
    );
    let timeout = client
        .with_timeout(Duration::from_millis(50))
        .request::<i64, _>("hang", &())
        .await;
    assert!(
        matches!(timeout, Err(client::Error::Timeout)),
        "{timeout:?}"
    );
    // Nothing listens on a port just released.
    let (gone, gone_address) = listener().await;
    drop(gone);
    let nowhere = Client::new(http::Client::new(&format!("http://{gone_address}/")).unwrap());
    let refused = nowhere.request::<i64, _>("add", &(1, 2)).await;
    assert!(
        matches!(refused, Err(client::Error::Transport(_))),
        "{refused:?}"
    );

    let calls = names::CLIENT_CALLS_TOTAL;
    assert_eq!(
        recorded.counter(calls, &[("method", "add"), ("outcome", "ok")]),
        1
    );
    assert_eq!(
        recorded.counter(calls, &[("method", "add"), ("outcome", "error")]),
        2,
        "the decode failure and the refused connection"
    );
    assert_eq!(
        recorded.counter(calls, &[("method", "fail"), ("outcome", "error")]),
        1
    );
    let errors = names::CLIENT_ERRORS_TOTAL;
    for (method, kind, code) in [
        ("fail", "server", "7"),
        ("nope", "server", "-32601"),
        ("add", "decode", ""),
        ("hang", "timeout", ""),
        ("add", "transport", ""),
    ] {
        let labels = [("method", method), ("kind", kind), ("code", code)];
        assert_eq!(recorded.counter(errors, &labels), 1, "{labels:?}");
    }
    let durations = recorded.histogram(names::CLIENT_CALL_DURATION_SECONDS, &[("method", "hang")]);
    assert_eq!(durations.len(), 1);
    assert!(durations[0] >= 0.05, "the timeout's wait: {durations:?}");

    // The retry layer's counter.
    rpcsmith::metrics::record_client_retry("add");
    assert_eq!(
        recorded.counter(names::CLIENT_RETRIES_TOTAL, &[("method", "add")]),
        1
    );
}

#[tokio::test]
async fn websocket_connections_bytes_subscriptions_and_cancelled_calls() {
    let recorder = DebuggingRecorder::new();
    let _local = metrics::set_default_local_recorder(&recorder);
    let mut recorded = Recorded::new(&recorder);
    let (feeds, mut sinks) = feeds(8);
    let address = serve_http(feeds).await;
    let ws = [("transport", "ws")];

    let mut socket = Socket::connect(&format!("ws://{address}/")).await;
    let subscribe = call(1, "subscribeNewHeads", &json!({}));
    socket.send(&subscribe).await;
    let answer = socket.recv().await;
    let id = answer["result"].clone();
    let sink = next_sink(&mut sinks).await;
    recorded
        .gauge_reaches(names::SERVER_SUBSCRIPTIONS, &[], 1.0)
        .await;
    assert_eq!(recorded.gauge(names::SERVER_CONNECTIONS, &ws), 1.0);
    // This dispatcher has no table: its names are labelled as they come.
    assert_eq!(
        recorded.counter(CALLS, &[("method", "subscribeNewHeads"), ("code", "ok")]),
        1
    );

    let unsubscribe = call(2, "starknet_unsubscribe", &json!({"subscription_id": id}));
    socket.send(&unsubscribe).await;
    assert_eq!(socket.recv().await["result"], true);
    recorded
        .gauge_reaches(names::SERVER_SUBSCRIPTIONS, &[], 0.0)
        .await;
    drop(sink);
    // A name the dispatcher does not know, without a table: `unknown` all the same.
    socket.send(&call(3, "nope", &json!([]))).await;
    assert_eq!(socket.recv().await["error"]["code"], -32601);
    assert_eq!(
        recorded.counter(CALLS, &[("method", "unknown"), ("code", "-32601")]),
        1
    );

    // Exactly the messages' bytes, framing excluded.
    let nope = call(3, "nope", &json!([]));
    let received = [&subscribe, &unsubscribe, &nope].map(|m| m.len() as u64);
    assert_eq!(
        recorded.counter(names::SERVER_RECEIVED_BYTES_TOTAL, &ws),
        received.iter().sum::<u64>()
    );
    assert!(recorded.counter(names::SERVER_SENT_BYTES_TOTAL, &ws) > 0);

    drop(socket);
    recorded
        .gauge_reaches(names::SERVER_CONNECTIONS, &ws, 0.0)
        .await;
}

#[tokio::test]
async fn a_call_dropped_with_its_connection_is_cancelled() {
    let recorder = DebuggingRecorder::new();
    let _local = metrics::set_default_local_recorder(&recorder);
    let mut recorded = Recorded::new(&recorder);
    let address = serve_http(Calc).await;

    let mut socket = Socket::connect(&format!("ws://{address}/")).await;
    socket.send(&call(1, "hang", &json!([]))).await;
    recorded
        .gauge_reaches(names::SERVER_CALLS_IN_FLIGHT, &[], 1.0)
        .await;
    drop(socket);
    recorded
        .counter_reaches(CALLS, &[("method", "hang"), ("code", "cancelled")], 1)
        .await;
    assert_eq!(recorded.gauge(names::SERVER_CALLS_IN_FLIGHT, &[]), 0.0);
}

#[tokio::test]
async fn tcp_connections_and_pull_streams() {
    let recorder = DebuggingRecorder::new();
    let _local = metrics::set_default_local_recorder(&recorder);
    let mut recorded = Recorded::new(&recorder);
    let (feeds, mut sinks) = feeds(8);
    let (listener, address) = listener().await;
    let builder = Peer::builder().serve(Server::new(feeds));
    tokio::spawn(stream::serve_tcp(
        listener,
        builder,
        Codec::Newline,
        std::future::pending(),
    ));
    let tcp = [("transport", "tcp")];

    let mut client = Lined::connect(address).await;
    // A pull-only feed is pulled even on a connection that could push.
    client.send(&call(1, "subscribePulled", &json!({}))).await;
    let stream_id = client.recv().await["result"].clone();
    let _sink = next_sink(&mut sinks).await;
    assert_eq!(recorded.gauge(names::SERVER_PULL_STREAMS, &[]), 1.0);
    assert_eq!(recorded.gauge(names::SERVER_SUBSCRIPTIONS, &[]), 0.0);
    assert_eq!(recorded.gauge(names::SERVER_CONNECTIONS, &tcp), 1.0);

    client
        .send(&call(2, "rpc.stream.cancel", &json!([stream_id])))
        .await;
    assert_eq!(client.recv().await["result"], true);
    recorded
        .gauge_reaches(names::SERVER_PULL_STREAMS, &[], 0.0)
        .await;
    // The engine's own names are labelled by name.
    assert_eq!(
        recorded.counter(CALLS, &[("method", "rpc.stream.cancel"), ("code", "ok")]),
        1
    );

    drop(client);
    recorded
        .gauge_reaches(names::SERVER_CONNECTIONS, &tcp, 0.0)
        .await;
}

/// Answers every name: a hand-written dispatcher without a table of names.
struct Anything;

impl Dispatch for Anything {
    fn call(&self, _method: &str, _params: Option<&RawValue>, _cx: Context) -> Reply {
        Reply::ok(&true)
    }
}

#[tokio::test]
async fn without_a_table_names_are_learned_up_to_a_bound() {
    let recorder = DebuggingRecorder::new();
    let _local = metrics::set_default_local_recorder(&recorder);
    let mut recorded = Recorded::new(&recorder);
    let server = Server::new(Anything);
    for n in 0..300 {
        let message = call(n, &format!("name{n}"), &json!([]));
        let answer = server.handle(message.as_bytes(), Default::default()).await;
        assert!(answer.is_some());
    }
    let named = recorded.counter_series(CALLS);
    assert_eq!(named.len(), 257, "256 names and `unknown`");
    assert_eq!(
        recorded.counter(CALLS, &[("method", "name0"), ("code", "ok")]),
        1
    );
    assert_eq!(
        recorded.counter(CALLS, &[("method", "unknown"), ("code", "ok")]),
        300 - 256
    );
}
