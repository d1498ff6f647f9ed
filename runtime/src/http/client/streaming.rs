//! The HTTP client's side of event streams and sessions ([`ClientStreaming`]): event
//! streams read as they come, what they carry handed to the client (responses to its
//! calls, items to its subscriptions) or to its listener (the server's notifications
//! and requests, whose answers go back as `POST`s), the session kept, the `GET`
//! stream opened and dropped streams resumed with `Last-Event-ID`.

use crate::client::Inbox;
use crate::protocol::{Entry, Message, TwoWay};
use crate::server::{Connection, Metadata, Server};
use ::http::header::{HeaderName, HeaderValue};
use bytes::Bytes;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

/// The client's settings for servers that answer with event streams and keep
/// sessions; see [`ClientBuilder::streaming`](super::ClientBuilder::streaming).
///
/// ```
/// use rpcsmith::server::Server;
/// use rpcsmith::http::{Client, ClientStreaming};
/// # use rpcsmith::server::{Context, Dispatch, Reply};
/// # use serde_json::value::RawValue;
/// # struct Listener;
/// # impl Dispatch for Listener {
/// #     fn call(&self, _: &str, _: Option<&RawValue>, _: Context) -> Reply { Reply::ok(&()) }
/// # }
///
/// let transport = Client::builder("http://127.0.0.1:3000/mcp")
///     .streaming(ClientStreaming::mcp().serve(Server::new(Listener)).open_stream(true))
///     .build()?;
/// # drop(transport);
/// # Ok::<(), rpcsmith::client::TransportError>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct ClientStreaming {
    pub(super) header: HeaderName,
    pub(super) listener: Option<Server>,
    pub(super) version: Option<HeaderName>,
    pub(super) open_stream: bool,
    pub(super) resume_attempts: usize,
    pub(super) retry: Duration,
    pub(super) cancellation: Option<(Box<str>, Box<str>)>,
}

impl Default for ClientStreaming {
    fn default() -> Self {
        Self::new()
    }
}

impl ClientStreaming {
    /// Takes event streams (`Accept: application/json, text/event-stream`), keeps the
    /// session named by a `Session-Id` header, opens no `GET` stream.
    pub fn new() -> Self {
        Self {
            header: HeaderName::from_static("session-id"),
            listener: None,
            version: None,
            open_stream: false,
            resume_attempts: 3,
            retry: Duration::from_millis(200),
            cancellation: None,
        }
    }

    /// MCP's Streamable HTTP: the session in `Mcp-Session-Id`, the negotiated
    /// revision in `MCP-Protocol-Version` on every request after `initialize`, and a
    /// call given up cancelled with `notifications/cancelled`.
    pub fn mcp() -> Self {
        Self::new()
            .session_header("mcp-session-id")
            .protocol_version_header("mcp-protocol-version")
            .cancellation("notifications/cancelled", "requestId")
    }

    /// Cancels a call given up before its answer (its future dropped, or timed out):
    /// the notification `method`, naming the call's id in its by-name param `param`,
    /// is posted in the session at once, and the call ends there and then (it does
    /// not wait for an answer the server, rightly, never sends). Only single requests
    /// made in a session are cancelled: not the one that starts it (MCP's
    /// `initialize`, which may not be cancelled), nor batches. Off by default.
    pub fn cancellation(mut self, method: &str, param: &str) -> Self {
        self.cancellation = Some((method.into(), param.into()));
        self
    }

    /// Sends, on every request once it is known, header `name` holding the protocol
    /// version the server answered: the `protocolVersion` of the first response whose
    /// result has one (MCP's `initialize`), until the session is forgotten. An invalid
    /// name is ignored.
    pub fn protocol_version_header(mut self, name: &str) -> Self {
        if let Ok(name) = HeaderName::try_from(name) {
            self.version = Some(name);
        }
        self
    }

    /// The header carrying the session id. An invalid name is ignored.
    pub fn session_header(mut self, name: &str) -> Self {
        if let Ok(name) = HeaderName::try_from(name) {
            self.header = name;
        }
        self
    }

    /// Handles the server's notifications and requests with `server` (a generated
    /// `<Doc>ListenerDispatcher`, say); its answers are posted back in the session.
    /// Without one, requests are answered `-32601` and notifications not taken by a
    /// subscription are dropped.
    pub fn serve(mut self, server: Server) -> Self {
        self.listener = Some(server);
        self
    }

    /// Opens the session's `GET` stream once the session is known, for what the server
    /// sends outside any request (pushed subscription items among them), and opens it
    /// again (resuming with `Last-Event-ID`) when it drops. Off by default.
    pub fn open_stream(mut self, open: bool) -> Self {
        self.open_stream = open;
        self
    }

    /// How many times in a row a dropped stream is resumed without receiving an event
    /// before the exchange fails (default 3), and the pause before each attempt
    /// (default 200 ms) until the server says another with an event's `retry:` field,
    /// as MCP's priming events do.
    pub fn resume_attempts(mut self, attempts: usize, pause: Duration) -> Self {
        self.resume_attempts = attempts;
        self.retry = pause;
        self
    }
}

/// A client's streaming state.
pub(super) struct Streams {
    pub(super) settings: ClientStreaming,
    session: Mutex<Option<HeaderValue>>,
    /// The protocol version learnt from the server, when a header is set for it.
    version: Mutex<Option<HeaderValue>>,
    inbox: OnceLock<Inbox>,
    listener: Option<Connection>,
    /// Whether the `GET` stream was started.
    pub(super) get_started: std::sync::atomic::AtomicBool,
}

impl Streams {
    pub(super) fn new(settings: ClientStreaming) -> Self {
        let listener = settings
            .listener
            .as_ref()
            .map(|server| server.connection(Metadata::default()));
        Self {
            settings,
            session: Mutex::new(None),
            version: Mutex::new(None),
            inbox: OnceLock::new(),
            listener,
            get_started: std::sync::atomic::AtomicBool::new(false),
        }
    }

    pub(super) fn attach(&self, inbox: Inbox) {
        let _ = self.inbox.set(inbox);
    }

    /// The session id to send, if one is known.
    pub(super) fn session(&self) -> Option<HeaderValue> {
        self.session
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Keeps the session id an answer carries; `true` when it is a new one.
    pub(super) fn keep_session(&self, value: Option<&HeaderValue>) -> bool {
        let Some(value) = value else {
            return false;
        };
        let mut session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        let new = session.as_ref() != Some(value);
        *session = Some(value.clone());
        new
    }

    /// Forgets the session (the server said it is gone: the next initialisation
    /// starts another).
    pub(super) fn forget_session(&self) {
        *self.session.lock().unwrap_or_else(PoisonError::into_inner) = None;
        *self.version.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// The protocol version header to send, once learnt.
    pub(super) fn version(&self) -> Option<(HeaderName, HeaderValue)> {
        let name = self.settings.version.clone()?;
        let value = self
            .version
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()?;
        Some((name, value))
    }

    /// Learns the protocol version from `message`, a response whose result has a
    /// `protocolVersion` string, while none is known (and a header is set for it).
    pub(super) fn learn_version(&self, message: &[u8]) {
        if self.settings.version.is_none() {
            return;
        }
        let mut version = self.version.lock().unwrap_or_else(PoisonError::into_inner);
        if version.is_some() {
            return;
        }
        let Ok(answer) = serde_json::from_slice::<serde_json::Value>(message) else {
            return;
        };
        let learnt = answer
            .get("result")
            .and_then(|result| result.get("protocolVersion"))
            .and_then(serde_json::Value::as_str)
            .and_then(|value| HeaderValue::try_from(value).ok());
        if learnt.is_some() {
            *version = learnt;
        }
    }

    /// A whole JSON answer, on a streaming client: its responses go through the
    /// inbox, as an event stream's do (so that a subscribe call's subscription is
    /// routed before its first item, which comes on the `GET` stream), unless one of
    /// them has a null id (a refusal of the whole message), which only the exchange can
    /// pair with its calls. `Some` when routed.
    pub(super) fn route_whole(
        &self,
        body: Bytes,
    ) -> Option<Result<crate::client::Delivery, crate::client::TransportError>> {
        let inbox = self.inbox.get()?;
        let value: serde_json::Value = serde_json::from_slice(&body).ok()?;
        let null_id = |member: &serde_json::Value| member.get("id").is_none_or(|id| id.is_null());
        let routable = match &value {
            serde_json::Value::Array(members) => !members.iter().any(null_id),
            member => !null_id(member),
        };
        if !routable {
            return None;
        }
        inbox.deliver(body);
        Some(Ok(crate::client::Delivery::Routed))
    }

    /// Routes one message received on an event stream; returns the answer to post
    /// back (to the server's requests) and whether it was a response.
    pub(super) async fn receive(&self, message: Bytes) -> (Option<Vec<u8>>, bool) {
        let inbox = self.inbox.get();
        let notification = match TwoWay::parse(&message, usize::MAX, None) {
            TwoWay::Responses => {
                self.learn_version(&message);
                if let Some(inbox) = inbox {
                    inbox.deliver(message);
                }
                return (None, true);
            }
            TwoWay::Calls {
                message: Ok(Message::Single(Entry::Notification(notification))),
                ..
            } => Some((notification.method.into_owned(), notification.params)),
            TwoWay::Calls { .. } => None,
        };
        // A subscription's item goes to its subscription.
        if let (Some((method, params)), Some(inbox)) = (&notification, inbox)
            && inbox.routes_notifications()
            && inbox.route_notification(method, *params, &message)
        {
            return (None, false);
        }
        let Some(listener) = &self.listener else {
            return (not_served(&message), false);
        };
        (listener.handle(&message).await, false)
    }
}

/// What a client without a listener answers the server's requests: `-32601` for each.
fn not_served(message: &[u8]) -> Option<Vec<u8>> {
    let entries = match Message::parse(message).ok()? {
        Message::Single(entry) => vec![entry],
        Message::Batch(entries) => entries,
    };
    let mut answers = Vec::new();
    for entry in entries {
        if let Entry::Request(request) = entry {
            let mut answer = Vec::new();
            crate::protocol::write_error(
                &mut answer,
                &request.id,
                &crate::protocol::ErrorObject::method_not_found(),
            );
            answers.push(answer);
        }
    }
    match answers.len() {
        0 => None,
        1 => answers.pop(),
        _ => {
            let mut batch = b"[".to_vec();
            batch.extend(answers.join(&b","[..]));
            batch.push(b']');
            Some(batch)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_without_a_listener_are_refused_by_id() {
        let answer = not_served(br#"{"jsonrpc":"2.0","id":"a","method":"x"}"#).unwrap();
        assert_eq!(
            answer,
            br#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"a"}"#
        );
        assert!(not_served(br#"{"jsonrpc":"2.0","method":"x"}"#).is_none());
    }
}
