//! How a connection cancels calls ([`Cancellation`]): the notification it sends for a
//! call given up, the one it honours from the other side, and what a cancelled call is
//! answered.

use crate::protocol::{ErrorObject, code};
use bytes::Bytes;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// The Language Server Protocol's code for a request cancelled by its client
/// (`ErrorCodes.RequestCancelled`).
pub const LSP_REQUEST_CANCELLED: i64 = -32800;

/// A connection's cancellation settings ([`Builder::cancellation`](super::Builder::cancellation)):
/// the notification it sends for a call of its own given up (dropped, or timed out),
/// the by-name param of that notification which carries the call's id, and what a
/// call of the other side is answered when that notification cancels it.
///
/// JSON-RPC 2.0 has no cancellation; the protocols built on it each name their own:
///
/// | preset | notification | its param | a cancelled call is answered |
/// |---|---|---|---|
/// | [`Cancellation::LSP`] | `$/cancelRequest` | `id` | an error `-32800` (LSP's `RequestCancelled`) |
/// | [`Cancellation::MCP`] | `notifications/cancelled` | `requestId` | nothing: MCP says the receiver SHOULD NOT answer a cancelled request |
///
/// Any other protocol's is [`Cancellation::new`], answered `-32013`
/// ([`code::CANCELLED`]) unless [`answer_code`](Cancellation::answer_code) or
/// [`unanswered`](Cancellation::unanswered) says otherwise.
///
/// ```
/// use rpcsmith::transport::peer::{Cancellation, Peer};
///
/// let mcp = Peer::builder().cancellation(Cancellation::MCP);
/// let own = Peer::builder().cancellation(Cancellation::new("job/stop", "job").unanswered());
/// # drop((mcp, own));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cancellation {
    method: Cow<'static, str>,
    param: Cow<'static, str>,
    answer: Option<i64>,
}

impl Cancellation {
    /// The Language Server Protocol's: `$/cancelRequest` with `{"id": …}`; a cancelled
    /// call is answered with the error [`LSP_REQUEST_CANCELLED`] (`-32800`).
    pub const LSP: Self = Self {
        method: Cow::Borrowed("$/cancelRequest"),
        param: Cow::Borrowed("id"),
        answer: Some(LSP_REQUEST_CANCELLED),
    };

    /// The Model Context Protocol's: `notifications/cancelled` with
    /// `{"requestId": …}`; a cancelled call is not answered at all (MCP: the receiver
    /// SHOULD NOT send a response for a cancelled request), and this side's call that
    /// is given up fails as it would without cancellation (dropped: nobody waits;
    /// timed out: [`Error::Timeout`](crate::client::Error::Timeout)).
    pub const MCP: Self = Self {
        method: Cow::Borrowed("notifications/cancelled"),
        param: Cow::Borrowed("requestId"),
        answer: None,
    };

    /// Cancellation by the notification `method`, naming the call's id in its
    /// by-name param `param`; a cancelled call is answered `-32013`
    /// ([`code::CANCELLED`]).
    pub fn new(method: impl Into<Cow<'static, str>>, param: impl Into<Cow<'static, str>>) -> Self {
        Self {
            method: method.into(),
            param: param.into(),
            answer: Some(code::CANCELLED),
        }
    }

    /// A cancelled call is answered with an error of this code.
    #[must_use]
    pub fn answer_code(mut self, code: i64) -> Self {
        self.answer = Some(code);
        self
    }

    /// A cancelled call is not answered at all.
    #[must_use]
    pub fn unanswered(mut self) -> Self {
        self.answer = None;
        self
    }

    /// The cancellation notification's method.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The by-name param of the notification that holds the cancelled call's id.
    pub fn param(&self) -> &str {
        &self.param
    }

    /// The error code a cancelled call is answered with; `None`: it is not answered.
    pub fn answer(&self) -> Option<i64> {
        self.answer
    }

    /// The notification that cancels this side's call `id`.
    pub(crate) fn message(&self, id: u64) -> Bytes {
        let mut out = Vec::with_capacity(48 + self.method.len() + self.param.len());
        out.extend_from_slice(br#"{"jsonrpc":"2.0","method":"#);
        json_string(&mut out, &self.method);
        out.extend_from_slice(br#","params":{"#);
        json_string(&mut out, &self.param);
        out.push(b':');
        out.extend_from_slice(itoa::Buffer::new().format(id).as_bytes());
        out.extend_from_slice(b"}}");
        out.into()
    }

    /// The id of the call that a cancellation's `params` name, if they name one by
    /// name.
    pub(crate) fn requested_id<'a>(&self, params: &'a RawValue) -> Option<&'a RawValue> {
        // By name only: an array names nothing.
        if !params.get().starts_with('{') {
            return None;
        }
        let fields: std::collections::HashMap<Cow<'a, str>, &'a RawValue> =
            serde_json::from_str(params.get()).ok()?;
        fields.get(&*self.param).copied()
    }

    /// What a cancelled call is answered, if anything.
    pub(crate) fn answer_error(&self) -> Option<ErrorObject> {
        self.answer
            .map(|code| ErrorObject::new(code, "Request cancelled"))
    }
}

fn json_string(out: &mut Vec<u8>, text: &str) {
    // Serialising a `str` into a `Vec` cannot fail.
    let _ = serde_json::to_writer(&mut *out, text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_send_their_protocols_notification() {
        let table = [
            (
                Cancellation::LSP,
                r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":42}}"#,
            ),
            (
                Cancellation::MCP,
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42}}"#,
            ),
            (
                Cancellation::new("x/\"stop\"", "call"),
                r#"{"jsonrpc":"2.0","method":"x/\"stop\"","params":{"call":42}}"#,
            ),
        ];
        for (cancellation, expected) in table {
            assert_eq!(
                std::str::from_utf8(&cancellation.message(42)).unwrap(),
                expected
            );
        }
    }

    fn params(text: &str) -> &RawValue {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn the_id_is_read_by_the_settings_param_name() {
        let mcp = Cancellation::MCP;
        let named = params(r#"{"reason":"user","requestId":"a-1"}"#);
        assert_eq!(mcp.requested_id(named).map(RawValue::get), Some(r#""a-1""#));
        assert!(mcp.requested_id(params(r#"{"id":1}"#)).is_none());
        assert!(mcp.requested_id(params("[1]")).is_none());
        let lsp = Cancellation::LSP;
        assert_eq!(
            lsp.requested_id(params(r#"{"id":7}"#)).map(RawValue::get),
            Some("7")
        );
    }

    #[test]
    fn answers_follow_the_protocol() {
        assert_eq!(
            Cancellation::LSP.answer_error().map(|e| e.code),
            Some(-32800)
        );
        assert!(Cancellation::MCP.answer_error().is_none());
        let custom = Cancellation::new("stop", "id");
        assert_eq!(custom.answer(), Some(code::CANCELLED));
        assert_eq!(custom.clone().answer_code(7).answer(), Some(7));
        assert_eq!(custom.unanswered().answer(), None);
    }
}
