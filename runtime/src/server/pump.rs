//! One task per connection runs every push subscription of that connection: each
//! subscription is a future (its [`Run`]) polled by the connection's [`Pump`] only when
//! its items or its connection wake it, instead of a task of its own. An idle
//! subscription costs its future and a slot in the pump's set; a connection without
//! subscriptions has no task at all (the pump's task starts with the first one and ends
//! with the last), and the connection's end is watched once, by the pump, not by each
//! subscription.

use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::task::{Poll, Waker};

use futures_util::stream::{FuturesUnordered, StreamExt as _};

/// A subscription's run: sends its items until it ends.
pub(crate) type Run = Pin<Box<dyn Future<Output = ()> + Send>>;

/// The runs of one connection's push subscriptions.
#[derive(Default)]
pub(crate) struct Pump {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Runs added since the task last looked.
    incoming: Vec<Run>,
    /// The task, woken when a run is added.
    waker: Option<Waker>,
    /// Whether a task runs this pump (or is about to).
    running: bool,
}

/// How [`Pump::drive`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Drained {
    /// Every run had finished.
    Finished,
    /// The connection ended: the runs left were dropped.
    Closed,
}

impl Pump {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds `run`; `true` when no task runs the pump, so the caller must start one
    /// (with [`drive`](Self::drive)).
    pub(crate) fn add(&self, run: Run) -> bool {
        let mut state = self.state();
        state.incoming.push(run);
        let waker = state.waker.take();
        let start = !std::mem::replace(&mut state.running, true);
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
        start
    }

    /// Runs every run added until none is left, or until `closed` resolves (the
    /// connection has ended), when the runs left are dropped, and with them their
    /// subscriptions' items.
    pub(crate) async fn drive(&self, closed: impl Future<Output = ()>) -> Drained {
        let mut runs = FuturesUnordered::new();
        let mut closed = pin!(closed);
        let drained = std::future::poll_fn(|cx| {
            if closed.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Drained::Closed);
            }
            loop {
                {
                    let mut state = self.state();
                    runs.extend(state.incoming.drain(..));
                    if runs.is_empty() {
                        state.running = false;
                        state.waker = None;
                        return Poll::Ready(Drained::Finished);
                    }
                    if !state
                        .waker
                        .as_ref()
                        .is_some_and(|waker| waker.will_wake(cx.waker()))
                    {
                        state.waker = Some(cx.waker().clone());
                    }
                }
                if runs.poll_next_unpin(cx).is_pending() {
                    return Poll::Pending;
                }
            }
        })
        .await;
        if drained == Drained::Closed {
            drop(runs);
            let left = {
                let mut state = self.state();
                state.running = false;
                state.waker = None;
                std::mem::take(&mut state.incoming)
            };
            drop(left);
        }
        drained
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::sync::oneshot;

    #[tokio::test]
    async fn one_task_runs_every_run_and_stops_when_none_is_left() {
        let pump = Arc::new(Pump::default());
        let done = Arc::new(AtomicUsize::new(0));
        let (go, gone) = oneshot::channel::<()>();
        let counted = Arc::clone(&done);
        assert!(pump.add(Box::pin(async move {
            let _ = gone.await;
            counted.fetch_add(1, Ordering::SeqCst);
        })));
        let counted = Arc::clone(&done);
        assert!(
            !pump.add(Box::pin(async move {
                counted.fetch_add(1, Ordering::SeqCst);
            })),
            "a second run joins the task already due"
        );
        let driving = tokio::spawn({
            let pump = Arc::clone(&pump);
            async move { pump.drive(std::future::pending()).await }
        });
        go.send(()).unwrap();
        assert_eq!(driving.await.unwrap(), Drained::Finished);
        assert_eq!(done.load(Ordering::SeqCst), 2);
        assert!(pump.add(Box::pin(async {})), "a new run needs a new task");
    }

    #[tokio::test]
    async fn a_closed_connection_drops_the_runs_left() {
        let pump = Pump::default();
        let (kept, dropped) = oneshot::channel::<()>();
        assert!(pump.add(Box::pin(async move {
            let _kept = kept;
            std::future::pending::<()>().await;
        })));
        assert_eq!(pump.drive(async {}).await, Drained::Closed);
        assert!(
            dropped.await.is_err(),
            "the run, and what it held, is dropped"
        );
        assert!(pump.add(Box::pin(async {})));
    }
}
