//! The client engine's transport on a symmetric connection: messages go to the writer
//! task's queue, answers come back through the reader.

use super::wire::cancel_message;
use crate::transport::{Delivery, Error, SendFuture, Transport};
use bytes::Bytes;
use std::sync::{Arc, OnceLock};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

/// What the link shares with the code that starts the connection.
#[derive(Default)]
pub(crate) struct Slots {
    /// The reader task, aborted when the last client is dropped.
    pub(crate) reader: OnceLock<AbortHandle>,
}

pub(crate) struct Link {
    pub(crate) outbox: mpsc::Sender<Bytes>,
    pub(crate) cancel: bool,
    pub(crate) slots: Arc<Slots>,
}

impl Transport for Link {
    fn send(&self, message: Bytes) -> SendFuture<'_> {
        Box::pin(async move {
            self.outbox
                .send(message)
                .await
                .map(|()| Delivery::Routed)
                .map_err(|_| Error::closed())
        })
    }

    fn cancel(&self, id: u64) {
        if self.cancel && self.outbox.try_send(cancel_message(id)).is_err() {
            tracing::debug!(id, "could not queue $/cancelRequest");
        }
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        // No client is left to read answers: stop reading. The writer drains its queue
        // and closes the stream once the reader's and the handlers' senders are gone.
        if let Some(reader) = self.slots.reader.get() {
            reader.abort();
        }
    }
}
