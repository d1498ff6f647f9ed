//! The hold on the subscriptions a message starts: [`hold`] runs the engine's handling of
//! one message so that the push subscriptions it starts wait, through [`Held`], until the
//! message's answer is queued. [`Pushes`](super::Pushes) asks [`held`] for the hold of
//! the message being handled on this thread.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::sync::oneshot;

thread_local! {
    /// How many holds are entered on this thread: set only while a [`Holding`] polls its
    /// message's handling, wherever that runs (what a task-local is, without tokio's
    /// `task_local!` scope, whose poll, the block around it and its lazily initialised key
    /// were about 300 instructions a WebSocket call, by callgrind).
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    /// The subscriptions started while handling the messages being polled on this
    /// thread, the innermost hold's last; each [`Scope`] takes its own at its end.
    static STARTED: RefCell<Vec<oneshot::Sender<()>>> = const { RefCell::new(Vec::new()) };
    /// The length of [`STARTED`], read without touching it: most polls start no
    /// subscription, and entering and leaving a hold then only counts (a `Vec` swapped
    /// in and out of a thread-local at each poll was about 140 instructions a call).
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

/// A hold on the subscriptions a message started, for its answer to be queued first.
pub(super) fn held() -> Option<oneshot::Receiver<()>> {
    if DEPTH.get() == 0 {
        return None;
    }
    let (release, released) = oneshot::channel();
    STARTED
        .try_with(|started| started.borrow_mut().push(release))
        .ok()?;
    COUNT.set(COUNT.get() + 1);
    Some(released)
}

/// The subscriptions one message started, whose items wait until its answer is queued:
/// [`release`](Self::release) them then. Dropped unreleased (the answer was not
/// sent), they end.
#[must_use = "the subscriptions stay held until released"]
#[derive(Debug, Default)]
pub struct Held(Vec<oneshot::Sender<()>>);

impl Held {
    /// Lets the held subscriptions send their items: call it once the message's answer
    /// is queued on the connection, ahead of anything queued after. Inlined: most
    /// messages start no subscription, and the call was most of the cost of releasing
    /// none.
    #[inline]
    pub fn release(self) {
        if self.0.capacity() == 0 {
            // It owns nothing: dropping it would still call the slice's drop glue out of
            // line (about 13 instructions a call, by callgrind).
            std::mem::forget(self);
            return;
        }
        self.release_all();
    }

    fn release_all(self) {
        for release in self.0 {
            let _ = release.send(());
        }
    }

    /// Whether the message started no subscription.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Runs `handling` (the engine's handling of one message) so that the push
/// subscriptions it starts hold their items until the returned [`Held`] is released.
/// Outside it, a subscription sends at once, and its first items may then overtake its
/// answer.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let (answer, held) = rpcsmith::server::hold(async { Some(b"{}".to_vec()) }).await;
/// // … queue `answer` on the connection, then:
/// held.release();
/// # });
/// ```
pub fn hold<F: Future>(handling: F) -> impl Future<Output = (F::Output, Held)> {
    Holding {
        handling,
        held: Vec::new(),
    }
}

pin_project_lite::pin_project! {
    /// The future [`hold`] returns: `handling`, polled with the subscriptions it starts
    /// gathered in `held` (through [`STARTED`], for the poll).
    struct Holding<F> {
        #[pin]
        handling: F,
        held: Vec<oneshot::Sender<()>>,
    }
}

impl<F: Future> Future for Holding<F> {
    type Output = (F::Output, Held);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let output = {
            let _scope = Scope::enter(this.held);
            this.handling.poll(cx)
        };
        match output {
            Poll::Ready(output) => Poll::Ready((output, Held(std::mem::take(this.held)))),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// One message's hold, entered for as long as it lives (a panicking poll included):
/// what [`held`] starts meanwhile is this hold's, and goes to `held` at its end; an outer
/// hold keeps what it had.
struct Scope<'a> {
    held: &'a mut Vec<oneshot::Sender<()>>,
    /// Where this hold's subscriptions start in [`STARTED`].
    base: usize,
}

impl<'a> Scope<'a> {
    fn enter(held: &'a mut Vec<oneshot::Sender<()>>) -> Self {
        let base = COUNT.get();
        // What this hold gathered in its earlier polls goes back on top (not while the
        // thread's locals are being destroyed: then it stays where it is).
        if !held.is_empty() {
            let more = held.len();
            if STARTED
                .try_with(|started| started.borrow_mut().append(held))
                .is_ok()
            {
                COUNT.set(base + more);
            }
        }
        DEPTH.set(DEPTH.get() + 1);
        Scope { held, base }
    }
}

impl Drop for Scope<'_> {
    fn drop(&mut self) {
        DEPTH.set(DEPTH.get() - 1);
        if COUNT.get() > self.base {
            let _ = STARTED.try_with(|started| {
                let mut started = started.borrow_mut();
                self.held.extend(started.drain(self.base..));
            });
            COUNT.set(self.base);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A subscription started on a later poll of the handling is held by the innermost
    /// hold; outside any, nothing is held; a hold inside another leaves the outer one as
    /// it was.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn holds_follow_the_handling_across_polls_and_nest() {
        assert!(held().is_none(), "outside a hold");
        let ((inner, outer_release), outer) = hold(async {
            tokio::task::yield_now().await;
            let outer_release = held().expect("inside the outer hold");
            let (released, inner) = hold(async {
                tokio::task::yield_now().await;
                held()
            })
            .await;
            (
                (released.expect("inside the inner hold"), inner),
                outer_release,
            )
        })
        .await;
        let (mut inner_release, inner) = inner;
        assert_eq!(inner.0.len(), 1, "the inner hold has its own");
        assert_eq!(outer.0.len(), 1, "the outer hold kept only its own");
        assert!(held().is_none(), "outside again");
        assert!(inner_release.try_recv().is_err(), "held until released");
        inner.release();
        assert_eq!(inner_release.try_recv(), Ok(()));
        drop(outer);
        let mut outer_release = outer_release;
        assert!(
            outer_release.try_recv().is_err(),
            "dropped unreleased: the subscription ends"
        );
    }

    /// A handling that panics leaves no hold behind on the thread.
    #[test]
    fn a_panicking_handling_leaves_no_hold() {
        let caught = std::panic::catch_unwind(|| {
            futures_util::FutureExt::now_or_never(hold(async {
                let _ = held();
                panic!("the handler failed");
            }))
        });
        assert!(caught.is_err());
        assert!(held().is_none());
    }
}
