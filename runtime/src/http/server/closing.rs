//! How a connection of [`serve`](super::serve) comes to close: the server's shutdown
//! ([`Stopping`]), a connection idle for a header timeout, or one whose answers the
//! peer does not read ([`Signal`]), watched by a [`Guard`] that the connection's own
//! wake-ups do not poll.

use super::unsent::Unsent;
use futures_util::task::AtomicWaker;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// The server's shutdown, as a request extension, for connections that outlive their
/// HTTP exchange (WebSocket): they end when it says so, and [`Serve::run`](super::Serve::run) returns only
/// once every copy of it is gone.
#[derive(Debug, Clone)]
pub(crate) struct Stopping {
    pub(super) stopped: watch::Receiver<bool>,
    pub(super) _alive: mpsc::Sender<()>,
}

impl Stopping {
    /// Resolves when the server shuts down.
    pub(crate) async fn wait(&mut self) {
        // An error means the server is gone, which is a shutdown too.
        let _ = self.stopped.wait_for(|stopped| *stopped).await;
    }
}

/// Why a connection should close.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Signal {
    /// The server shuts down: finish what is in progress, then close.
    Stop,
    /// A whole header timeout (at least) went by with no request started and none in
    /// progress: the peer is idle or sending a request's head too slowly.
    Idle,
    /// Its answers not sent yet passed
    /// [`Serve::max_unsent_bytes`](super::Serve::max_unsent_bytes): the peer asks and
    /// does not read.
    Unread,
}

/// Resolves when the server shuts down, or when the connection has spent a header
/// timeout without starting a request and with none in progress, as seen at the end of
/// two consecutive periods of `timeout`: so it waited for a request between one and two
/// periods.
pub(super) async fn signal(
    mut stopping: Stopping,
    activity: Arc<Activity>,
    unsent: Arc<Unsent>,
    timeout: Option<Duration>,
) -> Signal {
    let idle = async {
        let Some(period) = timeout else {
            return std::future::pending().await;
        };
        let mut seen = activity.started();
        loop {
            tokio::time::sleep(period).await;
            let started = activity.started();
            if started == seen && activity.finished() == started {
                return;
            }
            seen = started;
        }
    };
    tokio::select! {
        biased;
        () = stopping.wait() => Signal::Stop,
        () = unsent.over() => Signal::Unread,
        () = idle => Signal::Idle,
    }
}

/// The requests of one connection, counted as they start and finish.
#[derive(Debug, Default)]
pub(super) struct Activity {
    started: AtomicU64,
    finished: AtomicU64,
}

impl Activity {
    fn started(&self) -> u64 {
        self.started.load(Ordering::Relaxed)
    }

    fn finished(&self) -> u64 {
        self.finished.load(Ordering::Relaxed)
    }

    /// Counts a request as started, until the returned guard is dropped.
    pub(super) fn start(self: &Arc<Self>) -> InProgress {
        self.started.fetch_add(1, Ordering::Relaxed);
        InProgress(Arc::clone(self))
    }
}

/// A request in progress; counted as finished when dropped.
#[derive(Debug)]
pub(super) struct InProgress(Arc<Activity>);

impl Drop for InProgress {
    fn drop(&mut self) {
        self.0.finished.fetch_add(1, Ordering::Relaxed);
    }
}

/// The [`signal`] future, polled with a waker of its own, so that the connection's
/// many wake-ups do not poll it: only its own (a timer, the shutdown) do.
pub(super) struct Guard {
    signal: Option<Pin<Box<dyn Future<Output = Signal> + Send>>>,
    woken: Arc<Woken>,
    waker: Waker,
    /// The connection task's waker last registered in `woken`.
    registered: Option<Waker>,
}

/// Whether the signal future was woken, and the connection task to wake then.
#[derive(Default)]
struct Woken {
    flag: AtomicBool,
    task: AtomicWaker,
}

impl Wake for Woken {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.flag.store(true, Ordering::Release);
        self.task.wake();
    }
}

impl Guard {
    pub(super) fn new(signal: impl Future<Output = Signal> + Send + 'static) -> Self {
        let woken = Arc::new(Woken::default());
        // Polled once at first, to start its timer and watch the shutdown.
        woken.flag.store(true, Ordering::Relaxed);
        Self {
            signal: Some(Box::pin(signal)),
            waker: Waker::from(Arc::clone(&woken)),
            woken,
            registered: None,
        }
    }

    /// The signal once it has come (only once); pending otherwise.
    pub(super) fn poll(&mut self, cx: &mut Context<'_>) -> Poll<Signal> {
        let Some(signal) = self.signal.as_mut() else {
            return Poll::Pending;
        };
        // Registered once: the connection task's waker stays the same, and stays in
        // `woken.task` until a wake-up of the signal takes it.
        if !self
            .registered
            .as_ref()
            .is_some_and(|registered| registered.will_wake(cx.waker()))
        {
            self.woken.task.register(cx.waker());
            self.registered = Some(cx.waker().clone());
        }
        // Looked at before it is taken: most polls find it unset, and a load costs
        // less than a swap.
        if !self.woken.flag.load(Ordering::Acquire)
            || !self.woken.flag.swap(false, Ordering::AcqRel)
        {
            return Poll::Pending;
        }
        // That wake-up took the registered waker: register it again before polling the
        // signal, so that no later wake-up is lost.
        self.woken.task.register(cx.waker());
        let outcome = signal.as_mut().poll(&mut Context::from_waker(&self.waker));
        if outcome.is_ready() {
            self.signal = None;
        }
        outcome
    }
}
