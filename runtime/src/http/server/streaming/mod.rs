//! Server-Sent Events and sessions on the HTTP server: a `POST` answered as an event
//! stream when its handlers send something before its response, a `GET` stream for
//! what the server sends outside any request, sessions, and resumption by event id.
//! Turned on by [`Service::streaming`](super::Service::streaming) with a [`Streaming`];
//! [`Streaming::mcp`] is MCP's Streamable HTTP.

mod budget;
pub(super) mod events;
mod log;
mod session;
mod table;

pub(crate) use events::Stop;
pub(crate) use log::Close;
pub use session::SessionId;

use super::answer::NoResponse;
use ::http::header::HeaderName;
use log::Window;
use std::time::Duration;
use table::{Bounds, Sessions};

/// How many sessions are held at once unless told otherwise; see
/// [`Streaming::max_sessions`].
pub const DEFAULT_MAX_SESSIONS: usize = 1024;

/// How many sessions one peer address holds at once unless told otherwise; see
/// [`Streaming::max_sessions_per_peer`].
pub const DEFAULT_MAX_SESSIONS_PER_PEER: usize = 64;

/// How many `POST`s of calls are handled at once, every session's together, unless
/// told otherwise; see [`Streaming::max_calls`].
pub const DEFAULT_MAX_CALLS: usize = 1024;

/// How many `POST`s of calls one session has handled at once unless told otherwise;
/// see [`Streaming::max_calls`].
pub const DEFAULT_MAX_SESSION_CALLS: usize = 64;

/// How many bytes of events every session's replay window holds together unless told
/// otherwise: 64 MiB; see [`Streaming::max_replay_bytes`].
pub const DEFAULT_MAX_REPLAY_BYTES: usize = 64 << 20;

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
/// | [`max_sessions`](Self::max_sessions), [`max_sessions_per_peer`](Self::max_sessions_per_peer), [`idle_timeout`](Self::idle_timeout) | 1,024, 64 per peer address, 10 minutes | same |
/// | [`max_calls`](Self::max_calls): `POST`s of calls handled at once | 1,024, 64 per session | same |
/// | [`replay_window`](Self::replay_window): events kept per session | 1,024 events, 4 MiB | same |
/// | [`max_replay_bytes`](Self::max_replay_bytes): events kept by every session together | 64 MiB | same |
/// | [`stall_timeout`](Self::stall_timeout) | 30 seconds | same |
/// | [`cancellation`](Self::cancellation): the notification that cancels a call | none | `notifications/cancelled`, `requestId` |
/// | [`refuse_unparsable`](Self::refuse_unparsable): `400` for a body refused whole (not JSON, an empty batch) | no | yes |
/// | [`revision_field`](Self::revision_field): where the start's answer names the session's revision | none | `protocolVersion` |
/// | [`batches_until`](Self::batches_until): the last revision whose sessions may send batches | any | `2025-03-26` |
/// | [`priming_from`](Self::priming_from): the first revision whose streams open with a priming event, with `retry:` | none | `2025-11-25`, 1 second |
/// | [`session_prefix`](Self::session_prefix): what every session id starts with | nothing | same |
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
    pub(super) cancellation: Option<(Box<str>, Box<str>)>,
    pub(super) unparsable: bool,
    pub(super) revision_field: Option<Box<str>>,
    pub(super) batches_until: Option<Box<str>>,
    pub(super) priming: Option<(Box<str>, Duration)>,
    bounds: Bounds,
    prefix: Box<str>,
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
            cancellation: None,
            unparsable: false,
            revision_field: None,
            batches_until: None,
            priming: None,
            bounds: Bounds {
                max: DEFAULT_MAX_SESSIONS,
                per_peer: DEFAULT_MAX_SESSIONS_PER_PEER,
                idle: DEFAULT_SESSION_IDLE,
                window: Window {
                    events: 1024,
                    bytes: 4 << 20,
                },
                replay_bytes: DEFAULT_MAX_REPLAY_BYTES,
                stall: Duration::from_secs(30),
                max_calls: DEFAULT_MAX_CALLS,
                session_calls: DEFAULT_MAX_SESSION_CALLS,
            },
            prefix: Box::default(),
        }
    }

    /// MCP's Streamable HTTP (protocol revisions 2025-03-26 to 2025-11-25): sessions
    /// started by `initialize` and carried in `Mcp-Session-Id`, required on every
    /// later request (`400` without, `404` when unknown or expired, so the client
    /// starts again); `MCP-Protocol-Version` checked; `Accept` checked (`406`); `202
    /// Accepted` for a `POST` of only notifications or responses; `400` for a body
    /// that is not JSON; `notifications/cancelled` aborts the call it names, which is
    /// not answered; batches refused on sessions of 2025-06-18 and later; priming
    /// events with `retry:` on streams of 2025-11-25 and later.
    pub fn mcp() -> Self {
        Self::new()
            .sessions("initialize")
            .session_header("mcp-session-id")
            .require_session(true)
            .protocol_versions("mcp-protocol-version", &MCP_PROTOCOL_VERSIONS)
            .require_accept(true)
            .no_response_status(NoResponse::Accepted)
            .cancellation("notifications/cancelled", "requestId")
            .refuse_unparsable(true)
            .revision_field("protocolVersion")
            .batches_until("2025-03-26")
            .priming_from("2025-11-25", Duration::from_secs(1))
    }

    /// The notification that cancels a call of a session: `method`, naming the call's
    /// id in its by-name param `param`. The transport takes it (the handlers never see
    /// it) and aborts the call it names, if it runs in the same session: its handler's
    /// future is dropped, and the call is not answered (its event stream ends without
    /// a response; a call not answered yet as an event stream gets the
    /// [no-response status](Self::no_response_status)). MCP's is
    /// `notifications/cancelled` with `requestId`.
    pub fn cancellation(mut self, method: &str, param: &str) -> Self {
        self.cancellation = Some((method.into(), param.into()));
        self
    }

    /// Whether a body refused whole (not JSON: `-32700`; an empty batch: `-32600`; a
    /// batch too long: `-32010`) is answered `400 Bad Request` with that JSON-RPC error
    /// (`id: null`) in the body, as MCP's reference server does; otherwise `200` with
    /// it, as JSON-RPC over HTTP usually is. A message that is JSON but not a request
    /// (`42`) is answered in place, `200`, as JSON-RPC says.
    pub fn refuse_unparsable(mut self, refused: bool) -> Self {
        self.unparsable = refused;
        self
    }

    /// The member of the session-starting call's `result` that names the protocol
    /// revision the session speaks (MCP: `protocolVersion`), which
    /// [`batches_until`](Self::batches_until) and [`priming_from`](Self::priming_from)
    /// look at. A session whose answer names none is judged by the request's
    /// [protocol version header](Self::protocol_versions).
    pub fn revision_field(mut self, field: &str) -> Self {
        self.revision_field = Some(field.into());
        self
    }

    /// The last revision whose sessions may send batches: a batch on a session of a
    /// later one (revisions compared as text, as MCP's dates are) is refused `400 Bad
    /// Request` with a JSON-RPC error (`-32600`, `id: null`). MCP removed batches in
    /// 2025-06-18.
    pub fn batches_until(mut self, revision: &str) -> Self {
        self.batches_until = Some(revision.into());
        self
    }

    /// The first revision whose event streams open with a priming event (an id and
    /// empty data, which the client may resume from) carrying `retry:` (`retry`, in
    /// milliseconds): MCP's since 2025-11-25. When the server shuts down, such a
    /// stream ends with `retry:` again, so that its client resumes it elsewhere.
    pub fn priming_from(mut self, revision: &str, retry: Duration) -> Self {
        self.priming = Some((revision.into(), retry));
        self
    }

    /// How many sessions one peer address holds at once, at least one: past it, the
    /// address's own session idle the longest among those never used goes, or the
    /// start is refused `503` with `Retry-After`.
    pub fn max_sessions_per_peer(mut self, sessions: usize) -> Self {
        self.bounds.per_peer = sessions.max(1);
        self
    }

    /// How many `POST`s of calls are handled at once, every session's together
    /// (`total`) and one session's (`per_session`), at least one each; beyond, a
    /// `POST` is refused `503 Service Unavailable` with `Retry-After: 1` and a
    /// JSON-RPC error body (`-32009`). A call counts until its handler finishes, even
    /// when its client has gone (MCP: a disconnect is not a cancellation).
    pub fn max_calls(mut self, total: usize, per_session: usize) -> Self {
        self.bounds.max_calls = total.max(1);
        self.bounds.session_calls = per_session.max(1);
        self
    }

    /// How many bytes of events every session's [replay window](Self::replay_window)
    /// holds together. When an event does not fit, the oldest events already read (or
    /// that no reader waits for) go first, its own session's then other sessions':
    /// those can no longer be replayed, but a live stream keeps its messages (MCP makes
    /// replay a server's option, delivery its duty). An event that still does not fit,
    /// once its own session's oldest are dropped, is not kept: the stream it was for
    /// ends (the client may resume it, as far as events are held).
    pub fn max_replay_bytes(mut self, bytes: usize) -> Self {
        self.bounds.replay_bytes = bytes;
        self
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

    /// How many sessions are held at once, at least one. A session counts once the
    /// call that starts it succeeded (an `initialize` answered with an error starts
    /// none). When the table is full, the session idle the longest among those never
    /// used after their start (no request, no stream) goes; when there is none, the
    /// start is refused `503` (`-32009`) with `Retry-After`: the seconds until the
    /// next idle session expires, 30 at most (a session in use may end sooner, and
    /// clients would otherwise wait out the whole idle timeout).
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.bounds.max = sessions.max(1);
        self
    }

    /// How long a session lives with no request and no stream open; then it is
    /// forgotten (its requests get `404`), measured on Tokio's clock.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.bounds.idle = timeout;
        self
    }

    /// How much of what was sent each session keeps, for a client to resume a
    /// dropped stream with `Last-Event-ID`: at most `events` events and `bytes` bytes
    /// (one event larger than `bytes` is kept alone). A resumption from before what is
    /// kept is refused `410 Gone`: events were lost.
    pub fn replay_window(mut self, events: usize, bytes: usize) -> Self {
        self.bounds.window = Window {
            events: events.max(1),
            bytes,
        };
        self
    }

    /// How long sending waits when the replay window is full of events that a
    /// stream's client has not read yet. Then the oldest is dropped and that stream
    /// ends (the client reads too slowly); the server's memory stays bounded.
    pub fn stall_timeout(mut self, timeout: Duration) -> Self {
        self.bounds.stall = timeout;
        self
    }

    /// Starts every session id with `prefix`, followed by the 128 random bits: an
    /// instance's name, so that a reverse proxy in front of several instances can send
    /// each session's requests to the instance that holds it by the id alone (the
    /// guide's [More than one instance](crate::guide::production#more-than-one-instance)
    /// shows nginx doing it). End it with a character the random part never starts
    /// with (`.`, `-`), so that no instance's prefix is the start of another's. Only
    /// visible ASCII (`!` to `~`) is allowed in a session id; a prefix with anything
    /// else is ignored.
    pub fn session_prefix(mut self, prefix: &str) -> Self {
        if prefix.bytes().all(|b| b.is_ascii_graphic()) {
            self.prefix = prefix.into();
        }
        self
    }

    pub(super) fn build(self) -> Sse {
        let sessions = Sessions::new(self.bounds.clone()).prefixed(&self.prefix);
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

/// What a streaming service holds now, from its own counters; see
/// [`Service::streaming_stats`](super::Service::streaming_stats).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct StreamingStats {
    /// Sessions in the table (started, and not ended or expired).
    pub sessions: usize,
    /// `POST`s of calls being handled.
    pub calls: usize,
    /// Bytes of events held for replay, every session's together.
    pub replay_bytes: usize,
}

impl Sse {
    pub(super) fn stats(&self) -> StreamingStats {
        StreamingStats {
            sessions: self.sessions.len(),
            calls: self.sessions.calls(),
            replay_bytes: self.sessions.replay_bytes(),
        }
    }
}

mod exchange;
mod rules;
pub(super) use exchange::{Post, check_accept, check_version, delete, get, post, takes_events};
