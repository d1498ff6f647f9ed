//! Running one call: the in-flight slot, reserved names, middleware, panics, the timeout
//! and the tracing span.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use serde_json::value::RawValue;
use tracing::Span;

use crate::metrics::CallMeter;
use crate::protocol::{ErrorObject, Id};

use super::context::Context;
use super::dispatch::{BoxFuture, CallResult, ReplyInner};
use super::middleware::{Call, Next};
use super::shared::{Origin, Shared};

/// A call that has started: answered already, or running.
pub(crate) enum Started<'a> {
    Done(CallResult),
    Running(Running<'a>),
}

/// Starts a call: takes an in-flight slot, builds its context and span, runs the sync part
/// (decoding params) and polls the handler once with `cx`; returns the answer, or the
/// running call when the handler is still waiting.
#[inline]
pub(crate) fn start<'a>(
    shared: &'a Shared,
    origin: Origin<'_, 'a>,
    method: &'a str,
    params: Option<&'a RawValue>,
    id: Option<&Id<'_>>,
    cx: &mut TaskContext<'_>,
) -> Started<'a> {
    let mut answered = None;
    match start_into(shared, origin, method, params, id, cx, &mut answered) {
        Some(running) => Started::Running(running),
        None => Started::Done(answered.unwrap_or_else(|| Err(ErrorObject::internal_error()))),
    }
}

/// [`start`], with the answer written into `answered` when there is one at once (then
/// `None` is returned), so that a single call's answer is written once, where it is
/// read: returned inside [`Started`], it was written by `begin`, copied, and reloaded by
/// the caller 16 bytes at a time (BENCHMARKS.md, "Issue 28, item 3, third round").
///
/// `params` comes before `id`: the arguments are eight words, six go in registers, and a
/// two-word `params` passed on the stack was reloaded with one 16-byte load that store
/// forwarding cannot serve (BENCHMARKS.md, "where the per-call time went").
pub(crate) fn start_into<'a>(
    shared: &'a Shared,
    origin: Origin<'_, 'a>,
    method: &'a str,
    params: Option<&'a RawValue>,
    id: Option<&Id<'_>>,
    cx: &mut TaskContext<'_>,
    answered: &mut Option<CallResult>,
) -> Option<Running<'a>> {
    let mut meter = shared.meter.call(method);
    let Some(slot) = Slot::acquire(origin.in_flight, shared.limits.max_in_flight) else {
        return done(&mut meter, answered, Err(ErrorObject::server_busy()));
    };
    let span = tracing::debug_span!("call", method, id = id.map(Id::as_json));
    #[cfg(feature = "otel")]
    super::trace_context::adopt(&span, origin.metadata.map(|metadata| &**metadata), params);
    let deadline = super::deadline::of(origin.metadata.map(|metadata| &**metadata), params);
    if deadline.is_some_and(|deadline| deadline <= tokio::time::Instant::now()) {
        return done(&mut meter, answered, Err(ErrorObject::deadline_exceeded()));
    }
    let entered = span.enter();
    // The answer, when the handler gave it on its first poll, is written into `answered`
    // by `begin`; `catch_unwind` returns only the running future. It returned the answer
    // too (about 64 bytes, written by `begin` and read back at once: a reload that store
    // forwarding cannot serve, BENCHMARKS.md, "Issue 28, item 3, second round").
    let begun = catch_unwind(AssertUnwindSafe(|| {
        begin(
            shared,
            method,
            params,
            (&origin, id, deadline),
            cx,
            answered,
        )
    }));
    drop(entered);
    let future = match begun {
        Ok(Some(future)) => future,
        // `begin` wrote the answer before it returned `None`.
        Ok(None) => {
            let result = answered.get_or_insert_with(|| Err(ErrorObject::internal_error()));
            meter.finish(result.as_ref().err().map(|error| error.code));
            return None;
        }
        Err(_) => return done(&mut meter, answered, Err(panicked(&span))),
    };
    let mut running = Running {
        future,
        span,
        _slot: slot,
        timeout: shared.limits.handler_timeout,
        deadline,
        sleep: None,
        meter,
    };
    match running.poll_deadline(cx) {
        Poll::Ready(result) => done(&mut running.meter, answered, result),
        Poll::Pending => {
            running.meter.wait();
            Some(running)
        }
    }
}

/// Records `result` with `meter` and writes it into `answered`: no running call.
fn done<'a>(
    meter: &mut CallMeter<'_>,
    answered: &mut Option<CallResult>,
    result: CallResult,
) -> Option<Running<'a>> {
    *answered = Some(metered(meter, result));
    None
}

/// What a call's [`Context`] is made of besides its method: its origin, id and deadline.
type Parts<'p, 'a> = (
    &'p Origin<'p, 'a>,
    Option<&'p Id<'p>>,
    Option<tokio::time::Instant>,
);

/// Builds the call's context, runs its handler (through the middleware, if any) and polls
/// it once with `cx`: its future while it is still running, else `None` with its answer
/// in `answered`.
///
/// The context is built here, where it is handed on, rather than by `start`: a context is
/// about 100 bytes, and `start` moved it into the closure `catch_unwind` runs and out again.
#[inline]
fn begin<'a>(
    shared: &'a Shared,
    method: &'a str,
    params: Option<&'a RawValue>,
    (origin, id, deadline): Parts<'_, 'a>,
    cx: &mut TaskContext<'_>,
    answered: &mut Option<CallResult>,
) -> Option<BoxFuture<'a, CallResult>> {
    let context = Context::from_parts(
        method,
        id,
        origin.metadata.cloned(),
        origin.connection,
        deadline,
    );
    let mut future: BoxFuture<'a, CallResult> = if shared.middleware.is_empty() {
        let mut reply = shared.endpoint.answer(method, params, context);
        // A handler's future is polled where the dispatcher wrote it, and moved out only
        // if it waits: moved first, its two words (written one by one) were reloaded 16
        // bytes at a time (BENCHMARKS.md, "Issue 28, item 3, third round").
        if let ReplyInner::Pending(future) = &mut reply.0 {
            return match future.as_mut().poll(cx) {
                Poll::Ready(result) => {
                    *answered = Some(result);
                    None
                }
                Poll::Pending => Some(reply.into_future()),
            };
        }
        match reply.0 {
            ReplyInner::Ready(result) => {
                *answered = Some(result);
                return None;
            }
            ReplyInner::Pending(future) => future,
            ReplyInner::Stream(call) => shared.endpoint.resolve(call).into_future(),
        }
    } else {
        Next::start(&shared.middleware, &shared.endpoint).run(Call {
            method,
            params,
            context,
        })
    };
    match future.as_mut().poll(cx) {
        Poll::Ready(result) => {
            *answered = Some(result);
            None
        }
        Poll::Pending => Some(future),
    }
}

/// `result`, once `meter` has recorded it.
fn metered(meter: &mut CallMeter<'_>, result: CallResult) -> CallResult {
    meter.finish(result.as_ref().err().map(|error| error.code));
    result
}

fn panicked(span: &Span) -> ErrorObject {
    span.in_scope(|| tracing::error!("handler panicked; answering -32603"));
    ErrorObject::internal_error()
}

/// A call whose handler is running. Catches panics, applies the timeout lazily (only once
/// the handler has returned `Pending`), and frees its slot when dropped.
pub(crate) struct Running<'a> {
    future: BoxFuture<'a, CallResult>,
    span: Span,
    _slot: Slot<'a>,
    timeout: Option<Duration>,
    /// The caller's deadline, when the call carried one.
    deadline: Option<tokio::time::Instant>,
    /// Ends the call at the earlier of the timeout and the deadline; `.1` says which.
    sleep: Option<(Pin<Box<tokio::time::Sleep>>, bool)>,
    /// Records the call's outcome; `cancelled` when dropped unanswered.
    meter: CallMeter<'a>,
}

impl Future for Running<'_> {
    type Output = CallResult;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<CallResult> {
        let this = self.get_mut();
        let entered = this.span.enter();
        let polled = catch_unwind(AssertUnwindSafe(|| this.future.as_mut().poll(cx)));
        drop(entered);
        let result = match polled {
            Ok(Poll::Ready(result)) => result,
            Ok(Poll::Pending) => std::task::ready!(this.poll_deadline(cx)),
            Err(_) => Err(panicked(&this.span)),
        };
        Poll::Ready(metered(&mut this.meter, result))
    }
}

impl Running<'_> {
    fn poll_deadline(&mut self, cx: &mut TaskContext<'_>) -> Poll<CallResult> {
        if self.sleep.is_none() {
            if self.timeout.is_none() && self.deadline.is_none() {
                return Poll::Pending;
            }
            if tokio::runtime::Handle::try_current().is_err() {
                self.timeout = None;
                self.deadline = None;
                return Poll::Pending;
            }
            let now = tokio::time::Instant::now();
            let limit = self.timeout.and_then(|timeout| now.checked_add(timeout));
            let (at, caller) = match (limit, self.deadline) {
                (Some(limit), Some(deadline)) if deadline < limit => (deadline, true),
                (Some(limit), _) => (limit, false),
                (None, Some(deadline)) => (deadline, true),
                (None, None) => return Poll::Pending,
            };
            self.sleep = Some((Box::pin(tokio::time::sleep_until(at)), caller));
        }
        match self
            .sleep
            .as_mut()
            .map(|(sleep, caller)| (sleep.as_mut().poll(cx), *caller))
        {
            Some((Poll::Ready(()), true)) => {
                self.span
                    .in_scope(|| tracing::debug!("caller's deadline passed"));
                Poll::Ready(Err(ErrorObject::deadline_exceeded()))
            }
            Some((Poll::Ready(()), false)) => {
                self.span.in_scope(|| tracing::warn!("handler timed out"));
                Poll::Ready(Err(ErrorObject::timeout()))
            }
            _ => Poll::Pending,
        }
    }
}

/// One of a connection's in-flight slots, released on drop; or the one slot of a call
/// that is a message of its own (no count).
pub(crate) struct Slot<'a>(Option<&'a AtomicUsize>);

impl<'a> Slot<'a> {
    fn acquire(in_flight: Option<&'a AtomicUsize>, max: usize) -> Option<Self> {
        let Some(count) = in_flight else {
            return (max > 0).then_some(Slot(None));
        };
        let previous = count.fetch_add(1, Ordering::Acquire);
        if previous >= max {
            count.fetch_sub(1, Ordering::Release);
            return None;
        }
        Some(Slot(Some(count)))
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        if let Some(count) = self.0 {
            count.fetch_sub(1, Ordering::Release);
        }
    }
}
