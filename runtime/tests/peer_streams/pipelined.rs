//! Pipelined calls answered at once: small answers go out together, in one write; a
//! large answer is written as soon as it is made, before the next call is handled (so
//! that the other side reads it while this side makes the next).

use super::*;
use rpcsmith::server::{Context, Dispatch, Reply};
use serde_json::value::RawValue;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::Poll;
use tokio::io::AsyncWrite;

/// What happened, in order: calls handled and writes of the stream.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    fn push(&self, event: String) {
        self.0.lock().unwrap().push(event);
    }

    /// The events, each run of writes as one `wrote`.
    fn events(&self) -> Vec<String> {
        let mut events: Vec<String> = self.0.lock().unwrap().clone();
        events.dedup_by(|next, previous| next == "wrote" && previous == "wrote");
        events
    }
}

/// Answers `large` with 20,000 bytes, anything else with a few; logs each call.
struct Sizes(Log);

impl Dispatch for Sizes {
    fn call(&self, method: &str, _: Option<&RawValue>, _: Context) -> Reply {
        self.0.push(format!("handled {method}"));
        let size = if method == "large" { 20_000 } else { 3 };
        Reply::ok(&"x".repeat(size))
    }
}

/// The peer's stream: logs each write and passes the bytes on.
struct Recorded {
    log: Log,
    bytes: mpsc::UnboundedSender<Vec<u8>>,
}

impl AsyncWrite for Recorded {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.log.push("wrote".to_owned());
        let _ = self.bytes.send(bytes.to_vec());
        Poll::Ready(Ok(bytes.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut std::task::Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut std::task::Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[tokio::test]
async fn large_answers_are_written_one_by_one_and_small_ones_together() {
    use tokio::io::AsyncWriteExt;
    let log = Log::default();
    let (mut near, far) = tokio::io::duplex(64 * 1024);
    // Four calls in one piece: the peer reads them in one burst.
    let requests: String = ["large", "large", "small", "small"]
        .iter()
        .enumerate()
        .map(|(id, method)| {
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"{method}\",\"id\":{id}}}\n")
        })
        .collect();
    near.write_all(requests.as_bytes()).await.unwrap();
    let (bytes, mut written) = mpsc::unbounded_channel();
    let writer = Recorded {
        log: log.clone(),
        bytes,
    };
    let _peer = Peer::builder()
        .serve(Server::new(Sizes(log.clone())))
        .framed(Codec::Newline, far, writer);
    let mut answers = 0;
    while answers < 4 {
        let chunk = tokio::time::timeout(PATIENCE, written.recv())
            .await
            .expect("the answers in time")
            .expect("the peer's stream");
        answers += chunk.iter().filter(|&&b| b == b'\n').count();
    }
    assert_eq!(
        log.events(),
        [
            "handled large",
            "wrote",
            "handled large",
            "wrote",
            "handled small",
            "handled small",
            "wrote",
        ]
    );
}
