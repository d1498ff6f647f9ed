//! A session: its id, its event log, the client through which its handlers call the
//! other side ([`remote`](crate::transport::remote)), its push subscriptions; and the
//! table of live sessions, bounded in number and expiring when idle.

use super::log::{Log, Next, Refused, STANDALONE, Window};
use crate::client::{Client, Delivery, SendFuture, Transport, TransportError};
use crate::server::{BoxFuture, Closed, Metadata, Outlet, Pushes};
use crate::transport::remote::Remote;
use bytes::Bytes;
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
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
    log: Mutex<Log>,
    /// Readers made progress: appenders waiting for room look again.
    room: Notify,
    stall: Duration,
    client: Client,
    pushes: Pushes,
    ended: watch::Sender<bool>,
    last_active: Mutex<Instant>,
}

impl Session {
    pub(super) fn new(id: Option<Box<str>>, window: Window, stall: Duration) -> Arc<Self> {
        Arc::new_cyclic(|weak: &Weak<Session>| Session {
            id,
            log: Mutex::new(Log::new(window)),
            room: Notify::new(),
            stall,
            client: Client::new(Link(weak.clone())),
            pushes: Pushes::new(Push(weak.clone())),
            ended: watch::Sender::new(false),
            last_active: Mutex::new(Instant::now()),
        })
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
                    log.append(stream, data, last);
                    return Ok(());
                }
            }
            tokio::select! {
                () = room => {}
                () = tokio::time::sleep_until(deadline) => {}
            }
        }
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
        self.log().attach_get(resume)
    }

    pub(super) fn detach(&self, stream: u64, generation: u64) {
        self.log().detach(stream, generation);
        self.room.notify_waiters();
        self.touch();
    }

    fn touch(&self) {
        *self
            .last_active
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }

    fn idle_since(&self) -> Option<Instant> {
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

/// Why no session was started.
#[derive(Debug)]
pub(super) struct TooMany;

/// The live sessions.
pub(super) struct Sessions {
    table: Mutex<HashMap<Box<str>, Arc<Session>>>,
    max: usize,
    idle: Duration,
    window: Window,
    stall: Duration,
}

impl Sessions {
    pub(super) fn new(max: usize, idle: Duration, window: Window, stall: Duration) -> Self {
        Self {
            table: Mutex::default(),
            max,
            idle,
            window,
            stall,
        }
    }

    fn table(&self) -> MutexGuard<'_, HashMap<Box<str>, Arc<Session>>> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The state of one `POST` outside any session.
    pub(super) fn ephemeral(&self) -> Arc<Session> {
        Session::new(None, self.window, self.stall)
    }

    /// Starts a session, after forgetting the expired ones.
    pub(super) fn start(&self) -> Result<Arc<Session>, TooMany> {
        let now = Instant::now();
        let mut table = self.table();
        table.retain(|_, session| {
            let live = !self.expired(session, now);
            if !live {
                session.end();
            }
            live
        });
        if table.len() >= self.max {
            return Err(TooMany);
        }
        // 128 unguessable bits, as `0x` and 32 hex digits: visible ASCII, as MCP asks.
        let id = crate::server::random_id().trim_matches('"').to_owned();
        let session = Session::new(Some(id.clone().into()), self.window, self.stall);
        table.insert(id.into(), Arc::clone(&session));
        Ok(session)
    }

    fn expired(&self, session: &Session, now: Instant) -> bool {
        session
            .idle_since()
            .is_some_and(|since| now.saturating_duration_since(since) >= self.idle)
    }

    /// The live session `id`, as of now (an expired one is ended and forgotten).
    pub(super) fn find(&self, id: &str) -> Option<Arc<Session>> {
        let mut table = self.table();
        let session = table.get(id)?;
        if self.expired(session, Instant::now()) {
            let session = table.remove(id)?;
            drop(table);
            session.end();
            return None;
        }
        session.touch();
        Some(Arc::clone(session))
    }

    /// Ends the session `id`; `false` when there was none.
    pub(super) fn end(&self, id: &str) -> bool {
        let removed = self.table().remove(id);
        removed.map(|session| session.end()).is_some()
    }

    /// How many sessions are held now.
    pub(super) fn len(&self) -> usize {
        self.table().len()
    }
}

impl Drop for Sessions {
    fn drop(&mut self) {
        for session in self.table().values() {
            session.end();
        }
    }
}
