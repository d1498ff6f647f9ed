//! Pull streams end to end (`documents/ticks.json`, `x-subscription` with `pull: true`):
//! the generated client's `Subscription<u64>` reads each tick with `rpc.stream.next`,
//! over a TCP byte stream (which could push, but the feed is pull-only) and over plain
//! HTTP; the stream's end reaches the client as the end of its `Stream`, and a cancel
//! (explicit or by drop) reaches the server's producer.

use std::time::Duration;

use futures_util::StreamExt;
use rpcsmith::client::{Client, Subscription};
use rpcsmith::http;
use rpcsmith::server::{Context, Failure, Items, Server, channel};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith_services::ticks::{TicksClient, TicksDispatcher, TicksServer};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};

const PATIENCE: Duration = Duration::from_secs(10);

/// What the server's producers report: `ended <count>` when every tick was taken,
/// `cancelled after <tick>` when the stream ended under them.
type Reports = mpsc::UnboundedReceiver<String>;

/// Produces ticks 1 to `count` into a channel of one, reporting how it ended.
struct Ticker(mpsc::UnboundedSender<String>);

impl TicksServer for Ticker {
    async fn ticks_subscribe(&self, _cx: Context, count: u64) -> Result<Items<u64>, Failure> {
        let (sink, items) = channel(1);
        let report = self.0.clone();
        tokio::spawn(async move {
            for tick in 1..=count {
                if sink.send(tick).await.is_err() {
                    let _ = report.send(format!("cancelled after {}", tick - 1));
                    return;
                }
            }
            let _ = report.send(format!("ended {count}"));
        });
        Ok(items)
    }
}

fn ticker() -> (Server, Reports) {
    let (report, reports) = mpsc::unbounded_channel();
    (Server::new(TicksDispatcher::new(Ticker(report))), reports)
}

async fn next_report(reports: &mut Reports) -> String {
    tokio::time::timeout(PATIENCE, reports.recv())
        .await
        .expect("a report in time")
        .expect("the server is alive")
}

async fn next(ticks: &mut Subscription<u64>) -> Option<u64> {
    tokio::time::timeout(PATIENCE, ticks.next())
        .await
        .expect("the stream yields in time")
        .map(|tick| tick.expect("a tick"))
}

/// Every tick then the end; a cancel in the middle; a drop in the middle.
async fn pull_ticks(client: TicksClient, reports: &mut Reports) {
    let mut ticks = client.ticks_subscribe(3).await.unwrap();
    for tick in 1..=3 {
        assert_eq!(next(&mut ticks).await, Some(tick));
    }
    // The end of the stream: `{"done": true}`, the end of the client's `Stream`.
    assert_eq!(next(&mut ticks).await, None);
    assert_eq!(next_report(reports).await, "ended 3");

    // Cancelled (`rpc.stream.cancel`) after two ticks: the producer learns it.
    let mut ticks = client.ticks_subscribe(1_000_000).await.unwrap();
    assert_eq!(next(&mut ticks).await, Some(1));
    assert_eq!(next(&mut ticks).await, Some(2));
    assert!(ticks.unsubscribe().await.unwrap());
    let report = next_report(reports).await;
    assert!(report.starts_with("cancelled after "), "{report}");

    // Dropped: cancelled too.
    let mut ticks = client.ticks_subscribe(1_000_000).await.unwrap();
    assert_eq!(next(&mut ticks).await, Some(1));
    drop(ticks);
    let report = next_report(reports).await;
    assert!(report.starts_with("cancelled after "), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pull_stream_over_a_tcp_byte_stream_ends_and_cancels() {
    let (server, mut reports) = ticker();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let builder = Peer::builder().serve(server);
    tokio::spawn(stream::serve_tcp(
        listener,
        builder,
        Codec::Newline,
        async {
            let _ = stopped.await;
        },
    ));
    let peer = stream::connect_tcp(Peer::builder(), Codec::Newline, address)
        .await
        .unwrap();
    pull_ticks(TicksClient::new(peer.client().clone()), &mut reports).await;
    drop(stop);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pull_stream_over_plain_http_ends_and_cancels() {
    let (server, mut reports) = ticker();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(http::serve(listener, http::Service::new(server), async {
        let _ = stopped.await;
    }));
    let client = Client::new(http::Client::new(&url).unwrap());
    pull_ticks(TicksClient::new(client), &mut reports).await;
    drop(stop);
}
