//! The name of a connection, which calls carry in their [`Context`](super::Context).

use std::num::NonZeroU64;
use std::sync::atomic::{AtomicU64, Ordering};

/// Names one connection, as its transport knows it (a WebSocket, a byte stream, the
/// requests of one socket accepted by `http::serve`): unique in the process, never
/// reused. Calls read it from [`Context::connection`](super::Context::connection), so
/// middleware can keep state per connection (a rate limit's bucket).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ConnectionId(NonZeroU64);

impl ConnectionId {
    pub(super) fn next() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        // 2^64 connections would take millennia: the count does not wrap in practice,
        // and were it to, `MIN` keeps the id non-zero.
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        ConnectionId(NonZeroU64::new(id).unwrap_or(NonZeroU64::MIN))
    }

    /// The id as a number (for logs and labels).
    pub fn get(self) -> u64 {
        self.0.get()
    }
}
