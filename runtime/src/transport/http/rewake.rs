//! Wake-ups that come while a connection is being polled, answered by polling it again
//! at once instead of by a trip through the scheduler.
//!
//! hyper's HTTP/1.1 body channel wakes the connection's task each time the service takes
//! a piece of the body, and the service takes it while hyper polls it, from within the
//! connection's own poll: so every request with a body woke its own task once, and the
//! task went back through the runtime's queue (where an idle worker may be woken to
//! steal it) only to find nothing to do. Under [`Rewake::poll`], such a wake-up is
//! noted, and the connection is polled once more before the poll returns. A wake-up
//! from anywhere else, or from within that second pass, reaches the task as before.

use futures_util::task::AtomicWaker;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

/// How many times a poll may be repeated for wake-ups from within it (after that, the
/// task is woken and yields, so a future that always wakes itself cannot hold a worker).
const AGAIN: usize = 1;

/// A waker of its own for a future polled through [`Rewake::poll`].
pub(super) struct Rewake {
    state: Arc<State>,
    waker: Waker,
}

#[derive(Default)]
struct State {
    /// A poll is in progress: a wake-up is only noted.
    polling: AtomicBool,
    /// A wake-up came since the current poll began.
    woken: AtomicBool,
    /// The task to wake when no poll is in progress.
    task: AtomicWaker,
}

impl Wake for State {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::SeqCst);
        // Either the poll in progress sees `woken` when it ends, or this sees that it
        // has ended (or both: then the task is polled once for nothing).
        if !self.polling.load(Ordering::SeqCst) {
            self.task.wake();
        }
    }
}

impl Rewake {
    pub(super) fn new() -> Self {
        let state = Arc::new(State::default());
        Self {
            waker: Waker::from(Arc::clone(&state)),
            state,
        }
    }

    /// Polls `poll` with this waker on behalf of the task `cx`; again at once (up to
    /// [`AGAIN`] times) when it returned `Pending` after waking itself.
    pub(super) fn poll<T>(
        &self,
        cx: &mut Context<'_>,
        mut poll: impl FnMut(&mut Context<'_>) -> Poll<T>,
    ) -> Poll<T> {
        let state = &*self.state;
        // The same waker every time costs two atomic operations, no clone.
        state.task.register(cx.waker());
        let mut own = Context::from_waker(&self.waker);
        for _ in 0..=AGAIN {
            state.woken.store(false, Ordering::SeqCst);
            state.polling.store(true, Ordering::SeqCst);
            let polled = poll(&mut own);
            state.polling.store(false, Ordering::SeqCst);
            if polled.is_ready() || !state.woken.swap(false, Ordering::SeqCst) {
                return polled;
            }
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A task waker that counts its wake-ups.
    #[derive(Default)]
    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }

        fn wake_by_ref(self: &Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn task() -> (Arc<Count>, Waker) {
        let count = Arc::new(Count::default());
        let waker = Waker::from(Arc::clone(&count));
        (count, waker)
    }

    #[test]
    fn a_wake_up_from_within_the_poll_polls_again_at_once() {
        let rewake = Rewake::new();
        let (count, waker) = task();
        let mut cx = Context::from_waker(&waker);
        let mut polls = 0;
        let polled = rewake.poll(&mut cx, |own| {
            polls += 1;
            if polls == 1 {
                own.waker().wake_by_ref();
                return Poll::Pending;
            }
            Poll::Ready(polls)
        });
        assert_eq!(polled, Poll::Ready(2));
        assert_eq!(count.0.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_future_that_keeps_waking_itself_yields_to_the_task() {
        let rewake = Rewake::new();
        let (count, waker) = task();
        let mut cx = Context::from_waker(&waker);
        let mut polls = 0;
        let polled: Poll<()> = rewake.poll(&mut cx, |own| {
            polls += 1;
            own.waker().wake_by_ref();
            Poll::Pending
        });
        assert_eq!(polled, Poll::Pending);
        assert_eq!(polls, AGAIN + 1);
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_wake_up_between_polls_reaches_the_task() {
        let rewake = Rewake::new();
        let (count, waker) = task();
        let mut cx = Context::from_waker(&waker);
        let mut kept = None;
        let polled: Poll<()> = rewake.poll(&mut cx, |own| {
            kept = Some(own.waker().clone());
            Poll::Pending
        });
        assert_eq!(polled, Poll::Pending);
        assert_eq!(count.0.load(Ordering::SeqCst), 0);
        kept.take().expect("the waker was kept").wake();
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        // Polled again (as the task would be), then woken from elsewhere again.
        let mut polls = 0;
        let polled = rewake.poll(&mut cx, |own| {
            polls += 1;
            kept = Some(own.waker().clone());
            Poll::<()>::Pending
        });
        assert_eq!((polled, polls), (Poll::Pending, 1));
        kept.take().expect("the waker was kept").wake_by_ref();
        assert_eq!(count.0.load(Ordering::SeqCst), 2);
    }
}
