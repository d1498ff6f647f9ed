//! The client engine's transport on a symmetric connection: messages go to the
//! connection's queue, answers come back through its reader; and the signal that stops
//! the connection.

use super::cancellation::Cancellation;
use super::queue::Outbox;
use crate::client::{Delivery, HostedItems, Hosting, SendFuture, Transport, TransportError};
use crate::server::Server;
use bytes::Bytes;
use futures_util::task::AtomicWaker;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

/// Tells a connection to stop reading (and then to let out what is queued and close):
/// its last client is gone, or it was closed on purpose.
#[derive(Debug, Default)]
pub(crate) struct Stop {
    stopped: AtomicBool,
    waker: AtomicWaker,
}

impl Stop {
    pub(crate) fn trigger(&self) {
        self.stopped.store(true, Ordering::Release);
        self.waker.wake();
    }

    /// Whether it was triggered.
    pub(crate) fn is_triggered(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }

    /// Ready once triggered; else wakes `cx`'s task when it is.
    pub(crate) fn poll(&self, cx: &mut Context<'_>) -> Poll<()> {
        if self.stopped.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        self.waker.register(cx.waker());
        if self.stopped.load(Ordering::Acquire) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

pub(crate) struct Link {
    pub(crate) outbox: Outbox,
    /// The notification that cancels a call given up, if any.
    pub(crate) cancel: Option<Arc<Cancellation>>,
    pub(crate) stop: Arc<Stop>,
    /// The connection's server: it answers the other side's `rpc.stream.next` for the
    /// streams this side hosts.
    pub(crate) server: Server,
}

impl Transport for Link {
    fn host(&self, items: HostedItems) -> Option<Hosting> {
        match self.server.host_stream(items) {
            Ok(hosted) => Hosting::new(hosted.id().to_owned(), hosted),
            Err(error) => {
                tracing::debug!(message = %error.message, "could not host a stream");
                None
            }
        }
    }

    fn receives_pushes(&self) -> bool {
        true
    }

    fn send(&self, message: Bytes) -> SendFuture<'_> {
        Box::pin(async move {
            self.outbox
                .send(message)
                .await
                .map(|()| Delivery::Routed)
                .map_err(|_| TransportError::closed())
        })
    }

    fn cancel(&self, id: u64) {
        if let Some(cancel) = &self.cancel
            && self.outbox.try_send(cancel.message(id)).is_err()
        {
            tracing::debug!(id, "could not queue a cancellation");
        }
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        // No client is left to read answers: stop reading. The connection lets out what
        // is queued, then closes the stream.
        self.stop.trigger();
    }
}
