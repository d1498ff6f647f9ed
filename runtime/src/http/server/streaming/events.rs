//! The body of an answer that is an event stream: the events of one stream of a
//! session, as `text/event-stream`, until the stream ends.

use super::log::{Close, Next, Stall};
use super::session::Session;
use crate::http::sse::encode_into;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

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
    /// Under [`Streaming::priming_from`](super::Streaming::priming_from): the
    /// `retry:`, in milliseconds; and whether the priming event is still to send.
    retry: Option<u128>,
    primed: bool,
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
            retry: None,
            primed: true,
        }
    }

    /// Watches the stream: once events have waited a whole stall time
    /// ([`Streaming::stall_timeout`](super::Streaming::stall_timeout)) for a reader
    /// that took none (its socket is full: the client does not read), the stream ends
    /// and its connection is closed with `close`, which frees what the kernel holds
    /// for it too. The log closes it, as soon as the reader lags, whoever finds that
    /// first (this watch, or an appender the window left it behind for).
    pub(super) fn watched(self, close: Option<Close>) -> Self {
        let session = Arc::downgrade(&self.session);
        let (stream, generation) = (self.stream, self.generation);
        if let Some(close) = close {
            self.session.log().close_on_lag(stream, generation, close);
        }
        let stall = self.session.stall().max(Duration::from_millis(1));
        tokio::spawn(async move {
            loop {
                // Production code: the stall time is a wall-clock bound by definition.
                tokio::time::sleep(stall).await;
                let Some(session) = session.upgrade() else {
                    return;
                };
                match session.log().stall(stream, generation, stall) {
                    Stall::Reading => continue,
                    Stall::Gone => return,
                    Stall::Stalled => {}
                }
                tracing::debug!(
                    stream,
                    "an event stream's reader made no progress: its connection closes"
                );
                session.room_made();
                return;
            }
        });
        self
    }

    /// Opens the stream with a priming event carrying `retry:`, when `retry` is given.
    pub(super) fn primed(mut self, retry: Option<Duration>) -> Self {
        self.retry = retry.map(|retry| retry.as_millis());
        self.primed = self.retry.is_none();
        self
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
            // Shutting down: the client resumes the stream, after `retry`.
            return Poll::Ready(
                self.retry
                    .map(|retry| format!("retry: {retry}\n\n").into_bytes()),
            );
        }
        if !self.primed {
            self.primed = true;
            let cursor = self.session.log().cursor(self.stream, self.generation);
            let id = format!("{}-{cursor}", self.stream);
            let retry = self.retry.unwrap_or_default();
            return Poll::Ready(Some(
                format!("id: {id}\nretry: {retry}\ndata: \n\n").into_bytes(),
            ));
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
