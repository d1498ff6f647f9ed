//! The box a message's handling runs in, kept by the thread for its next message.
//!
//! A message's handling must be boxed before its first poll: it borrows the message it
//! owns, so it cannot move once polled, and a call still pending after that poll moves
//! to a task of its own. Most finish on that poll, and their box was then freed at once:
//! its allocation and free were about 160 instructions a WebSocket call (by callgrind),
//! where the hand-written server over the same socket allocates nothing for it. The box
//! of a handling that finished is kept by a [`Kept`], one per thread (not per
//! connection: an idle connection holds none), and the next handling is written into it.
//!
//! A finished handling holds nothing (an `async` block drops what it owns as it returns),
//! so a box kept keeps no connection alive. The handling's type is an `async` block's,
//! which has no name: a [`Kept`] is made from the function that makes it, and used
//! through [`Start`] (a trait object, which a thread-local can name). Not `tokio-util`'s
//! `ReusableBoxFuture`: with the type known, [`Pin::set`] reuses the box safely, with no
//! type check and no new dependency (a `dyn Any` spare, checked at each use, cost about
//! 110 instructions a call more than this).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A future that runs on, boxed.
pub(super) type Boxed<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// Starts futures made from `A`, in a box kept for the next when one finishes at once.
pub(super) trait Start<A, T> {
    /// The future made of `args`, polled once: its output, or the future still running
    /// (in a box of its own from then on).
    fn poll_first(&mut self, args: A, cx: &mut Context<'_>) -> Result<T, Boxed<T>>;

    /// The future made of `args`, boxed, not polled.
    fn boxed(&mut self, args: A) -> Boxed<T>;
}

/// What makes the futures, and the box of the last one that finished on its first poll.
pub(super) struct Kept<M, F> {
    make: M,
    spare: Option<Pin<Box<F>>>,
}

impl<M, F> Kept<M, F> {
    pub(super) fn new(make: M) -> Self {
        Kept { make, spare: None }
    }
}

impl<M, F: Future> Kept<M, F> {
    fn make<A>(&mut self, args: A) -> Pin<Box<F>>
    where
        M: Fn(A) -> F,
    {
        let future = (self.make)(args);
        match self.spare.take() {
            Some(mut spare) => {
                spare.set(future);
                spare
            }
            None => Box::pin(future),
        }
    }
}

impl<A, M, F> Start<A, F::Output> for Kept<M, F>
where
    M: Fn(A) -> F,
    F: Future + Send + 'static,
{
    fn poll_first(&mut self, args: A, cx: &mut Context<'_>) -> Result<F::Output, Boxed<F::Output>> {
        let mut future = self.make(args);
        match future.as_mut().poll(cx) {
            Poll::Ready(output) => {
                self.spare = Some(future);
                Ok(output)
            }
            Poll::Pending => Err(future),
        }
    }

    fn boxed(&mut self, args: A) -> Boxed<F::Output> {
        self.make(args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::task::Waker;

    fn address<T: ?Sized>(future: &Pin<Box<T>>) -> *const u8 {
        std::ptr::from_ref(&**future).cast()
    }

    /// A future that finished on its first poll leaves its box, holding nothing of what
    /// it owned, to the next; one still pending takes its box with it.
    #[test]
    fn a_box_is_kept_only_from_a_future_that_finished() {
        let owned = Arc::new(7);
        let mut kept = Kept::new(|(value, wait): (Arc<i32>, bool)| async move {
            if wait {
                std::future::pending::<()>().await;
            }
            *value + 1
        });
        let mut cx = Context::from_waker(Waker::noop());
        assert_eq!(
            kept.poll_first((Arc::clone(&owned), false), &mut cx).ok(),
            Some(8)
        );
        assert_eq!(
            Arc::strong_count(&owned),
            1,
            "a finished future owns nothing"
        );
        let first = kept.spare.as_ref().map(address).expect("kept");
        let Err(running) = kept.poll_first((Arc::clone(&owned), true), &mut cx) else {
            panic!("finished");
        };
        assert_eq!(address(&running), first, "the kept box was used");
        assert!(kept.spare.is_none(), "taken by the future still running");
        assert_eq!(Arc::strong_count(&owned), 2);
        drop(running);
        assert_eq!(Arc::strong_count(&owned), 1);
        // Nothing kept: a new box, and still nothing kept after it.
        let _unpolled = kept.boxed((Arc::clone(&owned), false));
        assert!(kept.spare.is_none());
    }
}
