//! Where subscriptions are declared, first found wins: the builder (or the command
//! line), the method's `x-subscription` extension, then the conventions of real
//! documents (when [`Settings::conventions`] is on):
//!
//! - Starknet: `<prefix>_subscribe<X>` with a result (the subscription id);
//! - Ethereum: `eth_subscribe`.
//!
//! [`Settings::conventions`]: crate::Settings::conventions

use super::Typed;
use crate::document::Document;
use crate::error::Diagnostic;
use crate::resolve::Location;
use crate::settings::Settings;
use crate::subscription::{EXTENSION, Subscription};

/// Who declared a subscription.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// The builder's `subscription` (or the command line's `--subscription`).
    Builder,
    /// The subscribe method's `x-subscription`.
    Extension,
    /// The Starknet WebSocket convention.
    Starknet,
    /// Ethereum's `eth_subscribe`.
    Ethereum,
}

impl Source {
    /// The subscription's description in messages.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Source::Builder => "the subscription declared by the builder on",
            Source::Extension => "the subscription declared by x-subscription on",
            Source::Starknet => "the subscription recognised (Starknet convention) on",
            Source::Ethereum => "the subscription recognised (Ethereum's eth_subscribe) on",
        }
    }
}

/// One declared subscription.
pub(crate) struct Declaration<'a> {
    /// The subscribe method.
    pub(crate) method: Typed<'a>,
    /// What was declared (the parts given).
    pub(crate) spec: Subscription,
    pub(crate) source: Source,
    /// Where problems with it are reported.
    pub(crate) at: Location,
}

/// Every declaration, in document order. Problems (an extension that cannot be read, a
/// builder entry naming no method) are warnings in `diagnostics`.
pub(crate) fn declarations<'a>(
    document: &Document,
    methods: &[Typed<'a>],
    settings: &Settings,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Declaration<'a>> {
    for name in settings.subscriptions.keys() {
        if !document.methods.iter().any(|m| &m.name == name) {
            let at = Location::new(document.root, "/methods");
            let names = document.methods.iter().map(|m| m.name.as_str());
            let message = match crate::suggest::nearest(name, names) {
                Some(near) => format!(
                    "subscription declared on {name:?}, which is no method: did you mean {near:?}? (a subscription is declared on the subscribe method's wire name)"
                ),
                None => format!(
                    "subscription declared on {name:?}, which is no method (a subscription is declared on the subscribe method's wire name)"
                ),
            };
            diagnostics.push(document.resolver.warning_at(&at, message));
        }
    }
    let mut out = Vec::new();
    for &method in methods {
        let m = method.m;
        let declared = if let Some(spec) = settings.subscriptions.get(&m.name) {
            Some((spec.clone(), Source::Builder, m.location.clone()))
        } else if let Some(value) = m.extensions.get(EXTENSION) {
            let at = m.location.key(EXTENSION);
            match Subscription::from_extension(value) {
                Ok(spec) => spec.map(|spec| (spec, Source::Extension, at)),
                Err(why) => {
                    let message =
                        format!("{EXTENSION} {why}; the method is generated as a plain method");
                    diagnostics.push(document.resolver.warning_at(&at, message));
                    None
                }
            }
        } else if settings.conventions {
            convention(&m.name).map(|source| (Subscription::inferred(), source, m.location.clone()))
        } else {
            None
        };
        if let Some((spec, source, at)) = declared {
            out.push(Declaration {
                method,
                spec,
                source,
                at,
            });
        }
    }
    out
}

/// The convention `name` follows as a subscribe method, if any.
fn convention(name: &str) -> Option<Source> {
    if name == "eth_subscribe" {
        return Some(Source::Ethereum);
    }
    starknet_parts(name).map(|_| Source::Starknet)
}

/// `(prefix, X)` of `<prefix>_subscribe<X>`, `X` starting with an upper-case letter.
pub(crate) fn starknet_parts(name: &str) -> Option<(&str, &str)> {
    let (prefix, rest) = name.split_once("_subscribe")?;
    let upper = rest.chars().next().is_some_and(char::is_uppercase);
    (!prefix.is_empty() && upper).then_some((prefix, rest))
}

/// The notifications a subscribe method's items may come on, by convention, best first:
/// `eth_subscription` for `eth_subscribe`; `<prefix>_subscription<X>` for
/// `<prefix>_subscribe<X>`, then `X` with its plural `s` taken off or put on (Starknet's
/// `subscribeNewTransactions` sends `subscriptionNewTransaction`).
pub(crate) fn notification_candidates(subscribe: &str) -> Vec<String> {
    if subscribe == "eth_subscribe" {
        return vec!["eth_subscription".to_owned()];
    }
    let Some((prefix, x)) = starknet_parts(subscribe) else {
        return Vec::new();
    };
    let other = match x.strip_suffix('s') {
        Some(singular) => singular.to_owned(),
        None => format!("{x}s"),
    };
    [x, other.as_str()]
        .iter()
        .map(|x| format!("{prefix}_subscription{x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conventions_name_their_notifications() {
        let cases: [(&str, &[&str]); 6] = [
            ("eth_subscribe", &["eth_subscription"]),
            (
                "starknet_subscribeNewHeads",
                &[
                    "starknet_subscriptionNewHead",
                    "starknet_subscriptionNewHeads",
                ][..],
            ),
            (
                "starknet_subscribeEvent",
                &["starknet_subscriptionEvent", "starknet_subscriptionEvents"],
            ),
            ("subscribe", &[]),
            ("starknet_subscribe", &[]),
            ("_subscribeX", &[]),
        ];
        for (name, expected) in cases {
            let mut found = notification_candidates(name);
            found.sort();
            assert_eq!(found, expected, "{name}");
        }
        assert_eq!(convention("eth_subscribe"), Some(Source::Ethereum));
        assert_eq!(
            convention("chain_subscribeNewHeads"),
            Some(Source::Starknet)
        );
        assert_eq!(convention("chain_subscribenewheads"), None);
        assert_eq!(convention("eth_unsubscribe"), None);
    }
}
