//! What a message stream carries, as far as the connection must know: the transport's
//! side of it ([`Wire`]), and how a received message is told apart (calls or responses).

use bytes::Bytes;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::io;
use std::task::{Context, Poll};
use std::time::Duration;

/// One thing read from the connection.
#[derive(Debug)]
pub(crate) enum Received {
    /// A whole message.
    Message(Bytes),
    /// Something that is no message (a WebSocket ping or pong): the other side is alive.
    #[cfg_attr(not(feature = "ws"), allow(dead_code))]
    Signal,
    /// A message over the size limit was skipped; the connection goes on.
    TooLarge,
    /// The connection ended (cleanly or not: the reason is logged by the transport).
    Closed,
}

/// A message stream as a transport provides it: both directions, polled by the one task
/// that runs the connection (so a message read can be answered at once, in the same
/// wake-up, and a stalled writer never stops reading).
pub(crate) trait Wire: Send + Unpin + 'static {
    /// The next thing read. After [`Received::Closed`] it is not polled again.
    fn poll_receive(&mut self, cx: &mut Context<'_>) -> Poll<Received>;

    /// Ready when [`send`](Self::send) may take one more message (what is buffered may
    /// have to be written first).
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>;

    /// Buffers one message; call only after [`poll_ready`](Self::poll_ready) said so.
    fn send(&mut self, message: Bytes) -> io::Result<()>;

    /// Writes out what is buffered.
    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>;

    /// Ends the stream in an orderly way (a WebSocket close frame, a write shutdown),
    /// after what is buffered. Failures are only logged: the stream is done either way.
    fn poll_close(&mut self, cx: &mut Context<'_>) -> Poll<()>;

    /// How often to [`ping`](Self::ping) the other side, which is deemed gone after
    /// three whole periods without a sign of life; `None` (the default) never.
    fn keep_alive(&self) -> Option<Duration> {
        None
    }

    /// Buffers a keep-alive probe (a WebSocket ping); only after
    /// [`poll_ready`](Self::poll_ready) said so.
    fn ping(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What a received message is.
#[derive(Debug)]
pub(crate) enum Kind<'a> {
    /// One response or a batch of them: for the client engine.
    Responses,
    /// A `$/cancelRequest` notification, with the id it cancels.
    Cancel(&'a RawValue),
    /// Anything else (requests, notifications, and invalid messages, which the server
    /// engine answers): for the server engine.
    Calls,
}

/// The fields that tell a message's kind; every other field is skipped unread.
#[derive(Deserialize)]
struct Probe<'a> {
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "present")]
    result: bool,
    #[serde(default, deserialize_with = "present")]
    error: bool,
}

#[derive(Deserialize)]
struct CancelParams<'a> {
    #[serde(borrow)]
    id: &'a RawValue,
}

fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(deserializer).map(|_| true)
}

impl Probe<'_> {
    fn is_response(&self) -> bool {
        self.method.is_none() && (self.result || self.error)
    }
}

/// Tells what `message` is. A batch is responses when every entry is one; anything
/// unreadable goes to the server engine, which answers it as the specification says.
pub(crate) fn classify(message: &[u8], cancel: bool) -> Kind<'_> {
    let first = message.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') {
        return match serde_json::from_slice::<Vec<Probe<'_>>>(message) {
            Ok(probes) if !probes.is_empty() && probes.iter().all(Probe::is_response) => {
                Kind::Responses
            }
            _ => Kind::Calls,
        };
    }
    let Ok(probe) = serde_json::from_slice::<Probe<'_>>(message) else {
        return Kind::Calls;
    };
    if probe.is_response() {
        return Kind::Responses;
    }
    if cancel && probe.method.as_deref() == Some(CANCEL_METHOD) {
        let id = probe
            .params
            // By name only: serde would read `[x]` as the struct too.
            .filter(|params| params.get().starts_with('{'))
            .and_then(|params| serde_json::from_str::<CancelParams<'_>>(params.get()).ok());
        if let Some(params) = id {
            return Kind::Cancel(params.id);
        }
    }
    Kind::Calls
}

/// The LSP's cancellation notification.
pub(crate) const CANCEL_METHOD: &str = "$/cancelRequest";

/// The notification that cancels call `id`.
pub(crate) fn cancel_message(id: u64) -> Bytes {
    let mut out = Vec::with_capacity(72);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"#);
    out.extend_from_slice(itoa::Buffer::new().format(id).as_bytes());
    out.extend_from_slice(b"}}");
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        let table: &[(&str, &str)] = &[
            (r#"{"jsonrpc":"2.0","result":null,"id":1}"#, "responses"),
            (
                r#"{"jsonrpc":"2.0","error":{"code":1,"message":"m"},"id":null}"#,
                "responses",
            ),
            (r#"[{"result":1,"id":1},{"error":{},"id":2}]"#, "responses"),
            (r#"[{"result":1,"id":1},{"method":"m"}]"#, "calls"),
            (r#"{"jsonrpc":"2.0","method":"m","id":1}"#, "calls"),
            (r#"{"jsonrpc":"2.0","method":"m"}"#, "calls"),
            ("[]", "calls"),
            ("{", "calls"),
            ("42", "calls"),
            (r#"{"id":1}"#, "calls"),
            (
                r#"{"method":"$/cancelRequest","params":{"id":"a"}}"#,
                "cancel",
            ),
            (r#"{"method":"$/cancelRequest","params":[1]}"#, "calls"),
        ];
        for (message, want) in table {
            let got = match classify(message.as_bytes(), true) {
                Kind::Responses => "responses",
                Kind::Cancel(_) => "cancel",
                Kind::Calls => "calls",
            };
            assert_eq!(got, *want, "{message}");
        }
        let cancel = br#"{"method":"$/cancelRequest","params":{"id":"a"}}"#;
        assert!(matches!(classify(cancel, false), Kind::Calls));
    }

    #[test]
    fn cancel_message_is_a_notification() {
        let message = cancel_message(42);
        assert_eq!(
            &message[..],
            br#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":42}}"#
        );
    }
}
