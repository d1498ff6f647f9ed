//! Batches: members run concurrently up to a limit, responses come out in request order.

use std::task::{Context as TaskContext, Waker};

use futures_util::FutureExt;
use futures_util::stream::{FuturesUnordered, StreamExt};

use crate::protocol::{Entry, ErrorObject, Id, write_error};

use super::call::{self, Started};
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
    let mut pending = FuturesUnordered::new();
    for (index, entry) in entries.iter().enumerate() {
        while pending.len() >= limit {
            if let Some((done, result)) = pending.next().await {
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
        match call::start(shared, origin, method, id, params, &mut cx) {
            Started::Done(result) => ordered.complete(index, result),
            Started::Running(running) => {
                pending.push(running.map(move |result| (index, result)));
            }
        }
    }
    while let Some((done, result)) = pending.next().await {
        ordered.complete(done, result);
        if ordered.too_large() {
            return Some(too_large());
        }
    }
    ordered.finish()
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
            self.write(index, result, &mut aside);
            self.parked_len += aside.len();
            if let Some(slot) = self.parked.get_mut(index) {
                *slot = Some(aside);
            }
            return;
        }
        let mut out = std::mem::take(&mut self.out);
        self.write_separated(index, result, &mut out);
        self.next += 1;
        while let Some(aside) = self.parked.get_mut(self.next).and_then(Option::take) {
            self.parked_len -= aside.len();
            if !aside.is_empty() {
                self.separate(&mut out);
                out.extend_from_slice(&aside);
            }
            self.next += 1;
        }
        self.out = out;
    }

    fn separate(&mut self, out: &mut Vec<u8>) {
        if self.written > 0 {
            out.push(b',');
        }
        self.written += 1;
    }

    fn write_separated(&mut self, index: usize, result: &CallResult, out: &mut Vec<u8>) {
        let mark = out.len();
        self.separate(out);
        let body = out.len();
        self.write(index, result, out);
        if out.len() == body {
            out.truncate(mark);
            self.written -= 1;
        }
    }

    /// Writes entry `index`'s response, or nothing for a notification.
    fn write(&self, index: usize, result: &CallResult, out: &mut Vec<u8>) {
        match self.entries.get(index) {
            Some(Entry::Request(r)) => write_response(out, &r.id, result, self.max_size),
            Some(Entry::Invalid(error)) => write_error(out, &Id::NULL, error),
            Some(Entry::Notification(_)) | None => {}
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
