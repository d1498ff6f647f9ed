//! The sending side of a connection: one task writes every message, in order, and
//! flushes when nothing more is queued (so pipelined messages share a write).

use super::wire::Outgoing;
use crate::client::Inbox;
use bytes::Bytes;
use tokio::sync::mpsc;

/// Writes queued messages until every sender is gone or writing fails; a failure fails
/// the client's pending calls with `Closed`.
pub(crate) async fn write_all(
    mut queue: mpsc::Receiver<Bytes>,
    mut outgoing: impl Outgoing,
    inbox: Inbox,
) {
    while let Some(message) = queue.recv().await {
        if let Err(error) = write_burst(&mut queue, &mut outgoing, message).await {
            tracing::debug!(%error, "writing to the connection failed");
            inbox.close();
            return;
        }
    }
    outgoing.close().await;
}

/// Writes `first` and whatever is queued behind it, then flushes.
async fn write_burst(
    queue: &mut mpsc::Receiver<Bytes>,
    outgoing: &mut impl Outgoing,
    first: Bytes,
) -> std::io::Result<()> {
    outgoing.write(first).await?;
    while let Ok(next) = queue.try_recv() {
        outgoing.write(next).await?;
    }
    outgoing.flush().await
}
