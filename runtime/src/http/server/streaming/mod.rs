//! Server-Sent Events and sessions on the HTTP server: a `POST` answered as an event
//! stream when its handlers send something before its response, a `GET` stream for
//! what the server sends outside any request, sessions, and resumption by event id.
//! Turned on by [`Service::streaming`](super::Service::streaming) with a [`Streaming`];
//! [`Streaming::mcp`] is MCP's Streamable HTTP.

pub(super) mod events;
mod log;
mod session;

pub(crate) use events::Stop;
pub use session::SessionId;

use super::answer::NoResponse;
use ::http::header::HeaderName;
use log::Window;
use session::Sessions;
use std::time::Duration;

/// How many sessions are held at once unless told otherwise; see
/// [`Streaming::max_sessions`].
pub const DEFAULT_MAX_SESSIONS: usize = 1024;

/// How long a session may stay idle unless told otherwise: 10 minutes; see
/// [`Streaming::idle_timeout`].
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(600);

/// The protocol revisions [`Streaming::mcp`] accepts in `MCP-Protocol-Version`.
pub const MCP_PROTOCOL_VERSIONS: [&str; 4] =
    ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The settings of event streams and sessions on an HTTP [`Service`](super::Service);
/// see [`Service::streaming`](super::Service::streaming) and the guide's
/// [SSE and sessions](crate::guide::transports#sse-and-sessions).
///
/// | setting | [`Streaming::new`] | [`Streaming::mcp`] |
/// |---|---|---|
/// | [`sessions`](Self::sessions): the method whose request starts a session | none (no sessions) | `initialize` |
/// | [`session_header`](Self::session_header) | `Session-Id` | `Mcp-Session-Id` |
/// | [`require_session`](Self::require_session): a `POST` without the header, not starting one, is `400` | no | yes |
/// | [`protocol_versions`](Self::protocol_versions): a header whose other values are `400` | none | `MCP-Protocol-Version`: [`MCP_PROTOCOL_VERSIONS`] |
/// | [`require_accept`](Self::require_accept): `406` for a `POST` whose `Accept` lacks `application/json` or `text/event-stream`, a `GET` whose lacks `text/event-stream` | no | yes |
/// | answer to a `POST` of only notifications or responses | the service's [`no_response_status`](super::Service::no_response_status) | `202 Accepted` |
/// | [`max_sessions`](Self::max_sessions), [`idle_timeout`](Self::idle_timeout) | 1,024, 10 minutes | same |
/// | [`replay_window`](Self::replay_window): events kept per session | 1,024 events, 4 MiB | same |
/// | [`stall_timeout`](Self::stall_timeout) | 30 seconds | same |
///
/// ```
/// use rpcsmith::http::Streaming;
/// use std::time::Duration;
///
/// let mcp = Streaming::mcp().max_sessions(100).idle_timeout(Duration::from_secs(60));
/// let own = Streaming::new().sessions("hello").session_header("x-session");
/// # drop((mcp, own));
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct Streaming {
    pub(super) initialize: Option<Box<str>>,
    pub(super) header: HeaderName,
    pub(super) require: bool,
    pub(super) versions: Option<(HeaderName, Vec<Box<str>>)>,
    pub(super) no_response: Option<NoResponse>,
    pub(super) accept: bool,
    max_sessions: usize,
    idle: Duration,
    window: Window,
    stall: Duration,
}

impl Default for Streaming {
    fn default() -> Self {
        Self::new()
    }
}

impl Streaming {
    /// Event streams on `POST`, without sessions (and so without a `GET` stream);
    /// turn them on with [`sessions`](Self::sessions).
    pub fn new() -> Self {
        Self {
            initialize: None,
            header: HeaderName::from_static("session-id"),
            require: false,
            versions: None,
            no_response: None,
            accept: false,
            max_sessions: DEFAULT_MAX_SESSIONS,
            idle: DEFAULT_SESSION_IDLE,
            window: Window {
                events: 1024,
                bytes: 4 << 20,
            },
            stall: Duration::from_secs(30),
        }
    }

    /// MCP's Streamable HTTP (protocol revisions 2025-03-26 to 2025-11-25): sessions
    /// started by `initialize` and carried in `Mcp-Session-Id`, required on every
    /// later request (`400` without, `404` when unknown or expired, so the client
    /// starts again); `MCP-Protocol-Version` checked; `Accept` checked (`406`); `202
    /// Accepted` for a `POST` of only notifications or responses.
    pub fn mcp() -> Self {
        Self::new()
            .sessions("initialize")
            .session_header("mcp-session-id")
            .require_session(true)
            .protocol_versions("mcp-protocol-version", &MCP_PROTOCOL_VERSIONS)
            .require_accept(true)
            .no_response_status(NoResponse::Accepted)
    }

    /// Whether `Accept` must list what the answer may be, as MCP's transport says: a
    /// `POST` both `application/json` and `text/event-stream`, a session's `GET`
    /// `text/event-stream`; otherwise `406 Not Acceptable` with a JSON-RPC error body.
    /// Wildcards (`*/*`, `text/*`) count. Off by default: a `POST` that takes only JSON
    /// is then answered in JSON.
    pub fn require_accept(mut self, required: bool) -> Self {
        self.accept = required;
        self
    }

    /// Turns sessions on: a request of `method` (alone or in a batch) without a
    /// session header starts a session, whose id the answer carries in the
    /// [`session_header`](Self::session_header). Later requests carrying it belong to
    /// the session: its `GET` stream, its calls to the other side (whose responses
    /// come back as `POST`s), its push subscriptions.
    pub fn sessions(mut self, method: &str) -> Self {
        self.initialize = Some(method.into());
        self
    }

    /// The header carrying the session id. An invalid name is ignored.
    pub fn session_header(mut self, name: &str) -> Self {
        if let Ok(name) = HeaderName::try_from(name) {
            self.header = name;
        }
        self
    }

    /// Whether a `POST` without a session header that starts none is refused `400`
    /// (MCP); otherwise it is answered outside any session.
    pub fn require_session(mut self, required: bool) -> Self {
        self.require = required;
        self
    }

    /// Refuses `400` a request whose header `name` holds a value not in `versions`;
    /// a request without it is accepted.
    pub fn protocol_versions(mut self, name: &str, versions: &[&str]) -> Self {
        if let Ok(name) = HeaderName::try_from(name) {
            self.versions = Some((name, versions.iter().map(|&v| v.into()).collect()));
        }
        self
    }

    /// The status of a `POST` that carries only notifications or responses,
    /// replacing the service's [`no_response_status`](super::Service::no_response_status).
    pub fn no_response_status(mut self, status: NoResponse) -> Self {
        self.no_response = Some(status);
        self
    }

    /// How many sessions are held at once, at least one. A request that would start
    /// one more, once the idle ones are forgotten, is refused `503` (`-32009`).
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions.max(1);
        self
    }

    /// How long a session lives with no request and no stream open; then it is
    /// forgotten (its requests get `404`), measured on Tokio's clock.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle = timeout;
        self
    }

    /// How much of what was sent each session keeps, for a client to resume a
    /// dropped stream with `Last-Event-ID`: at most `events` events and `bytes` bytes
    /// (one event larger than `bytes` is kept alone). A resumption from before what is
    /// kept is refused `410 Gone`: events were lost.
    pub fn replay_window(mut self, events: usize, bytes: usize) -> Self {
        self.window = Window {
            events: events.max(1),
            bytes,
        };
        self
    }

    /// How long sending waits when the replay window is full of events that a
    /// stream's client has not read yet. Then the oldest is dropped and that stream
    /// ends (the client reads too slowly); the server's memory stays bounded.
    pub fn stall_timeout(mut self, timeout: Duration) -> Self {
        self.stall = timeout;
        self
    }

    pub(super) fn build(self) -> Sse {
        let sessions = Sessions::new(self.max_sessions, self.idle, self.window, self.stall);
        Sse {
            settings: self,
            sessions,
        }
    }
}

/// Streaming as a running service holds it: the settings and the live sessions.
pub(super) struct Sse {
    pub(super) settings: Streaming,
    sessions: Sessions,
}

impl std::fmt::Debug for Sse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sse")
            .field("settings", &self.settings)
            .field("sessions", &self.sessions.len())
            .finish()
    }
}

mod exchange;
pub(super) use exchange::{Post, check_accept, check_version, delete, get, post, takes_events};
