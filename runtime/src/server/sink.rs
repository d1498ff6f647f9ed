//! A subscription's bounded channel ([`channel`], [`shared_channel`]): a [`Sink`] for
//! whoever produces the items, the [`Items`] the handler returns.
//!
//! Its own small queue rather than Tokio's `mpsc`, for what an idle subscription
//! holds: Tokio's channel allocates its first block of 32 slots and two cache-padded
//! halves (about 1 KiB) when it is made, so each of thousands of idle subscriptions
//! carried that; this one is a `VecDeque` behind a mutex, which allocates only once an
//! item waits (measured in BENCHMARKS.md, issue 28: the fan-out's idle and publishing
//! RSS). A subscription has one consumer (its pump) and usually one producer, so the
//! lock is not contended.

use std::collections::VecDeque;
use std::fmt;
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context as TaskContext, Poll, Waker};

use futures_util::Stream;
use serde::Serialize;
use tokio::sync::Notify;

use super::subscription::{Items, Shared};

/// A bounded channel for pushing a subscription's items from anywhere (a task, a
/// broadcast loop): the [`Sink`] sends, the [`Items`] are what the handler returns.
///
/// `capacity` items wait at most (0 counts as 1); past it [`Sink::send`] waits, and
/// [`Sink::try_send`] refuses.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use rpcsmith::server::channel;
///
/// let (sink, items) = channel::<u32>(16);
/// sink.send(7).await.unwrap();
/// assert!(!sink.is_closed());
/// drop(items); // what the runtime does when the subscription ends
/// assert!(sink.is_closed());
/// sink.closed().await;
/// assert!(sink.send(8).await.is_err());
/// # });
/// ```
pub fn channel<T: Serialize + Send + 'static>(capacity: usize) -> (Sink<T>, Items<T>) {
    let (sink, receiver) = bounded(capacity);
    (sink, Items::new(receiver))
}

/// As [`channel`], for items serialized once and sent to many subscriptions
/// ([`Shared`]).
pub fn shared_channel<T: Send + 'static>(capacity: usize) -> (Sink<Shared<T>>, Items<T>) {
    let (sink, receiver) = bounded(capacity);
    (sink, Items::shared(receiver))
}

/// A bounded channel, its receiving end as a stream.
fn bounded<T: Send + 'static>(capacity: usize) -> (Sink<T>, Receiver<T>) {
    let mailbox = Arc::new(Mailbox {
        state: Mutex::new(State {
            queue: VecDeque::new(),
            capacity: capacity.max(1),
            receiver: None,
            senders: 1,
            closed: false,
        }),
        changed: Notify::new(),
    });
    let receiver = Receiver {
        mailbox: Arc::clone(&mailbox),
    };
    (Sink { mailbox }, receiver)
}

/// What a channel's two ends share.
struct Mailbox<T> {
    state: Mutex<State<T>>,
    /// Told when a full queue makes room, and when the receiver is gone: what senders
    /// wait for.
    changed: Notify,
}

struct State<T> {
    queue: VecDeque<T>,
    capacity: usize,
    /// The receiver, waiting for an item.
    receiver: Option<Waker>,
    /// Live [`Sink`]s: at none, the items end once the queue is empty.
    senders: usize,
    /// The receiver is gone: the subscription has ended.
    closed: bool,
}

/// Queues above this many slots are given back to the allocator when they empty: a
/// burst does not stay allocated in an idle subscription.
const KEPT_SLOTS: usize = 32;

impl<T> Mailbox<T> {
    fn state(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `item` if there is room; wakes the receiver.
    fn offer(&self, item: T) -> Result<(), TrySendError<T>> {
        let mut state = self.state();
        if state.closed {
            return Err(TrySendError::Closed(item));
        }
        if state.queue.len() >= state.capacity {
            return Err(TrySendError::Full(item));
        }
        state.queue.push_back(item);
        let receiver = state.receiver.take();
        drop(state);
        if let Some(receiver) = receiver {
            receiver.wake();
        }
        Ok(())
    }
}

/// The receiving end: a stream of the items, which ends when every [`Sink`] is gone
/// and the queue is empty.
struct Receiver<T> {
    mailbox: Arc<Mailbox<T>>,
}

impl<T> Stream for Receiver<T> {
    type Item = T;

    fn poll_next(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<T>> {
        let mut state = self.mailbox.state();
        let was_full = state.queue.len() >= state.capacity;
        if let Some(item) = state.queue.pop_front() {
            if state.queue.is_empty() && state.queue.capacity() > KEPT_SLOTS {
                state.queue = VecDeque::new();
            }
            drop(state);
            if was_full {
                self.mailbox.changed.notify_waiters();
            }
            return Poll::Ready(Some(item));
        }
        if state.senders == 0 {
            return Poll::Ready(None);
        }
        if !state
            .receiver
            .as_ref()
            .is_some_and(|waker| waker.will_wake(cx.waker()))
        {
            state.receiver = Some(cx.waker().clone());
        }
        Poll::Pending
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let left = {
            let mut state = self.mailbox.state();
            state.closed = true;
            state.receiver = None;
            std::mem::take(&mut state.queue)
        };
        drop(left);
        self.mailbox.changed.notify_waiters();
    }
}

/// The sending end of a subscription's [`channel`]. Cheap to clone.
pub struct Sink<T> {
    mailbox: Arc<Mailbox<T>>,
}

impl<T> Clone for Sink<T> {
    fn clone(&self) -> Self {
        self.mailbox.state().senders += 1;
        Sink {
            mailbox: Arc::clone(&self.mailbox),
        }
    }
}

impl<T> Drop for Sink<T> {
    fn drop(&mut self) {
        let receiver = {
            let mut state = self.mailbox.state();
            state.senders -= 1;
            if state.senders > 0 {
                return;
            }
            state.receiver.take()
        };
        if let Some(receiver) = receiver {
            receiver.wake();
        }
    }
}

impl<T> fmt::Debug for Sink<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sink")
            .field("closed", &self.is_closed())
            .finish()
    }
}

impl<T> Sink<T> {
    /// Sends an item, waiting while the channel is full.
    ///
    /// # Errors
    ///
    /// [`Closed`] once the subscription has ended (the item is dropped).
    pub async fn send(&self, item: T) -> Result<(), Closed> {
        // Most sends find room: only a full channel registers a waiter (two more locks
        // of the `Notify`, per item and subscription of a fan-out).
        let mut item = match self.mailbox.offer(item) {
            Ok(()) => return Ok(()),
            Err(TrySendError::Closed(_)) => return Err(Closed),
            Err(TrySendError::Full(back)) => back,
        };
        loop {
            let mut changed = pin!(self.mailbox.changed.notified());
            changed.as_mut().enable();
            match self.mailbox.offer(item) {
                Ok(()) => return Ok(()),
                Err(TrySendError::Closed(_)) => return Err(Closed),
                Err(TrySendError::Full(back)) => item = back,
            }
            changed.await;
        }
    }

    /// Sends an item if there is room now.
    ///
    /// # Errors
    ///
    /// [`TrySendError::Full`] with the item when the channel is full (the connection,
    /// or its client, is slower than the items come), [`TrySendError::Closed`] with the
    /// item once the subscription has ended.
    pub fn try_send(&self, item: T) -> Result<(), TrySendError<T>> {
        self.mailbox.offer(item)
    }

    /// Resolves when the subscription has ended: unsubscribed, cancelled, its
    /// connection closed, or the runtime stopped reading its items.
    pub async fn closed(&self) {
        loop {
            let mut changed = pin!(self.mailbox.changed.notified());
            changed.as_mut().enable();
            if self.is_closed() {
                return;
            }
            changed.await;
        }
    }

    /// Whether the subscription has ended (see [`closed`](Self::closed)).
    pub fn is_closed(&self) -> bool {
        self.mailbox.state().closed
    }
}

/// The subscription has ended: nothing sent now reaches anyone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed;

impl fmt::Display for Closed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the subscription has ended")
    }
}

impl std::error::Error for Closed {}

/// Why [`Sink::try_send`] did not send an item; the item comes back.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TrySendError<T> {
    /// The channel is full.
    Full(T),
    /// The subscription has ended.
    Closed(T),
}

impl<T> fmt::Display for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrySendError::Full(_) => f.write_str("the subscription's channel is full"),
            TrySendError::Closed(_) => f.write_str("the subscription has ended"),
        }
    }
}

impl<T: fmt::Debug> std::error::Error for TrySendError<T> {}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::{FutureExt as _, StreamExt as _};

    #[tokio::test]
    async fn full_waits_for_room_and_ends_when_the_senders_are_gone() {
        let (sink, mut receiver) = bounded::<u32>(2);
        sink.try_send(1).unwrap();
        sink.send(2).await.unwrap();
        assert_eq!(sink.try_send(3), Err(TrySendError::Full(3)));
        let mut waiting = Box::pin(sink.send(3));
        assert!(waiting.as_mut().now_or_never().is_none());
        assert_eq!(receiver.next().await, Some(1));
        waiting.await.unwrap();
        let other = sink.clone();
        drop(sink);
        assert_eq!(receiver.next().await, Some(2));
        assert_eq!(receiver.next().await, Some(3));
        assert!(receiver.next().now_or_never().is_none(), "a sink is left");
        drop(other);
        assert_eq!(receiver.next().await, None);
    }

    #[tokio::test]
    async fn a_gone_receiver_closes_every_sink_and_wakes_its_waiters() {
        let (sink, receiver) = bounded::<u32>(1);
        sink.send(1).await.unwrap();
        let mut waiting = Box::pin(sink.send(2));
        assert!(waiting.as_mut().now_or_never().is_none());
        let mut closed = Box::pin(sink.closed());
        assert!(closed.as_mut().now_or_never().is_none());
        drop(receiver);
        assert_eq!(waiting.await, Err(Closed));
        closed.await;
        assert!(sink.is_closed());
        assert_eq!(sink.try_send(3), Err(TrySendError::Closed(3)));
    }

    #[tokio::test]
    async fn an_emptied_burst_is_given_back() {
        let (sink, mut receiver) = bounded::<u64>(1024);
        for n in 0..100 {
            sink.try_send(n).unwrap();
        }
        assert!(receiver.mailbox.state().queue.capacity() >= 100);
        for n in 0..100 {
            assert_eq!(receiver.next().await, Some(n));
        }
        assert_eq!(receiver.mailbox.state().queue.capacity(), 0);
    }
}
