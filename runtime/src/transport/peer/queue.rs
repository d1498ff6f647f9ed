//! What waits to be written to the other side of one connection, bounded in bytes as
//! well as in count: the answers its task made, and the queue that clients, pushes and
//! calls running in tasks of their own send through.
//!
//! Every message counts against the connection's [`Budget`] from when it is queued
//! until it is handed to the stream. Past the budget the connection reads nothing more
//! from the other side (whose messages would only add answers), its client's sends wait
//! for room, and a hub passes it by; so a peer that sends without reading stalls itself
//! (TCP's flow control does the rest), and the server holds at most the budget plus one
//! message per sender for it.

use super::doorbell::{Bell, Queue};
use super::wire::Outgoing;
use bytes::Bytes;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tokio::sync::{Notify, mpsc};

/// How many bytes may wait to be written on a connection before a push subscription's
/// next item is queued too. A subscription whose items come faster than its reader
/// takes them then keeps them in its own channel (items serialized once for many
/// subscriptions are a shared reference each there) rather than as whole messages in
/// the connection's queue and the WebSocket's write buffer (tungstenite's, which kept
/// the most it ever held, before `ws::writing`): with the budget (4 MiB) as the only bound, a fan-out to 1,000 slow
/// subscribers held over 100 KiB of written-out messages per connection (issue 28).
/// 4 KiB still gives the writer a dozen small items per write.
pub(crate) const PUSH_ROOM: usize = 4 * 1024;

/// The bytes one connection holds for the other side, against a limit.
#[derive(Debug)]
pub(crate) struct Budget {
    queued: AtomicUsize,
    /// The most `queued` ever was.
    peak: AtomicUsize,
    limit: usize,
    /// The connection has ended: nothing waits for room any more.
    ended: AtomicBool,
    /// Told when `queued` falls back below the limit, or the connection ends.
    room: Notify,
}

impl Budget {
    /// A budget of `limit` bytes (at least one message always fits).
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            queued: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            limit: limit.max(1),
            ended: AtomicBool::new(false),
            room: Notify::new(),
        }
    }

    /// Counts `bytes` more waiting to be written.
    pub(crate) fn take(&self, bytes: usize) {
        let now = self.queued.fetch_add(bytes, Ordering::AcqRel) + bytes;
        if now > self.peak.load(Ordering::Relaxed) {
            self.peak.fetch_max(now, Ordering::Relaxed);
        }
    }

    /// Counts `bytes` as written (handed to the stream, or dropped).
    pub(crate) fn give_back(&self, bytes: usize) {
        let before = self.queued.fetch_sub(bytes, Ordering::AcqRel);
        let after = before - bytes;
        let crossed = |mark: usize| before >= mark && after < mark;
        if crossed(self.limit) || crossed(self.push_mark()) {
            self.room.notify_waiters();
        }
    }

    /// Below how many queued bytes a push subscription's next item is queued.
    fn push_mark(&self) -> usize {
        PUSH_ROOM.min(self.limit)
    }

    /// Waits until fewer than [`PUSH_ROOM`] bytes are queued (or the budget's limit,
    /// when lower), or the connection has ended.
    pub(crate) async fn push_room(&self) {
        loop {
            let notified = self.room.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            let below = self.queued.load(Ordering::Acquire) < self.push_mark();
            if below || self.ended.load(Ordering::Acquire) {
                return;
            }
            notified.await;
        }
    }

    /// Whether the connection holds its whole budget or more.
    pub(crate) fn is_spent(&self) -> bool {
        self.queued.load(Ordering::Acquire) >= self.limit
    }

    /// Waits until the budget is not spent, or the connection has ended.
    pub(crate) async fn room(&self) {
        loop {
            let notified = self.room.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            if !self.is_spent() || self.ended.load(Ordering::Acquire) {
                return;
            }
            notified.await;
        }
    }

    /// The connection has ended: its queue is gone, and so is what it held.
    pub(crate) fn end(&self) {
        self.ended.store(true, Ordering::Release);
        self.room.notify_waiters();
    }

    /// Bytes waiting to be written now (none once the connection has ended).
    pub(crate) fn queued(&self) -> usize {
        if self.ended.load(Ordering::Acquire) {
            0
        } else {
            self.queued.load(Ordering::Acquire)
        }
    }

    /// The most bytes that ever waited to be written at once.
    pub(crate) fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }
}

/// The sending side of a connection's queue: what clients, pushes and calls that run
/// in tasks send through, counted against the connection's budget.
#[derive(Debug, Clone)]
pub(crate) struct Outbox {
    sender: mpsc::Sender<Bytes>,
    budget: Arc<Budget>,
    bell: Arc<Bell>,
}

/// Why [`Outbox::try_send`] did not queue a message.
pub(crate) enum Refused {
    /// The queue or the budget is full.
    Full,
    /// The connection has ended.
    Closed,
}

impl Outbox {
    /// A queue `depth` messages deep, and its receiving end.
    pub(crate) fn new(depth: usize, budget: Arc<Budget>) -> (Self, Queue) {
        let (sender, receiver) = mpsc::channel(depth.max(1));
        let bell = Arc::new(Bell::default());
        let queue = Queue::new(receiver, Arc::clone(&bell));
        (
            Self {
                sender,
                budget,
                bell,
            },
            queue,
        )
    }

    /// Queues `message`, waiting first for room in the budget, then in the queue.
    ///
    /// # Errors
    ///
    /// The message back, when the connection has ended.
    pub(crate) async fn send(&self, message: Bytes) -> Result<(), Bytes> {
        if self.budget.is_spent() {
            // Boxed: the waiter's state would otherwise make every send's future larger.
            Box::pin(self.budget.room()).await;
        }
        let bytes = message.len();
        self.budget.take(bytes);
        self.sender.send(message).await.map_err(|returned| {
            self.budget.give_back(bytes);
            returned.0
        })?;
        self.bell.ring();
        Ok(())
    }

    /// Queues a push subscription's `message`, waiting first until fewer than
    /// [`PUSH_ROOM`] bytes wait to be written, then as [`send`](Self::send).
    ///
    /// # Errors
    ///
    /// The message back, when the connection has ended.
    pub(crate) async fn push(&self, message: Bytes) -> Result<(), Bytes> {
        if self.budget.queued.load(Ordering::Acquire) >= self.budget.push_mark() {
            // Boxed: the waiter's state would otherwise make every push's future larger.
            Box::pin(self.budget.push_room()).await;
        }
        self.send(message).await
    }

    /// Queues `message` if there is room now, in the budget and in the queue.
    pub(crate) fn try_send(&self, message: Bytes) -> Result<(), Refused> {
        if self.budget.is_spent() {
            return Err(if self.sender.is_closed() {
                Refused::Closed
            } else {
                Refused::Full
            });
        }
        let bytes = message.len();
        self.budget.take(bytes);
        self.sender.try_send(message).map_err(|error| {
            self.budget.give_back(bytes);
            match error {
                mpsc::error::TrySendError::Full(_) => Refused::Full,
                mpsc::error::TrySendError::Closed(_) => Refused::Closed,
            }
        })?;
        self.bell.ring();
        Ok(())
    }

    /// Waits until the connection's queue is closed (the connection has ended).
    pub(crate) async fn closed(&self) {
        self.sender.closed().await;
    }

    /// An outbox that does not keep the connection's queue open.
    pub(crate) fn downgrade(&self) -> WeakOutbox {
        WeakOutbox {
            sender: self.sender.downgrade(),
            budget: Arc::clone(&self.budget),
            bell: Arc::clone(&self.bell),
        }
    }
}

/// An [`Outbox`] that does not keep the queue open (a hub's).
#[derive(Debug, Clone)]
pub(crate) struct WeakOutbox {
    sender: mpsc::WeakSender<Bytes>,
    budget: Arc<Budget>,
    bell: Arc<Bell>,
}

impl WeakOutbox {
    /// The outbox, while the connection's queue is open.
    pub(crate) fn upgrade(&self) -> Option<Outbox> {
        Some(Outbox {
            sender: self.sender.upgrade()?,
            budget: Arc::clone(&self.budget),
            bell: Arc::clone(&self.bell),
        })
    }
}

/// Answers made in the connection's own task, waiting for room on the stream, in the
/// order they were made; counted against the budget like the queue.
pub(crate) struct Answers {
    waiting: VecDeque<Outgoing>,
    /// Their size in bytes.
    bytes: usize,
    budget: Arc<Budget>,
}

impl Answers {
    pub(crate) fn new(budget: Arc<Budget>) -> Self {
        Self {
            waiting: VecDeque::new(),
            bytes: 0,
            budget,
        }
    }

    /// Adds an answer; the budget counts it until the driver writes it.
    pub(crate) fn push(&mut self, answer: Outgoing) {
        self.budget.take(answer.len());
        self.bytes += answer.len();
        self.waiting.push_back(answer);
    }

    /// The oldest answer; still counted by the budget until written.
    pub(crate) fn pop(&mut self) -> Option<Outgoing> {
        let answer = self.waiting.pop_front()?;
        self.bytes -= answer.len();
        Some(answer)
    }

    /// The size of the answers waiting, in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    pub(crate) fn len(&self) -> usize {
        self.waiting.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    #[tokio::test]
    async fn a_push_waits_until_little_is_queued() {
        let budget = Arc::new(Budget::new(1 << 20));
        let (outbox, mut queue) = Outbox::new(64, Arc::clone(&budget));
        let big = Bytes::from(vec![b'x'; PUSH_ROOM]);
        outbox.push(big).await.unwrap();
        let mut waiting = std::pin::pin!(outbox.push(Bytes::from_static(b"next")));
        assert!(waiting.as_mut().now_or_never().is_none());
        outbox.send(Bytes::from_static(b"an answer")).await.unwrap();
        let written = std::future::poll_fn(|cx| queue.poll_recv(cx))
            .await
            .unwrap();
        budget.give_back(written.len());
        waiting.await.unwrap();
        assert_eq!(budget.queued(), 9 + 4);
    }

    #[tokio::test]
    async fn a_spent_budget_refuses_and_makes_senders_wait_until_room() {
        let budget = Arc::new(Budget::new(10));
        let (outbox, mut queue) = Outbox::new(8, Arc::clone(&budget));
        outbox
            .send(Bytes::from_static(b"0123456789ab"))
            .await
            .unwrap();
        assert!(budget.is_spent());
        assert_eq!((budget.queued(), budget.peak()), (12, 12));
        assert!(matches!(
            outbox.try_send(Bytes::from_static(b"x")),
            Err(Refused::Full)
        ));

        let mut waiting = std::pin::pin!(outbox.send(Bytes::from_static(b"y")));
        assert!(waiting.as_mut().now_or_never().is_none());
        let written = std::future::poll_fn(|cx| queue.poll_recv(cx))
            .await
            .unwrap();
        budget.give_back(written.len());
        waiting.await.unwrap();
        assert_eq!((budget.queued(), budget.peak()), (1, 12));

        budget.take(20);
        let mut waiting = std::pin::pin!(outbox.send(Bytes::from_static(b"z")));
        assert!(waiting.as_mut().now_or_never().is_none());
        budget.end();
        drop(queue);
        assert!(waiting.await.is_err(), "an ended connection takes nothing");
        assert_eq!(budget.queued(), 0);
    }
}
