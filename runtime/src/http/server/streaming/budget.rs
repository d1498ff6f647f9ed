//! The bytes of events every session's replay window holds, together, against one
//! budget: a client that opens many sessions cannot multiply what one may hold.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The bytes of events held by every session's log together, against one budget
/// ([`Streaming::max_replay_bytes`](super::Streaming::max_replay_bytes)).
#[derive(Debug)]
pub(super) struct Budget {
    used: AtomicUsize,
    max: usize,
}

impl Budget {
    pub(super) fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            used: AtomicUsize::new(0),
            max,
        })
    }

    /// Takes `bytes` from the budget; `false` (and nothing taken) when they do not fit.
    pub(super) fn take(&self, bytes: usize) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|&after| after <= self.max)
            })
            .is_ok()
    }

    pub(super) fn give(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::AcqRel);
    }

    /// The bytes held now, by every log.
    pub(super) fn used(&self) -> usize {
        self.used.load(Ordering::Acquire)
    }
}
