//! A subscription whose end the document declares (`documents/jobs.json`:
//! `x-subscription` with `end`): the generated server sends `jobs_done` when the job's
//! progress ends, and the generated client's stream ends with it (then nothing is left
//! to unsubscribe). Over a real WebSocket and a newline-framed TCP byte stream.

mod peer_support;

use std::time::Duration;

use futures_util::StreamExt;
use peer_support::Over;
use rpcsmith::client::{Subscription, SubscriptionError};
use rpcsmith::server::{Context, Failure, Items, Server, Sink, channel};
use rpcsmith::transport::peer::Peer;
use rpcsmith_services::jobs::{JobsClient, JobsDispatcher, JobsServer, types};
use tokio::sync::mpsc;

const PATIENCE: Duration = Duration::from_secs(10);

/// The node: each watch gets a channel whose sink goes to the test, which sends the
/// progress and ends the job by dropping it.
struct Node {
    watched: mpsc::UnboundedSender<Sink<types::Progress>>,
}

impl JobsServer for Node {
    async fn jobs_watch(
        &self,
        _cx: Context,
        _job: String,
    ) -> Result<Items<types::Progress>, Failure> {
        let (sink, items) = channel(8);
        let _ = self.watched.send(sink);
        Ok(items)
    }
}

fn progress(percent: u8) -> types::Progress {
    types::Progress { percent }
}

async fn connected(
    over: Over,
) -> (
    Peer,
    JobsClient,
    mpsc::UnboundedReceiver<Sink<types::Progress>>,
) {
    let (watched, sinks) = mpsc::unbounded_channel();
    let server = Server::new(JobsDispatcher::new(Node { watched }));
    let peer = peer_support::connected(server, over).await;
    let client = JobsClient::new(peer.client().clone());
    (peer, client, sinks)
}

async fn next(
    watch: &mut Subscription<types::Progress>,
) -> Option<Result<types::Progress, SubscriptionError>> {
    tokio::time::timeout(PATIENCE, watch.next())
        .await
        .expect("the watch yields in time")
}

async fn a_declared_end_ends_the_stream(over: Over) {
    let (_peer, client, mut sinks) = connected(over).await;
    let mut watch = client.jobs_watch("build".to_owned()).await.unwrap();
    let sink = tokio::time::timeout(PATIENCE, sinks.recv())
        .await
        .expect("watched in time")
        .expect("the node is alive");
    for percent in [10, 60, 100] {
        sink.send(progress(percent)).await.unwrap();
    }
    // The job is over: the server sends `jobs_done`, after the progress.
    drop(sink);
    for percent in [10, 60, 100] {
        assert_eq!(next(&mut watch).await, Some(Ok(progress(percent))));
    }
    assert_eq!(next(&mut watch).await, None, "ended by jobs_done");
    assert_eq!(next(&mut watch).await, None);
    // Nothing is left to unsubscribe, on either side.
    assert!(
        !watch.unsubscribe().await.unwrap(),
        "nothing to unsubscribe"
    );
    // Another watch on the same connection is not touched by that end.
    let mut other = client.jobs_watch("test".to_owned()).await.unwrap();
    let sink = sinks.recv().await.unwrap();
    sink.send(progress(1)).await.unwrap();
    assert_eq!(next(&mut other).await, Some(Ok(progress(1))));
    assert!(other.unsubscribe().await.unwrap(), "answered true");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_a_websocket_a_declared_end_ends_the_stream() {
    a_declared_end_ends_the_stream(Over::WebSocket).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_tcp_a_declared_end_ends_the_stream() {
    a_declared_end_ends_the_stream(Over::Tcp).await;
}
