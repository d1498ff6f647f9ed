//! How the items of a subscription travel on the wire: [`Feed`], one per subscribe
//! method, read by both engines (the server to write items and answer the unsubscribe
//! method, the client to route items and send the unsubscribe).

use std::collections::HashMap;

use serde_json::value::RawValue;

use super::escape::write_str;
use super::id::IdKind;

/// How a subscription's items travel: the notification that carries them and its param
/// names, the unsubscribe method, the kind of ids the server assigns, and whether the
/// stream is always pulled.
///
/// Generated code builds one `static` per subscribe method, through the `const`
/// constructors and setters (the struct is `#[non_exhaustive]`).
///
/// ```
/// use rpcsmith::protocol::{Feed, IdKind};
///
/// // Starknet: `starknet_subscriptionNewHeads` carries `{"subscription_id": …, "result": …}`.
/// static NEW_HEADS: Feed = Feed::push("starknet_subscriptionNewHeads", "subscription_id", "result")
///     .unsubscribe("starknet_unsubscribe", "subscription_id", false);
/// assert_eq!(NEW_HEADS.notification, Some("starknet_subscriptionNewHeads"));
/// assert_eq!(NEW_HEADS.id_kind, IdKind::String);
///
/// // Ethereum-shaped, with integer ids and items by position: `[id, item]`.
/// static LOGS: Feed = Feed::push("logs", "subscription", "result")
///     .by_position(true)
///     .unsubscribe("unsubscribeLogs", "subscription", true)
///     .integer_ids();
/// assert!(LOGS.by_position && LOGS.id_kind == IdKind::Number);
///
/// // Always pulled with `rpc.stream.next`, whatever the transport.
/// static EXPORT: Feed = Feed::pull();
/// assert!(EXPORT.pull_only && EXPORT.notification.is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Feed {
    /// The notification method that carries items (`"starknet_subscriptionNewHeads"`,
    /// `"eth_subscription"`); `None` for a pull-only stream.
    pub notification: Option<&'static str>,
    /// Name of the notification's param holding the subscription id (`"subscription_id"`).
    pub id_param: &'static str,
    /// Name of the notification's param holding the item (`"result"`).
    pub item_param: &'static str,
    /// Whether the notification's params are an array `[id, item]` (in the order of the
    /// document's params) instead of an object by name.
    pub by_position: bool,
    /// The unsubscribe method (`"starknet_unsubscribe"`, `"eth_unsubscribe"`), if any.
    pub unsubscribe: Option<&'static str>,
    /// Name of the unsubscribe method's id param.
    pub unsubscribe_param: &'static str,
    /// Whether the unsubscribe method's id is sent by position (`["0xab"]`) rather than
    /// by name (`{"subscription_id":"0xab"}`).
    pub unsubscribe_by_position: bool,
    /// The JSON type of the subscription ids the server assigns:
    /// [`IdKind::String`] (random, 128 bits, `0x`-hex; the default) or
    /// [`IdKind::Number`] (per connection, counting up from 1). ([`IdKind::Null`] is
    /// read as [`IdKind::String`].)
    pub id_kind: IdKind,
    /// Always pulled (`rpc.stream.next`), even on transports that can push.
    pub pull_only: bool,
    /// The notification that says a subscription's items are over, carrying only its
    /// id (`{"<id_param>": id}`, or `[id]` by position), if the document declares one.
    /// Without it a subscription whose items end stays registered, silent, until the
    /// client unsubscribes or the connection closes: the protocol cannot say "ended".
    pub end: Option<&'static str>,
    /// The error code the unsubscribe method answers for an id it does not know
    /// (Starknet's `INVALID_SUBSCRIPTION_ID`, 66), if the document declares one: the
    /// client reads it as "nothing to unsubscribe" (`Ok(false)`), not as a failure.
    pub unknown_id: Option<i64>,
}

impl Feed {
    /// A pushed subscription: items arrive as the `notification` method, whose params
    /// name the subscription id `id_param` and the item `item_param` (by name; see
    /// [`by_position`](Self::by_position)). No unsubscribe method; string ids.
    pub const fn push(
        notification: &'static str,
        id_param: &'static str,
        item_param: &'static str,
    ) -> Self {
        Feed {
            notification: Some(notification),
            id_param,
            item_param,
            by_position: false,
            unsubscribe: None,
            unsubscribe_param: "",
            unsubscribe_by_position: false,
            id_kind: IdKind::String,
            pull_only: false,
            end: None,
            unknown_id: None,
        }
    }

    /// A stream that is always pulled (`rpc.stream.next`), on every transport.
    pub const fn pull() -> Self {
        Feed {
            notification: None,
            id_param: "",
            item_param: "",
            by_position: false,
            unsubscribe: None,
            unsubscribe_param: "",
            unsubscribe_by_position: false,
            id_kind: IdKind::String,
            pull_only: true,
            end: None,
            unknown_id: None,
        }
    }

    /// Whether the notification's params are `[id, item]` rather than an object.
    pub const fn by_position(mut self, by_position: bool) -> Self {
        self.by_position = by_position;
        self
    }

    /// The unsubscribe method, the name of its id param, and whether the id is sent by
    /// position.
    pub const fn unsubscribe(
        mut self,
        method: &'static str,
        param: &'static str,
        by_position: bool,
    ) -> Self {
        self.unsubscribe = Some(method);
        self.unsubscribe_param = param;
        self.unsubscribe_by_position = by_position;
        self
    }

    /// The server assigns integer ids (per connection, counting up) instead of random
    /// strings.
    pub const fn integer_ids(mut self) -> Self {
        self.id_kind = IdKind::Number;
        self
    }

    /// The notification `method` says that a subscription's items are over: the server
    /// sends it (with the id alone) when they end, and the client's stream ends on it.
    pub const fn end(mut self, method: &'static str) -> Self {
        self.end = Some(method);
        self
    }

    /// The unsubscribe method answers an unknown id with the error `code` (rather than
    /// `false`): the client reads that answer as `false`.
    pub const fn unknown_id(mut self, code: i64) -> Self {
        self.unknown_id = Some(code);
        self
    }
}

impl Feed {
    /// Appends the start of the notification carrying an item of the subscription
    /// `id` (JSON text) to `out`: `{"jsonrpc":"2.0","method":…,"params":{"<id>":…,"<item>":`,
    /// or `…"params":[id,` by position; the item's JSON text goes next, then
    /// [`write_item_end`](Self::write_item_end). Nothing for a feed without a
    /// notification.
    pub(crate) fn write_item_start(&self, out: &mut Vec<u8>, id: &str) {
        let Some(method) = self.notification else {
            return;
        };
        out.extend_from_slice(br#"{"jsonrpc":"2.0","method":"#);
        write_str(out, method);
        if self.by_position {
            out.extend_from_slice(br#","params":["#);
            out.extend_from_slice(id.as_bytes());
            out.push(b',');
            return;
        }
        out.extend_from_slice(br#","params":{"#);
        write_str(out, self.id_param);
        out.push(b':');
        out.extend_from_slice(id.as_bytes());
        out.push(b',');
        write_str(out, self.item_param);
        out.push(b':');
    }

    /// Appends the end of an item's notification (see
    /// [`write_item_start`](Self::write_item_start)).
    pub(crate) fn write_item_end(&self, out: &mut Vec<u8>) {
        if self.notification.is_some() {
            out.extend_from_slice(if self.by_position { b"]}" } else { b"}}" });
        }
    }

    /// The notification ending the subscription `id` (JSON text), if the feed declares
    /// one: `{"jsonrpc":"2.0","method":<end>,"params":{"<id_param>":id}}`, or
    /// `…"params":[id]}` by position.
    pub(crate) fn end_message(&self, id: &str) -> Option<Vec<u8>> {
        let method = self.end?;
        let mut out = Vec::with_capacity(48 + method.len() + id.len());
        out.extend_from_slice(br#"{"jsonrpc":"2.0","method":"#);
        write_str(&mut out, method);
        if self.by_position {
            out.extend_from_slice(br#","params":["#);
            out.extend_from_slice(id.as_bytes());
            out.extend_from_slice(b"]}");
        } else {
            out.extend_from_slice(br#","params":{"#);
            write_str(&mut out, self.id_param);
            out.push(b':');
            out.extend_from_slice(id.as_bytes());
            out.extend_from_slice(b"}}");
        }
        Some(out)
    }

    /// The subscription id in the params of this feed's unsubscribe method: the first
    /// entry of an array, or the member named [`unsubscribe_param`](Self::unsubscribe_param)
    /// of an object (the only member, when the feed names none); a string or a number.
    pub(crate) fn read_unsubscribe_id<'a>(&self, params: &'a RawValue) -> Option<&'a RawValue> {
        let id = if params.get().trim_start().starts_with('[') {
            serde_json::from_str::<Vec<&RawValue>>(params.get())
                .ok()?
                .first()
                .copied()?
        } else {
            let members: HashMap<&str, &RawValue> = serde_json::from_str(params.get()).ok()?;
            match (members.get(self.unsubscribe_param), members.len()) {
                (Some(id), _) => *id,
                (None, 1) if self.unsubscribe_param.is_empty() => *members.values().next()?,
                _ => return None,
            }
        };
        matches!(id.get().as_bytes().first(), Some(b'"' | b'-' | b'0'..=b'9')).then_some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static NAMED: Feed = Feed::push("starknet_subscriptionNewHeads", "subscription_id", "result")
        .unsubscribe("starknet_unsubscribe", "subscription_id", false);
    static POSITIONAL: Feed = Feed::push("eth_subscription", "subscription", "result")
        .by_position(true)
        .unsubscribe("eth_unsubscribe", "subscription", true);

    fn write_item(feed: &Feed, out: &mut Vec<u8>, id: &str, item: &str) {
        feed.write_item_start(out, id);
        if !out.is_empty() {
            out.extend_from_slice(item.as_bytes());
        }
        feed.write_item_end(out);
    }

    #[test]
    fn items_are_written_with_the_documents_param_names() {
        let mut out = Vec::new();
        write_item(&NAMED, &mut out, r#""0x1f""#, r#"{"n":1}"#);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"jsonrpc":"2.0","method":"starknet_subscriptionNewHeads","params":{"subscription_id":"0x1f","result":{"n":1}}}"#
        );
        let mut out = Vec::new();
        write_item(&POSITIONAL, &mut out, "7", "[1,2]");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"jsonrpc":"2.0","method":"eth_subscription","params":[7,[1,2]]}"#
        );
        let mut out = Vec::new();
        write_item(&Feed::pull(), &mut out, "7", "1");
        assert!(out.is_empty());
    }

    #[test]
    fn ends_carry_the_id_alone() {
        let text = |feed: Feed| {
            feed.end_message(r#""0x1f""#)
                .map(|m| String::from_utf8(m).unwrap())
        };
        assert_eq!(
            text(NAMED.end("starknet_subscriptionEnded")).as_deref(),
            Some(
                r#"{"jsonrpc":"2.0","method":"starknet_subscriptionEnded","params":{"subscription_id":"0x1f"}}"#
            )
        );
        assert_eq!(
            text(POSITIONAL.end("eth_subscriptionEnded")).as_deref(),
            Some(r#"{"jsonrpc":"2.0","method":"eth_subscriptionEnded","params":["0x1f"]}"#)
        );
        assert_eq!(text(NAMED), None);
    }

    #[test]
    fn unsubscribe_ids_are_read_by_name_or_position() {
        let read = |feed: &Feed, params: &str| {
            let params: &RawValue = serde_json::from_str(params).unwrap();
            feed.read_unsubscribe_id(params)
                .map(|id| id.get().to_owned())
        };
        assert_eq!(
            read(&NAMED, r#"{"subscription_id":"0xab"}"#).as_deref(),
            Some(r#""0xab""#)
        );
        assert_eq!(read(&NAMED, r#"["0xab"]"#).as_deref(), Some(r#""0xab""#));
        assert_eq!(read(&POSITIONAL, "[12]").as_deref(), Some("12"));
        assert_eq!(read(&NAMED, r#"{"other":"0xab"}"#), None);
        assert_eq!(read(&NAMED, "[]"), None);
        assert_eq!(read(&NAMED, "[true]"), None);
        assert_eq!(
            read(&Feed::pull(), r#"{"stream":"0xab"}"#).as_deref(),
            Some(r#""0xab""#)
        );
    }
}
