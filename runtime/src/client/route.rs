//! Routing answers to the calls waiting for them, and the [`Inbox`] of stream transports.

use super::codec::{self, ResponseId, slice_of};
use super::error::UntypedFailure;
use super::pending::{Answer, Handover, Outcome, Pending};
use super::quick::{self, Utf8};
use super::registry::Registry;
use crate::protocol::mismatch::{self, Mismatch};
use crate::protocol::{DecodeError, ErrorObject, Members, Responses};
use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

/// Routes the answer to one request/response exchange (an HTTP response body, say) to
/// the calls the exchange carried, `ids` in ascending order, as [`read_answer`] reads
/// it.
pub(crate) fn route_answer(pending: &Pending, answer: &Bytes, ids: &[u64]) {
    let mut outcomes: Vec<Option<Outcome>> = vec![None; ids.len()];
    read_answer(answer, ids, &mut outcomes);
    for (&id, outcome) in ids.iter().zip(outcomes) {
        if let Some(outcome) = outcome {
            pending.complete(id, outcome.map(Answer::Result));
        }
    }
}

/// Reads the answer to one request/response exchange into the outcome of each call
/// the exchange carried: `outcomes[i]` for `ids[i]`, `ids` in ascending order. Calls
/// whose outcome is already there are left alone.
///
/// Responses are matched by id, only among `ids`, each member of a batch answer read on
/// its own. Because the pairing of request and answer is known here, an error response
/// with `id: null` (the server could not read the id: invalid JSON, a refused body) is
/// the outcome of every call of the exchange left without a response of its own. Calls
/// still unanswered after that get [`UntypedFailure::Invalid`] when the answer, or a member of
/// it (which may be the answer they lack), could not be read, and [`UntypedFailure::Missing`]
/// otherwise.
pub(crate) fn read_answer(answer: &Bytes, ids: &[u64], outcomes: &mut [Option<Outcome>]) {
    read_answer_of(answer, Utf8::Unknown, ids, outcomes);
}

/// [`read_answer`] of an answer whose bytes may be known to be UTF-8.
fn read_answer_of(answer: &Bytes, utf8: Utf8, ids: &[u64], outcomes: &mut [Option<Outcome>]) {
    let mut null_error: Option<ErrorObject> = None;
    let parsed = match quick::read(answer, utf8) {
        // One response, read without serde's walk of its result; the calls it does not
        // answer are left to the common end below, as for any answer read whole.
        Some((id, result)) => {
            if let Ok(index) = ids.binary_search(&id) {
                outcomes[index].get_or_insert(Ok(answer.slice(result)));
            }
            Ok(None)
        }
        None => read_whole(answer, ids, outcomes, &mut null_error),
    };
    if outcomes.iter().all(Option::is_some) {
        return;
    }
    let leftover = match (parsed, null_error) {
        (Err(reason), _) => UntypedFailure::Invalid(reason),
        (Ok(_), Some(error)) => UntypedFailure::Error(error),
        (Ok(Some(reason)), None) => UntypedFailure::Invalid(reason),
        (Ok(None), None) => UntypedFailure::Missing,
    };
    for slot in outcomes.iter_mut().filter(|slot| slot.is_none()) {
        *slot = Some(Err(leftover.clone()));
    }
}

/// The responses of `answer` read through [`codec::parse_answer`] into `outcomes`, the
/// first error with `id: null` into `null_error`; what could not be read, as it says.
fn read_whole(
    answer: &Bytes,
    ids: &[u64],
    outcomes: &mut [Option<Outcome>],
    null_error: &mut Option<ErrorObject>,
) -> Result<Option<String>, String> {
    codec::parse_answer(answer, |id, body| match id {
        ResponseId::Number(id) => match ids.binary_search(&id) {
            // The first response to a call is its outcome; a repeated one is ignored.
            Ok(index) if outcomes[index].is_none() => {
                outcomes[index] = Some(outcome(answer, body));
            }
            Ok(_) => {}
            Err(_) => tracing::debug!("ignored a response to a call this exchange did not carry"),
        },
        ResponseId::Null => {
            if let Err(error) = body {
                null_error.get_or_insert(error);
            }
        }
        ResponseId::Other => {
            tracing::debug!("ignored a response to a call this exchange did not carry");
        }
    })
}

/// Where a message stream transport delivers what it receives; see
/// [`Transport::attach`](super::Transport::attach).
///
/// Responses are routed to their calls by id, whatever order they arrive in.
///
/// **An error response with `id: null`** on a stream answers a message the server
/// could not read, but nothing says which one: several calls may be in flight, and a
/// stray answer to a notification looks the same. It is therefore delivered to no
/// call (it is logged at `warn` level through `tracing`); the call it belonged to
/// ends with [`Error::Timeout`](crate::client::Error::Timeout). Failing every pending
/// call instead would break unrelated calls on a shared connection. (On
/// request/response transports the pairing is known, and the error goes to the calls
/// of that exchange.)
///
/// Requests and notifications from the peer are not for [`deliver`](Self::deliver):
/// a transport that can carry pushes first offers each notification to the client's
/// subscriptions ([`route_notification`](Self::route_notification)), and hands the
/// ones it does not take, and requests, to its own handler.
///
/// Holding an inbox does not keep the client alive: once every clone of the client is
/// dropped, deliveries are discarded.
#[derive(Clone)]
pub struct Inbox {
    pending: Weak<Pending>,
    subscriptions: Weak<Registry>,
    /// Whether any subscription is routed (the registry's flag).
    routing: Arc<AtomicBool>,
}

impl std::fmt::Debug for Inbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inbox").finish_non_exhaustive()
    }
}

impl Inbox {
    pub(crate) fn new(pending: &Arc<Pending>, subscriptions: &Arc<Registry>) -> Self {
        Self {
            pending: Arc::downgrade(pending),
            subscriptions: Arc::downgrade(subscriptions),
            routing: subscriptions.routing(),
        }
    }

    /// Whether the client has a pushed subscription routed now: when it has none,
    /// [`route_notification`](Self::route_notification) takes nothing, and a transport
    /// need not ask it.
    pub fn routes_notifications(&self) -> bool {
        self.routing.load(Ordering::Acquire)
    }

    /// Offers a notification received (`method`, its `params`, borrowed from the whole
    /// `message`) to the client's subscriptions: `true` when it carried an item of one
    /// of them (by the notification method and the subscription id in its params),
    /// which now has it; `false` when it is for none, and goes to the transport's own
    /// handler. Call it in the order messages arrive, before reading the next one.
    pub fn route_notification(
        &self,
        method: &str,
        params: Option<&RawValue>,
        message: &Bytes,
    ) -> bool {
        self.subscriptions
            .upgrade()
            .is_some_and(|registry| registry.offer(method, params, message))
    }

    /// Routes one received message (a response or a batch of responses) to the calls
    /// waiting for it.
    pub fn deliver(&self, message: Bytes) {
        if self.pending.strong_count() == 0 {
            return;
        }
        let delivery = Received::quick(&message, Utf8::Unknown, || message.clone())
            .unwrap_or_else(|| Received::read(&message, Responses::parse_members(&message)));
        self.deliver_read(delivery);
    }

    /// Routes responses read already (see [`Received::read`]) to the calls waiting for
    /// them.
    pub(crate) fn deliver_read(&self, delivery: Received) {
        let Some(pending) = self.pending.upgrade() else {
            return;
        };
        let subscriptions = self.subscriptions.upgrade();
        delivery.answers.for_each(|id, outcome| match id {
            ResponseId::Number(id) => match pending.take(id) {
                Some(waiter) => {
                    // A subscribe call's subscription is routed before the next message
                    // is read: an item right behind the answer finds it.
                    let outcome = match (waiter.slot(), &subscriptions) {
                        (Some(slot), Some(registry)) => {
                            let outcome = outcome.and_then(Answer::read);
                            if let Ok(result) = &outcome {
                                registry.register(slot, result);
                            }
                            outcome.map(Answer::Result)
                        }
                        _ => outcome,
                    };
                    waiter.send(outcome);
                }
                None => tracing::debug!(id, "ignored a response to no pending call"),
            },
            ResponseId::Null => tracing::warn!(
                "error response with id null on a message stream; no call can be told it"
            ),
            ResponseId::Other => tracing::debug!("ignored a response with a foreign id"),
        });
        match delivery.parsed {
            Ok(None) => {}
            Ok(Some(reason)) => {
                tracing::debug!(%reason, "ignored an unreadable member of a batch answer");
            }
            Err(reason) => tracing::debug!(%reason, "ignored a message that is not a response"),
        }
    }

    /// The connection was lost but the transport will open another: every pending call
    /// fails with [`Error::Closed`](crate::client::Error::Closed) (its request may never
    /// have arrived), and later calls are sent on the next connection.
    ///
    /// Pushed subscriptions are routed no more (their ids belonged to the lost
    /// connection) but stay live: [`Client::resubscribe`](super::Client::resubscribe)
    /// re-issues them on the next connection.
    pub fn fail_pending(&self) {
        if let Some(pending) = self.pending.upgrade() {
            pending.fail_waiting();
        }
        if let Some(registry) = self.subscriptions.upgrade() {
            registry.unroute();
        }
    }

    /// The connection is closed: every pending call, and every later one, fails with
    /// [`Error::Closed`](crate::client::Error::Closed).
    /// Every pushed subscription ends with
    /// [`SubscriptionError::Closed`](super::SubscriptionError::Closed).
    pub fn close(&self) {
        if let Some(pending) = self.pending.upgrade() {
            pending.close();
        }
        if let Some(registry) = self.subscriptions.upgrade() {
            registry.close();
        }
    }
}

/// A response message as read, for [`Inbox::deliver_read`]: each response's id and
/// outcome (its result shared with the message), and what could not be read.
pub(crate) struct Received {
    answers: Answers,
    /// As [`codec::parse_answer`] returns it.
    parsed: Result<Option<String>, String>,
}

impl Received {
    /// The responses of `message`, read into `read` (by
    /// [`Responses::parse_members`], or by the peer telling responses from calls).
    pub(crate) fn read(message: &Bytes, read: Result<Members<'_>, DecodeError>) -> Self {
        let mut answers = Answers::None;
        let parsed = codec::visit_answer(read, |id, body| {
            answers.push(id, outcome(message, body).map(Answer::Result));
        });
        Received { answers, parsed }
    }

    /// A large answer of one response, routed by its id alone ([`quick::route`]): the
    /// call's task reads it ([`Answer::decode`]). `bytes` are the message's, `shared`
    /// gives them shared.
    pub(crate) fn quick(bytes: &[u8], utf8: Utf8, shared: impl FnOnce() -> Bytes) -> Option<Self> {
        let routed = quick::route(bytes)?;
        let id = routed.id;
        let message = shared();
        Some(Received {
            answers: Answers::One(
                ResponseId::Number(id),
                Ok(Answer::Unread {
                    message,
                    utf8,
                    routed,
                }),
            ),
            parsed: Ok(None),
        })
    }
}

impl Answer {
    /// The call's outcome: its result, read already, or read now from the whole
    /// answer as an exchange's answer is ([`read_answer`]): an answer that turns out
    /// not to be a response fails the call with [`UntypedFailure::Invalid`].
    pub(crate) fn read(self) -> Outcome {
        match self {
            Answer::Result(result) => Ok(result),
            Answer::Unread {
                message,
                utf8,
                routed,
            } => {
                let mut outcome = [None];
                read_answer_of(&message, utf8, &[routed.id], &mut outcome);
                let [outcome] = outcome;
                outcome.unwrap_or(Err(UntypedFailure::Missing))
            }
        }
    }

    /// The result decoded as a `T`. An unread answer's result is first taken where
    /// [`quick::route`] guessed it to lie: when that is UTF-8 and decodes, it was the
    /// result, and the answer is not read again; else the answer is read whole
    /// ([`read`](Self::read)) and its result decoded.
    pub(crate) fn decode<T: DeserializeOwned>(self) -> Result<Result<T, Mismatch>, UntypedFailure> {
        if let Answer::Unread {
            message,
            routed:
                quick::Routed {
                    result: Some(guess),
                    ..
                },
            ..
        } = &self
            && let Ok(text) = std::str::from_utf8(&message[guess.clone()])
            && let Ok(value) = mismatch::from_str(text)
        {
            return Ok(Ok(value));
        }
        Ok(mismatch::from_slice(&self.read()?))
    }
}

/// A message's responses: one needs no vector.
enum Answers {
    None,
    One(ResponseId, Handover),
    Many(Vec<(ResponseId, Handover)>),
}

impl Answers {
    fn push(&mut self, id: ResponseId, outcome: Handover) {
        match std::mem::replace(self, Answers::None) {
            Answers::None => *self = Answers::One(id, outcome),
            Answers::One(first_id, first) => {
                *self = Answers::Many(vec![(first_id, first), (id, outcome)]);
            }
            Answers::Many(mut all) => {
                all.push((id, outcome));
                *self = Answers::Many(all);
            }
        }
    }

    fn for_each(self, mut each: impl FnMut(ResponseId, Handover)) {
        match self {
            Answers::None => {}
            Answers::One(id, outcome) => each(id, outcome),
            Answers::Many(all) => all.into_iter().for_each(|(id, outcome)| each(id, outcome)),
        }
    }
}

/// The outcome of one response: its `result` bytes, shared with the answer buffer
/// rather than copied, or its error object.
fn outcome(answer: &Bytes, body: Result<&RawValue, ErrorObject>) -> Outcome {
    match body {
        Ok(result) => Ok(slice_of(answer, result.get().as_bytes())),
        Err(error) => Err(UntypedFailure::Error(error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// One response, with an id among the exchange's, foreign, or null.
    fn response() -> impl Strategy<Value = String> {
        let id = prop_oneof![
            (1_u64..5).prop_map(|id| id.to_string()),
            Just("null".to_owned()),
            Just("\"x\"".to_owned()),
            Just("1.5".to_owned()),
        ];
        let body = prop_oneof![
            Just(r#""result":[1]"#.to_owned()),
            Just(r#""error":{"code":-32600,"message":"m"}"#.to_owned()),
            Just(r#""result":1,"error":{"code":1,"message":"m"}"#.to_owned()),
        ];
        (id, body).prop_map(|(id, body)| format!(r#"{{"jsonrpc":"2.0",{body},"id":{id}}}"#))
    }

    fn answer() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..64),
            response().prop_map(String::into_bytes),
            proptest::collection::vec(response(), 0..6).prop_map(|responses| format!(
                "[{}]",
                responses.join(",")
            )
            .into_bytes()),
        ]
    }

    proptest! {
        #[test]
        fn any_answer_settles_every_call_of_its_exchange(answer in answer()) {
            let pending = Arc::new(Pending::default());
            let ids = [1, 2, 3];
            let mut receivers: Vec<_> = ids.iter().map(|&id| pending.insert(id)).collect();
            let _stray = pending.insert(4);
            route_answer(&pending, &Bytes::from(answer.clone()), &ids);
            prop_assert_eq!(pending.len(), 1, "only the call outside the exchange waits");
            for receiver in &mut receivers {
                prop_assert!(receiver.try_recv().is_ok());
            }
            Inbox::new(&pending, &Arc::default()).deliver(Bytes::from(answer));
        }
    }

    #[test]
    fn an_unreadable_member_spoils_no_other() {
        let answer = Bytes::from_static(
            br#"[{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","id":2},{"jsonrpc":"2.0","result":3,"id":3}]"#,
        );
        // An exchange: the calls answered get their answer, the others the reason.
        let pending = Arc::new(Pending::default());
        let mut receivers: Vec<_> = (1..=4).map(|id| pending.insert(id)).collect();
        route_answer(&pending, &answer, &[1, 2, 3, 4]);
        let outcomes: Vec<_> = receivers
            .iter_mut()
            .map(|r| r.try_recv().ok().map(|d| d.and_then(Answer::read)))
            .collect();
        assert!(matches!(&outcomes[0], Some(Ok(r)) if &r[..] == b"1"));
        assert!(matches!(
            &outcomes[1],
            Some(Err(UntypedFailure::Invalid(_)))
        ));
        assert!(matches!(&outcomes[2], Some(Ok(r)) if &r[..] == b"3"));
        assert!(matches!(
            &outcomes[3],
            Some(Err(UntypedFailure::Invalid(_)))
        ));
        // A stream: the readable answers are delivered, the rest wait.
        let pending = Arc::new(Pending::default());
        let mut receivers: Vec<_> = (1..=3).map(|id| pending.insert(id)).collect();
        Inbox::new(&pending, &Arc::default()).deliver(answer);
        assert!(matches!(receivers[0].try_recv(), Ok(Ok(_))));
        assert!(receivers[1].try_recv().is_err(), "still waiting");
        assert!(matches!(receivers[2].try_recv(), Ok(Ok(_))));
        assert_eq!(pending.len(), 1);
    }

    #[test]
    fn slices_share_or_copy() {
        let whole = Bytes::from_static(b"{\"result\":[1,2]}");
        let shared = slice_of(&whole, &whole[10..15]);
        assert_eq!(&shared[..], b"[1,2]");
        assert_eq!(shared.as_ptr(), whole[10..].as_ptr());
        let copied = slice_of(&whole, b"[1,2]");
        assert_eq!(&copied[..], b"[1,2]");
    }
}
