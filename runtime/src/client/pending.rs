//! The table of calls waiting for their response, keyed by request id.

use super::error::UntypedFailure;
use super::quick::{Routed, Utf8};
use super::slot::Slot;
use bytes::Bytes;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::oneshot;

/// What a call receives: the bytes of its `result`, or why there is none.
pub(crate) type Outcome = Result<Bytes, UntypedFailure>;

/// What a reader hands a waiting call: its answer, read or to be read
/// ([`Answer::read`]), or why there is none.
pub(crate) type Handover = Result<Answer, UntypedFailure>;

/// An answer for one call, as its reader hands it over.
#[derive(Debug, Clone)]
pub(crate) enum Answer {
    /// The bytes of its `result`.
    Result(Bytes),
    /// A large answer routed by its id alone ([`super::quick::route`]), which the call's task
    /// reads ([`Answer::decode`]): the reader goes on to the next message while it does.
    Unread {
        message: Bytes,
        utf8: Utf8,
        routed: Routed,
    },
}

/// The calls' table: ids are sequential `u64`s, so a multiplicative hash spreads them
/// well at a fraction of SipHash's cost (ids are chosen by the client, not the peer).
type Calls = HashMap<u64, Waiter, BuildHasherDefault<IdHasher>>;

/// A call waiting for its outcome; a subscribe call also carries the subscription its
/// result starts routing.
#[derive(Debug)]
pub(crate) struct Waiter {
    sender: oneshot::Sender<Handover>,
    slot: Option<Arc<Slot>>,
}

impl Waiter {
    /// The subscription a successful outcome starts, for a subscribe call.
    pub(crate) fn slot(&self) -> Option<&Arc<Slot>> {
        self.slot.as_ref()
    }

    /// Gives the call its outcome (the call may no longer care).
    pub(crate) fn send(self, outcome: Handover) {
        let _ = self.sender.send(outcome);
    }
}

/// Fibonacci hashing of a `u64` id.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(byte)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, id: u64) {
        self.0 = id.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// Calls waiting for a response. A call registers before its message is sent, so an
/// answer that overtakes `send` (on a message stream) still finds it.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    calls: Mutex<Calls>,
    closed: AtomicBool,
    /// Wakes [`Pending::closed`] when the connection closes.
    closing: tokio::sync::Notify,
    /// Calls over a request/response transport, which wait for their answer without
    /// an entry in `calls`; counted so that [`Pending::len`] counts them too.
    inline: AtomicUsize,
}

impl Pending {
    fn calls(&self) -> MutexGuard<'_, Calls> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers call `id`; the receiver gets its outcome.
    pub(crate) fn insert(&self, id: u64) -> oneshot::Receiver<Handover> {
        self.insert_subscribing(id, None)
    }

    /// Registers call `id`, which subscribes `slot` when it is a subscribe call: the
    /// one that routes its answer starts routing the subscription's items at once.
    pub(crate) fn insert_subscribing(
        &self,
        id: u64,
        slot: Option<Arc<Slot>>,
    ) -> oneshot::Receiver<Handover> {
        let (sender, receiver) = oneshot::channel();
        self.calls().insert(id, Waiter { sender, slot });
        if self.is_closed() {
            self.complete(id, Err(UntypedFailure::Closed));
        }
        receiver
    }

    /// Gives call `id` its outcome. Returns false when no such call is waiting (it was
    /// answered already, timed out, or its future was dropped).
    pub(crate) fn complete(&self, id: u64, outcome: Handover) -> bool {
        match self.take(id) {
            Some(waiter) => {
                waiter.send(outcome);
                true
            }
            None => false,
        }
    }

    /// Takes call `id` out of the table, to give it its outcome.
    pub(crate) fn take(&self, id: u64) -> Option<Waiter> {
        self.calls().remove(&id)
    }

    /// Forgets call `id` without an outcome.
    pub(crate) fn remove(&self, id: u64) {
        self.calls().remove(&id);
    }

    /// Fails every waiting call with `Closed`, and every call registered later too.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.closing.notify_waiters();
        let calls = std::mem::take(&mut *self.calls());
        for waiter in calls.into_values() {
            waiter.send(Err(UntypedFailure::Closed));
        }
    }

    /// Fails every waiting call with `Closed`; later calls are registered as usual (the
    /// transport reconnects).
    pub(crate) fn fail_waiting(&self) {
        let calls = std::mem::take(&mut *self.calls());
        for waiter in calls.into_values() {
            waiter.send(Err(UntypedFailure::Closed));
        }
    }

    /// The calls of `ids` still waiting for their outcome.
    pub(crate) fn waiting(&self, ids: &Ids<'_>) -> Vec<u64> {
        let calls = self.calls();
        match ids {
            Ids::One(id) => calls.contains_key(id).then_some(*id).into_iter().collect(),
            Ids::Many(ids) => ids
                .iter()
                .copied()
                .filter(|id| calls.contains_key(id))
                .collect(),
        }
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Waits until [`close`](Self::close) has been called.
    pub(crate) async fn closed(&self) {
        let notified = self.closing.notified();
        tokio::pin!(notified);
        // Registered before the flag is read: a `close` in between still wakes it.
        notified.as_mut().enable();
        if !self.is_closed() {
            notified.await;
        }
    }

    /// Calls waiting, in the table or inline.
    pub(crate) fn len(&self) -> usize {
        self.calls().len() + self.inline.load(Ordering::Relaxed)
    }

    /// Counts `calls` calls waiting inline until the returned guard is dropped.
    pub(crate) fn waiting_inline(&self, calls: usize) -> Inline<'_> {
        self.inline.fetch_add(calls, Ordering::Relaxed);
        Inline {
            count: &self.inline,
            calls,
        }
    }
}

/// Calls waiting inline; see [`Pending::waiting_inline`].
pub(crate) struct Inline<'a> {
    count: &'a AtomicUsize,
    calls: usize,
}

impl Drop for Inline<'_> {
    fn drop(&mut self) {
        self.count.fetch_sub(self.calls, Ordering::Relaxed);
    }
}

/// Removes its calls from the table when dropped: a call whose future is dropped, or
/// that timed out, leaves nothing behind.
pub(crate) struct Registration<'a> {
    pending: &'a Pending,
    ids: Ids<'a>,
    settled: bool,
}

/// The ids a registration covers: one call, or the requests of a batch.
pub(crate) enum Ids<'a> {
    One(u64),
    Many(&'a [u64]),
}

impl<'a> Registration<'a> {
    pub(crate) fn new(pending: &'a Pending, ids: Ids<'a>) -> Self {
        Self {
            pending,
            ids,
            settled: false,
        }
    }

    /// Every call received its outcome, so none is left in the table to remove.
    pub(crate) fn settled(&mut self) {
        self.settled = true;
    }
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        match &self.ids {
            Ids::One(id) => self.pending.remove(*id),
            Ids::Many(ids) => {
                let mut calls = self.pending.calls();
                for id in *ids {
                    calls.remove(id);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_delivers_once() {
        let pending = Pending::default();
        let mut receiver = pending.insert(7);
        assert_eq!(pending.len(), 1);
        let one = Answer::Result(Bytes::from_static(b"1"));
        assert!(pending.complete(7, Ok(one)));
        assert!(!pending.complete(7, Err(UntypedFailure::Missing)));
        assert!(matches!(
            receiver.try_recv(),
            Ok(Ok(Answer::Result(one))) if one == Bytes::from_static(b"1")
        ));
        assert_eq!(pending.len(), 0);
    }

    #[test]
    fn registration_removes_on_drop() {
        let pending = Pending::default();
        let _one = pending.insert(1);
        let _two = pending.insert(2);
        let _three = pending.insert(3);
        drop(Registration::new(&pending, Ids::Many(&[1, 2])));
        assert_eq!(pending.len(), 1);
        drop(Registration::new(&pending, Ids::One(3)));
        assert_eq!(pending.len(), 0);
    }

    #[test]
    fn close_fails_waiting_and_later_calls() {
        let pending = Pending::default();
        let mut before = pending.insert(1);
        pending.close();
        let mut after = pending.insert(2);
        assert!(matches!(before.try_recv(), Ok(Err(UntypedFailure::Closed))));
        assert!(matches!(after.try_recv(), Ok(Err(UntypedFailure::Closed))));
        assert_eq!(pending.len(), 0);
    }
}
