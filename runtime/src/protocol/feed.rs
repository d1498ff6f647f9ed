//! How a subscription's items travel ([`Feed`]): the notification that carries them and
//! the names of its params, the unsubscribe method, and whether items are pulled.
//!
//! Both sides read it: the server to write each item and answer the unsubscribe method,
//! the client to route items to their subscription and to unsubscribe. Generated code
//! builds one `static` per subscribe method through the `const` constructors:
//!
//! ```
//! use rpcsmith::protocol::Feed;
//!
//! static NEW_HEADS: Feed = Feed::push("starknet_subscriptionNewHeads", "subscription_id", "result")
//!     .unsubscribe("starknet_unsubscribe", "subscription_id", false);
//! assert_eq!(NEW_HEADS.notification, Some("starknet_subscriptionNewHeads"));
//! ```

use super::IdKind;

/// How the items of one kind of subscription travel; see the [module docs](self).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Feed {
    /// The notification method that carries items ("starknet_subscriptionNewHeads",
    /// "eth_subscription"); `None` for a pull-only stream.
    pub notification: Option<&'static str>,
    /// Name of the notification's param holding the subscription id ("subscription_id").
    pub id_param: &'static str,
    /// Name of the notification's param holding the item ("result").
    pub item_param: &'static str,
    /// Whether the notification's params are an array `[id, item]` instead of an
    /// object by name.
    pub by_position: bool,
    /// The unsubscribe method ("starknet_unsubscribe", "eth_unsubscribe"), if any.
    pub unsubscribe: Option<&'static str>,
    /// Name of the unsubscribe method's id param.
    pub unsubscribe_param: &'static str,
    /// Whether the unsubscribe method's id is sent by position (`["0xab"]`) rather than
    /// by name (`{"subscription_id":"0xab"}`).
    pub unsubscribe_by_position: bool,
    /// The JSON type of the subscription ids the server assigns: [`IdKind::String`]
    /// (random, 128 bits, `0x`-hex; the default) or [`IdKind::Number`] (per connection,
    /// counting up).
    pub id_kind: IdKind,
    /// Always pulled (`rpc.stream.next`), even on transports that can push.
    pub pull_only: bool,
}

impl Feed {
    /// Items pushed as `notification`, whose params `id_param` and `item_param` hold the
    /// subscription id and the item (by name; see [`by_position`](Self::by_position)).
    /// No unsubscribe method, string ids.
    pub const fn push(
        notification: &'static str,
        id_param: &'static str,
        item_param: &'static str,
    ) -> Self {
        Self {
            notification: Some(notification),
            id_param,
            item_param,
            by_position: false,
            unsubscribe: None,
            unsubscribe_param: "",
            unsubscribe_by_position: false,
            id_kind: IdKind::String,
            pull_only: false,
        }
    }

    /// Items pulled one by one with `rpc.stream.next`, whatever the transport; ended
    /// early with `rpc.stream.cancel`.
    pub const fn pull() -> Self {
        Self {
            notification: None,
            id_param: "",
            item_param: "",
            by_position: false,
            unsubscribe: None,
            unsubscribe_param: "",
            unsubscribe_by_position: false,
            id_kind: IdKind::String,
            pull_only: true,
        }
    }

    /// Whether the notification's params are the array `[id, item]`.
    #[must_use]
    pub const fn by_position(mut self, by_position: bool) -> Self {
        self.by_position = by_position;
        self
    }

    /// The unsubscribe method, the name of its id param, and whether that id is sent
    /// by position.
    #[must_use]
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

    /// Subscription ids are integers, counting up per connection.
    #[must_use]
    pub const fn integer_ids(mut self) -> Self {
        self.id_kind = IdKind::Number;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_set_what_they_name() {
        const FEED: Feed = Feed::push("eth_subscription", "subscription", "result")
            .by_position(true)
            .unsubscribe("eth_unsubscribe", "id", true)
            .integer_ids();
        assert_eq!(FEED.notification, Some("eth_subscription"));
        assert_eq!((FEED.id_param, FEED.item_param), ("subscription", "result"));
        assert!(FEED.by_position && FEED.unsubscribe_by_position && !FEED.pull_only);
        assert_eq!(FEED.unsubscribe, Some("eth_unsubscribe"));
        assert_eq!(FEED.id_kind, IdKind::Number);
        let pull = Feed::pull();
        assert!(pull.pull_only && pull.notification.is_none());
        assert_eq!(pull.id_kind, IdKind::String);
    }
}
