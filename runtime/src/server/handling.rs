//! Handling one message: the future [`Server::handle`](super::Server::handle) and
//! [`Connection::handle_input`](super::Connection::handle_input) return.
//!
//! It is small (a few words) and does everything on its first poll: parse, dispatch, and
//! poll each handler once with the task's waker. A single call whose handler finishes
//! then is answered within that poll, with no state kept and nothing allocated but the
//! answer; only what still waits (a handler, a batch) is boxed and polled on.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::task::{Context as TaskContext, Poll};

use crate::protocol::{self, Entry, ErrorObject, Id, Message, Top};

use super::batch;
use super::call::{self, Started};
use super::dispatch::{BoxFuture, CallResult};
use super::metadata::Metadata;
use super::respond::{error_message, write_response};
use super::shared::{Origin, Shared};

/// A message as its transport hands it to the engine.
#[derive(Debug)]
pub enum Input<'a> {
    /// Its bytes: the engine checks their size ([`Limits::max_request_size`]) and
    /// reads them.
    ///
    /// [`Limits::max_request_size`]: super::Limits::max_request_size
    Bytes(&'a [u8]),
    /// The message its transport has read already, or the error to answer for it: a
    /// two-way connection reads each message once, to tell calls from responses
    /// ([`TwoWay`](crate::protocol::TwoWay)). The transport checked its size.
    Parsed(Result<Message<'a>, ErrorObject>),
}

/// The answer to one message, as a future.
pub(crate) struct Handling<'a> {
    step: Step<'a>,
}

enum Step<'a> {
    /// Not polled yet.
    Start {
        shared: &'a Shared,
        caller: Caller<'a>,
        input: Input<'a>,
    },
    /// Waiting on a handler, or on a batch.
    Waiting(BoxFuture<'a, Option<Vec<u8>>>),
    Done,
}

/// Where the message came from.
enum Caller<'a> {
    /// A message of its own: its calls' metadata, and no one else's calls to count.
    Alone(Option<Arc<Metadata>>),
    /// A message among others, sharing their metadata and in-flight count.
    Counted(Origin<'a, 'a>),
}

/// What the first poll left: the answer, or what still runs.
type FirstPoll<'a> = Result<Option<Vec<u8>>, BoxFuture<'a, Option<Vec<u8>>>>;

impl<'a> Handling<'a> {
    /// A message handled as if on a connection of its own.
    #[inline]
    pub(crate) fn alone(
        shared: &'a Shared,
        metadata: Option<Arc<Metadata>>,
        input: Input<'a>,
    ) -> Self {
        Self::start(shared, Caller::Alone(metadata), input)
    }

    /// A message whose calls join `origin`'s.
    pub(crate) fn counted(shared: &'a Shared, origin: Origin<'a, 'a>, input: Input<'a>) -> Self {
        Self::start(shared, Caller::Counted(origin), input)
    }

    #[inline]
    fn start(shared: &'a Shared, caller: Caller<'a>, input: Input<'a>) -> Self {
        Handling {
            step: Step::Start {
                shared,
                caller,
                input,
            },
        }
    }
}

impl Future for Handling<'_> {
    type Output = Option<Vec<u8>>;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Vec<u8>>> {
        let this = self.get_mut();
        if let Step::Waiting(future) = &mut this.step {
            let answer = std::task::ready!(future.as_mut().poll(cx));
            this.step = Step::Done;
            return Poll::Ready(answer);
        }
        // Bytes, the in-process path: the message is handled with the step's fields where
        // they lie (the caller borrowed, taken only by a batch or a call that keeps it),
        // rather than the step moved out whole: its words, just written by
        // `Server::handle`'s caller, were reloaded 16 bytes at a time, a stall
        // (BENCHMARKS.md, "Issue 28, item 3, third round").
        let begun = if let Step::Start {
            shared,
            caller,
            input: Input::Bytes(message),
        } = &mut this.step
        {
            begin(shared, caller, message, cx)
        } else {
            match std::mem::replace(&mut this.step, Step::Done) {
                Step::Start {
                    shared,
                    mut caller,
                    input: Input::Parsed(message),
                } => begin_parsed(shared, &mut caller, message, cx),
                // Bytes were handled where they lie, above.
                Step::Start {
                    input: Input::Bytes(_),
                    ..
                }
                | Step::Waiting(_)
                | Step::Done => {
                    panic!("a message's answer was polled after it was given")
                }
            }
        };
        match begun {
            Ok(answer) => {
                this.step = Step::Done;
                Poll::Ready(answer)
            }
            Err(waiting) => {
                this.step = Step::Waiting(waiting);
                Poll::Pending
            }
        }
    }
}

/// The first poll: everything that can be done at once.
///
/// The bytes are read by [`protocol::read`] and its result matched here, not made into a
/// [`Message`] first: the single entry is used where the parser wrote it. Inlined into
/// the poll, as is [`single`]: called, each copied its arguments (the caller, the entry)
/// and reloaded them 16 bytes at a time.
#[inline(always)]
fn begin<'a>(
    shared: &'a Shared,
    caller: &mut Caller<'a>,
    message: &'a [u8],
    cx: &mut TaskContext<'_>,
) -> FirstPoll<'a> {
    let limits = &shared.limits;
    if message.len() > limits.max_request_size {
        return Ok(Some(error_message(&ErrorObject::request_too_large())));
    }
    match protocol::read(message, limits.max_batch_len) {
        Ok(Top::Single(entry)) => single(shared, caller, entry, cx),
        Ok(Top::Batch(entries)) => batch(shared, caller.take(), entries, cx),
        Err(error) => Ok(Some(error_message(&protocol::refusal(error)))),
    }
}

/// The first poll of a message its transport has read.
fn begin_parsed<'a>(
    shared: &'a Shared,
    caller: &mut Caller<'a>,
    message: Result<Message<'a>, ErrorObject>,
    cx: &mut TaskContext<'_>,
) -> FirstPoll<'a> {
    match message {
        Err(error) => Ok(Some(error_message(&error))),
        Ok(Message::Single(entry)) => single(shared, caller, entry, cx),
        Ok(Message::Batch(entries)) => batch(shared, caller.take(), entries, cx),
    }
}

/// A batch: its calls run together, in one boxed future.
fn batch<'a>(
    shared: &'a Shared,
    caller: Caller<'a>,
    entries: Vec<Entry<'a>>,
    cx: &mut TaskContext<'_>,
) -> FirstPoll<'a> {
    shared.meter.batch(entries.len());
    let batch: BoxFuture<'a, _> = match caller {
        Caller::Alone(metadata) => Box::pin(async move {
            let in_flight = AtomicUsize::new(0);
            let origin = Origin {
                metadata: metadata.as_ref(),
                in_flight: Some(&in_flight),
                connection: None,
            };
            batch::run(shared, origin, &entries).await
        }),
        Caller::Counted(origin) => {
            Box::pin(async move { batch::run(shared, origin, &entries).await })
        }
    };
    poll_once(batch, cx)
}

/// A single call: answered at once unless its handler waits.
#[inline(always)]
fn single<'a>(
    shared: &'a Shared,
    caller: &mut Caller<'a>,
    entry: Entry<'a>,
    cx: &mut TaskContext<'_>,
) -> FirstPoll<'a> {
    let (id, method, params) = match entry {
        Entry::Request(r) => (Some(r.id), r.method, r.params),
        Entry::Notification(n) => (None, n.method, n.params),
        Entry::Invalid(error) => return Ok(Some(error_message(&error))),
    };
    let method = match method {
        Cow::Borrowed(method) => method,
        // A method name with escapes: the running call may borrow its unescaped text,
        // which must then live in the future that runs it.
        Cow::Owned(method) => {
            let caller = caller.take();
            let owned = Box::pin(async move {
                let origin = caller.origin();
                let started = std::future::poll_fn(|cx| {
                    Poll::Ready(call::start(
                        shared,
                        origin,
                        &method,
                        params,
                        id.as_ref(),
                        cx,
                    ))
                })
                .await;
                let result = match started {
                    Started::Done(result) => result,
                    Started::Running(running) => running.await,
                };
                respond(shared, id, Some(result))
            });
            return poll_once(owned, cx);
        }
    };
    let mut answered = None;
    let origin = caller.origin();
    match call::start_into(
        shared,
        origin,
        method,
        params,
        id.as_ref(),
        cx,
        &mut answered,
    ) {
        None => Ok(respond(shared, id, answered)),
        Some(running) => Err(Box::pin(async move {
            let result = running.await;
            respond(shared, id, Some(result))
        })),
    }
}

impl<'a> Caller<'a> {
    /// The caller, leaving one with nothing in its place.
    fn take(&mut self) -> Self {
        match self {
            Caller::Alone(metadata) => Caller::Alone(metadata.take()),
            Caller::Counted(origin) => Caller::Counted(*origin),
        }
    }

    fn origin(&self) -> Origin<'_, 'a> {
        match self {
            Caller::Alone(metadata) => Origin {
                metadata: metadata.as_ref(),
                in_flight: None,
                connection: None,
            },
            Caller::Counted(origin) => *origin,
        }
    }
}

fn poll_once<'a>(
    mut future: BoxFuture<'a, Option<Vec<u8>>>,
    cx: &mut TaskContext<'_>,
) -> FirstPoll<'a> {
    match future.as_mut().poll(cx) {
        Poll::Ready(answer) => Ok(answer),
        Poll::Pending => Err(future),
    }
}

/// A single call's response: its result's buffer becomes the response when it can.
/// The result comes as the `Option` [`call::start_into`] wrote it into (always `Some`).
fn respond(shared: &Shared, id: Option<Id<'_>>, result: Option<CallResult>) -> Option<Vec<u8>> {
    let id = id?;
    let max_size = shared.limits.max_response_size;
    Some(match result {
        Some(Ok(encoded)) if encoded.len() <= max_size => encoded.into_response(&id),
        result => {
            let result = result.unwrap_or_else(|| Err(ErrorObject::internal_error()));
            let mut out = Vec::with_capacity(96);
            write_response(&mut out, &id, &result, max_size);
            out
        }
    })
}
