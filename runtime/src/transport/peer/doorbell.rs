//! How a connection's task learns that its queue has something: each sender, once its
//! message is queued, rings a bell, a flag that wakes the task when it was not set
//! already; the task looks into the queue only when the bell rang, or when its last
//! look found a message (there may be more).
//!
//! Why not the queue's own wake-up alone (tokio's `Receiver::poll_recv`): its waker is
//! taken by the first message sent, so the task must register it again at every poll to
//! hear the next one, and the task polls the queue at every wake-up, whatever woke it (a
//! message read, the stream's room to write). On a server answering small WebSocket
//! calls, where nothing is ever queued, that was about 200 instructions of each call's
//! 6,600 by callgrind; a look at the bell is one load. The queue is still tokio's bounded
//! channel (its room, its order, its closing), and once it is closed the task reads it
//! by `poll_recv` alone, to its end.

use bytes::Bytes;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use tokio::sync::mpsc;

/// What the senders ring, and whom it wakes.
#[derive(Debug, Default)]
pub(crate) struct Bell {
    /// A message was queued since the task last looked.
    rung: AtomicBool,
    /// The connection task's waker, kept (not taken by a ring): rung again and again.
    waker: Mutex<Option<Waker>>,
}

impl Bell {
    /// Tells the task that a message was queued (after it was): wakes it, unless the
    /// bell was rung already since it last looked.
    pub(crate) fn ring(&self) {
        if !self.rung.swap(true, Ordering::AcqRel)
            && let Some(waker) = &*self.locked()
        {
            waker.wake_by_ref();
        }
    }

    /// Whether the bell rang since the last call (which then answered it).
    fn answer(&self) -> bool {
        self.rung.load(Ordering::Relaxed) && self.rung.swap(false, Ordering::AcqRel)
    }

    /// Has the bell wake `waker`'s task from now on.
    fn hang(&self, waker: &Waker) {
        *self.locked() = Some(waker.clone());
    }

    /// The task's waker, locked (a sender that panicked holding it left it whole).
    fn locked(&self) -> MutexGuard<'_, Option<Waker>> {
        self.waker.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A connection's queue, as its task reads it.
#[derive(Debug)]
pub(crate) struct Queue {
    receiver: mpsc::Receiver<Bytes>,
    bell: Arc<Bell>,
    /// The waker the bell holds, to tell when the task's changes.
    hung: Option<Waker>,
    /// Whether the last look found a message, or could not tell (more may wait).
    more: bool,
    /// The queue was closed: read by `poll_recv` alone.
    closed: bool,
}

impl Queue {
    pub(crate) fn new(receiver: mpsc::Receiver<Bytes>, bell: Arc<Bell>) -> Self {
        Self {
            receiver,
            bell,
            hung: None,
            more: true,
            closed: false,
        }
    }

    /// The next message queued, as [`mpsc::Receiver::poll_recv`] gives it; `cx`'s task is
    /// woken when the next one is.
    pub(crate) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        if self.closed {
            return self.receiver.poll_recv(cx);
        }
        if !self
            .hung
            .as_ref()
            .is_some_and(|hung| hung.will_wake(cx.waker()))
        {
            self.bell.hang(cx.waker());
            self.hung = Some(cx.waker().clone());
            // A ring before the waker was hung woke no one.
            self.more = true;
        }
        if !self.more && !self.bell.answer() {
            return Poll::Pending;
        }
        let next = self.receiver.poll_recv(cx);
        // Pending with messages queued: one still being written by its sender (who will
        // ring), or the task's budget of tokio's cooperative scheduling spent (it is
        // woken again at once). Either way, look again next time.
        self.more = next.is_ready() || !self.receiver.is_empty();
        next
    }

    /// Closes the queue: senders are refused, what is queued is still read.
    pub(crate) fn close(&mut self) {
        self.receiver.close();
        self.closed = true;
    }

    /// Whether nothing is queued.
    pub(crate) fn is_empty(&self) -> bool {
        self.receiver.is_empty()
    }
}

impl Drop for Queue {
    /// The bell outlives the connection in its senders (a hub's, say): it lets go of
    /// the task, whose memory a waker keeps.
    fn drop(&mut self) {
        self.bell.locked().take();
    }
}

#[cfg(test)]
mod tests {
    use super::super::queue::{Budget, Outbox};
    use bytes::Bytes;
    use std::sync::Arc;
    use std::task::Poll;

    /// Counts its wake-ups.
    #[derive(Default)]
    struct Counted(std::sync::atomic::AtomicUsize);

    impl std::task::Wake for Counted {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }

        fn wake_by_ref(self: &Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// An outbox of `depth` messages and its queue, with room enough in bytes.
    fn outbox(depth: usize) -> (Outbox, super::Queue) {
        Outbox::new(depth, Arc::new(Budget::new(1 << 30)))
    }

    /// A message queued before the queue was first looked at is not lost: no waker
    /// was hung when it rang.
    #[tokio::test]
    async fn a_message_sent_before_the_first_look_is_read() {
        let (outbox, mut queue) = outbox(4);
        outbox.try_send(Bytes::from_static(b"early")).ok().unwrap();
        let first = std::future::poll_fn(|cx| queue.poll_recv(cx)).await;
        assert_eq!(first.as_deref(), Some(&b"early"[..]));
    }

    /// Once the queue was found empty, it is not looked into again until the bell
    /// rings, and the ring wakes the task that looked.
    #[tokio::test]
    async fn an_empty_queue_waits_for_the_bell() {
        let (outbox, mut queue) = outbox(4);
        let woken = Arc::new(Counted::default());
        let waker = std::task::Waker::from(Arc::clone(&woken));
        let mut cx = std::task::Context::from_waker(&waker);
        let woken = || woken.0.load(std::sync::atomic::Ordering::SeqCst);
        assert!(queue.poll_recv(&mut cx).is_pending());
        assert!(!queue.more, "found empty");
        assert!(queue.poll_recv(&mut cx).is_pending());
        assert_eq!(woken(), 0);
        outbox.try_send(Bytes::from_static(b"late")).ok().unwrap();
        // (tokio's own wake-up, registered by the first look, may come too.)
        assert!(woken() >= 1, "the ring woke the task");
        let Poll::Ready(Some(message)) = queue.poll_recv(&mut cx) else {
            panic!("the message rang");
        };
        assert_eq!(&message[..], b"late");
    }

    /// Senders on other threads, each message's ring racing the task's looks: every
    /// message is read, none is left waiting for a wake-up that was lost. (A guard
    /// ends a hang as a failure.)
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn racing_senders_lose_no_wake_up() {
        const SENDERS: usize = 8;
        const EACH: usize = 5_000;
        let (outbox, mut queue) = outbox(16);
        for _ in 0..SENDERS {
            let outbox = outbox.clone();
            tokio::spawn(async move {
                for i in 0..EACH {
                    outbox.send(Bytes::from(i.to_string())).await.unwrap();
                    if i % 64 == 0 {
                        tokio::task::yield_now().await;
                    }
                }
            });
        }
        let read_all = tokio::spawn(async move {
            let mut read = 0;
            while read < SENDERS * EACH {
                std::future::poll_fn(|cx| queue.poll_recv(cx))
                    .await
                    .unwrap();
                read += 1;
            }
            read
        });
        let read = tokio::time::timeout(std::time::Duration::from_secs(120), read_all)
            .await
            .expect("every message read: a wake-up was lost")
            .unwrap();
        assert_eq!(read, SENDERS * EACH);
    }

    /// A queue dropped (its connection ended) takes its task's waker out of the bell,
    /// which its senders may keep for a while.
    #[test]
    fn a_dropped_queue_lets_go_of_its_task() {
        let (_outbox, mut queue) = outbox(4);
        let waker = std::task::Waker::from(Arc::new(Counted::default()));
        assert!(
            queue
                .poll_recv(&mut std::task::Context::from_waker(&waker))
                .is_pending()
        );
        let bell = Arc::clone(&queue.bell);
        assert!(bell.waker.lock().unwrap().is_some());
        drop(queue);
        assert!(bell.waker.lock().unwrap().is_none());
    }

    /// A closed queue gives what it holds, then its end.
    #[tokio::test]
    async fn a_closed_queue_is_read_to_its_end() {
        let (outbox, mut queue) = outbox(4);
        outbox.try_send(Bytes::from_static(b"last")).ok().unwrap();
        queue.close();
        drop(outbox);
        let last = std::future::poll_fn(|cx| queue.poll_recv(cx)).await;
        assert_eq!(last.as_deref(), Some(&b"last"[..]));
        assert!(
            std::future::poll_fn(|cx| queue.poll_recv(cx))
                .await
                .is_none()
        );
    }
}
