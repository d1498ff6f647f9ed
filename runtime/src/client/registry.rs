//! A client's pushed subscriptions, by (notification method, subscription id): where
//! the reader of a message stream routes each item notification.
//!
//! A subscription enters the registry when the answer to its subscribe call is routed
//! (in the reader, before the next message is read: an item that follows the answer at
//! once finds it), and leaves it when it is unsubscribed or dropped. A lost connection
//! unkeys every subscription (ids belong to a connection) but keeps it live, to be
//! re-issued on the next one; a closed connection ends them all.

use super::slot::Slot;
use super::subscription_id::SubscriptionId;
use crate::protocol::Feed;
use bytes::Bytes;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The live subscriptions of one client.
#[derive(Default)]
pub(crate) struct Registry {
    routes: Mutex<Routes>,
    /// Whether any subscription is routed: the reader's fast path, shared with the
    /// client's inboxes.
    routed: Arc<AtomicBool>,
    next_serial: AtomicU64,
}

#[derive(Default)]
struct Routes {
    by_method: HashMap<&'static str, Route>,
    /// Every live subscription, routed now or waiting to be re-issued.
    live: HashMap<u64, Arc<Slot>>,
    /// End notifications ([`Feed::end`]), to the notification method whose
    /// subscriptions they end.
    ends: HashMap<&'static str, &'static str>,
    closed: bool,
}

/// The subscriptions whose items one notification method carries.
struct Route {
    /// The feed of the first of them: feeds sharing a notification method share its
    /// param names.
    feed: &'static Feed,
    ids: HashMap<SubscriptionId, Arc<Slot>>,
}

impl Registry {
    fn routes(&self) -> MutexGuard<'_, Routes> {
        self.routes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A serial for a new subscription.
    pub(crate) fn serial(&self) -> u64 {
        self.next_serial.fetch_add(1, Ordering::Relaxed)
    }

    /// Whether any subscription is routed now, as a flag to read without the
    /// registry.
    pub(crate) fn routing(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.routed)
    }

    /// Routes `slot`'s items by the id `result` (the subscribe call's result) from now
    /// on. On a closed client the slot is closed instead.
    pub(crate) fn register(&self, slot: &Arc<Slot>, result: &[u8]) {
        let Some(notification) = slot.feed.notification else {
            return;
        };
        let id = SubscriptionId::from_result(result);
        let mut routes = self.routes();
        if routes.closed {
            drop(routes);
            slot.close();
            return;
        }
        if slot.is_closed() {
            // Unsubscribed while it was being re-issued.
            return;
        }
        // Live already: re-issued on a new connection. The consumer is told here, in
        // the reader, so that the marker comes before the first item under the new id.
        let again = routes.live.insert(slot.serial, Arc::clone(slot)).is_some();
        let route = routes
            .by_method
            .entry(notification)
            .or_insert_with(|| Route {
                feed: slot.feed,
                ids: HashMap::new(),
            });
        if let Some(old) = slot.id() {
            route.ids.remove(&old);
        }
        route.ids.insert(id.clone(), Arc::clone(slot));
        if let Some(end) = slot.feed.end {
            routes.ends.insert(end, notification);
        }
        if again {
            slot.resubscribed(id);
        } else {
            slot.set_id(Some(id));
        }
        self.routed.store(true, Ordering::Release);
    }

    /// Stops routing `slot` and forgets it; the id it was routed by, if it was.
    pub(crate) fn remove(&self, slot: &Slot) -> Option<SubscriptionId> {
        let mut routes = self.routes();
        routes.live.remove(&slot.serial);
        slot.close();
        let id = slot.set_id(None)?;
        if let Some(route) = slot
            .feed
            .notification
            .and_then(|n| routes.by_method.get_mut(n))
        {
            route.ids.remove(&id);
        }
        Some(id)
    }

    /// Hands a notification to the subscription it is for; `false` when it is for
    /// none (it then goes where notifications go without subscriptions). `message` is
    /// the whole message, which `params` borrows from.
    pub(crate) fn offer(&self, method: &str, params: Option<&RawValue>, message: &Bytes) -> bool {
        let mut routes = self.routes();
        let Some(route) = routes.by_method.get(method) else {
            return routes.end(method, params);
        };
        let Some((id, item)) = params.and_then(|params| id_and_item(route.feed, params)) else {
            return false;
        };
        let Some(slot) = route
            .ids
            .get(&SubscriptionId::from_result(id.get().as_bytes()))
        else {
            return false;
        };
        slot.push(
            super::codec::slice_of(message, item.get().as_bytes()),
            message.len(),
        );
        true
    }

    /// The connection was lost: no subscription is routed (ids belong to a connection),
    /// each stays live until re-issued ([`claim_unrouted`](Self::claim_unrouted)).
    pub(crate) fn unroute(&self) {
        let mut routes = self.routes();
        routes.by_method.clear();
        for slot in routes.live.values() {
            slot.set_id(None);
        }
        self.routed.store(false, Ordering::Release);
    }

    /// The live subscriptions routed by no id (those of a lost connection) that are
    /// not being re-issued already, now marked as being re-issued: each is re-issued by
    /// one caller at a time, until [`Slot::reissued`] says that attempt is over.
    pub(crate) fn claim_unrouted(&self) -> Vec<Arc<Slot>> {
        let routes = self.routes();
        let unrouted = routes.live.values().filter(|slot| slot.claim());
        unrouted.cloned().collect()
    }

    /// Forgets `slot`, refused by the server when it was re-issued.
    pub(crate) fn refuse(&self, slot: &Slot, error: crate::protocol::ErrorObject) {
        self.routes().live.remove(&slot.serial);
        slot.refused(error);
    }

    /// The connection is closed for good: every subscription ends, and so does every
    /// later one.
    pub(crate) fn close(&self) {
        let live = {
            let mut routes = self.routes();
            routes.closed = true;
            routes.by_method.clear();
            routes.ends.clear();
            std::mem::take(&mut routes.live)
        };
        self.routed.store(false, Ordering::Release);
        for slot in live.into_values() {
            slot.close();
        }
    }
}

impl Routes {
    /// Ends the subscription an end notification `method` names, if it is one: it is
    /// routed no more, and its stream ends once what waits is taken.
    fn end(&mut self, method: &str, params: Option<&RawValue>) -> bool {
        let Some(route) = self
            .ends
            .get(method)
            .and_then(|n| self.by_method.get_mut(n))
        else {
            return false;
        };
        let Some(id) = params.and_then(|params| end_id(route.feed, params)) else {
            return false;
        };
        let Some(slot) = route
            .ids
            .remove(&SubscriptionId::from_result(id.get().as_bytes()))
        else {
            return false;
        };
        self.live.remove(&slot.serial);
        slot.set_id(None);
        slot.finish();
        true
    }
}

/// The subscription id in an end notification's params, per `feed`: the first of an
/// array, or the member named as the items' id.
fn end_id<'a>(feed: &Feed, params: &'a RawValue) -> Option<&'a RawValue> {
    if feed.by_position {
        let list: Vec<&'a RawValue> = serde_json::from_str(params.get()).ok()?;
        return list.first().copied();
    }
    let mut de = serde_json::Deserializer::from_str(params.get());
    let pick = Pick {
        id: feed.id_param,
        item: feed.item_param,
    };
    de::Deserializer::deserialize_map(&mut de, pick).ok()?.0
}

/// The subscription id and the item in a notification's params, per `feed`: an array
/// `[id, item]`, or an object holding them by name.
fn id_and_item<'a>(feed: &Feed, params: &'a RawValue) -> Option<(&'a RawValue, &'a RawValue)> {
    if feed.by_position {
        let list: Vec<&'a RawValue> = serde_json::from_str(params.get()).ok()?;
        return Some((list.first()?, list.get(1)?));
    }
    let mut de = serde_json::Deserializer::from_str(params.get());
    let picked = de::Deserializer::deserialize_map(
        &mut de,
        Pick {
            id: feed.id_param,
            item: feed.item_param,
        },
    )
    .ok()?;
    Some((picked.0?, picked.1?))
}

/// Picks two members of an object by name, borrowing their values, reading every other
/// member past.
struct Pick<'n> {
    id: &'n str,
    item: &'n str,
}

/// Which member a key names.
enum Named {
    Id,
    Item,
    Other,
}

impl<'de> Visitor<'de> for Pick<'_> {
    type Value = (Option<&'de RawValue>, Option<&'de RawValue>);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut id, mut item) = (None, None);
        while let Some(named) = map.next_key_seed(&self)? {
            match named {
                Named::Id => id = Some(map.next_value()?),
                Named::Item => item = Some(map.next_value()?),
                Named::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok((id, item))
    }
}

impl<'de> DeserializeSeed<'de> for &Pick<'_> {
    type Value = Named;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Named, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for &Pick<'_> {
    type Value = Named;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Named, E> {
        Ok(if key == self.id {
            Named::Id
        } else if key == self.item {
            Named::Item
        } else {
            Named::Other
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::slot::{Bounds, Next};
    use std::task::{Context, Poll, Waker};

    static BY_NAME: Feed = Feed::push("note", "subscription_id", "result");
    static BY_POSITION: Feed = Feed::push("note", "", "").by_position(true);

    fn slot(registry: &Registry, feed: &'static Feed) -> Arc<Slot> {
        let params = serde_json::value::to_raw_value(&()).unwrap();
        Arc::new(Slot::new(
            registry.serial(),
            feed,
            ("sub", params),
            Bounds::default(),
        ))
    }

    fn offer(registry: &Registry, params: &str) -> bool {
        let message = Bytes::from(params.to_owned());
        let params: &RawValue = serde_json::from_slice(&message).unwrap();
        registry.offer("note", Some(params), &message)
    }

    fn item(slot: &Slot) -> Option<String> {
        match slot.poll_next(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(Next::Item(item)) => Some(String::from_utf8(item.to_vec()).unwrap()),
            _ => None,
        }
    }

    #[test]
    fn items_go_by_method_and_id() {
        let registry = Registry::default();
        let (a, b) = (slot(&registry, &BY_NAME), slot(&registry, &BY_NAME));
        registry.register(&a, br#""0xa""#);
        registry.register(&b, br#" "0x\u0062" "#);
        assert!(offer(
            &registry,
            r#"{"result":{"n":1},"subscription_id":"0xa","x":[1]}"#
        ));
        assert!(offer(&registry, r#"{"subscription_id":"0xb","result":2}"#));
        assert!(!offer(&registry, r#"{"subscription_id":"0xc","result":3}"#));
        assert!(!offer(&registry, r#"{"subscription_id":"0xa"}"#));
        assert!(!registry.offer("other", None, &Bytes::new()));
        assert_eq!(item(&a).as_deref(), Some(r#"{"n":1}"#));
        assert_eq!(item(&b).as_deref(), Some("2"));
        assert_eq!(
            registry.remove(&a).map(|id| id.to_string()).as_deref(),
            Some(r#""0xa""#)
        );
        assert!(!offer(&registry, r#"{"subscription_id":"0xa","result":1}"#));
    }

    #[test]
    fn an_end_notification_ends_its_subscription_only() {
        static ENDING: Feed = Feed::push("note", "subscription_id", "result").end("over");
        let registry = Registry::default();
        let (a, b) = (slot(&registry, &ENDING), slot(&registry, &ENDING));
        registry.register(&a, br#""0xa""#);
        registry.register(&b, br#""0xb""#);
        assert!(offer(&registry, r#"{"subscription_id":"0xa","result":1}"#));
        let end = |params: &str| {
            let message = Bytes::from(params.to_owned());
            let params: &RawValue = serde_json::from_slice(&message).unwrap();
            registry.offer("over", Some(params), &message)
        };
        assert!(!end(r#"{"subscription_id":"0xc"}"#), "no such subscription");
        assert!(end(r#"{"subscription_id":"0xa"}"#));
        assert!(!end(r#"{"subscription_id":"0xa"}"#), "ended once");
        assert!(!offer(&registry, r#"{"subscription_id":"0xa","result":2}"#));
        assert_eq!(item(&a).as_deref(), Some("1"));
        let done = a.poll_next(&mut Context::from_waker(Waker::noop()));
        assert!(matches!(done, Poll::Ready(Next::Done)));
        assert_eq!(registry.remove(&a), None, "nothing left to unsubscribe");
        assert!(offer(&registry, r#"{"subscription_id":"0xb","result":3}"#));
    }

    #[test]
    fn by_position_and_lost_connections() {
        let registry = Registry::default();
        let a = slot(&registry, &BY_POSITION);
        registry.register(&a, b"7");
        assert!(offer(&registry, r#"[7, "x"]"#));
        assert_eq!(item(&a).as_deref(), Some(r#""x""#));
        registry.unroute();
        assert!(!offer(&registry, r#"[7, "x"]"#));
        assert_eq!(registry.claim_unrouted().len(), 1);
        assert!(registry.claim_unrouted().is_empty(), "claimed once");
        registry.register(&a, b"8");
        assert!(offer(&registry, r#"[8, "y"]"#));
        registry.close();
        assert!(registry.claim_unrouted().is_empty());
        assert!(!offer(&registry, r#"[8, "y"]"#));
    }
}
