//! Batches: members run concurrently up to a limit, responses come out in request order.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll, Waker};

use futures_util::stream::{FuturesUnordered, StreamExt};

use crate::protocol::{Entry, ErrorObject, Id, write_error};

use super::call::{self, Running, Started};
use super::dispatch::CallResult;
use super::respond::{error_message, write_response};
use super::shared::{Origin, Shared};

/// Runs a batch: answers each entry in place; `None` when every entry was a notification.
///
/// Calls start in order. One that finishes on its first poll is written out at once;
/// one that does not joins a set of pending calls (at most `batch_concurrency`), and the
/// calls after it are written aside until the earlier ones are done. No task is spawned.
///
/// As soon as the responses written so far exceed `max_response_size`, the batch stops:
/// calls not started are not run, calls running are dropped, and the answer is one
/// `-32008` with `id: null`, so an oversized answer is never buffered whole.
pub(crate) async fn run(
    shared: &Shared,
    origin: Origin<'_, '_>,
    entries: &[Entry<'_>],
) -> Option<Vec<u8>> {
    let limit = shared.limits.batch_concurrency.max(1);
    let mut ordered = Ordered::new(entries, shared.limits.max_response_size);
    // Made when a call first waits: a batch whose calls all finish on their first poll
    // (the usual case) allocates no set (its queue and stub task, two allocations).
    let mut pending: Option<FuturesUnordered<Numbered<'_>>> = None;
    for (index, entry) in entries.iter().enumerate() {
        while let Some(set) = pending.as_mut().filter(|set| set.len() >= limit) {
            if let Some((done, result)) = set.next().await {
                ordered.complete(done, result);
            }
        }
        if ordered.too_large() {
            return Some(too_large());
        }
        let (id, method, params) = match entry {
            Entry::Request(r) => (Some(&r.id), &*r.method, r.params),
            Entry::Notification(n) => (None, &*n.method, n.params),
            Entry::Invalid(_) => {
                ordered.complete(index, Err(ErrorObject::invalid_request()));
                continue;
            }
        };
        // Polled once at once (the set of pending calls polls them with its own waker).
        let mut cx = TaskContext::from_waker(Waker::noop());
        match call::start(shared, origin, method, params, id, &mut cx) {
            Started::Done(result) => ordered.complete(index, result),
            Started::Running(running) => pending
                .get_or_insert_with(FuturesUnordered::new)
                .push(Numbered { index, running }),
        }
    }
    let Some(mut pending) = pending else {
        return ordered.finish();
    };
    while let Some((done, result)) = pending.next().await {
        ordered.complete(done, result);
        if ordered.too_large() {
            return Some(too_large());
        }
    }
    ordered.finish()
}

/// A call of the batch still running, answering with its entry's index.
struct Numbered<'a> {
    index: usize,
    running: Running<'a>,
}

impl Future for Numbered<'_> {
    type Output = (usize, CallResult);

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let index = self.index;
        Pin::new(&mut self.running)
            .poll(cx)
            .map(|result| (index, result))
    }
}

/// The answer to a batch whose response outgrew `max_response_size`.
fn too_large() -> Vec<u8> {
    error_message(&ErrorObject::response_too_large())
}

/// The batch response under construction, in request order.
struct Ordered<'e, 'a> {
    entries: &'e [Entry<'a>],
    out: Vec<u8>,
    /// Responses written so far.
    written: usize,
    /// The first entry not yet written out.
    next: usize,
    /// Entries finished out of order: their response (empty: nothing to answer).
    /// Allocated on the first out-of-order finish.
    parked: Vec<Option<Vec<u8>>>,
    /// The bytes held in `parked`.
    parked_len: usize,
    max_size: usize,
}

impl<'e, 'a> Ordered<'e, 'a> {
    fn new(entries: &'e [Entry<'a>], max_size: usize) -> Self {
        let mut out = Vec::with_capacity(entries.len() * 48 + 2);
        out.push(b'[');
        Ordered {
            entries,
            out,
            written: 0,
            next: 0,
            parked: Vec::new(),
            parked_len: 0,
            max_size,
        }
    }

    /// Writes entry `index`'s response in order, or aside until the entries before it
    /// are written; the result's buffer is then recycled for a later result.
    fn complete(&mut self, index: usize, result: CallResult) {
        self.place(index, &result);
        if let Ok(encoded) = result {
            encoded.recycle();
        }
    }

    fn place(&mut self, index: usize, result: &CallResult) {
        if index != self.next {
            if self.parked.is_empty() {
                self.parked.resize(self.entries.len(), None);
            }
            let mut aside = Vec::new();
            write(self.entries.get(index), result, self.max_size, &mut aside);
            self.parked_len += aside.len();
            if let Some(slot) = self.parked.get_mut(index) {
                *slot = Some(aside);
            }
            return;
        }
        // In order: straight into the answer.
        self.write_separated(index, result);
        self.next += 1;
        while let Some(aside) = self.parked.get_mut(self.next).and_then(Option::take) {
            self.parked_len -= aside.len();
            if !aside.is_empty() {
                self.separate();
                self.out.extend_from_slice(&aside);
            }
            self.next += 1;
        }
    }

    /// Counts one more response, after a `,` unless it is the first.
    fn separate(&mut self) {
        if self.written > 0 {
            self.out.push(b',');
        }
        self.written += 1;
    }

    /// Writes entry `index`'s response at the end of the answer, with its separator;
    /// nothing for a notification.
    fn write_separated(&mut self, index: usize, result: &CallResult) {
        let mark = self.out.len();
        self.separate();
        let body = self.out.len();
        write(
            self.entries.get(index),
            result,
            self.max_size,
            &mut self.out,
        );
        if self.out.len() == body {
            self.out.truncate(mark);
            self.written -= 1;
        }
    }

    /// Whether the answer is already known to exceed the size limit: what is written,
    /// in order or aside, and the closing `]` (separators not counted, so this never
    /// says yes to an answer that would fit).
    fn too_large(&self) -> bool {
        self.out.len() + self.parked_len + 1 > self.max_size
    }

    fn finish(mut self) -> Option<Vec<u8>> {
        if self.written == 0 {
            return None;
        }
        self.out.push(b']');
        if self.out.len() > self.max_size {
            return Some(too_large());
        }
        Some(self.out)
    }
}

/// Writes `entry`'s response to `out`, or nothing for a notification.
fn write(entry: Option<&Entry<'_>>, result: &CallResult, max_size: usize, out: &mut Vec<u8>) {
    match entry {
        Some(Entry::Request(r)) => write_response(out, &r.id, result, max_size),
        Some(Entry::Invalid(error)) => write_error(out, &Id::NULL, error),
        Some(Entry::Notification(_)) | None => {}
    }
}
