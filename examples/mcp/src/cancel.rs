//! Cancellation of the `slow` tool where the transport does not do it: over HTTP.
//!
//! On stdio the peer's [`Cancellation::MCP`](rpcsmith::transport::peer::Cancellation::MCP)
//! acts on `notifications/cancelled` itself: it drops the named call, which is not
//! answered. The HTTP transport has no such setting (each call is a `POST` of its own,
//! answered on its own stream), so there the notification reaches the generated
//! `notifications_cancelled` handler, which tells the running call through this
//! registry; the call then ends its stream with an error answer (a `POST` must be
//! answered for its stream to end), which the client, having given the call up,
//! ignores. Calls are known by their session and id, so one session cannot cancel
//! another's.

use rpcsmith::http::SessionId;
use rpcsmith::server::Context;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::oneshot;

/// A call: its session (if any) and its id as JSON text.
type Key = (Option<String>, String);

/// The calls that can be cancelled, and how to tell each.
#[derive(Debug, Default, Clone)]
pub(crate) struct Running {
    calls: Arc<Mutex<HashMap<Key, oneshot::Sender<()>>>>,
}

/// A registered call: resolves when it is cancelled; leaves the registry when dropped.
pub(crate) struct Registration {
    running: Running,
    key: Key,
    pub(crate) cancelled: oneshot::Receiver<()>,
}

fn session(cx: &Context) -> Option<String> {
    cx.metadata()
        .extensions
        .get::<SessionId>()
        .map(|session| session.0.clone())
}

impl Running {
    /// Registers the call of `cx` (a request: a notification has no id to cancel by).
    pub(crate) fn register(&self, cx: &Context) -> Option<Registration> {
        let key = (session(cx), cx.id()?.to_string());
        let (tell, cancelled) = oneshot::channel();
        self.lock().insert(key.clone(), tell);
        Some(Registration {
            running: self.clone(),
            key,
            cancelled,
        })
    }

    /// Cancels the call `request_id` (JSON text) of `cx`'s session; whether it ran.
    pub(crate) fn cancel(&self, cx: &Context, request_id: String) -> bool {
        let tell = self.lock().remove(&(session(cx), request_id));
        tell.is_some_and(|tell| tell.send(()).is_ok())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, oneshot::Sender<()>>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.running.lock().remove(&self.key);
    }
}
