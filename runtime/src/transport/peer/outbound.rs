//! The sending side of a connection: one task writes every message, in order, and
//! flushes when nothing more is queued (so pipelined messages share a write).

use super::wire::Outgoing;
use crate::client::Inbox;
use bytes::Bytes;
use tokio::sync::{mpsc, oneshot};

/// Writes queued messages until every sender is gone, or reading has ended (`reading`
/// resolves: its sender is dropped) and what was queued by then is written, or writing
/// fails; then closes the stream. A failure fails the client's pending calls with
/// `Closed` (and later ones too on a `final_connection`).
pub(crate) async fn write_all(
    mut queue: mpsc::Receiver<Bytes>,
    mut outgoing: impl Outgoing,
    inbox: Inbox,
    final_connection: bool,
    reading: oneshot::Receiver<()>,
) {
    let period = outgoing.keep_alive();
    let mut ticks =
        period.map(|period| tokio::time::interval_at(tokio::time::Instant::now() + period, period));
    let mut reading = Some(reading);
    loop {
        let written = tokio::select! {
            message = queue.recv() => match message {
                Some(message) => write_burst(&mut queue, &mut outgoing, message).await,
                None => break,
            },
            _ = ended(&mut reading) => {
                // Nothing more will be answered: let out what is queued, then close.
                queue.close();
                continue;
            }
            _ = tick(&mut ticks) => outgoing.ping().await,
        };
        if let Err(error) = written {
            tracing::debug!(%error, "writing to the connection failed");
            if final_connection {
                inbox.close();
            } else {
                inbox.fail_pending();
            }
            return;
        }
    }
    outgoing.close().await;
}

/// Resolves once, when reading ends; then never again.
async fn ended(reading: &mut Option<oneshot::Receiver<()>>) {
    match reading {
        Some(receiver) => {
            let _ = receiver.await;
            *reading = None;
        }
        None => std::future::pending().await,
    }
}

/// The next keep-alive tick; never, without keep-alive.
async fn tick(ticks: &mut Option<tokio::time::Interval>) {
    match ticks {
        Some(ticks) => {
            ticks.tick().await;
        }
        None => std::future::pending().await,
    }
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
