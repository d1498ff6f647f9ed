//! The body of an answer that is an event stream: the events of one stream of a
//! session, as `text/event-stream`, until the stream ends.

use super::log::Next;
use super::session::Session;
use crate::http::sse::encode_into;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// A future that resolves when the stream must end whatever else happens (the server
/// shuts down).
pub(crate) type Stop = Pin<Box<dyn Future<Output = ()> + Send>>;

/// One stream of a session, read as its answer's body is sent.
pub(crate) struct EventStream {
    session: Arc<Session>,
    stream: u64,
    generation: u64,
    stop: Option<Stop>,
    /// Kept while the body lives (the connection counts its request as in progress).
    _guard: Box<dyn Send + Sync>,
    done: bool,
}

impl EventStream {
    pub(super) fn new(
        session: Arc<Session>,
        (stream, generation): (u64, u64),
        stop: Option<Stop>,
        guard: Box<dyn Send + Sync>,
    ) -> Self {
        Self {
            session,
            stream,
            generation,
            stop,
            _guard: guard,
            done: false,
        }
    }

    /// The events ready now, encoded one after the other (up to [`BATCH`] bytes): one
    /// body frame, so one chunk and, usually, one write for all that came since the
    /// last; `None` once the stream has ended.
    pub(crate) fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Option<Vec<u8>>> {
        if self.done {
            return Poll::Ready(None);
        }
        if let Some(stop) = &mut self.stop
            && stop.as_mut().poll(cx).is_ready()
        {
            self.done = true;
            return Poll::Ready(None);
        }
        let mut events = Vec::new();
        while events.len() < BATCH {
            match self.session.next(self.stream, self.generation, cx.waker()) {
                Next::Event { id, data, last } => {
                    encode_into(&mut events, &id, &data);
                    if last {
                        self.done = true;
                        break;
                    }
                }
                Next::Wait => break,
                Next::End => {
                    self.done = true;
                    break;
                }
            }
        }
        match (events.is_empty(), self.done) {
            (false, _) => Poll::Ready(Some(events)),
            (true, true) => Poll::Ready(None),
            (true, false) => Poll::Pending,
        }
    }
}

/// The bytes of events past which [`EventStream::poll_event`] sends what it has rather
/// than take the next event.
const BATCH: usize = 64 * 1024;

impl Drop for EventStream {
    fn drop(&mut self) {
        self.session.detach(self.stream, self.generation);
    }
}
