//! A session's events: every message the server sent on the session's streams, kept in
//! a window bounded in events and bytes for resumption, and the streams that read them.
//!
//! Stream 0 is the session's standalone stream (the `GET` stream); streams 1, 2, … are
//! the answers of `POST` requests that turned into event streams. An event's id is
//! `<stream>-<sequence>`, the sequence counting the session's events.
//!
//! Memory stays bounded whatever the client does: past the window, the oldest event is
//! dropped. An event that a reader attached to its stream has not read yet is dropped
//! only after the appender waited the stall timeout for it (backpressure on a slow
//! client), and that reader is then told it lagged: its stream ends, and a resumption
//! from before the dropped event is refused.

use bytes::Bytes;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::task::Waker;

pub(super) use super::budget::{Budget, Trim};

/// The standalone stream's number.
pub(super) const STANDALONE: u64 = 0;

/// One event: a JSON-RPC message sent on a stream.
#[derive(Debug)]
pub(super) struct Event {
    pub(super) seq: u64,
    pub(super) stream: u64,
    pub(super) data: Bytes,
    /// The response that ends a `POST` stream.
    pub(super) last: bool,
}

/// Closes the connection a stream is sent on (under [`serve`](crate::http::serve)).
pub(crate) type Close = Arc<dyn Fn() + Send + Sync>;

/// A reader attached to a stream: where it is, and the task to wake.
#[derive(Debug, Default)]
struct Reader {
    cursor: u64,
    waker: Option<Waker>,
    lagged: bool,
    /// Closes its connection when it lags ([`Log::close_on_lag`]).
    close: Closer,
    /// Which attachment this is; a resumption takes the stream over with a new one.
    generation: u64,
    /// When it last took an event (or attached), on Tokio's clock.
    progress: Option<tokio::time::Instant>,
}

/// A reader's [`Close`], if it is watched.
#[derive(Default)]
struct Closer(Option<Close>);

impl std::fmt::Debug for Closer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Closer(Some)"
        } else {
            "Closer(None)"
        })
    }
}

impl Reader {
    /// Its stream ends: its task is woken, and its connection, stuck on what the
    /// client did not read, is closed. Closed here, whoever finds the lag first (an
    /// appender left it behind, the watch found it stalled): a stream's watch that
    /// came later could find it taken over by a new `GET` or detached, and leave the
    /// connection open for ever.
    fn lag(&mut self) {
        self.lagged = true;
        if let Some(waker) = self.waker.take() {
            waker.wake();
        }
        if let Some(close) = &self.close.0 {
            close();
        }
    }
}

/// What a stream's watchdog finds.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Stall {
    /// The reader is gone (detached, taken over, or the session ended).
    Gone,
    /// It reads, or has nothing to read.
    Reading,
    /// Events waited for it a whole stall time, and it took none: it lags now (or
    /// lagged already, still attached).
    Stalled,
}

/// What a reader gets next.
#[derive(Debug)]
pub(super) enum Next {
    /// An event of its stream, with its id.
    Event { id: String, data: Bytes, last: bool },
    /// Nothing yet; the waker is kept.
    Wait,
    /// The stream has ended (its response was read, it lagged, it was taken over, or
    /// the session ended).
    End,
}

/// Why a resumption was refused.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refused {
    /// Events after the given id are no longer held.
    Gone,
    /// The id names no event this session sent (a stream or a sequence not reached).
    Unknown,
    /// The stream has a reader already (a fresh standalone stream while one is
    /// open, or a resumption of a stream still read).
    Busy,
}

/// Why an event was not kept.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct OverBudget;

/// The window's bounds.
#[derive(Debug, Clone, Copy)]
pub(super) struct Window {
    pub(super) events: usize,
    pub(super) bytes: usize,
}

/// The events of one session and its readers.
#[derive(Debug)]
pub(super) struct Log {
    window: Window,
    budget: Arc<Budget>,
    events: VecDeque<Event>,
    bytes: usize,
    next_seq: u64,
    next_stream: u64,
    next_generation: u64,
    /// `POST` streams whose response is not appended yet.
    open: HashSet<u64>,
    readers: HashMap<u64, Reader>,
    /// The highest sequence dropped from the window, per stream.
    dropped: HashMap<u64, u64>,
    /// Up to where the standalone stream was read, for a fresh `GET` to go on from.
    standalone_read: u64,
    pub(super) ended: bool,
}

impl Log {
    pub(super) fn new(window: Window, budget: Arc<Budget>) -> Self {
        Self {
            window,
            budget,
            events: VecDeque::new(),
            bytes: 0,
            next_seq: 1,
            next_stream: 1,
            next_generation: 1,
            open: HashSet::new(),
            readers: HashMap::new(),
            dropped: HashMap::new(),
            standalone_read: 0,
            ended: false,
        }
    }

    /// Opens a `POST` stream, attached (its request waits for its first event).
    pub(super) fn open_post(&mut self) -> (u64, u64) {
        let stream = self.next_stream;
        self.next_stream += 1;
        self.open.insert(stream);
        let generation = self.attach(stream, 0);
        (stream, generation)
    }

    fn attach(&mut self, stream: u64, cursor: u64) -> u64 {
        let generation = self.next_generation;
        self.next_generation += 1;
        let previous = self.readers.insert(
            stream,
            Reader {
                cursor,
                waker: None,
                lagged: false,
                close: Closer::default(),
                generation,
                progress: Some(tokio::time::Instant::now()),
            },
        );
        // A reader taken over ends.
        if let Some(waker) = previous.and_then(|reader| reader.waker) {
            waker.wake();
        }
        generation
    }

    /// Attaches a `GET`: the standalone stream from where it was last read, or
    /// (`Last-Event-ID`) the stream `stream` after `seq`.
    pub(super) fn attach_get(&mut self, resume: Option<(u64, u64)>) -> Result<(u64, u64), Refused> {
        let read = |stream| {
            // A reader that lagged is over, even if its connection is not closed yet.
            self.readers
                .get(&stream)
                .is_some_and(|reader: &Reader| !reader.lagged)
        };
        let Some((stream, seq)) = resume else {
            if read(STANDALONE) {
                return Err(Refused::Busy);
            }
            let cursor = self.standalone_read;
            return Ok((STANDALONE, self.attach(STANDALONE, cursor)));
        };
        if stream >= self.next_stream || seq >= self.next_seq {
            return Err(Refused::Unknown);
        }
        // No takeover: a stream is read by one reader at a time.
        if read(stream) {
            return Err(Refused::Busy);
        }
        if self
            .dropped
            .get(&stream)
            .is_some_and(|&dropped| dropped > seq)
        {
            return Err(Refused::Gone);
        }
        let held = self
            .events
            .iter()
            .any(|event| event.stream == stream && event.seq > seq);
        if stream != STANDALONE && !self.open.contains(&stream) && !held {
            return Err(Refused::Gone);
        }
        Ok((stream, self.attach(stream, seq)))
    }

    /// Where the reader `generation` of `stream` is: the sequence it read last.
    pub(super) fn cursor(&self, stream: u64, generation: u64) -> u64 {
        self.readers
            .get(&stream)
            .filter(|reader| reader.generation == generation)
            .map_or(0, |reader| reader.cursor)
    }

    /// Has the reader `generation` of `stream` close its connection with `close` when
    /// it lags.
    pub(super) fn close_on_lag(&mut self, stream: u64, generation: u64, close: Close) {
        if let Some(reader) = self
            .readers
            .get_mut(&stream)
            .filter(|reader| reader.generation == generation)
        {
            reader.close = Closer(Some(close));
        }
    }

    /// Detaches a reader (its body was dropped), unless it was taken over.
    pub(super) fn detach(&mut self, stream: u64, generation: u64) {
        if self
            .readers
            .get(&stream)
            .is_some_and(|reader| reader.generation == generation)
        {
            self.readers.remove(&stream);
        }
    }

    /// Whether the reader `generation` of `stream` has let events wait for it `stall`
    /// or longer without taking one; if so, it lags (its stream ends).
    pub(super) fn stall(
        &mut self,
        stream: u64,
        generation: u64,
        stall: std::time::Duration,
    ) -> Stall {
        if self.ended {
            return Stall::Gone;
        }
        let unread = self.has_unread(stream);
        let Some(reader) = self.readers.get_mut(&stream) else {
            return Stall::Gone;
        };
        if reader.generation != generation {
            return Stall::Gone;
        }
        if reader.lagged {
            // Left behind by the window (an appender waited the stall time for it)
            // while still attached: its connection is stuck too.
            return Stall::Stalled;
        }
        let now = tokio::time::Instant::now();
        let idle = reader
            .progress
            .map_or(stall, |at| now.saturating_duration_since(at));
        if !unread || idle < stall {
            if !unread {
                // Nothing waits for it: the clock starts with the next event.
                reader.progress = Some(now);
            }
            return Stall::Reading;
        }
        reader.lag();
        Stall::Stalled
    }

    /// Whether the stream has an event its reader has not read.
    pub(super) fn has_unread(&self, stream: u64) -> bool {
        let cursor = self.readers.get(&stream).map_or(0, |reader| reader.cursor);
        self.events
            .iter()
            .any(|event| event.stream == stream && event.seq > cursor)
    }

    /// Whether the stream has an event unread; if not, `waker` is woken when one comes.
    pub(super) fn watch(&mut self, stream: u64, waker: &Waker) -> bool {
        if self.has_unread(stream) {
            return true;
        }
        if let Some(reader) = self.readers.get_mut(&stream) {
            reader.waker = Some(waker.clone());
        }
        false
    }

    /// The next thing for the reader `generation` of `stream`.
    pub(super) fn next(&mut self, stream: u64, generation: u64, waker: &Waker) -> Next {
        let ended = self.ended;
        let open = self.open.contains(&stream);
        let Some(reader) = self.readers.get_mut(&stream) else {
            return Next::End;
        };
        if reader.generation != generation || reader.lagged {
            return Next::End;
        }
        let cursor = reader.cursor;
        if let Some(event) = self
            .events
            .iter()
            .find(|event| event.stream == stream && event.seq > cursor)
        {
            reader.cursor = event.seq;
            reader.progress = Some(tokio::time::Instant::now());
            if stream == STANDALONE {
                self.standalone_read = self.standalone_read.max(event.seq);
            }
            return Next::Event {
                id: format!("{stream}-{}", event.seq),
                data: event.data.clone(),
                last: event.last,
            };
        }
        if ended || (stream != STANDALONE && !open) {
            return Next::End;
        }
        reader.waker = Some(waker.clone());
        Next::Wait
    }

    /// Whether appending `bytes` must wait: the window would overflow, and its oldest
    /// event is owed to a reader that keeps up.
    pub(super) fn must_wait(&self, bytes: usize) -> bool {
        if !self.overflows(bytes) {
            return false;
        }
        self.events.front().is_some_and(|oldest| {
            self.readers
                .get(&oldest.stream)
                .is_some_and(|reader| !reader.lagged && reader.cursor < oldest.seq)
        })
    }

    fn overflows(&self, bytes: usize) -> bool {
        !self.events.is_empty()
            && (self.events.len() >= self.window.events || self.bytes + bytes > self.window.bytes)
    }

    /// Appends an event, dropping the oldest past the window; wakes its reader.
    ///
    /// # Errors
    ///
    /// [`OverBudget`] when the event does not fit in what every session holds
    /// together, even once this log's own events and every other session's read ones
    /// are dropped: it is not kept, and the stream's reader lags (its stream ends).
    pub(super) fn append(
        &mut self,
        stream: u64,
        data: Bytes,
        last: bool,
    ) -> Result<(), OverBudget> {
        let length = data.len();
        while self.overflows(length) {
            self.drop_oldest();
        }
        while !self.budget.take(length) {
            // This log's read events first, then other sessions', then its unread ones.
            if self.drop_oldest_read() || self.budget.reclaim(length) {
                continue;
            }
            if self.events.is_empty() {
                tracing::debug!(
                    stream,
                    "the replay budget of every session is spent: an event is dropped"
                );
                if last {
                    self.open.remove(&stream);
                }
                if let Some(reader) = self.readers.get_mut(&stream) {
                    reader.lag();
                }
                return Err(OverBudget);
            }
            self.drop_oldest();
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.bytes += length;
        self.events.push_back(Event {
            seq,
            stream,
            data,
            last,
        });
        if last {
            self.open.remove(&stream);
        }
        self.wake(stream);
        Ok(())
    }

    /// Ends a `POST` stream that carries no response (its handling was abandoned).
    pub(super) fn close_post(&mut self, stream: u64) {
        self.open.remove(&stream);
        self.wake(stream);
    }

    fn wake(&mut self, stream: u64) {
        if let Some(waker) = self
            .readers
            .get_mut(&stream)
            .and_then(|reader| reader.waker.take())
        {
            waker.wake();
        }
    }

    /// Drops the oldest event when its stream's reader has read it, or none waits for
    /// it (only its resumption is given up); whether one was dropped.
    pub(super) fn drop_oldest_read(&mut self) -> bool {
        let read = self.events.front().is_some_and(|oldest| {
            (self.readers.get(&oldest.stream)).is_none_or(|reader| reader.cursor >= oldest.seq)
        });
        if read {
            self.drop_oldest();
        }
        read
    }

    fn drop_oldest(&mut self) {
        let Some(oldest) = self.events.pop_front() else {
            return;
        };
        self.bytes -= oldest.data.len();
        self.budget.give(oldest.data.len());
        self.dropped.insert(oldest.stream, oldest.seq);
        if let Some(reader) = self.readers.get_mut(&oldest.stream)
            && reader.cursor < oldest.seq
        {
            tracing::debug!(
                stream = oldest.stream,
                "an event stream's client reads too slowly: its stream ends"
            );
            reader.lag();
        }
        if oldest.stream == STANDALONE {
            self.standalone_read = self.standalone_read.max(oldest.seq);
        }
        // What is known of dropped events stays bounded: streams no longer open and
        // without events are forgotten (resuming them is refused as gone).
        if self.dropped.len() > self.window.events {
            let (events, open) = (&self.events, &self.open);
            self.dropped.retain(|stream, _| {
                *stream == STANDALONE
                    || open.contains(stream)
                    || events.iter().any(|event| event.stream == *stream)
            });
        }
    }

    /// Ends every stream: the session is over.
    pub(super) fn end(&mut self) {
        self.ended = true;
        self.events.clear();
        self.budget.give(self.bytes);
        self.bytes = 0;
        for reader in self.readers.values_mut() {
            if let Some(waker) = reader.waker.take() {
                waker.wake();
            }
        }
    }

    /// Whether a reader is attached to any stream (the session is in use).
    pub(super) fn is_read(&self) -> bool {
        self.readers.values().any(|reader| !reader.lagged) || !self.open.is_empty()
    }

    /// How many bytes of events are held.
    #[cfg(test)]
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for Log {
    fn drop(&mut self) {
        self.budget.give(self.bytes);
    }
}

#[cfg(test)]
mod tests;

impl Trim for std::sync::Mutex<Log> {
    fn trim(&self, enough: &dyn Fn() -> bool) -> bool {
        // The appender holds its own log; another busy one is skipped, never waited for.
        let Ok(mut log) = self.try_lock() else {
            return false;
        };
        let mut dropped = false;
        while !enough() && log.drop_oldest_read() {
            dropped = true;
        }
        dropped
    }
}
