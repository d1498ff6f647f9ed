//! Ties one declaration to the document's methods, inferring what it leaves out:
//!
//! - the notification: by convention ([`notification_candidates`]);
//! - the id param: the notification's param whose type is the subscribe method's result
//!   (among several, the one whose name says `subscription`);
//! - the item param: the notification's other param (it must have exactly two);
//! - the unsubscribe method: a method whose name contains `unsubscribe` and whose only
//!   param has the id's type; among several, `<prefix>_unsubscribe<X>` for
//!   `<prefix>_subscribe<X>`, else `<prefix>_unsubscribe`;
//! - the end notification: only when declared; it must be a notification of the
//!   document carrying the id under the items' id param name (or first, by position).
//!
//! A subscribe method whose result is the item is tied by [`item_result`](super::item_result).
//!
//! Each failure is the reason the declaration cannot be tied, in the document's terms.

use super::declare::{Declaration, notification_candidates, starknet_parts};
use super::{Stream, Typed, Unsubscribe};
use crate::openrpc::ParamStructure;
use crate::typespace::{Kind, Ty, TypeDef};

/// The stream `d` declares, or why it cannot be tied.
pub(super) fn tie(
    d: &Declaration<'_>,
    methods: &[Typed<'_>],
    defs: &[TypeDef],
) -> Result<Stream, String> {
    if d.spec.result_is_item {
        return super::item_result::tie(d, methods);
    }
    let subscribe = d.method;
    let id_ty = subscribe
        .types
        .result
        .as_ref()
        .ok_or("a subscribe method needs a result (the subscription id)")?;
    let notification = notification(d, methods)?;
    let name = &notification.m.name;
    if notification.m.result.is_some() {
        return Err(format!("`{name}` has a result: it is no notification"));
    }
    let id_param = match &d.spec.id {
        Some(id) => declared_param(notification, id)?,
        None => id_param(notification, id_ty)?,
    };
    let item_param = match &d.spec.item {
        Some(item) => item.clone(),
        None => item_param(notification, &id_param)?,
    };
    let item = notification
        .param_ty(&item_param)
        .ok_or_else(|| format!("`{name}` has no param `{item_param}`"))?
        .clone();
    let id = notification.param_ty(&id_param).unwrap_or(id_ty);
    let unsubscribe = match &d.spec.unsubscribe {
        Some(method) => Some(named_unsubscribe(method, methods)?),
        None => inferred_unsubscribe(&subscribe.m.name, id, methods)?,
    };
    let by_position = notification.m.param_structure == ParamStructure::ByPosition;
    let end = match &d.spec.end {
        Some(end) => Some(end_notification(
            end,
            (name, &id_param, by_position),
            methods,
        )?),
        None => None,
    };
    Ok(Stream {
        notification: name.clone(),
        end,
        by_position,
        id_param,
        item_param,
        item,
        unsubscribe,
        integer_ids: is_integer(id_ty, defs),
        pull: d.spec.pull,
    })
}

/// The notification carrying the items: the one named, or the first of the convention's
/// candidates the document declares.
fn notification<'a>(d: &Declaration<'a>, methods: &[Typed<'a>]) -> Result<Typed<'a>, String> {
    let find = |name: &str| methods.iter().copied().find(|m| m.m.name == name);
    if let Some(name) = &d.spec.notification {
        return find(name)
            .ok_or_else(|| format!("its notification `{name}` is no method of the document"));
    }
    let candidates = notification_candidates(&d.method.m.name);
    if let Some(found) = candidates.iter().find_map(|c| find(c)) {
        return Ok(found);
    }
    if candidates.is_empty() {
        return Err(
            "no notification is named and none follows from its name: name one (`notification`)"
                .to_owned(),
        );
    }
    let looked: Vec<String> = candidates.iter().map(|c| format!("`{c}`")).collect();
    Err(format!(
        "no notification carries its items (the document declares no {}), so their type is unknown",
        looked.join(" or ")
    ))
}

/// `param`, declared as the id's param, when `notification` has it.
fn declared_param(notification: Typed<'_>, param: &str) -> Result<String, String> {
    match notification.param_ty(param) {
        Some(_) => Ok(param.to_owned()),
        None => Err(format!("`{}` has no param `{param}`", notification.m.name)),
    }
}

/// The notification's param whose type is the subscription id's.
fn id_param(notification: Typed<'_>, id_ty: &Ty) -> Result<String, String> {
    let name = &notification.m.name;
    let same: Vec<&str> = notification
        .m
        .params
        .iter()
        .zip(&notification.types.params)
        .filter(|(_, t)| strip(&t.ty) == strip(id_ty))
        .map(|(p, _)| p.name.as_str())
        .collect();
    let named: Vec<&str> = same
        .iter()
        .copied()
        .filter(|p| p.to_ascii_lowercase().contains("subscription"))
        .collect();
    match (same.as_slice(), named.as_slice()) {
        ([one], _) | (_, [one]) => Ok((*one).to_owned()),
        ([], _) => Err(format!(
            "no param of `{name}` has the type of the subscribe method's result: name the id param (`id`)"
        )),
        _ => Err(format!(
            "several params of `{name}` have the type of the subscribe method's result: name the id param (`id`)"
        )),
    }
}

/// The notification's only param besides the id.
fn item_param(notification: Typed<'_>, id_param: &str) -> Result<String, String> {
    let others: Vec<&str> = notification
        .m
        .params
        .iter()
        .map(|p| p.name.as_str())
        .filter(|p| *p != id_param)
        .collect();
    match others.as_slice() {
        [one] => Ok((*one).to_owned()),
        _ => Err(format!(
            "`{}` has {} params besides the id: name the item param (`item`)",
            notification.m.name,
            others.len()
        )),
    }
}

/// The end notification named `end`, for items on `notification` whose id param is
/// `id` (`by_position`: the id goes first): a notification of the document that carries
/// the id as the items do.
pub(super) fn end_notification(
    end: &str,
    (notification, id, by_position): (&str, &str, bool),
    methods: &[Typed<'_>],
) -> Result<String, String> {
    if end == notification {
        return Err(format!(
            "its end notification `{end}` is the notification of its items"
        ));
    }
    let found = methods
        .iter()
        .find(|m| m.m.name == end)
        .ok_or_else(|| format!("its end notification `{end}` is no method of the document"))?;
    if found.m.result.is_some() {
        return Err(format!("`{end}` has a result: it is no notification"));
    }
    let carries_id = if by_position {
        !found.m.params.is_empty()
    } else {
        found.m.params.iter().any(|p| p.name == id)
    };
    if !carries_id {
        return Err(format!(
            "its end notification `{end}` has no param `{id}` (the id, named as on `{notification}`)"
        ));
    }
    Ok(end.to_owned())
}

/// The unsubscribe method named: it must take one param.
pub(super) fn named_unsubscribe(
    method: &str,
    methods: &[Typed<'_>],
) -> Result<Unsubscribe, String> {
    let found = methods
        .iter()
        .find(|m| m.m.name == method)
        .ok_or_else(|| format!("its unsubscribe method `{method}` is no method of the document"))?;
    match found.m.params.as_slice() {
        [param] if found.m.result.is_some() => Ok(Unsubscribe {
            method: method.to_owned(),
            param: param.name.clone(),
            listed: true,
            positional: false,
        }),
        _ => Err(format!(
            "its unsubscribe method `{method}` must take one param (the id) and have a result"
        )),
    }
}

/// The unsubscribe method of `subscribe` found by its name and its param's type; `None`
/// when there is none.
fn inferred_unsubscribe(
    subscribe: &str,
    id: &Ty,
    methods: &[Typed<'_>],
) -> Result<Option<Unsubscribe>, String> {
    let candidates: Vec<Typed<'_>> = methods
        .iter()
        .copied()
        .filter(|m| {
            let one = m.types.params.len() == 1 && m.m.params.len() == 1;
            m.m.name.to_ascii_lowercase().contains("unsubscribe")
                && one
                && m.m.result.is_some()
                && strip(&m.types.params[0].ty) == strip(id)
        })
        .collect();
    let chosen = match candidates.as_slice() {
        [] => return Ok(None),
        [one] => *one,
        several => {
            let paired = subscribe.replacen("_subscribe", "_unsubscribe", 1);
            let shared = starknet_parts(subscribe).map(|(p, _)| format!("{p}_unsubscribe"));
            let by = |name: &str| several.iter().copied().find(|m| m.m.name == name);
            match by(&paired).or_else(|| shared.as_deref().and_then(by)) {
                Some(m) => m,
                None => {
                    let names: Vec<String> =
                        several.iter().map(|m| format!("`{}`", m.m.name)).collect();
                    return Err(format!(
                        "several methods may unsubscribe it ({}): name one (`unsubscribe`)",
                        names.join(", ")
                    ));
                }
            }
        }
    };
    Ok(Some(Unsubscribe {
        method: chosen.m.name.clone(),
        param: chosen.m.params[0].name.clone(),
        listed: true,
        positional: false,
    }))
}

/// Whether `t` is an integer, through the names given to it (`SubscriptionId: integer`).
fn is_integer(t: &Ty, defs: &[TypeDef]) -> bool {
    let mut t = strip(t);
    // Each step follows one alias; a chain longer than the type space is a cycle.
    for _ in 0..=defs.len() {
        match t {
            Ty::Int(_) => return true,
            Ty::Named(id) => match defs.get(id.0).map(|d| &d.kind) {
                Some(Kind::Alias(inner) | Kind::Newtype(inner)) => t = strip(inner),
                Some(Kind::IntEnum(_)) => return true,
                _ => return false,
            },
            _ => return false,
        }
    }
    false
}

/// `t` without `Option` (an optional param holds the same type).
fn strip(t: &Ty) -> &Ty {
    match t {
        Ty::Option(inner) => strip(inner),
        other => other,
    }
}
