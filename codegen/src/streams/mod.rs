//! Subscriptions tied to the document's methods: which method subscribes, which
//! notification carries its items (and which of its params is the id, which the item),
//! which method unsubscribes.
//!
//! A subscription is declared by the builder ([`Settings::subscriptions`]), by the
//! `x-subscription` extension of its subscribe method, or recognised from a convention
//! ([`declare`]); then each declaration is tied to the document's methods, its missing
//! parts inferred ([`tie`]). A declaration that cannot be tied is a warning with its
//! pointer, and its methods stay plain. Every tie is a note saying what was found.
//!
//! Notifications that follow the Starknet convention and carry the id of a subscription
//! of theirs but belong to no subscribe method (`starknet_subscriptionReorg`, sent on
//! several subscriptions) are *shared*: they are sent by the server to the client, so
//! they are made server→client (the client's `<Doc>Listener` gets them) with a note.
//!
//! [`Settings::subscriptions`]: crate::Settings::subscriptions

mod declare;
mod tie;

use std::collections::HashMap;

use crate::document::{Document, ResolvedMethod};
use crate::error::Diagnostic;
use crate::settings::Settings;
use crate::typespace::{MethodTypes, Ty, TypeDef};

/// One subscription, tied to the document's methods.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stream {
    /// The notification carrying the items (wire name).
    pub(crate) notification: String,
    /// The notification's param holding the id.
    pub(crate) id_param: String,
    /// The notification's param holding the item.
    pub(crate) item_param: String,
    /// The item's type.
    pub(crate) item: Ty,
    /// The notification's params go as an array (`paramStructure: by-position`), else an
    /// object by name (what Starknet and Ethereum nodes send for `either`).
    pub(crate) by_position: bool,
    /// The unsubscribe method, if any.
    pub(crate) unsubscribe: Option<Unsubscribe>,
    /// Ids are integers (the subscribe method's result is an integer), else strings.
    pub(crate) integer_ids: bool,
    /// Always pulled.
    pub(crate) pull: bool,
}

/// The method that ends a subscription.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unsubscribe {
    /// Its wire name.
    pub(crate) method: String,
    /// Its id param's name.
    pub(crate) param: String,
}

/// Every subscription of a document, and what they make of the other methods.
#[derive(Debug, Default)]
pub(crate) struct Streams {
    /// By subscribe method (wire name).
    pub(crate) by_subscribe: HashMap<String, Stream>,
    /// Notifications made server→client: shared by several subscriptions.
    pub(crate) shared: Vec<String>,
    /// What was recognised, one line each (`file:line:col: at /pointer: …`).
    pub(crate) notes: Vec<String>,
    /// Declarations that could not be tied.
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl Streams {
    /// Whether `method` carries a subscription's items (the runtime consumes it).
    pub(crate) fn is_consumed(&self, method: &str) -> bool {
        self.by_subscribe.values().any(|s| s.notification == method)
    }

    /// The first subscribe method (in document order of `methods`) whose unsubscribe is
    /// `method`: the runtime answers `method` with that subscription's feed.
    pub(crate) fn unsubscribed_by<'m>(
        &self,
        method: &str,
        methods: impl IntoIterator<Item = &'m str>,
    ) -> Option<&'m str> {
        methods.into_iter().find(|m| {
            self.by_subscribe
                .get(*m)
                .and_then(|s| s.unsubscribe.as_ref())
                .is_some_and(|u| u.method == method)
        })
    }
}

/// The subscriptions of `document`, whose methods have the types `types` (named in
/// `defs`).
pub(crate) fn streams(
    document: &Document,
    types: &HashMap<&str, &MethodTypes>,
    defs: &[TypeDef],
    settings: &Settings,
) -> Streams {
    let mut out = Streams::default();
    let methods: Vec<Typed<'_>> = document
        .methods
        .iter()
        .filter_map(|m| {
            let types = types.get(m.name.as_str())?;
            Some(Typed { m, types })
        })
        .collect();
    let declarations = declare::declarations(document, &methods, settings, &mut out.diagnostics);
    for d in &declarations {
        match tie::tie(d, &methods, defs) {
            Ok(stream) => {
                out.notes.push(note(document, d, &stream));
                out.by_subscribe.insert(d.method.m.name.clone(), stream);
            }
            Err(why) => {
                let message = format!(
                    "{} `{}` cannot be tied: {why}; it is generated as a plain method",
                    d.source.describe(),
                    d.method.m.name
                );
                out.diagnostics
                    .push(document.resolver.warning_at(&d.at, message));
            }
        }
    }
    if settings.conventions {
        shared_notifications(document, &methods, &mut out);
    }
    out
}

/// The notifications of `document` that the server sends: those carrying the items of a
/// subscription (named by its `x-subscription`, or by the Ethereum or Starknet
/// convention), and `<prefix>_subscription…` notifications shared by the subscriptions
/// of `<prefix>_subscribe…`. Read from names and extensions alone (no types), as the
/// diff needs them.
pub fn server_sent_notifications(document: &Document) -> Vec<String> {
    let notification = |name: &str| {
        document
            .methods
            .iter()
            .any(|m| m.name == name && m.result.is_none())
    };
    let mut out: Vec<String> = Vec::new();
    for m in &document.methods {
        let declared = m
            .extensions
            .get(crate::subscription::EXTENSION)
            .and_then(|v| crate::Subscription::from_extension(v).ok().flatten());
        let named = declared.as_ref().and_then(|s| s.notification.clone());
        let candidates = match named {
            Some(name) => vec![name],
            None => declare::notification_candidates(&m.name),
        };
        if let Some(found) = candidates.into_iter().find(|c| notification(c)) {
            out.push(found);
        }
    }
    for m in &document.methods {
        let Some((prefix, _)) = m.name.split_once("_subscription") else {
            continue;
        };
        let subscribes = document
            .methods
            .iter()
            .any(|s| declare::starknet_parts(&s.name).is_some_and(|(p, _)| p == prefix));
        if subscribes && m.result.is_none() && !out.contains(&m.name) {
            out.push(m.name.clone());
        }
    }
    out
}

/// A method with its types.
#[derive(Clone, Copy)]
pub(crate) struct Typed<'a> {
    pub(crate) m: &'a ResolvedMethod,
    pub(crate) types: &'a MethodTypes,
}

impl Typed<'_> {
    /// The type of the param `name`.
    pub(crate) fn param_ty(&self, name: &str) -> Option<&Ty> {
        let at = self.m.params.iter().position(|p| p.name == name)?;
        self.types.params.get(at).map(|p| &p.ty)
    }
}

fn note(document: &Document, d: &declare::Declaration<'_>, s: &Stream) -> String {
    let unsubscribe = s.unsubscribe.as_ref().map_or_else(
        || "no unsubscribe method".to_owned(),
        |u| format!("unsubscribe `{}`", u.method),
    );
    let how = if s.pull { ", always pulled" } else { "" };
    let message = format!(
        "{} `{}`: items on `{}` (id `{}`, item `{}`), {unsubscribe}{how}",
        d.source.describe(),
        d.method.m.name,
        s.notification,
        s.id_param,
        s.item_param
    );
    format!(
        "note: {}",
        document.resolver.error_at(&d.method.m.location, message)
    )
}

/// Marks the shared notifications: `<prefix>_subscription<Y>`, a notification tied to no
/// subscribe method, with a param of the id type of a subscription of the same prefix.
fn shared_notifications(document: &Document, methods: &[Typed<'_>], out: &mut Streams) {
    for n in methods {
        let name = &n.m.name;
        let Some((prefix, _)) = name.split_once("_subscription") else {
            continue;
        };
        if n.m.result.is_some() || out.is_consumed(name) {
            continue;
        }
        let carries_an_id = out.by_subscribe.iter().any(|(subscribe, s)| {
            let of_prefix = subscribe
                .split_once("_subscribe")
                .is_some_and(|(p, _)| p == prefix);
            let id = methods
                .iter()
                .find(|m| m.m.name == s.notification)
                .and_then(|m| m.param_ty(&s.id_param));
            of_prefix && n.param_ty(&s.id_param).is_some_and(|t| Some(t) == id)
        });
        if carries_an_id {
            out.shared.push(name.clone());
            let message = format!(
                "`{name}` is shared by the subscriptions of `{prefix}_subscribe*` (it carries their id): sent by the server, it is handled by the client's listener"
            );
            let at = document.resolver.error_at(&n.m.location, message);
            out.notes.push(format!("note: {at}"));
        }
    }
}

#[cfg(test)]
mod tests;
