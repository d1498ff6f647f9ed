//! What the other side sends: responses go to the client engine, calls to the server
//! engine, a cancellation (`$/cancelRequest`, or what the connection's
//! [`Cancellation`] names) aborts a running call.
//!
//! A call runs in the connection's own task as far as it can: when the handler answers
//! on its first poll (most do), the answer is written in the same wake-up, with no task
//! spawned. Only a call still pending after that poll moves to a task of its own, which
//! sends its answer through the connection's queue and which a cancellation, or the end
//! of the connection, aborts. Under an [`Order`] other than the default, the messages
//! it names go to the connection's [`Lane`] instead, one after another.
//!
//! A handling that finishes on its first poll leaves its box to the thread's next
//! message ([`spare`](super::spare)); the busy check reads the calls running apart, and
//! the bytes they hold, without a lock.

use super::cancellation::Cancellation;
use super::lane::{Lane, Order, Work};
use super::queue::{Answers, Outbox};
use super::spare::{Boxed, Kept, Start};
use super::wire::{Incoming, Outgoing};
use crate::client::{Inbox, ReceivedAnswers, Utf8};
use crate::protocol::{Entry, ErrorObject, Id, Message, Sorted, TwoWay, write_error};
use crate::server::{Connection, Held, Input, Limits, hold};
use serde_json::value::RawValue;
use std::cell::Cell;
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use tokio::task::AbortHandle;

/// The calls from the other side that run in tasks of their own.
#[derive(Default)]
struct Spawned {
    next: u64,
    tasks: HashMap<u64, Task>,
    /// The size of their messages, which they hold until they finish.
    bytes: usize,
}

struct Task {
    abort: Abort,
    /// The request's id as JSON text, for a single request (what a cancellation names).
    id: Option<Box<str>>,
    /// The size of its message.
    bytes: usize,
}

/// The spawned calls, and their count and bytes as the busy check reads them: written
/// under the lock whenever they change, read without it (the mutex was about 40
/// instructions of every WebSocket call, by callgrind).
#[derive(Default)]
struct Running {
    spawned: Mutex<Spawned>,
    tasks: AtomicUsize,
    bytes: AtomicUsize,
}

impl Running {
    fn lock(&self) -> Guard<'_> {
        Guard {
            spawned: self.spawned.lock().unwrap_or_else(PoisonError::into_inner),
            running: self,
        }
    }

    /// How many calls run apart, and the bytes of their messages.
    fn load(&self) -> (usize, usize) {
        (
            self.tasks.load(Ordering::Acquire),
            self.bytes.load(Ordering::Acquire),
        )
    }
}

/// The spawned calls, locked; the figures the busy check reads follow each change.
struct Guard<'a> {
    spawned: MutexGuard<'a, Spawned>,
    running: &'a Running,
}

impl Guard<'_> {
    /// The serial number of the next call.
    fn next(&mut self) -> u64 {
        let serial = self.spawned.next;
        self.spawned.next = serial.wrapping_add(1);
        serial
    }

    fn insert(&mut self, serial: u64, task: Task) {
        self.spawned.bytes += task.bytes;
        self.spawned.tasks.insert(serial, task);
        self.publish();
    }

    fn remove(&mut self, serial: u64) -> Option<Task> {
        let task = self.spawned.tasks.remove(&serial)?;
        self.spawned.bytes -= task.bytes;
        self.publish();
        Some(task)
    }

    fn publish(&self) {
        let running = self.running;
        running
            .tasks
            .store(self.spawned.tasks.len(), Ordering::Release);
        running.bytes.store(self.spawned.bytes, Ordering::Release);
    }
}

/// How a call running apart is stopped.
enum Abort {
    /// It runs in a task of its own.
    Task(AbortHandle),
    /// It runs, or waits, on the connection's lane.
    Lane(futures_util::future::AbortHandle),
}

impl Abort {
    fn abort(&self) {
        match self {
            Abort::Task(handle) => handle.abort(),
            Abort::Lane(handle) => handle.abort(),
        }
    }
}

/// The spawned calls, shared with the tasks that run them.
type SpawnedCalls = Arc<Running>;

/// A message, being handled.
type Processing = Boxed<Handled>;

thread_local! {
    /// Starts the handling of each message routed on this thread, in the box of the last
    /// one that finished on its first poll.
    static STARTER: Cell<Option<Box<dyn Start<Parts, Handled>>>> = const { Cell::new(None) };
}

/// Runs `start` with the thread's starter (a new one while the thread's locals are being
/// destroyed).
fn with_starter<R>(start: impl FnOnce(&mut dyn Start<Parts, Handled>) -> R) -> R {
    let mut starter = STARTER
        .try_with(Cell::take)
        .ok()
        .flatten()
        .unwrap_or_else(|| Box::new(Kept::new(handling)));
    let started = start(&mut *starter);
    let _ = STARTER.try_with(|slot| slot.set(Some(starter)));
    started
}

/// What the handling of one message owns.
struct Parts {
    message: Incoming,
    connection: Arc<Connection>,
    /// This side's subscriptions, when notifications go to them first.
    subscriptions: Option<Inbox>,
    max_size: usize,
    max_batch_len: usize,
    cancel: Option<Arc<Cancellation>>,
}

/// What became of a message.
enum Handled {
    /// Its calls ran; the answer to send, if any, and the subscriptions they started,
    /// held until it is queued.
    Answer(Option<Vec<u8>>, Held),
    /// It is responses, for the client engine (read already).
    Responses(ReceivedAnswers),
    /// It is a cancellation of the call with this id (JSON text).
    Cancel(Box<str>),
}

/// Routes what one connection receives.
pub(crate) struct Inbound {
    inbox: Inbox,
    /// Shared by each message's handling: one reference counted per message, where a
    /// `Connection`'s clone counts three (the server, the metadata, the in-flight count).
    connection: Arc<Connection>,
    /// Where calls that run in tasks send their answers.
    outbox: Outbox,
    /// The cancellation the connection honours, if any.
    cancel: Option<Arc<Cancellation>>,
    /// Which messages run in arrival order, and the lane that runs them (`None` for
    /// [`Order::Concurrent`]).
    order: Order,
    lane: Option<Lane>,
    /// Most messages from the other side being handled at once (the server's
    /// `max_in_flight`), answers not yet written included: beyond it a message is
    /// refused, so a peer that sends without reading cannot pile up tasks or answers.
    max_calls: usize,
    /// Most answers held for the connection; a refusal beyond it is dropped.
    max_answers: usize,
    /// Most bytes of messages held by calls running in tasks (the connection's byte
    /// budget): beyond it a message is refused too.
    max_running_bytes: usize,
    /// The server's limits on what the engine reads.
    max_size: usize,
    max_batch_len: usize,
    running: SpawnedCalls,
}

impl Inbound {
    pub(crate) fn new(
        inbox: Inbox,
        connection: Connection,
        outbox: Outbox,
        (cancel, order): (Option<Arc<Cancellation>>, Order),
        limits: &Limits,
        (max_answers, max_running_bytes): (usize, usize),
    ) -> Self {
        Self {
            inbox,
            connection: Arc::new(connection),
            outbox,
            cancel,
            order,
            lane: (order != Order::Concurrent).then(|| Lane::start(limits.max_in_flight / 2)),
            max_calls: limits.max_in_flight,
            max_answers,
            max_running_bytes,
            max_size: limits.max_request_size,
            max_batch_len: limits.max_batch_len,
            running: SpawnedCalls::default(),
        }
    }

    /// Ready when the next message may be read: always, unless the lane of ordered
    /// messages is full (then `cx`'s task is woken when it has room).
    pub(crate) fn poll_room(&self, cx: &mut Context<'_>) -> Poll<()> {
        self.lane
            .as_ref()
            .map_or(Poll::Ready(()), |lane| lane.poll_room(cx))
    }

    /// The client engine's inbox (responses, and the end of the connection).
    pub(crate) fn inbox(&self) -> &Inbox {
        &self.inbox
    }

    /// Routes one message. It is read once, in the task that runs its calls (if it is
    /// calls): here, when they finish on their first poll (their answer is added to
    /// `answers`); else in a task of their own, or on the lane when they must wait
    /// their turn (then they are not polled here unless the lane is idle). `cx` is the
    /// connection task's, which a call still pending leaves.
    pub(crate) fn route(&self, message: Incoming, answers: &mut Answers, cx: &mut Context<'_>) {
        let utf8 = message.text().map_or(Utf8::Unknown, |_| Utf8::Known);
        if let Some(received) =
            ReceivedAnswers::quick(message.as_bytes(), utf8, || message.to_bytes())
        {
            return self.inbox.deliver_read(received);
        }
        if self.busy(answers) {
            return self.route_busy(&message, answers);
        }
        let lane = self
            .lane
            .as_ref()
            .filter(|_| self.in_order(message.as_bytes()));
        // To name the call in a cancellation, should it not finish at once.
        let kept = self.cancel.is_some().then(|| message.clone());
        let kept_id = || kept.as_ref().map(Incoming::as_bytes).and_then(single_id);
        let bytes = message.len();
        let parts = self.parts(message);
        if let Some(lane) = lane.filter(|lane| !lane.is_idle()) {
            let handling = with_starter(|starter| starter.boxed(parts));
            return self.queue_on(lane, handling, kept_id(), bytes);
        }
        let handled = match with_starter(|starter| starter.poll_first(parts, cx)) {
            Ok(handled) => handled,
            Err(handling) => {
                let id = kept_id();
                return match lane {
                    Some(lane) => self.queue_on(lane, handling, id, bytes),
                    None => self.spawn(handling, id, bytes),
                };
            }
        };
        match handled {
            Handled::Answer(Some(answer), held) => {
                answers.push(Outgoing::Made(answer));
                held.release();
            }
            // Subscriptions opened by notifications have no id anyone knows: they end.
            Handled::Answer(None, _) => {}
            Handled::Responses(delivery) => self.inbox.deliver_read(delivery),
            Handled::Cancel(id) => self.cancel(&id, answers),
        }
    }

    /// What the handling of `message` needs.
    fn parts(&self, message: Incoming) -> Parts {
        Parts {
            message,
            connection: Arc::clone(&self.connection),
            // Notifications go to this side's subscriptions first, if it has any.
            subscriptions: self
                .inbox
                .routes_notifications()
                .then(|| self.inbox.clone()),
            max_size: self.max_size,
            max_batch_len: self.max_batch_len,
            cancel: self.cancel.clone(),
        }
    }

    /// Whether `message` must wait its turn under the connection's [`Order`]: calls it
    /// names, never responses nor a cancellation (nor a message too large, refused at
    /// once). Read once more for that, only when an order is set.
    fn in_order(&self, message: &[u8]) -> bool {
        if message.len() > self.max_size {
            return false;
        }
        let cancel = self.cancel.as_deref();
        match TwoWay::parse(
            message,
            self.max_batch_len,
            cancel.map(Cancellation::method),
        ) {
            TwoWay::Responses => false,
            TwoWay::Calls {
                message,
                intercepted,
            } => {
                if cancel_target(cancel, intercepted).is_some() {
                    return false;
                }
                match self.order {
                    Order::Concurrent => false,
                    Order::Notifications => {
                        matches!(message, Ok(Message::Single(Entry::Notification(_))))
                    }
                    Order::All => true,
                }
            }
        }
    }

    /// Routes a message that found every slot for calls taken: responses and
    /// cancellations as usual, calls refused.
    fn route_busy(&self, message: &Incoming, answers: &mut Answers) {
        let cancel = self.cancel.as_deref();
        match TwoWay::parse(
            message.as_bytes(),
            self.max_batch_len,
            cancel.map(Cancellation::method),
        ) {
            TwoWay::Responses => self.inbox.deliver(message.to_bytes()),
            TwoWay::Calls {
                message: calls,
                intercepted: params,
            } => match cancel_target(cancel, params) {
                Some(id) => self.cancel(id.get(), answers),
                // An item for a subscription is no call: it is taken, busy or not.
                None if is_item(&self.inbox, &calls, message) => {}
                None => self.refuse(calls, answers),
            },
        }
    }

    /// Answers `-32007` (too large), with `id: null`, to a message skipped unread.
    pub(crate) fn too_large(&self, answers: &mut Answers) {
        self.answer_if_room(null_error(&ErrorObject::request_too_large()), answers);
    }

    /// Whether every slot for calls is taken, or the calls running in tasks hold the
    /// byte budget with their messages.
    fn busy(&self, answers: &Answers) -> bool {
        let (tasks, bytes) = self.running.load();
        tasks + answers.len() >= self.max_calls || bytes >= self.max_running_bytes
    }

    fn answer_if_room(&self, answer: Outgoing, answers: &mut Answers) {
        if answers.len() < self.max_answers {
            answers.push(answer);
        } else {
            tracing::debug!("dropped an answer: the peer is not reading");
        }
    }

    /// Finishes a call in a task; its answer goes out unless it was cancelled meanwhile.
    fn spawn(&self, handling: Processing, id: Option<Box<str>>, bytes: usize) {
        // The lock is held until the task is registered, so it cannot finish unseen.
        let mut guard = self.running.lock();
        let serial = guard.next();
        let handle = tokio::spawn(self.finishing(handling, serial));
        let abort = Abort::Task(handle.abort_handle());
        guard.insert(serial, Task { abort, id, bytes });
    }

    /// Queues a call on the lane, behind what waits there.
    fn queue_on(&self, lane: &Lane, handling: Processing, id: Option<Box<str>>, bytes: usize) {
        let mut guard = self.running.lock();
        let serial = guard.next();
        let work: Work = Box::pin(self.finishing(handling, serial));
        let abort = Abort::Lane(lane.push(work));
        guard.insert(serial, Task { abort, id, bytes });
    }

    /// A call's handling to its end: its answer goes out unless it was cancelled
    /// meanwhile.
    fn finishing(
        &self,
        handling: Processing,
        serial: u64,
    ) -> impl Future<Output = ()> + Send + use<> {
        let outbox = self.outbox.clone();
        let tasks = Arc::clone(&self.running);
        async move {
            let outcome = handling.await;
            let still_wanted = tasks.lock().remove(serial).is_some();
            if let (Handled::Answer(Some(answer), held), true) = (outcome, still_wanted)
                && outbox.send(answer.into()).await.is_ok()
            {
                held.release();
            }
        }
    }

    /// Answers `-32009` (server busy) to calls that found every slot taken: to the id
    /// of a single request, with `id: null` to a batch, not at all to a notification.
    /// Never waits: with no room, the answer is dropped (the peer is not reading).
    fn refuse(&self, calls: Result<Message<'_>, ErrorObject>, answers: &mut Answers) {
        let id = match &calls {
            Ok(Message::Single(Entry::Request(request))) => request.id.clone(),
            Ok(Message::Single(Entry::Notification(_))) => return,
            _ => Id::NULL,
        };
        let mut out = Vec::with_capacity(96);
        write_error(&mut out, &id, &ErrorObject::server_busy());
        self.answer_if_room(out.into(), answers);
    }

    /// Aborts the running call whose id is `id` (JSON text), and answers it as
    /// cancelled if the connection's [`Cancellation`] says so.
    fn cancel(&self, id: &str, answers: &mut Answers) {
        let task = {
            let mut guard = self.running.lock();
            let serial = guard
                .spawned
                .tasks
                .iter()
                .find(|(_, task)| task.id.as_deref() == Some(id))
                .map(|(&serial, _)| serial);
            serial.and_then(|serial| guard.remove(serial))
        };
        let raw = serde_json::from_str::<&RawValue>(id).ok();
        let (Some(task), Some(id)) = (task, raw.and_then(Id::from_raw)) else {
            tracing::debug!("a cancellation for no running call");
            return;
        };
        task.abort.abort();
        let answer = self.cancel.as_deref().and_then(Cancellation::answer_error);
        if let Some(error) = answer {
            let mut out = Vec::with_capacity(96);
            write_error(&mut out, &id, &error);
            self.answer_if_room(out.into(), answers);
        }
    }
}

/// The handling of one message, not yet polled.
fn handling(parts: Parts) -> impl Future<Output = Handled> + Send {
    let Parts {
        message,
        connection,
        subscriptions,
        max_size,
        max_batch_len,
        cancel,
    } = parts;
    async move {
        let (calls, params) = if message.len() > max_size {
            (Err(ErrorObject::request_too_large()), None)
        } else {
            let intercept = cancel.as_deref().map(Cancellation::method);
            let sorted = match message.text() {
                Some(text) => TwoWay::sort_text(text, max_batch_len, intercept),
                None => TwoWay::sort(message.as_bytes(), max_batch_len, intercept),
            };
            match sorted {
                Sorted::Responses(read) => {
                    let bytes = message.to_bytes();
                    return Handled::Responses(ReceivedAnswers::read(&bytes, read));
                }
                Sorted::Calls {
                    message,
                    intercepted,
                } => (message, intercepted),
            }
        };
        if let Some(id) = cancel_target(cancel.as_deref(), params) {
            return Handled::Cancel(id.get().into());
        }
        if let Some(inbox) = &subscriptions
            && is_item(inbox, &calls, &message)
        {
            return Handled::Answer(None, Held::default());
        }
        let input = Input::Parsed(calls);
        let (answer, held) = hold(connection.handle_input(input)).await;
        Handled::Answer(answer, held)
    }
}

/// Whether `calls` is a single notification that `inbox`'s subscriptions took as an
/// item (`message` is its bytes).
fn is_item(inbox: &Inbox, calls: &Result<Message<'_>, ErrorObject>, message: &Incoming) -> bool {
    if !inbox.routes_notifications() {
        return false;
    }
    match calls {
        Ok(Message::Single(Entry::Notification(notification))) => inbox.route_notification(
            &notification.method,
            notification.params,
            &message.to_bytes(),
        ),
        _ => false,
    }
}

/// The id of the call a cancellation names, when `params` are those of the
/// connection's cancellation notification (`cancel`).
fn cancel_target<'a>(
    cancel: Option<&Cancellation>,
    params: Option<&'a RawValue>,
) -> Option<&'a RawValue> {
    cancel?.requested_id(params?)
}

impl Drop for Inbound {
    /// Aborts every call still running when the connection's reading ends.
    fn drop(&mut self) {
        let tasks = std::mem::take(&mut self.running.lock().spawned.tasks);
        for task in tasks.into_values() {
            task.abort.abort();
        }
    }
}

fn null_error(error: &ErrorObject) -> Outgoing {
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
