//! The answers a connection has made and not yet sent, counted in bytes against a
//! budget ([`Serve::max_unsent_bytes`](super::Serve::max_unsent_bytes)): a client that
//! asks over HTTP/2 and does not read its answers would otherwise make the server hold
//! up to one answer per stream. Past the budget the connection is closed, which drops
//! them all.
//!
//! An answer is counted from when the server engine has made it until its body is
//! dropped, sent whole or abandoned with its connection. Over HTTP/1.1 a connection has
//! one answer at a time, and one answer alone never passes the budget, whatever its
//! size: only a connection with several answers unsent does.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::sync::Notify;

/// One connection's unsent answers, in bytes.
#[derive(Debug)]
pub(crate) struct Unsent {
    bytes: AtomicUsize,
    budget: usize,
    over: Notify,
}

impl Unsent {
    pub(super) fn new(budget: usize) -> Self {
        Self {
            bytes: AtomicUsize::new(0),
            budget,
            over: Notify::new(),
        }
    }

    /// Counts an answer of `length` bytes until the returned guard is dropped; past the
    /// budget, with other answers unsent, [`over`](Self::over) resolves.
    pub(super) fn hold(self: &Arc<Self>, length: usize) -> Held {
        let before = self.bytes.fetch_add(length, Ordering::AcqRel);
        if before > 0 && before.saturating_add(length) > self.budget {
            self.over.notify_one();
        }
        Held {
            unsent: Arc::clone(self),
            length,
        }
    }

    /// The bytes counted now.
    #[cfg(test)]
    pub(super) fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Acquire)
    }

    /// Closes the connection: a stream on it stalled (its client does not read).
    pub(in crate::http) fn close(&self) {
        self.over.notify_one();
    }

    /// Resolves once the connection's unsent answers have passed its budget.
    pub(super) async fn over(&self) {
        self.over.notified().await;
    }
}

/// An answer counted among its connection's unsent bytes until dropped.
#[derive(Debug)]
pub(crate) struct Held {
    unsent: Arc<Unsent>,
    length: usize,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.unsent.bytes.fetch_sub(self.length, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt as _;

    #[test]
    fn only_several_answers_past_the_budget_are_over_it() {
        let unsent = Arc::new(Unsent::new(100));
        // One answer alone, larger than the budget: not over.
        let big = unsent.hold(500);
        assert!(unsent.over().now_or_never().is_none());
        drop(big);
        let first = unsent.hold(60);
        let second = unsent.hold(40);
        assert!(unsent.over().now_or_never().is_none(), "exactly the budget");
        drop(first);
        let third = unsent.hold(60);
        assert!(unsent.over().now_or_never().is_none(), "the budget again");
        let _fourth = unsent.hold(1);
        assert!(unsent.over().now_or_never().is_some(), "102 bytes unsent");
        drop((second, third));
        assert_eq!(unsent.bytes(), 1);
    }
}
