//! The table of live sessions: bounded in total and per peer address, expiring when
//! idle, and admitting a session only once the request that started it succeeded.
//!
//! A client that only ever starts sessions cannot lock others out: when the table (or
//! its peer's share of it) is full, the session idle the longest among those never
//! used after their start goes first; when every session is in use, the start is
//! refused `503` with `Retry-After`, the seconds until the next idle one expires, held
//! to [`MAX_RETRY_AFTER`]: a session in use may end sooner (its client ends it, or
//! stops using it), and an idle timeout of minutes would have well-behaved clients wait
//! that long.
//! Calls in flight are bounded per session and in total, so that calls whose client
//! has gone (MCP says a disconnect is not a cancellation) cannot pile up.

use super::log::{Budget, Window};
use super::session::Session;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::time::Instant;

/// The bounds of the table, from [`Streaming`](super::Streaming).
#[derive(Debug, Clone)]
pub(super) struct Bounds {
    pub(super) max: usize,
    pub(super) per_peer: usize,
    pub(super) idle: Duration,
    pub(super) window: Window,
    pub(super) replay_bytes: usize,
    pub(super) stall: Duration,
    pub(super) max_calls: usize,
    pub(super) session_calls: usize,
}

/// The longest `Retry-After` a full table answers with.
pub(super) const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);

/// Why no session was started, or no call taken: full, and when to try again.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Full {
    /// Seconds, for `Retry-After`.
    pub(super) retry_after: u64,
}

/// The live sessions.
pub(super) struct Sessions {
    table: Mutex<HashMap<Box<str>, Arc<Session>>>,
    bounds: Bounds,
    budget: Arc<Budget>,
    /// The `POST`s of calls being handled, every session's and none's.
    calls: Arc<AtomicUsize>,
    /// What every id starts with ([`Streaming::session_prefix`](super::Streaming::session_prefix)).
    prefix: Box<str>,
}

/// A `POST` of calls counted in flight (its session's and the total) until dropped.
pub(super) struct Calling {
    session: Arc<Session>,
    total: Arc<AtomicUsize>,
}

impl Drop for Calling {
    fn drop(&mut self) {
        self.session.calls.fetch_sub(1, Ordering::AcqRel);
        self.total.fetch_sub(1, Ordering::AcqRel);
        self.session.touch();
    }
}

impl Sessions {
    pub(super) fn new(bounds: Bounds) -> Self {
        Self {
            table: Mutex::default(),
            budget: Budget::new(bounds.replay_bytes),
            bounds,
            calls: Arc::default(),
            prefix: Box::default(),
        }
    }

    /// Starts every session id with `prefix`.
    pub(super) fn prefixed(mut self, prefix: &str) -> Self {
        self.prefix = prefix.into();
        self
    }

    fn table(&self) -> MutexGuard<'_, HashMap<Box<str>, Arc<Session>>> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn session(&self, id: Option<Box<str>>, peer: Option<IpAddr>) -> Arc<Session> {
        let log = (self.bounds.window, Arc::clone(&self.budget));
        Session::new(id, peer, log, self.bounds.stall)
    }

    /// The state of one `POST` outside any session.
    pub(super) fn ephemeral(&self, peer: Option<IpAddr>) -> Arc<Session> {
        self.session(None, peer)
    }

    /// A session for `peer` to start, not yet in the table (its start may fail); `Full`
    /// when there is no room for it even once the idle never-used ones are gone.
    pub(super) fn begin(&self, peer: Option<IpAddr>) -> Result<Arc<Session>, Full> {
        self.make_room(&mut self.table(), peer)?;
        // 128 unguessable bits, as `0x` and 32 hex digits: visible ASCII, as MCP asks.
        let random = crate::server::random_id();
        let id = format!("{}{}", self.prefix, random.trim_matches('"'));
        Ok(self.session(Some(id.into()), peer))
    }

    /// Admits a session whose start succeeded; `Full` when the table filled meanwhile.
    pub(super) fn admit(&self, session: &Arc<Session>) -> Result<(), Full> {
        let Some(id) = session.id() else {
            return Ok(());
        };
        let mut table = self.table();
        self.make_room(&mut table, session.peer)?;
        session.touch();
        table.insert(id.into(), Arc::clone(session));
        Ok(())
    }

    /// Forgets the expired sessions, then makes room for one more of `peer` by
    /// ending the idle never-used session of the longest idleness (of `peer` when it
    /// is at its cap), if it must.
    fn make_room(
        &self,
        table: &mut HashMap<Box<str>, Arc<Session>>,
        peer: Option<IpAddr>,
    ) -> Result<(), Full> {
        let now = Instant::now();
        table.retain(|_, session| {
            let live = !self.expired(session, now);
            if !live {
                session.end();
            }
            live
        });
        let peers = peer.map_or(0, |peer| {
            table.values().filter(|s| s.peer == Some(peer)).count()
        });
        if peer.is_some() && peers >= self.bounds.per_peer {
            return self.evict(table, |session| session.peer == peer, now);
        }
        if table.len() >= self.bounds.max {
            return self.evict(table, |_| true, now);
        }
        Ok(())
    }

    /// Ends the idle never-used session among `among` idle the longest; `Full` with
    /// when the next idle one expires, when there is none.
    fn evict(
        &self,
        table: &mut HashMap<Box<str>, Arc<Session>>,
        among: impl Fn(&Session) -> bool,
        now: Instant,
    ) -> Result<(), Full> {
        let idle = |session: &&Arc<Session>| among(session) && !session.is_used();
        let oldest = table
            .iter()
            .filter(|(_, session)| idle(session))
            .filter_map(|(id, session)| Some((session.idle_since()?, id.clone())))
            .min();
        if let Some((_, id)) = oldest
            && let Some(session) = table.remove(&id)
        {
            tracing::debug!("the session table is full: the oldest idle session never used ends");
            session.end();
            return Ok(());
        }
        let next_expiry = table
            .values()
            .filter(|session| among(session))
            .filter_map(|session| session.idle_since())
            .map(|since| {
                self.bounds
                    .idle
                    .saturating_sub(now.saturating_duration_since(since))
            })
            .min()
            .unwrap_or(self.bounds.idle)
            .min(MAX_RETRY_AFTER);
        Err(Full {
            retry_after: next_expiry.as_secs_f64().ceil().max(1.0) as u64,
        })
    }

    fn expired(&self, session: &Session, now: Instant) -> bool {
        session
            .idle_since()
            .is_some_and(|since| now.saturating_duration_since(since) >= self.bounds.idle)
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

    /// Counts a `POST` of calls of `session` in flight; `Full` past the session's
    /// bound or the total.
    pub(super) fn calling(&self, session: &Arc<Session>) -> Result<Calling, Full> {
        let (session_calls, max) = (self.bounds.session_calls, self.bounds.max_calls);
        let taken = |count: &AtomicUsize, bound: usize| {
            count
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                    (n < bound).then_some(n + 1)
                })
                .is_ok()
        };
        if !taken(&session.calls, session_calls) {
            return Err(Full { retry_after: 1 });
        }
        if !taken(&self.calls, max) {
            session.calls.fetch_sub(1, Ordering::AcqRel);
            return Err(Full { retry_after: 1 });
        }
        Ok(Calling {
            session: Arc::clone(session),
            total: Arc::clone(&self.calls),
        })
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

    /// The bytes of events every session holds together.
    pub(super) fn replay_bytes(&self) -> usize {
        self.budget.used()
    }

    /// The `POST`s of calls in flight, every session's.
    pub(super) fn calls(&self) -> usize {
        self.calls.load(Ordering::Acquire)
    }
}

impl Drop for Sessions {
    fn drop(&mut self) {
        for session in self.table().values() {
            session.end();
        }
    }
}
