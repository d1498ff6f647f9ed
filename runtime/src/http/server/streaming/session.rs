//! A session: its id, its event log, the client through which its handlers call the
//! other side ([`remote`](crate::transport::remote)), its push subscriptions, its
//! calls in flight (which a cancellation aborts).

use super::log::{Budget, Log, Next, Refused, STANDALONE, Window};
use crate::client::{Client, Delivery, SendFuture, Transport, TransportError};
use crate::server::{BoxFuture, Closed, Metadata, Outlet, Pushes};
use crate::transport::remote::Remote;
use bytes::Bytes;
use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};
use std::task::Waker;
use std::time::Duration;
use tokio::sync::{Notify, watch};
use tokio::time::Instant;

tokio::task_local! {
    /// The `POST` stream of the message being handled, with its session (by address):
    /// what its handlers send goes there rather than to the standalone stream.
    static CURRENT: (usize, u64);
}

/// The id of the session a call came in, in its
/// [`Metadata::extensions`](crate::server::Metadata::extensions) (under
/// [`Service::streaming`](super::super::Service::streaming) with sessions).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionId(pub String);

/// One session (or, without an id, the state of one `POST` outside any session).
pub(crate) struct Session {
    id: Option<Box<str>>,
    log: Arc<Mutex<Log>>,
    /// Readers made progress: appenders waiting for room look again.
    room: Notify,
    stall: Duration,
    client: Client,
    pushes: Pushes,
    ended: watch::Sender<bool>,
    last_active: Mutex<Instant>,
    /// The address of the peer that started it, for the cap per peer.
    pub(super) peer: Option<IpAddr>,
    /// Whether it carried a request after the one that started it, or opened a
    /// stream: sessions never used are the first to go when the table is full.
    used: AtomicBool,
    /// The protocol revision its start negotiated, when the answer names one.
    revision: OnceLock<Box<str>>,
    /// Its requests being handled, by id (JSON text), for a cancellation to abort.
    running: Mutex<HashMap<Box<str>, futures_util::future::AbortHandle>>,
    /// Its `POST`s of calls being handled.
    pub(super) calls: AtomicUsize,
}

impl Session {
    pub(super) fn new(
        id: Option<Box<str>>,
        peer: Option<IpAddr>,
        (window, budget): (Window, Arc<Budget>),
        stall: Duration,
    ) -> Arc<Self> {
        let log = Arc::new(Mutex::new(Log::new(window, Arc::clone(&budget))));
        if id.is_some() {
            let weak: Weak<Mutex<Log>> = Arc::downgrade(&log);
            budget.register(weak);
        }
        Arc::new_cyclic(|weak: &Weak<Session>| Session {
            id,
            log,
            room: Notify::new(),
            stall,
            client: Client::new(Link(weak.clone())),
            pushes: Pushes::new(Push(weak.clone())),
            ended: watch::Sender::new(false),
            last_active: Mutex::new(Instant::now()),
            peer,
            used: AtomicBool::new(false),
            revision: OnceLock::new(),
            running: Mutex::default(),
            calls: AtomicUsize::new(0),
        })
    }

    /// Counts the session as used (it is no longer the first to go).
    pub(super) fn mark_used(&self) {
        self.used.store(true, Ordering::Relaxed);
    }

    pub(super) fn is_used(&self) -> bool {
        self.used.load(Ordering::Relaxed)
    }

    /// The protocol revision the session's start negotiated.
    pub(super) fn revision(&self) -> Option<&str> {
        self.revision.get().map(|revision| &**revision)
    }

    pub(super) fn set_revision(&self, revision: Box<str>) {
        let _ = self.revision.set(revision);
    }

    fn running(&self) -> MutexGuard<'_, HashMap<Box<str>, futures_util::future::AbortHandle>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes the handling of the request `id` (JSON text) abortable by a cancellation
    /// naming it, until it finishes. A second request with the same id in flight is
    /// not abortable (a cancellation names one call).
    pub(super) fn cancellable<F: Future>(
        self: &Arc<Self>,
        id: Option<Box<str>>,
        handling: F,
    ) -> impl Future<Output = Option<F::Output>> + use<F> {
        let (abort, registration) = futures_util::future::AbortHandle::new_pair();
        let registered = id.filter(|id| {
            let mut running = self.running();
            let free = !running.contains_key(id);
            if free {
                running.insert(id.clone(), abort);
            }
            free
        });
        let session = Arc::clone(self);
        async move {
            let outcome = futures_util::future::Abortable::new(handling, registration).await;
            if let Some(id) = registered {
                session.running().remove(&id);
            }
            outcome.ok()
        }
    }

    /// Aborts the request `id` (JSON text) being handled: its handlers are dropped,
    /// and it is not answered. `false` when no such request runs.
    pub(super) fn cancel(&self, id: &str) -> bool {
        let abort = self.running().remove(id);
        abort.map(|abort| abort.abort()).is_some()
    }

    /// The session's id; `None` for a `POST` outside any session.
    pub(super) fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    pub(super) fn log(&self) -> MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Gives a message's handlers the session's client and push registry.
    pub(super) fn install(&self, metadata: &mut Metadata) {
        metadata.extensions.insert(Remote(self.client.downgrade()));
        metadata.extensions.insert(self.pushes.clone());
        if let Some(id) = &self.id {
            metadata.extensions.insert(SessionId(id.to_string()));
        }
    }

    /// The other side's responses to the session's calls.
    pub(super) fn deliver(&self, responses: Bytes) {
        self.client.inbox().deliver(responses);
    }

    /// Runs `handling` so that what its handlers send goes to `stream`.
    pub(super) fn on_stream<F: Future>(
        self: &Arc<Self>,
        stream: u64,
        handling: F,
    ) -> impl Future<Output = F::Output> + use<F> {
        CURRENT.scope((Arc::as_ptr(self) as usize, stream), handling)
    }

    /// The stream a message sent now belongs on.
    fn current_stream(&self) -> u64 {
        let me = std::ptr::from_ref(self) as usize;
        CURRENT
            .try_with(|&(session, stream)| (session == me).then_some(stream))
            .ok()
            .flatten()
            .unwrap_or(STANDALONE)
    }

    /// Appends a message to `stream`, waiting (up to the stall timeout) while the
    /// window is full of events a reader has yet to read.
    ///
    /// # Errors
    ///
    /// [`Closed`] once the session has ended.
    pub(super) async fn append(&self, stream: u64, data: Bytes, last: bool) -> Result<(), Closed> {
        let deadline = Instant::now() + self.stall;
        loop {
            let room = self.room.notified();
            let mut room = std::pin::pin!(room);
            room.as_mut().enable();
            {
                let mut log = self.log();
                if log.ended {
                    return Err(Closed);
                }
                if !log.must_wait(data.len()) || Instant::now() >= deadline {
                    return log.append(stream, data, last).map_err(|_| Closed);
                }
            }
            tokio::select! {
                () = room => {}
                () = tokio::time::sleep_until(deadline) => {}
            }
        }
    }

    /// The stall time of its streams.
    pub(super) fn stall(&self) -> Duration {
        self.stall
    }

    /// Tells appenders waiting for room to look again (a reader went away).
    pub(super) fn room_made(&self) {
        self.room.notify_waiters();
    }

    /// The next event for a reader; tells waiting appenders when one was read.
    pub(super) fn next(&self, stream: u64, generation: u64, waker: &Waker) -> Next {
        let next = self.log().next(stream, generation, waker);
        if matches!(next, Next::Event { .. }) {
            self.room.notify_waiters();
        }
        next
    }

    pub(super) fn attach_get(&self, resume: Option<(u64, u64)>) -> Result<(u64, u64), Refused> {
        self.touch();
        self.mark_used();
        self.log().attach_get(resume)
    }

    pub(super) fn detach(&self, stream: u64, generation: u64) {
        self.log().detach(stream, generation);
        self.room.notify_waiters();
        self.touch();
    }

    pub(super) fn touch(&self) {
        *self
            .last_active
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }

    /// Since when the session is idle (no stream read, no call in flight); `None`
    /// while it is in use.
    pub(super) fn idle_since(&self) -> Option<Instant> {
        if self.calls.load(Ordering::Acquire) > 0 {
            return None;
        }
        if self.log().is_read() {
            return None;
        }
        Some(
            *self
                .last_active
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// Ends the session: its streams end, its calls to the other side fail, its push
    /// subscriptions stop.
    pub(super) fn end(&self) {
        self.log().end();
        self.room.notify_waiters();
        self.ended.send_replace(true);
        self.client.inbox().close();
        let running = std::mem::take(&mut *self.running());
        for abort in running.into_values() {
            abort.abort();
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.ended.send_replace(true);
    }
}

/// The session's client's transport: a message goes out as an event, on the `POST`
/// stream whose handling sends it, else on the standalone stream; responses come back
/// in `POST`s of the session ([`Session::deliver`]).
struct Link(Weak<Session>);

impl Transport for Link {
    fn send(&self, message: Bytes) -> SendFuture<'_> {
        // The stream is chosen now, in the handler's task.
        let target = self
            .0
            .upgrade()
            .map(|session| (session.current_stream(), session));
        Box::pin(async move {
            let Some((stream, session)) = target else {
                return Err(TransportError::closed());
            };
            session
                .append(stream, message, false)
                .await
                .map(|()| Delivery::Routed)
                .map_err(|_| TransportError::closed())
        })
    }
}

/// The session's push port: subscription items go to the standalone stream.
struct Push(Weak<Session>);

impl Outlet for Push {
    fn push(&self, message: Bytes) -> BoxFuture<'_, Result<(), Closed>> {
        Box::pin(async move {
            let session = self.0.upgrade().ok_or(Closed)?;
            session.append(STANDALONE, message, false).await
        })
    }

    fn closed(&self) -> BoxFuture<'_, ()> {
        let ended = self.0.upgrade().map(|session| session.ended.subscribe());
        Box::pin(async move {
            if let Some(mut ended) = ended {
                let _ = ended.wait_for(|ended| *ended).await;
            }
        })
    }
}
