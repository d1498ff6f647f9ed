//! Ties a subscribe method whose result is the *item* (`"result": "item"`, or
//! recognised from jsonrpsee's convention), the way jsonrpsee-based servers publish
//! them: the subscribe call's wire result is the subscription id (a number or a string,
//! which the document does not describe), and each item comes as a notification that
//! jsonrpsee names after the subscription, with params `subscription` (the id) and
//! `result` (the item).
//!
//! What is left out is taken from jsonrpsee's defaults:
//!
//! - the notification: the subscribe method's own name (jsonrpsee's default when no
//!   notification name is given);
//! - the id and item params: `subscription` and `result`;
//! - the unsubscribe method: `<prefix>_unsubscribe<X>` for `<prefix>_subscribe<X>`
//!   (jsonrpsee's own rule), listed in the document or not, its id sent by position
//!   (`[id]`, the only form jsonrpsee reads).
//!
//! The item's type is the method's result. A notification or unsubscribe method the
//! document does list is consumed by the runtime as for any subscription.

use super::declare::Declaration;
use super::tie::{end_notification, named_unsubscribe};
use super::{Stream, Typed, Unsubscribe};

/// jsonrpsee's param holding the subscription id in an item notification.
const ID_PARAM: &str = "subscription";
/// jsonrpsee's param holding the item.
const ITEM_PARAM: &str = "result";

/// The stream `d` declares, its subscribe method's result being the item.
pub(super) fn tie(d: &Declaration<'_>, methods: &[Typed<'_>]) -> Result<Stream, String> {
    let subscribe = d.method;
    let name = &subscribe.m.name;
    let item = subscribe
        .types
        .result
        .clone()
        .ok_or("a subscribe method whose result is the item needs a result")?;
    let notification = d.spec.notification.clone().unwrap_or_else(|| name.clone());
    let listed = methods.iter().find(|m| m.m.name == notification);
    if notification != *name && listed.is_some_and(|m| m.m.result.is_some()) {
        return Err(format!(
            "`{notification}` has a result: it is no notification"
        ));
    }
    let id_param = d.spec.id.clone().unwrap_or_else(|| ID_PARAM.to_owned());
    let item_param = d.spec.item.clone().unwrap_or_else(|| ITEM_PARAM.to_owned());
    let end = match &d.spec.end {
        Some(end) => Some(end_notification(
            end,
            (&notification, &id_param, false),
            methods,
        )?),
        None => None,
    };
    let unsubscribe = match d.spec.unsubscribe.as_deref() {
        Some(method) => Some(unsubscribe(method, methods)?),
        None => unsubscribe_name(name)
            .map(|method| unsubscribe(&method, methods))
            .transpose()?,
    };
    Ok(Stream {
        notification,
        id_param,
        item_param,
        item,
        by_position: false,
        unsubscribe,
        end,
        integer_ids: false,
        pull: d.spec.pull,
    })
}

/// The unsubscribe method `method`: as the document lists it (one param, a result),
/// or, not listed, answered by the runtime all the same; its id sent by position.
fn unsubscribe(method: &str, methods: &[Typed<'_>]) -> Result<Unsubscribe, String> {
    let listed = methods.iter().any(|m| m.m.name == method);
    let mut out = if listed {
        named_unsubscribe(method, methods)?
    } else {
        Unsubscribe {
            method: method.to_owned(),
            param: String::new(),
            listed: false,
            positional: true,
        }
    };
    out.positional = true;
    Ok(out)
}

/// jsonrpsee's unsubscribe method for the subscribe method `name`: `subscribe` at the
/// start of the name (after the namespace, if any) becomes `unsubscribe`.
fn unsubscribe_name(name: &str) -> Option<String> {
    let (namespace, method) = match name.split_once('_') {
        Some((namespace, method)) => (Some(namespace), method),
        None => (None, name),
    };
    let rest = method.strip_prefix("subscribe")?;
    Some(match namespace {
        Some(namespace) => format!("{namespace}_unsubscribe{rest}"),
        None => format!("unsubscribe{rest}"),
    })
}

#[cfg(test)]
mod tests {
    use super::unsubscribe_name;

    #[test]
    fn unsubscribe_names_follow_jsonrpsee() {
        let cases = [
            ("suix_subscribeEvent", Some("suix_unsubscribeEvent")),
            ("chain_subscribeNewHeads", Some("chain_unsubscribeNewHeads")),
            ("subscribeFoo", Some("unsubscribeFoo")),
            ("author_submitAndWatchExtrinsic", None),
            ("eth_subscribe", Some("eth_unsubscribe")),
        ];
        for (name, expected) in cases {
            assert_eq!(unsubscribe_name(name).as_deref(), expected, "{name}");
        }
    }
}
