//! The bytes of events every session's replay window holds, together, against one
//! budget: a client that opens many sessions cannot multiply what one may hold.
//!
//! When the budget is spent, an event of a live stream is kept at the cost of other
//! sessions' history: their oldest events that were already read (or that no reader
//! waits for) are dropped first. MCP makes replay a server's option (it *may* replay
//! after `Last-Event-ID`) but a stream's messages its duty, so a resumption given up is
//! the lesser loss; only when no such event is left does the new event's stream end.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

/// A session's log as the budget sees it: events it can give up for another's.
pub(super) trait Trim: Send + Sync {
    /// Drops its oldest read events until `enough` says so, unless it is busy (never
    /// waited for); whether any was dropped.
    fn trim(&self, enough: &dyn Fn() -> bool) -> bool;
}

/// The bytes of events held by every session's log together, against one budget
/// ([`Streaming::max_replay_bytes`](super::Streaming::max_replay_bytes)).
#[derive(Debug)]
pub(super) struct Budget {
    used: AtomicUsize,
    max: usize,
    /// The sessions' logs, whose read events may be trimmed for another's event.
    logs: Mutex<Vec<Weak<dyn Trim>>>,
}

impl Budget {
    pub(super) fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            used: AtomicUsize::new(0),
            max,
            logs: Mutex::default(),
        })
    }

    /// Registers a session's `log`: its read events may go to make room for another's.
    pub(super) fn register(&self, log: Weak<dyn Trim>) {
        let mut logs = self.logs.lock().unwrap_or_else(PoisonError::into_inner);
        logs.retain(|log| log.strong_count() > 0);
        logs.push(log);
    }

    /// Drops the oldest read events of the registered logs (those not busy now) until
    /// `bytes` fit; whether any was dropped.
    pub(super) fn reclaim(&self, bytes: usize) -> bool {
        let logs: Vec<_> = {
            let logs = self.logs.lock().unwrap_or_else(PoisonError::into_inner);
            logs.iter().filter_map(Weak::upgrade).collect()
        };
        let fits = || self.used().saturating_add(bytes) <= self.max;
        let mut dropped = false;
        for log in logs {
            dropped |= log.trim(&fits);
            if fits() {
                break;
            }
        }
        dropped
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
