//! What the other side sends: responses go to the client engine, calls to the server
//! engine, `$/cancelRequest` aborts a running call.
//!
//! A call runs in the connection's own task as far as it can: when the handler answers
//! on its first poll (most do), the answer is written in the same wake-up, with no task
//! spawned. Only a call still pending after that poll moves to a task of its own, which
//! sends its answer through the connection's queue and which a cancellation, or the end
//! of the connection, aborts.

use super::wire::{Kind, classify};
use crate::client::Inbox;
use crate::protocol::{ErrorObject, Id, write_error};
use crate::server::Connection;
use bytes::Bytes;
use serde_json::value::RawValue;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

/// The calls from the other side that run in tasks of their own.
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

type Shared = Arc<Mutex<Running>>;

fn lock(running: &Shared) -> MutexGuard<'_, Running> {
    running.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Answers waiting for room on the connection, in the order they were made.
pub(crate) type Answers = VecDeque<Bytes>;

/// A message's calls, started: the future of the engine's answer.
type Handling = Pin<Box<dyn Future<Output = Option<Vec<u8>>> + Send>>;

/// Routes what one connection receives.
pub(crate) struct Inbound {
    inbox: Inbox,
    connection: Connection,
    /// Where calls that run in tasks send their answers.
    outbox: mpsc::Sender<Bytes>,
    cancel: bool,
    /// Most messages from the other side being handled at once (the server's
    /// `max_in_flight`), answers not yet written included: beyond it a message is
    /// refused, so a peer that sends without reading cannot pile up tasks or answers.
    max_calls: usize,
    /// Most answers held for the connection; a refusal beyond it is dropped.
    max_answers: usize,
    running: Shared,
}

impl Inbound {
    pub(crate) fn new(
        inbox: Inbox,
        connection: Connection,
        outbox: mpsc::Sender<Bytes>,
        cancel: bool,
        max_calls: usize,
        max_answers: usize,
    ) -> Self {
        Self {
            inbox,
            connection,
            outbox,
            cancel,
            max_calls,
            max_answers,
            running: Shared::default(),
        }
    }

    /// The client engine's inbox (responses, and the end of the connection).
    pub(crate) fn inbox(&self) -> &Inbox {
        &self.inbox
    }

    /// Routes one message. The answer to calls that finish at once is added to
    /// `answers`; `cx` is the connection task's, which a call still pending leaves.
    pub(crate) fn route(&self, message: Bytes, answers: &mut Answers, cx: &mut Context<'_>) {
        match classify(&message, self.cancel) {
            Kind::Responses => self.inbox.deliver(message),
            Kind::Cancel(id) => self.cancel(id, answers),
            Kind::Calls if self.busy(answers) => self.refuse(&message, answers),
            Kind::Calls => self.call(message, answers, cx),
        }
    }

    /// Answers `-32007` (too large), with `id: null`, to a message skipped unread.
    pub(crate) fn too_large(&self, answers: &mut Answers) {
        self.answer_if_room(null_error(&ErrorObject::request_too_large()), answers);
    }

    fn busy(&self, answers: &Answers) -> bool {
        let running = lock(&self.running).tasks.len();
        running + answers.len() >= self.max_calls
    }

    fn answer_if_room(&self, answer: Bytes, answers: &mut Answers) {
        if answers.len() < self.max_answers {
            answers.push_back(answer);
        } else {
            tracing::debug!("dropped an answer: the peer is not reading");
        }
    }

    /// Runs the calls of `message`: here, when they finish on their first poll; else in
    /// a task of their own.
    fn call(&self, message: Bytes, answers: &mut Answers, cx: &mut Context<'_>) {
        // Kept for a cancellation to name the call, should it not finish at once.
        let kept = self.cancel.then(|| message.clone());
        let connection = self.connection.clone();
        let mut handling: Handling = Box::pin(async move { connection.handle(&message).await });
        match handling.as_mut().poll(cx) {
            Poll::Ready(Some(answer)) => answers.push_back(answer.into()),
            Poll::Ready(None) => {}
            Poll::Pending => self.spawn(handling, kept.as_deref().and_then(single_id)),
        }
    }

    /// Finishes a call in a task; its answer goes out unless it was cancelled meanwhile.
    fn spawn(&self, handling: Handling, id: Option<Box<str>>) {
        let outbox = self.outbox.clone();
        let tasks = Arc::clone(&self.running);
        // The lock is held until the task is registered, so it cannot finish unseen.
        let mut guard = lock(&self.running);
        let serial = guard.next;
        guard.next = guard.next.wrapping_add(1);
        let handle = tokio::spawn(async move {
            let answer = handling.await;
            let still_wanted = lock(&tasks).tasks.remove(&serial).is_some();
            if let (Some(answer), true) = (answer, still_wanted) {
                let _ = outbox.send(answer.into()).await;
            }
        });
        let abort = handle.abort_handle();
        guard.tasks.insert(serial, Task { abort, id });
    }

    /// Answers `-32009` (server busy) to a message that found every slot taken: to its
    /// id when it is one request, with `id: null` when it is a batch, not at all when it
    /// is a notification. Never waits: with no room, the answer is dropped (the peer is
    /// not reading).
    fn refuse(&self, message: &[u8], answers: &mut Answers) {
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
        self.answer_if_room(out.into(), answers);
    }

    /// Aborts the running call whose id is `id`, and answers it as cancelled.
    fn cancel(&self, id: &RawValue, answers: &mut Answers) {
        let wanted = id.get();
        let task = {
            let mut guard = lock(&self.running);
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
        self.answer_if_room(out.into(), answers);
    }
}

impl Drop for Inbound {
    /// Aborts every call still running when the connection's reading ends.
    fn drop(&mut self) {
        let tasks = std::mem::take(&mut lock(&self.running).tasks);
        for task in tasks.into_values() {
            task.abort.abort();
        }
    }
}

fn null_error(error: &ErrorObject) -> Bytes {
    let mut out = Vec::with_capacity(96);
    write_error(&mut out, &Id::NULL, error);
    out.into()
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
