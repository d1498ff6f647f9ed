//! The receiving side of a connection: responses go to the client engine, calls to the
//! server engine (each in a task of its own), `$/cancelRequest` aborts a running call.

use super::wire::{Incoming, Kind, Received, classify};
use crate::client::Inbox;
use crate::protocol::{ErrorObject, Id, write_error};
use crate::server::Connection;
use bytes::Bytes;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

/// The calls from the peer that are running, each a task.
#[derive(Default)]
struct Running {
    next: u64,
    tasks: HashMap<u64, Task>,
}

struct Task {
    abort: AbortHandle,
    /// The request's id as JSON text, for a single request (what a cancellation names).
    id: Option<Box<str>>,
}

/// Reads a connection until it ends.
pub(crate) struct Reader {
    pub(crate) inbox: Inbox,
    pub(crate) connection: Connection,
    pub(crate) outbox: mpsc::Sender<Bytes>,
    pub(crate) cancel: bool,
    /// Whether the end of this connection is the end of the client (else the transport
    /// reconnects, and only the pending calls fail).
    pub(crate) final_connection: bool,
    /// Most messages from the peer being handled at once (the server's
    /// `max_in_flight`): beyond it a message is refused without a task, so a peer that
    /// sends without reading cannot pile up tasks.
    pub(crate) max_tasks: usize,
}

type Shared = Arc<Mutex<Running>>;

fn lock(running: &Shared) -> MutexGuard<'_, Running> {
    running.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Reader {
    /// Routes every message until the connection ends, then fails the client's pending
    /// calls with `Closed` and aborts the calls still running.
    pub(crate) async fn run(self, mut incoming: impl Incoming) {
        let running = Shared::default();
        let _abort_all = AbortAll(Arc::clone(&running));
        loop {
            match incoming.next().await {
                Received::Message(message) => self.route(&running, message),
                Received::TooLarge => {
                    let mut out = Vec::with_capacity(96);
                    write_error(&mut out, &Id::NULL, &ErrorObject::request_too_large());
                    if self.outbox.send(out.into()).await.is_err() {
                        break;
                    }
                }
                Received::Closed => break,
            }
        }
        if self.final_connection {
            self.inbox.close();
        } else {
            self.inbox.fail_pending();
        }
    }

    fn route(&self, running: &Shared, message: Bytes) {
        match classify(&message, self.cancel) {
            Kind::Responses => self.inbox.deliver(message),
            Kind::Cancel(id) => self.cancel(running, id),
            Kind::Calls if lock(running).tasks.len() >= self.max_tasks => self.refuse(&message),
            Kind::Calls => self.spawn(running, message),
        }
    }

    /// Answers `-32009` (server busy) to a message that found every task slot taken:
    /// to its id when it is one request, with `id: null` when it is a batch, not at
    /// all when it is a notification. Never waits: with the queue full, the answer is
    /// dropped (the peer is not reading).
    fn refuse(&self, message: &[u8]) {
        let is_batch = message.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
        let id = single_id(message);
        let raw = id
            .as_deref()
            .and_then(|id| serde_json::from_str::<&RawValue>(id).ok());
        let id = match (raw.and_then(Id::from_raw), is_batch) {
            (Some(id), _) => id,
            (None, true) => Id::NULL,
            (None, false) => return,
        };
        let mut out = Vec::with_capacity(96);
        write_error(&mut out, &id, &ErrorObject::server_busy());
        if self.outbox.try_send(out.into()).is_err() {
            tracing::debug!("dropped a busy answer: the peer is not reading");
        }
    }

    /// Runs the calls of `message` in a task; its answer goes out unless the call was
    /// cancelled meanwhile.
    fn spawn(&self, running: &Shared, message: Bytes) {
        let id = if self.cancel {
            single_id(&message)
        } else {
            None
        };
        let connection = self.connection.clone();
        let outbox = self.outbox.clone();
        let tasks = Arc::clone(running);
        // The lock is held until the task is registered, so it cannot finish unseen.
        let mut guard = lock(running);
        let serial = guard.next;
        guard.next = guard.next.wrapping_add(1);
        let handle = tokio::spawn(async move {
            let answer = connection.handle(&message).await;
            let still_wanted = lock(&tasks).tasks.remove(&serial).is_some();
            if let (Some(answer), true) = (answer, still_wanted) {
                let _ = outbox.send(answer.into()).await;
            }
        });
        let abort = handle.abort_handle();
        guard.tasks.insert(serial, Task { abort, id });
    }

    /// Aborts the running call whose id is `id`, and answers it as cancelled.
    fn cancel(&self, running: &Shared, id: &RawValue) {
        let wanted = id.get();
        let task = {
            let mut guard = lock(running);
            let serial = guard
                .tasks
                .iter()
                .find(|(_, task)| task.id.as_deref() == Some(wanted))
                .map(|(&serial, _)| serial);
            serial.and_then(|serial| guard.tasks.remove(&serial))
        };
        let (Some(task), Some(id)) = (task, Id::from_raw(id)) else {
            tracing::debug!("$/cancelRequest for no running call");
            return;
        };
        task.abort.abort();
        let mut out = Vec::with_capacity(96);
        write_error(&mut out, &id, &ErrorObject::cancelled());
        if self.outbox.try_send(out.into()).is_err() {
            tracing::debug!("no room to answer a cancelled call");
        }
    }
}

/// The id of a single request, as JSON text; `None` for anything else.
fn single_id(message: &[u8]) -> Option<Box<str>> {
    #[derive(serde::Deserialize)]
    struct WithId<'a> {
        #[serde(borrow)]
        id: Option<&'a RawValue>,
    }
    let first = message.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'{') {
        return None;
    }
    let parsed: WithId<'_> = serde_json::from_slice(message).ok()?;
    parsed.id.map(|id| id.get().into())
}

/// Aborts every call still running when the reader ends (or is aborted).
struct AbortAll(Shared);

impl Drop for AbortAll {
    fn drop(&mut self) {
        let tasks = std::mem::take(&mut lock(&self.0).tasks);
        for task in tasks.into_values() {
            task.abort.abort();
        }
    }
}
