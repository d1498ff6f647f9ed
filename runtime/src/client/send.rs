//! How a message leaves the client and its answer comes back: through the middleware to
//! the transport, within its timeout, routed or read from the exchange's answer, and
//! cancelled at the transport when its future is given up.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;

use super::error::UntypedFailure;
use super::pending::{Answer, Handover, Ids, Outcome, Pending, Registration};
use super::slot::Slot;
use super::{
    Carries, Delivery, Exchange, Next, SendFuture, Shared, Transport, TransportError,
    TransportErrorKind, codec, route,
};

/// How a message is sent: within its timeout, carrying what middleware is told it
/// carries (`None` when the client has no middleware), and whether its deadline (the
/// timeout from the moment it leaves) goes with it.
pub(super) struct Sending {
    pub(super) timeout: Duration,
    pub(super) carries: Option<Carries>,
    pub(super) deadline: bool,
}

impl Sending {
    /// Within `timeout`, carrying `carries`, without a deadline on the wire.
    pub(super) fn new(timeout: Duration, carries: Option<Carries>) -> Self {
        Self {
            timeout,
            carries,
            deadline: false,
        }
    }

    /// The instant the caller stops waiting, when it goes with the message.
    fn deadline(&self) -> Option<SystemTime> {
        self.deadline
            .then(|| super::rt::now().checked_add(self.timeout))
            .flatten()
    }
}

impl Shared {
    /// What a message carries, for the middleware: `None`, and no allocation, when
    /// there is none.
    pub(super) fn carries(&self, carries: impl FnOnce() -> Carries) -> Option<Carries> {
        (!self.middleware.is_empty()).then(carries)
    }

    /// Sends `message` through the middleware, if any, to the transport, with its
    /// `deadline` when it has one (which needs `carries`).
    pub(super) fn send(
        &self,
        message: Bytes,
        carries: Option<Carries>,
        deadline: Option<SystemTime>,
    ) -> SendFuture<'_> {
        match carries {
            Some(carries) if !self.middleware.is_empty() || deadline.is_some() => {
                let mut exchange = Exchange::new(message, carries);
                if let Some(deadline) = deadline {
                    super::deadline::attach(&mut exchange, deadline, &*self.transport);
                }
                Next::start(&self.middleware, &*self.transport).run(exchange)
            }
            _ => self.transport.send(message),
        }
    }

    /// Sends one call and waits for its answer, read or to be read by the caller
    /// ([`Answer::decode`], [`Answer::read`]). A subscribe call carries its
    /// subscription's `slot`, routed as its answer is (on a message stream).
    pub(super) async fn call(
        &self,
        id: u64,
        message: Bytes,
        sending: Sending,
        slot: Option<Arc<Slot>>,
    ) -> Handover {
        if self.request_response {
            // Not through a function of its own: each layer of future keeps its own
            // copy of the message and its `Sending` (issue 30).
            let (ids, mut outcome) = ([id], [None]);
            self.exchange_into(&ids, message, sending, &mut outcome)
                .await?;
            let [outcome] = outcome;
            return outcome
                .unwrap_or(Err(UntypedFailure::Missing))
                .map(Answer::Result);
        }
        let deadline = sending.deadline();
        let Sending {
            timeout, carries, ..
        } = sending;
        let receiver = self.pending.insert_subscribing(id, slot);
        let mut registration = Registration::new(&self.pending, Ids::One(id));
        // Declared after the registration, so dropped before it: it still sees which
        // calls are waiting.
        let mut cancel = Cancel::new(self, Ids::One(id));
        let exchange = async {
            match self.send(message, carries, deadline).await {
                Ok(Delivery::Answer(answer)) => route::route_answer(&self.pending, &answer, &[id]),
                Ok(Delivery::NoAnswer) => return Err(UntypedFailure::Missing),
                Ok(Delivery::Routed) => cancel.arm(),
                Err(error) => return Err(failure(error)),
            }
            let outcome = receiver.await.unwrap_or(Err(UntypedFailure::Closed));
            registration.settled();
            cancel.disarm();
            outcome
        };
        super::rt::timeout(timeout, exchange)
            .await
            .unwrap_or(Err(UntypedFailure::Timeout))
    }

    /// Sends the calls `ids` (ascending) as one message over a request/response
    /// transport, and reads the outcome of each from the answer `send` returns into
    /// `outcomes` (in the order of `ids`; `None` where the answer has none).
    pub(super) async fn exchange_into(
        &self,
        ids: &[u64],
        message: Bytes,
        sending: Sending,
        outcomes: &mut [Option<Outcome>],
    ) -> Result<(), UntypedFailure> {
        if self.pending.is_closed() {
            return Err(UntypedFailure::Closed);
        }
        let deadline = sending.deadline();
        let Sending {
            timeout, carries, ..
        } = sending;
        let _waiting = self.pending.waiting_inline(ids.len());
        // Made before the timer, in the same poll as the timer would have made it: the
        // future below then holds the boxed exchange, not a second copy of the message
        // and what it carries (issue 30).
        let sent = self.send(message, carries, deadline);
        let exchange = async {
            match sent.await {
                Ok(Delivery::Answer(answer)) => route::read_answer(&answer, ids, outcomes),
                // A request/response transport has nothing to route.
                Ok(Delivery::NoAnswer | Delivery::Routed) => {}
                Err(error) => return Err(failure(error)),
            }
            Ok(())
        };
        super::rt::timeout(timeout, exchange)
            .await
            .unwrap_or(Err(UntypedFailure::Timeout))
    }

    /// Sends a message that expects no answer (a notification, or a batch of them).
    pub(super) async fn notify(
        &self,
        message: Bytes,
        Sending {
            timeout, carries, ..
        }: Sending,
    ) -> Result<(), UntypedFailure> {
        if self.pending.is_closed() {
            return Err(UntypedFailure::Closed);
        }
        let reply = super::rt::timeout(timeout, self.send(message, carries, None))
            .await
            .map_err(|_| UntypedFailure::Timeout)?
            .map_err(failure)?;
        match reply {
            Delivery::Answer(answer) => refusal(&answer).map_or(Ok(()), Err),
            _ => Ok(()),
        }
    }
}

/// Tells the transport which routed calls were given up (their future dropped, or
/// timed out) before their answer came: [`Transport::cancel`] for each call of `ids`
/// still waiting when it is dropped armed.
pub(super) struct Cancel<'a> {
    transport: &'a dyn Transport,
    pending: &'a Pending,
    ids: Ids<'a>,
    armed: bool,
}

impl<'a> Cancel<'a> {
    pub(super) fn new(shared: &'a Shared, ids: Ids<'a>) -> Self {
        Self {
            transport: &*shared.transport,
            pending: &shared.pending,
            ids,
            armed: false,
        }
    }

    /// The calls are on their way: from now on, giving them up cancels them.
    pub(super) fn arm(&mut self) {
        self.armed = true;
    }

    /// Every call has its answer: nothing is left to cancel.
    pub(super) fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for Cancel<'_> {
    fn drop(&mut self) {
        if self.armed {
            for id in self.pending.waiting(&self.ids) {
                self.transport.cancel(id);
            }
        }
    }
}

/// An error with a null id in an answer to a message that asked for none: the server
/// refused the message as a whole.
fn refusal(answer: &[u8]) -> Option<UntypedFailure> {
    let mut refused = None;
    let _ = codec::parse_answer(answer, |id, body| {
        if let (codec::ResponseId::Null, Err(error)) = (id, body) {
            refused.get_or_insert(UntypedFailure::Error(error));
        }
    });
    refused
}

pub(super) fn failure(error: TransportError) -> UntypedFailure {
    match error.kind() {
        TransportErrorKind::Closed => UntypedFailure::Closed,
        _ => UntypedFailure::Transport(error),
    }
}
