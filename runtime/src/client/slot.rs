//! One pushed subscription's buffer: the items routed to it wait here for its consumer,
//! bounded in items and in bytes.
//!
//! **Why drop rather than wait.** Items arrive on the connection's reader, which also
//! carries every answer and every other subscription of that connection. Waiting for a
//! slow consumer (backpressure) would stall that reader, and with it every call and
//! every other subscription on the connection; and the server pushes regardless. So a
//! full buffer makes room by dropping its *oldest* items (the newest are what a
//! consumer that catches up wants, as for new block heads), counts them, and the
//! consumer is told how many it missed, in order, with
//! [`SubscriptionError::Lagged`](super::SubscriptionError::Lagged) before the items that
//! follow the gap. A consumer that needs every item uses a pull stream (backpressure by
//! construction) or a larger buffer ([`Builder::subscription_buffer`](super::Builder::subscription_buffer)).

use super::subscription_id::SubscriptionId;
use crate::protocol::{ErrorObject, Feed};
use bytes::Bytes;
use serde_json::value::RawValue;
use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

/// Default most items a subscription holds for its consumer: 1,024.
pub const DEFAULT_SUBSCRIPTION_ITEMS: usize = 1024;
/// Default most bytes a subscription holds for its consumer: 1 MiB.
pub const DEFAULT_SUBSCRIPTION_BYTES: usize = 1 << 20;

/// How much one subscription's buffer holds at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub(crate) items: usize,
    pub(crate) bytes: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Self {
            items: DEFAULT_SUBSCRIPTION_ITEMS,
            bytes: DEFAULT_SUBSCRIPTION_BYTES,
        }
    }
}

/// What the consumer of a subscription is given next, pushed (from a [`Slot`]) or
/// pulled.
#[derive(Debug)]
pub(crate) enum Next {
    /// An item's JSON.
    Item(Bytes),
    /// This many items were dropped for room before what follows.
    Lagged(u64),
    /// The subscription was re-issued on a new connection under this id.
    Resubscribed(SubscriptionId),
    /// The server refused to re-issue it: the subscription is over.
    Refused(ErrorObject),
    /// The connection closed: the subscription is over.
    Closed,
    /// The stream ended: a pulled stream's `done`, or a pushed one's end notification.
    Done,
    /// A pulled stream's answer broke the protocol: the subscription is over.
    Unreadable(String),
}

/// What waits in the buffer, in arrival order.
enum Event {
    /// An item, and the bytes it holds in memory.
    Item(Bytes, usize),
    Resubscribed(SubscriptionId),
    Refused(ErrorObject),
}

/// One pushed subscription: what re-issuing it takes, and its buffer.
pub(crate) struct Slot {
    /// Its key among the client's live subscriptions.
    pub(crate) serial: u64,
    pub(crate) feed: &'static Feed,
    /// The subscribe method and its params, as first sent: re-sent on a new connection.
    pub(crate) method: Box<str>,
    pub(crate) params: Box<RawValue>,
    bounds: Bounds,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The id the subscription is routed by on the current connection, if any.
    id: Option<SubscriptionId>,
    events: VecDeque<Event>,
    /// Items in `events`, and the bytes they hold.
    items: usize,
    bytes: usize,
    /// Items dropped since the consumer last heard of it.
    missed: u64,
    closed: bool,
    /// The server ended its items (the feed's end notification).
    done: bool,
    /// A call re-issuing it is under way.
    reissuing: bool,
    waker: Option<Waker>,
}

impl Slot {
    pub(crate) fn new(
        serial: u64,
        feed: &'static Feed,
        (method, params): (&str, Box<RawValue>),
        bounds: Bounds,
    ) -> Self {
        Self {
            serial,
            feed,
            method: method.into(),
            params,
            bounds: Bounds {
                items: bounds.items.max(1),
                bytes: bounds.bytes,
            },
            state: Mutex::default(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The id it is routed by now, if it is routed at all.
    pub(crate) fn id(&self) -> Option<SubscriptionId> {
        self.state().id.clone()
    }

    /// Routed by `id` from now on (`None`: routed no more); the id it had.
    pub(crate) fn set_id(&self, id: Option<SubscriptionId>) -> Option<SubscriptionId> {
        std::mem::replace(&mut self.state().id, id)
    }

    /// Claims the subscription for re-issuing: `true` when it is routed by no id and no
    /// other call re-issues it now.
    pub(crate) fn claim(&self) -> bool {
        let mut state = self.state();
        let free = state.id.is_none() && !state.reissuing && !state.closed;
        state.reissuing |= free;
        free
    }

    /// The call re-issuing it is over (answered or failed).
    pub(crate) fn reissued(&self) {
        self.state().reissuing = false;
    }

    /// Adds an item (`item`, holding `charge` bytes of memory), dropping the oldest
    /// items while the buffer has no room. An item larger than the whole byte bound is
    /// kept when it is alone, so the buffer may hold one message over its bound.
    pub(crate) fn push(&self, item: Bytes, charge: usize) {
        let mut state = self.state();
        if state.closed || state.done {
            return;
        }
        while state.items > 0
            && (state.items >= self.bounds.items || state.bytes + charge > self.bounds.bytes)
        {
            state.drop_oldest();
        }
        state.items += 1;
        state.bytes += charge;
        state.events.push_back(Event::Item(item, charge));
        state.wake();
    }

    /// Tells the consumer the subscription was re-issued, under `id`.
    pub(crate) fn resubscribed(&self, id: SubscriptionId) {
        let mut state = self.state();
        state.id = Some(id.clone());
        state.events.push_back(Event::Resubscribed(id));
        state.wake();
    }

    /// Tells the consumer the server refused to re-issue the subscription: its last
    /// event.
    pub(crate) fn refused(&self, error: ErrorObject) {
        let mut state = self.state();
        state.id = None;
        state.events.push_back(Event::Refused(error));
        state.closed = true;
        state.wake();
    }

    /// The server said the items are over: once what waits is taken, the stream ends.
    pub(crate) fn finish(&self) {
        let mut state = self.state();
        state.done = true;
        state.wake();
    }

    /// The connection is closed: once what waits is taken, the consumer is told.
    pub(crate) fn close(&self) {
        let mut state = self.state();
        state.closed = true;
        state.wake();
    }

    /// Whether it is closed (its connection, or unsubscribed).
    pub(crate) fn is_closed(&self) -> bool {
        self.state().closed
    }

    /// What the consumer gets next; `Pending` (and `cx` woken later) when nothing waits.
    /// After [`Next::Closed`] or [`Next::Refused`] the consumer asks no more.
    pub(crate) fn poll_next(&self, cx: &mut Context<'_>) -> Poll<Next> {
        let mut state = self.state();
        if state.missed > 0 {
            return Poll::Ready(Next::Lagged(std::mem::take(&mut state.missed)));
        }
        match state.events.pop_front() {
            Some(Event::Item(item, charge)) => {
                state.items -= 1;
                state.bytes -= charge;
                Poll::Ready(Next::Item(item))
            }
            Some(Event::Resubscribed(id)) => Poll::Ready(Next::Resubscribed(id)),
            Some(Event::Refused(error)) => Poll::Ready(Next::Refused(error)),
            None if state.done => Poll::Ready(Next::Done),
            None if state.closed => Poll::Ready(Next::Closed),
            None => {
                if !state
                    .waker
                    .as_ref()
                    .is_some_and(|w| w.will_wake(cx.waker()))
                {
                    state.waker = Some(cx.waker().clone());
                }
                Poll::Pending
            }
        }
    }

    /// Items and bytes waiting now.
    #[cfg(test)]
    fn held(&self) -> (usize, usize) {
        let state = self.state();
        (state.items, state.bytes)
    }
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slot")
            .field("serial", &self.serial)
            .field("method", &self.method)
            .finish_non_exhaustive()
    }
}

impl State {
    fn wake(&mut self) {
        if let Some(waker) = self.waker.take() {
            waker.wake();
        }
    }

    /// Drops the oldest item (markers stay where they are) and counts it missed.
    fn drop_oldest(&mut self) {
        let Some(at) = self
            .events
            .iter()
            .position(|e| matches!(e, Event::Item(..)))
        else {
            return;
        };
        if let Some(Event::Item(_, charge)) = self.events.remove(at) {
            self.items -= 1;
            self.bytes -= charge;
            self.missed += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::Waker;

    static FEED: Feed = Feed::push("n", "id", "item");

    fn slot(items: usize, bytes: usize) -> Slot {
        let params = serde_json::value::to_raw_value(&()).unwrap();
        Slot::new(1, &FEED, ("sub", params), Bounds { items, bytes })
    }

    fn next(slot: &Slot) -> Option<Next> {
        match slot.poll_next(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(next) => Some(next),
            Poll::Pending => None,
        }
    }

    fn item(n: u32) -> Bytes {
        Bytes::from(n.to_string())
    }

    #[test]
    fn a_full_buffer_drops_its_oldest_items_and_says_how_many() {
        let slot = slot(3, usize::MAX);
        for n in 0..10 {
            slot.push(item(n), 10);
        }
        assert_eq!(slot.held(), (3, 30));
        assert!(matches!(next(&slot), Some(Next::Lagged(7))));
        for n in 7..10 {
            assert!(matches!(next(&slot), Some(Next::Item(i)) if i == item(n)));
        }
        assert!(next(&slot).is_none(), "nothing waits");
        slot.close();
        assert!(matches!(next(&slot), Some(Next::Closed)));
    }

    #[test]
    fn an_end_comes_after_what_waits_and_nothing_follows_it() {
        let slot = slot(8, usize::MAX);
        slot.push(item(1), 1);
        slot.finish();
        slot.push(item(2), 1);
        assert!(matches!(next(&slot), Some(Next::Item(i)) if i == item(1)));
        assert!(matches!(next(&slot), Some(Next::Done)));
    }

    #[test]
    fn bytes_bound_the_buffer_too_and_one_large_item_passes_alone() {
        let slot = slot(100, 25);
        for n in 0..5 {
            slot.push(item(n), 10);
        }
        assert_eq!(slot.held(), (2, 20));
        slot.push(item(99), 1000);
        assert_eq!(slot.held(), (1, 1000));
        assert!(matches!(next(&slot), Some(Next::Lagged(5))));
        assert!(matches!(next(&slot), Some(Next::Item(i)) if i == item(99)));
    }

    proptest::proptest! {
        /// Whatever arrives and whatever is taken, the buffer holds at most its bounds
        /// (one message over the byte bound when alone), and every item pushed is either
        /// taken, counted missed, or still held.
        #[test]
        fn bounds_hold_and_every_item_is_accounted_for(
            bounds in (1_usize..8, 1_usize..200),
            steps in proptest::collection::vec((0_usize..150, proptest::bool::ANY), 0..200),
        ) {
            let slot = slot(bounds.0, bounds.1);
            let (mut pushed, mut taken, mut missed) = (0_u64, 0_u64, 0_u64);
            for (size, take) in steps {
                if take {
                    match next(&slot) {
                        Some(Next::Item(_)) => taken += 1,
                        Some(Next::Lagged(n)) => missed += n,
                        _ => {}
                    }
                } else {
                    slot.push(item(0), size);
                    pushed += 1;
                }
                let (items, bytes) = slot.held();
                proptest::prop_assert!(items <= bounds.0);
                proptest::prop_assert!(items <= 1 || bytes <= bounds.1, "{items} items, {bytes} bytes");
            }
            let (held, _) = slot.held();
            let pending_missed = match next(&slot) {
                Some(Next::Lagged(n)) => n,
                _ => 0,
            };
            proptest::prop_assert_eq!(pushed, taken + missed + pending_missed + held as u64);
        }
    }

    #[test]
    fn markers_keep_their_place_and_refusal_ends() {
        let slot = slot(2, usize::MAX);
        slot.push(item(1), 1);
        slot.resubscribed(SubscriptionId::new("\"b\""));
        slot.push(item(2), 1);
        slot.push(item(3), 1);
        assert!(matches!(next(&slot), Some(Next::Lagged(1))));
        assert!(matches!(next(&slot), Some(Next::Resubscribed(id)) if id.as_str() == "\"b\""));
        assert!(matches!(next(&slot), Some(Next::Item(i)) if i == item(2)));
        slot.refused(ErrorObject::new(5, "no"));
        slot.push(item(4), 1);
        assert!(matches!(next(&slot), Some(Next::Item(i)) if i == item(3)));
        assert!(matches!(next(&slot), Some(Next::Refused(e)) if e.code == 5));
        assert_eq!(slot.id(), None);
    }
}
