//! View structs of subscriptions: how a subscribe method's items travel (its `Feed`
//! static) and how the runtime answers an unsubscribe method.

use serde::Serialize;

use super::rust::{Spelling, literal_text, string_literal, ty_expr};
use crate::service::{DeclaredError, Method, Part, Services};
use crate::settings::ParamsBy;
use crate::typespace::TypeDef;

/// How a subscribe method's items travel: the `static` Feed both sides read.
#[derive(Debug, Default, Serialize)]
pub(crate) struct SubscribeView {
    /// The item type.
    pub(crate) item_ty: String,
    /// The static's name (`STARKNET_SUBSCRIBE_NEW_HEADS_FEED`).
    pub(crate) feed: String,
    /// Always pulled: `Feed::pull()`; else `Feed::push(notification, id, item)`.
    pub(crate) pull: bool,
    /// The notification, the id param and the item param, as string literals.
    pub(crate) notification: String,
    pub(crate) id_param: String,
    pub(crate) item_param: String,
    /// The shown names, for docs.
    pub(crate) notification_shown: String,
    pub(crate) by_position: bool,
    /// The unsubscribe method and its id param as string literals, and whether the id
    /// goes by position.
    pub(crate) has_unsubscribe: bool,
    pub(crate) unsubscribe: String,
    pub(crate) unsubscribe_param: String,
    pub(crate) unsubscribe_by_position: bool,
    /// The document does not list the unsubscribe method (jsonrpsee's name): the
    /// dispatcher answers it with this subscription's feed (the first subscription of
    /// that name does).
    pub(crate) answers_unsubscribe: bool,
    pub(crate) integer_ids: bool,
    /// The end notification, as a string literal.
    pub(crate) has_end: bool,
    pub(crate) end: String,
    /// The code the unsubscribe method answers for an unknown id (its single declared
    /// error), which the client reads as `false`.
    pub(crate) has_unknown_id: bool,
    pub(crate) unknown_id: i64,
}

/// How the runtime answers an unsubscribe method.
#[derive(Debug, Default, Serialize)]
pub(crate) struct UnsubscribeView {
    /// The feed static of a subscription it ends.
    pub(crate) feed: String,
    /// An unknown id is answered with the method's single declared error (else `false`):
    /// its code, and its message as a string literal.
    pub(crate) has_unknown: bool,
    pub(crate) unknown_code: i64,
    pub(crate) unknown_message: String,
}

/// The name of the static Feed of the subscribe method `m`.
fn feed_name(m: &Method) -> String {
    format!(
        "{}_FEED",
        m.rust.trim_start_matches("r#").to_ascii_uppercase()
    )
}

pub(super) fn subscribe(
    m: &Method,
    services: &Services,
    defs: &[TypeDef],
) -> Option<SubscribeView> {
    let Part::Subscribe(stream) = &m.part else {
        return None;
    };
    let unsubscribe = stream.unsubscribe.as_ref();
    let listed = unsubscribe.and_then(|u| services.methods.iter().find(|x| x.wire == u.method));
    let unsubscribe_by_position = unsubscribe.is_some_and(|u| u.positional)
        || listed.is_some_and(|u| u.sends == ParamsBy::Position);
    let unknown = listed.and_then(|u| unknown_id(u));
    Some(SubscribeView {
        item_ty: ty_expr(&stream.item, Spelling::beside_types(defs)),
        feed: feed_name(m),
        pull: stream.pull,
        notification: string_literal(&stream.notification),
        id_param: string_literal(&stream.id_param),
        item_param: string_literal(&stream.item_param),
        notification_shown: literal_text(&stream.notification),
        by_position: stream.by_position,
        has_unsubscribe: unsubscribe.is_some(),
        unsubscribe: unsubscribe.map_or_else(String::new, |u| string_literal(&u.method)),
        unsubscribe_param: unsubscribe.map_or_else(String::new, |u| string_literal(&u.param)),
        unsubscribe_by_position,
        answers_unsubscribe: unsubscribe.is_some_and(|u| first_unlisted(m, &u.method, services)),
        integer_ids: stream.integer_ids,
        has_end: stream.end.is_some(),
        end: stream
            .end
            .as_deref()
            .map_or_else(String::new, string_literal),
        has_unknown_id: unknown.is_some(),
        unknown_id: unknown.map_or(0, |e| e.code),
    })
}

/// The error an unsubscribe method answers for an unknown id: its single declared
/// error, if it declares exactly one.
fn unknown_id(unsubscribe: &Method) -> Option<&DeclaredError> {
    match unsubscribe.errors.as_slice() {
        [only] => Some(only),
        _ => None,
    }
}

/// Whether the unsubscribe method `name` is no method of the document and `m` is the
/// first subscription (in document order) it ends: the one whose dispatcher arm
/// answers it.
fn first_unlisted(m: &Method, name: &str, services: &Services) -> bool {
    if services.methods.iter().any(|x| x.wire == name) {
        return false;
    }
    let first = services.methods.iter().find(|x| match &x.part {
        Part::Subscribe(s) => s.unsubscribe.as_ref().is_some_and(|u| u.method == name),
        _ => false,
    });
    first.is_some_and(|x| x.wire == m.wire)
}

pub(super) fn unsubscribe(m: &Method, services: &Services) -> Option<UnsubscribeView> {
    let Part::Unsubscribe { subscribe } = &m.part else {
        return None;
    };
    let of = services.methods.iter().find(|x| &x.wire == subscribe)?;
    let unknown = unknown_id(m);
    Some(UnsubscribeView {
        feed: feed_name(of),
        has_unknown: unknown.is_some(),
        unknown_code: unknown.map_or(0, |e| e.code),
        unknown_message: unknown.map_or_else(String::new, |e| string_literal(&e.message)),
    })
}
