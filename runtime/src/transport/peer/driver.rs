//! The task that runs one connection: it reads and routes what arrives, writes the
//! answers and whatever else is queued, pings, and finally closes the stream.
//!
//! Reading and writing are polled side by side in this one task: a call answered at
//! once is written in the same wake-up as its request was read (pipelined requests read
//! together are answered with one write, unless their answers are large: those are
//! written one by one, each as soon as it is made, see [`WRITE_AT`]), and a writer that
//! cannot make progress (the other side reads no more) never stops reading, so the two
//! sides cannot block each other — up to the connection's [`Budget`]: while what waits
//! to be written holds it all, reading pauses, so a peer that sends without reading
//! cannot make this side hold more. A stream that takes nothing for the stall timeout
//! while reading is paused, or while the connection is letting out its last messages,
//! is dropped.

use super::doorbell::Queue;
use super::inbound::Inbound;
use super::link::Stop;
use super::queue::{Answers, Budget};
use super::wire::{Outgoing, Received, Wire};
use crate::metrics::ConnectionMeter;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use tokio::time::{Instant, Sleep};

/// Most messages read in a row before what they produced is written.
const READ_BURST: usize = 32;
/// Most bursts read in one wake-up before the task lets others run.
const BURSTS: usize = 8;
/// Answers made in the connection's task that add up to this many bytes end the read
/// burst: they are written before the next message is handled. Small answers to
/// pipelined requests still go out together, in one write; a large one goes out as soon
/// as it is made, so that the other side reads it while the next is made. (Gathered
/// until the burst ended, eight pipelined calls answering 118 KB each kept the other
/// side idle while this side made all eight, then this side idle while it read them: both
/// processes together used 1.5 of the 2 cores.)
const WRITE_AT: usize = 16 * 1024;

/// One connection, as a future that ends when the connection has: reading has stopped
/// (the other side closed, [`Stop`], keep-alive, a broken stream), what was queued by
/// then is written, and the stream is closed.
pub(crate) struct Driver<W> {
    wire: W,
    /// Messages from clients, from pushes, and the answers of calls that ran in tasks.
    queue: Queue,
    /// `None` once reading has ended.
    inbound: Option<Inbound>,
    /// Answers made here, waiting for room.
    answers: Answers,
    /// A message taken out of turn, waiting for room.
    held: Option<Outgoing>,
    /// What waits to be written, in bytes (`answers`, `held` and the queue).
    budget: Arc<Budget>,
    /// Reading waits for the budget to have room.
    paused: bool,
    /// The deadline of a stream that takes nothing while it must.
    stall: Stall,
    stop: Arc<Stop>,
    keep_alive: Option<KeepAlive>,
    /// Whether the end of this connection is the end of its client (else the transport
    /// opens another, and only the pending calls fail).
    final_connection: bool,
    unflushed: bool,
    /// The flush of what the queue gave was put off for one turn of the scheduler.
    deferred: bool,
    /// The queue is closed and empty.
    queue_done: bool,
    /// Writing is over: only the stream's close is left.
    closing: bool,
    /// The waker the stop signal and the keep-alive timer hold: they are told again
    /// only when the task polling changes (never, in practice), not at every poll.
    waker: Option<Waker>,
    /// Counts a server's connection and its bytes (nothing for others, nothing
    /// without the `metrics` feature).
    meter: ConnectionMeter,
}

impl<W: Wire> Driver<W> {
    pub(crate) fn new(
        wire: W,
        (queue, budget): (Queue, Arc<Budget>),
        inbound: Inbound,
        (stop, stall_timeout): (Arc<Stop>, Duration),
        final_connection: bool,
    ) -> Self {
        let keep_alive = wire.keep_alive().map(KeepAlive::new);
        Self {
            wire,
            queue,
            inbound: Some(inbound),
            answers: Answers::new(Arc::clone(&budget)),
            held: None,
            budget,
            paused: false,
            stall: Stall::new(stall_timeout),
            stop,
            keep_alive,
            final_connection,
            unflushed: false,
            deferred: false,
            queue_done: false,
            closing: false,
            waker: None,
            meter: ConnectionMeter::open(None),
        }
    }

    /// The same driver, counting its connection and bytes with `meter`.
    pub(crate) fn metered(mut self, meter: ConnectionMeter) -> Self {
        self.meter = meter;
        self
    }

    /// Whether reading must stop: the stop signal, or the keep-alive's verdict.
    fn must_stop(&mut self, cx: &mut Context<'_>) -> bool {
        let known = self
            .waker
            .as_ref()
            .is_some_and(|waker| waker.will_wake(cx.waker()));
        if !known {
            self.waker = Some(cx.waker().clone());
            if self.stop.poll(cx).is_ready() {
                return true;
            }
            if let Some(keep_alive) = &mut self.keep_alive {
                keep_alive.register(cx);
            }
        }
        if self.stop.is_triggered() {
            return true;
        }
        if let Some(keep_alive) = &mut self.keep_alive
            && !keep_alive.check(cx)
        {
            tracing::debug!("the other side was silent past keep-alive; closing");
            return true;
        }
        false
    }

    /// Reads up to [`READ_BURST`] messages and routes them, fewer when their answers
    /// reach [`WRITE_AT`] bytes; whether more may be waiting (the burst was full, or
    /// cut short for the answers to be written). `false` means that reading waits for
    /// the stream, or for room in the budget ([`paused`](Self::paused)), or has ended.
    fn poll_read(&mut self, cx: &mut Context<'_>) -> bool {
        if self.inbound.is_none() {
            return false;
        }
        if let (true, Some(keep_alive)) = (self.paused, &mut self.keep_alive) {
            // Not reading is this side's doing, not the other side's silence.
            keep_alive.heard = true;
        }
        if self.must_stop(cx) {
            self.end_reading();
            return false;
        }
        for _ in 0..READ_BURST {
            if self.budget.is_spent() {
                self.paused = true;
                return false;
            }
            // Ordered messages fill their lane: read on when it has room.
            if let Some(inbound) = &self.inbound
                && inbound.poll_room(cx).is_pending()
            {
                if let Some(keep_alive) = &mut self.keep_alive {
                    keep_alive.heard = true;
                }
                return false;
            }
            let Poll::Ready(received) = self.wire.poll_receive(cx) else {
                return false;
            };
            if let Some(keep_alive) = &mut self.keep_alive {
                keep_alive.heard = true;
            }
            let Some(inbound) = &self.inbound else {
                return false;
            };
            match received {
                Received::Message(message) => {
                    self.meter.received(message.len());
                    inbound.route(message, &mut self.answers, cx);
                    if self.answers.bytes() >= WRITE_AT {
                        return true;
                    }
                }
                Received::TooLarge => inbound.too_large(&mut self.answers),
                // A ping may have queued a pong.
                Received::Signal => self.unflushed = true,
                Received::Closed => {
                    self.end_reading();
                    return false;
                }
            }
        }
        true
    }

    /// Fails this side's calls, aborts the other side's, and lets no more messages in.
    fn end_reading(&mut self) {
        if let Some(inbound) = self.inbound.take() {
            if self.final_connection {
                inbound.inbox().close();
            } else {
                inbound.inbox().fail_pending();
            }
        }
        self.queue.close();
        self.keep_alive = None;
        self.paused = false;
    }

    /// Writes what is waiting, as far as the stream takes it, then flushes; whether the
    /// stream took anything.
    fn poll_write(&mut self, cx: &mut Context<'_>) -> io::Result<bool> {
        let mut took = false;
        let mut queued = false;
        loop {
            let from_queue = self.hold_next(cx);
            queued |= from_queue;
            let ping = self.keep_alive.as_ref().is_some_and(|k| k.ping);
            if self.held.is_none() && !ping {
                break;
            }
            match self.wire.poll_ready(cx) {
                Poll::Pending => break,
                Poll::Ready(ready) => ready?,
            }
            match self.held.take() {
                Some(message) => {
                    let bytes = message.len();
                    // An answer with nothing else to write before the flush (the usual
                    // single call): the wire need not gather it. What the queue gives
                    // is gathered, for the deferred flush below.
                    if !from_queue && !ping && self.answers.is_empty() && self.queue.is_empty() {
                        self.wire.send_alone(message)?;
                    } else {
                        self.wire.send(message)?;
                    }
                    self.meter.sent(bytes);
                    self.budget.give_back(bytes);
                }
                None => {
                    self.wire.ping()?;
                    if let Some(keep_alive) = &mut self.keep_alive {
                        keep_alive.ping = false;
                    }
                }
            }
            self.unflushed = true;
            took = true;
        }
        self.flush(cx, queued, took)
    }

    /// Holds the next message to write: an answer first, else what the queue gives.
    /// Whether it came from the queue.
    fn hold_next(&mut self, cx: &mut Context<'_>) -> bool {
        if self.held.is_none() {
            self.held = self.answers.pop();
        }
        if self.held.is_some() || self.queue_done {
            return false;
        }
        // Asked on every wake-up; it looks into tokio's queue only when its bell rang
        // or its last look found something (see `doorbell`). (Skipping tokio's
        // `poll_recv` while relying on the waker it registered, as 8a5ce5d did, lost
        // wake-ups: a sender's late wake took the registration made after its message
        // was taken, and a client with 32 calls in flight on one WebSocket hung in
        // about a third of the bench's `client_ws` runs.)
        match self.queue.poll_recv(cx) {
            Poll::Ready(Some(message)) => {
                self.held = Some(Outgoing::Shared(message));
                true
            }
            Poll::Ready(None) => {
                self.queue_done = true;
                false
            }
            Poll::Pending => false,
        }
    }

    /// Flushes what was written, or defers the flush when the queue gave some of it
    /// (`queued`); `took`: whether the stream took something already. Whether it did.
    fn flush(&mut self, cx: &mut Context<'_>, queued: bool, mut took: bool) -> io::Result<bool> {
        if self.unflushed && queued && !self.deferred {
            // What the queue gave (pushes, calls answered in tasks, this side's calls)
            // is flushed after the other tasks had their turn: what they queue for this
            // connection meanwhile (a fan-out's next items) goes in the same write.
            self.deferred = true;
            cx.waker().wake_by_ref();
            return Ok(took);
        }
        if self.unflushed
            && let Poll::Ready(flushed) = self.wire.poll_flush(cx)
        {
            flushed?;
            self.unflushed = false;
            self.deferred = false;
            took = true;
        }
        Ok(took)
    }

    /// Whether the stream has taken nothing for the stall timeout while it had to:
    /// reading is paused for the budget, or the connection is letting out its last
    /// messages. `took`: the stream took something just now.
    #[inline]
    fn stalled(&mut self, cx: &mut Context<'_>, took: bool) -> bool {
        let waiting = self.paused || self.inbound.is_none();
        if self.stall.check(cx, waiting, took) {
            tracing::debug!("the other side took nothing past the stall timeout; dropping");
            return true;
        }
        false
    }

    /// Whether everything there was to write is written.
    fn drained(&self) -> bool {
        self.queue_done && self.held.is_none() && self.answers.is_empty() && !self.unflushed
    }
}

impl<W: Wire> Future for Driver<W> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        for _ in 0..BURSTS {
            if this.closing {
                if this.wire.poll_close(cx).is_ready() || this.stalled(cx, false) {
                    return Poll::Ready(());
                }
                return Poll::Pending;
            }
            let more = this.poll_read(cx);
            let took = match this.poll_write(cx) {
                Ok(took) => took,
                Err(error) => {
                    tracing::debug!(%error, "writing to the connection failed");
                    this.end_reading();
                    this.closing = true;
                    continue;
                }
            };
            if this.inbound.is_none() && this.drained() {
                this.closing = true;
                continue;
            }
            if this.stalled(cx, took) {
                this.end_reading();
                return Poll::Ready(());
            }
            if this.paused && !this.budget.is_spent() {
                // Writing made room: read again.
                this.paused = false;
                continue;
            }
            if !more {
                return Poll::Pending;
            }
        }
        // More is coming: read it after the others had their turn.
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

impl<W> Drop for Driver<W> {
    fn drop(&mut self) {
        // Whatever is still queued goes with the connection; senders stop waiting.
        self.budget.end();
    }
}

/// The deadline of a stream that must take what waits for it: armed while it must,
/// moved on whenever it takes something.
struct Stall {
    timeout: Duration,
    timer: Option<Pin<Box<Sleep>>>,
}

impl Stall {
    fn new(timeout: Duration) -> Self {
        Self {
            timeout,
            timer: None,
        }
    }

    /// Whether the deadline has passed. `waiting`: the stream must take something;
    /// `took`: it just did.
    #[inline]
    fn check(&mut self, cx: &mut Context<'_>, waiting: bool, took: bool) -> bool {
        if !waiting {
            // Looked at before it is cleared: the usual case, with no timer, stays inline
            // (the call was about 20 instructions of every WebSocket call).
            if self.timer.is_some() {
                self.timer = None;
            }
            return false;
        }
        self.check_waiting(cx, took)
    }

    fn check_waiting(&mut self, cx: &mut Context<'_>, took: bool) -> bool {
        match &mut self.timer {
            Some(timer) if took => timer.as_mut().reset(Instant::now() + self.timeout),
            Some(_) => {}
            None => self.timer = Some(Box::pin(tokio::time::sleep(self.timeout))),
        }
        let Some(timer) = &mut self.timer else {
            return false;
        };
        // Outside the cooperative budget, as the keep-alive's timer (see there).
        std::pin::pin!(tokio::task::unconstrained(timer.as_mut()))
            .poll(cx)
            .is_ready()
    }
}

/// Pings every period, and tells when three whole periods passed with no sign of life
/// from the other side. One timer, moved once a period and otherwise only looked at;
/// receiving only sets a flag.
struct KeepAlive {
    period: Duration,
    timer: Pin<Box<Sleep>>,
    /// Something arrived since the last tick.
    heard: bool,
    /// Ticks in a row with nothing heard.
    silent: u8,
    /// A ping is due.
    ping: bool,
}

impl KeepAlive {
    fn new(period: Duration) -> Self {
        Self {
            period,
            timer: Box::pin(tokio::time::sleep(period)),
            heard: false,
            silent: 0,
            ping: false,
        }
    }

    /// Has the timer wake `cx`'s task. Outside Tokio's cooperative budget: a timer
    /// polled when the task's budget is spent does not register, and it is polled
    /// again only when it has elapsed.
    fn register(&mut self, cx: &mut Context<'_>) {
        let _ = std::pin::pin!(tokio::task::unconstrained(self.timer.as_mut())).poll(cx);
    }

    /// `false` once the other side has been silent for three periods. The timer must
    /// have been [registered](Self::register) with the task's waker.
    fn check(&mut self, cx: &mut Context<'_>) -> bool {
        while self.timer.is_elapsed() {
            if std::mem::take(&mut self.heard) {
                self.silent = 0;
            } else {
                self.silent += 1;
            }
            if self.silent >= 3 {
                return false;
            }
            self.ping = true;
            // From now, not from the last deadline: a process that was not scheduled
            // for a while must not count the periods it missed as silence.
            let next = Instant::now() + self.period;
            self.timer.as_mut().reset(next);
            self.register(cx);
        }
        true
    }
}
