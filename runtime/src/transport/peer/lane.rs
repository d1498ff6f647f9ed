//! Ordered processing: which of a connection's messages run one after another in
//! arrival order ([`Order`]), and the lane that runs them.
//!
//! A message that must wait its turn is queued on the connection's lane, one task
//! that runs what it is given one at a time: the next starts when the one before has
//! finished (its answer, if any, queued). A message that arrives while the lane is idle
//! runs at once in the connection's task, as any other does, and joins the lane only
//! if it does not finish on its first poll. What waits on the lane counts as a call in
//! flight (the server's `max_in_flight`, the connection's byte budget), so the lane is
//! bounded as the other calls are. Each thing queued can be aborted on its own, running
//! or still waiting: that is how a cancellation reaches a call on the lane without
//! waiting behind it.
//!
//! The lane holds at most half the server's `max_in_flight` messages (so that the other
//! calls keep room beside it); while it is full, the connection reads nothing more from
//! the other side (TCP's flow control holds it back) instead of refusing the messages
//! that must wait, which would lose a notification for good.

use futures_util::future::{AbortHandle, Abortable};
use futures_util::task::AtomicWaker;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// Which of a connection's messages from the other side run one after another, in
/// the order they arrived (see [`Builder::order`](super::Builder::order)).
///
/// By default ([`Order::Concurrent`]) a message whose handler does not finish on its
/// first poll goes on in a task of its own while the next messages are read and run,
/// so two notifications may take effect in either order. A protocol that needs them
/// in order (a language server's `textDocument/didChange`) asks for
/// [`Order::Notifications`] or [`Order::All`].
///
/// **Trade-off: head-of-line blocking.** A message that waits its turn waits for
/// everything before it to finish: one slow handler holds up every later message of
/// its kind on that connection (never another connection's, and never the responses
/// to this side's own calls, nor cancellations). Ordered handlers should therefore be
/// quick, handing long work to a task of their own. Cancellation bypasses the order: a
/// cancellation notification is acted on as it arrives, and aborts the named call
/// whether it is running on the lane or still waiting there (a request, under
/// [`Order::All`]); notifications cannot be cancelled. Only while the lane is full
/// (half the server's [`max_in_flight`](crate::server::Limits::max_in_flight) messages
/// wait on it) does a cancellation wait too: the connection then reads nothing more
/// until the lane has room, rather than drop a message that must not be lost. Responses, which a handler on
/// the lane may be waiting for (a server→client request), are never queued either, so
/// a handler that calls the other side back does not block itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Order {
    /// Every message runs as soon as it arrives; those that wait on something run
    /// side by side. The default.
    #[default]
    Concurrent,
    /// Notifications run one after another in arrival order; requests (and batches)
    /// run as they arrive, side by side with them.
    Notifications,
    /// Every request, notification and batch runs one after another in arrival order.
    All,
}

/// Something the lane runs: a message's handling and the sending of its answer.
pub(crate) type Work = Pin<Box<dyn Future<Output = ()> + Send>>;

/// The lane of one connection: a task that runs what it is given one at a time.
pub(crate) struct Lane {
    sender: mpsc::UnboundedSender<Abortable<Work>>,
    /// How many things are queued or running.
    waiting: Arc<AtomicUsize>,
    /// Most things queued or running before the connection stops reading.
    capacity: usize,
    /// The connection's task, waiting for room.
    room: Arc<AtomicWaker>,
    task: tokio::task::AbortHandle,
}

impl Lane {
    /// Starts the lane's task, which holds up to `capacity` things (at least one).
    /// Needs a Tokio runtime.
    pub(crate) fn start(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        let (sender, mut queue) = mpsc::unbounded_channel::<Abortable<Work>>();
        let waiting = Arc::new(AtomicUsize::new(0));
        let room = Arc::new(AtomicWaker::new());
        let (counted, reader) = (Arc::clone(&waiting), Arc::clone(&room));
        let task = tokio::spawn(async move {
            while let Some(work) = queue.recv().await {
                // Aborted, it ends at once (dropping the handler), and the next begins.
                let _ = work.await;
                if counted.fetch_sub(1, Ordering::AcqRel) >= capacity {
                    reader.wake();
                }
            }
        });
        Self {
            sender,
            waiting,
            capacity,
            room,
            task: task.abort_handle(),
        }
    }

    /// Ready when the lane has room for one more; else wakes `cx`'s task when it has.
    pub(crate) fn poll_room(&self, cx: &mut Context<'_>) -> Poll<()> {
        if self.waiting.load(Ordering::Acquire) < self.capacity {
            return Poll::Ready(());
        }
        self.room.register(cx.waker());
        if self.waiting.load(Ordering::Acquire) < self.capacity {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }

    /// Whether nothing is queued or running: a message may run at once.
    pub(crate) fn is_idle(&self) -> bool {
        self.waiting.load(Ordering::Acquire) == 0
    }

    /// Queues `work` behind what is already there; the handle aborts it, running or
    /// waiting.
    pub(crate) fn push(&self, work: Work) -> AbortHandle {
        let (abort, registration) = AbortHandle::new_pair();
        self.waiting.fetch_add(1, Ordering::AcqRel);
        if self
            .sender
            .send(Abortable::new(work, registration))
            .is_err()
        {
            // The task is gone only once the connection is: nothing is left to run.
            self.waiting.fetch_sub(1, Ordering::AcqRel);
        }
        abort
    }
}

impl Drop for Lane {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[tokio::test]
    async fn runs_one_at_a_time_in_order_and_aborts_what_waits() {
        let lane = Lane::start(8);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (release, released) = tokio::sync::oneshot::channel::<()>();
        let first = Arc::clone(&seen);
        lane.push(Box::pin(async move {
            let _ = released.await;
            first.lock().unwrap().push(0);
        }));
        let mut aborts = Vec::new();
        for n in 1..=3 {
            let seen = Arc::clone(&seen);
            aborts.push(lane.push(Box::pin(async move {
                tokio::task::yield_now().await;
                seen.lock().unwrap().push(n);
            })));
        }
        // The second waits behind the first; aborted, it never runs.
        aborts[0].abort();
        assert!(!lane.is_idle());
        release.send(()).unwrap();
        while !lane.is_idle() {
            tokio::task::yield_now().await;
        }
        assert_eq!(*seen.lock().unwrap(), [0, 2, 3]);
    }
}
