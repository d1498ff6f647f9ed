//! A subscription whose end the document declares (`documents/jobs.json`:
//! `x-subscription` with `end`): the generated server sends `jobs_done` when the job's
//! progress ends, and the generated client's stream ends with it (then nothing is left
//! to unsubscribe). Over a real WebSocket and a newline-framed TCP byte stream.

use std::time::Duration;

use futures_util::StreamExt;
use rpcsmith::client::{Subscription, SubscriptionError};
use rpcsmith::server::{Context, Failure, Items, Server, Sink, channel};
use rpcsmith::transport::http;
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith::transport::ws;
use rpcsmith_services::jobs::{JobsClient, JobsDispatcher, JobsServer, types};
use tokio::net::TcpListener;
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

#[derive(Clone, Copy)]
enum Over {
    WebSocket,
    Tcp,
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
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let peer = match over {
        Over::WebSocket => {
            let service =
                http::Service::new(server).websocket(Peer::builder(), ws::Settings::default());
            tokio::spawn(http::serve(listener, service, std::future::pending()));
            ws::connect(
                format!("ws://{address}/"),
                Peer::builder(),
                ws::Settings::default(),
            )
            .await
            .unwrap()
        }
        Over::Tcp => {
            let builder = Peer::builder().serve(server);
            tokio::spawn(stream::serve_tcp(
                listener,
                builder,
                Codec::Newline,
                std::future::pending(),
            ));
            stream::connect_tcp(Peer::builder(), Codec::Newline, address)
                .await
                .unwrap()
        }
    };
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
    assert_eq!(watch.unsubscribe().await.unwrap(), false);
    // Another watch on the same connection is not touched by that end.
    let mut other = client.jobs_watch("test".to_owned()).await.unwrap();
    let sink = sinks.recv().await.unwrap();
    sink.send(progress(1)).await.unwrap();
    assert_eq!(next(&mut other).await, Some(Ok(progress(1))));
    assert_eq!(other.unsubscribe().await.unwrap(), true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_a_websocket_a_declared_end_ends_the_stream() {
    a_declared_end_ends_the_stream(Over::WebSocket).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_tcp_a_declared_end_ends_the_stream() {
    a_declared_end_ends_the_stream(Over::Tcp).await;
}
