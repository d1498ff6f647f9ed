//! A subscription as the user declares it: in the document (the `x-subscription`
//! extension of a subscribe method), through the builder
//! ([`Builder::subscription`](crate::Builder::subscription)) or on the command line
//! (`--subscription`). Every part left out is inferred when the subscription is tied
//! to the document's methods.
//!
//! The extension, in full (every key optional; `true` alone means "infer everything"):
//!
//! ```json
//! "x-subscription": {
//!   "notification": "starknet_subscriptionNewHeads",
//!   "id": "subscription_id",
//!   "item": "result",
//!   "unsubscribe": "starknet_unsubscribe",
//!   "pull": false
//! }
//! ```
//!
//! Its JSON Schema is `schemas/x-subscription.schema.json` in the repository.

use serde_json::Value;

/// The extension member naming a subscription on a subscribe method.
pub(crate) const EXTENSION: &str = "x-subscription";

/// How the items of one subscribe method travel. Each part left `None` is inferred from
/// the document:
///
/// - `notification`: `<prefix>_subscription<X>` for `<prefix>_subscribe<X>` (Starknet),
///   `eth_subscription` for `eth_subscribe`;
/// - `id`: the notification's param whose schema is the subscribe method's result;
/// - `item`: the notification's other param;
/// - `unsubscribe`: the method whose name contains `unsubscribe` and whose only param
///   has the id's schema.
///
/// ```
/// use rpcsmith_build::Subscription;
///
/// let heads = Subscription::notification("starknet_subscriptionNewHeads")
///     .id("subscription_id")
///     .item("result")
///     .unsubscribe("starknet_unsubscribe");
/// assert_eq!(heads.item.as_deref(), Some("result"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Subscription {
    /// The notification method carrying the items.
    pub notification: Option<String>,
    /// The notification's param holding the subscription id.
    pub id: Option<String>,
    /// The notification's param holding the item.
    pub item: Option<String>,
    /// The method that ends a subscription.
    pub unsubscribe: Option<String>,
    /// Always pulled (`rpc.stream.next`), even where the server could push. The
    /// notification then only describes the item.
    pub pull: bool,
}

impl Subscription {
    /// A subscription whose parts are all inferred.
    pub fn inferred() -> Self {
        Subscription::default()
    }

    /// A subscription whose items arrive as the notification `method`.
    pub fn notification(method: impl Into<String>) -> Self {
        Subscription {
            notification: Some(method.into()),
            ..Subscription::default()
        }
    }

    /// Names the notification's param holding the subscription id.
    pub fn id(mut self, param: impl Into<String>) -> Self {
        self.id = Some(param.into());
        self
    }

    /// Names the notification's param holding the item.
    pub fn item(mut self, param: impl Into<String>) -> Self {
        self.item = Some(param.into());
        self
    }

    /// Names the method that ends a subscription.
    pub fn unsubscribe(mut self, method: impl Into<String>) -> Self {
        self.unsubscribe = Some(method.into());
        self
    }

    /// Whether the items are always pulled (default `false`: pushed where the transport
    /// can push, pulled elsewhere).
    pub fn pull(mut self, pull: bool) -> Self {
        self.pull = pull;
        self
    }

    /// Reads the command line's form: `NOTIFICATION[,id=PARAM][,item=PARAM]
    /// [,unsubscribe=METHOD][,pull]`, each part optional (`""` infers everything,
    /// `pull` alone pulls an inferred subscription).
    ///
    /// # Errors
    ///
    /// A [`ParseSubscriptionError`] naming the part that is not understood.
    pub fn parse(text: &str) -> Result<Self, ParseSubscriptionError> {
        let mut out = Subscription::default();
        for (i, part) in text.split(',').map(str::trim).enumerate() {
            match part.split_once('=') {
                None if part == "pull" => out.pull = true,
                None if i == 0 && !part.is_empty() => out.notification = Some(part.to_owned()),
                None if part.is_empty() && i == 0 => {}
                Some(("id", v)) if !v.is_empty() => out.id = Some(v.to_owned()),
                Some(("item", v)) if !v.is_empty() => out.item = Some(v.to_owned()),
                Some(("unsubscribe", v)) if !v.is_empty() => out.unsubscribe = Some(v.to_owned()),
                Some(("notification", v)) if !v.is_empty() => {
                    out.notification = Some(v.to_owned());
                }
                _ => {
                    return Err(ParseSubscriptionError {
                        part: part.to_owned(),
                    });
                }
            }
        }
        Ok(out)
    }

    /// The declaration an `x-subscription` value makes: `true` (everything inferred), an
    /// object of the keys above, or `false` (no subscription: `None`).
    ///
    /// # Errors
    ///
    /// A message saying what is wrong with the value.
    pub(crate) fn from_extension(value: &Value) -> Result<Option<Self>, String> {
        let object = match value {
            Value::Bool(true) => return Ok(Some(Subscription::inferred())),
            Value::Bool(false) => return Ok(None),
            Value::Object(object) => object,
            _ => return Err("must be `true` or an object".to_owned()),
        };
        let mut out = Subscription::default();
        for (key, v) in object {
            let slot = match key.as_str() {
                "notification" => &mut out.notification,
                "id" => &mut out.id,
                "item" => &mut out.item,
                "unsubscribe" => &mut out.unsubscribe,
                "pull" => {
                    out.pull = v.as_bool().ok_or("`pull` must be a boolean")?;
                    continue;
                }
                _ => {
                    return Err(format!(
                        "unknown key {key:?}: the keys are notification, id, item, unsubscribe, pull"
                    ));
                }
            };
            match v.as_str() {
                Some(name) if !name.is_empty() => *slot = Some(name.to_owned()),
                _ => return Err(format!("`{key}` must be a non-empty string")),
            }
        }
        Ok(Some(out))
    }
}

/// A [`Subscription::parse`] text with a part that is not understood. `Display` names
/// the part and the form expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseSubscriptionError {
    part: String,
}

impl std::fmt::Display for ParseSubscriptionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot read {:?}: expected NOTIFICATION[,id=PARAM][,item=PARAM][,unsubscribe=METHOD][,pull]",
            self.part
        )
    }
}

impl std::error::Error for ParseSubscriptionError {}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_extension_reads_true_false_and_objects() {
        let ok = [
            (json!(true), Some(Subscription::inferred())),
            (json!(false), None),
            (json!({}), Some(Subscription::inferred())),
            (
                json!({"notification": "n", "id": "i", "item": "r", "unsubscribe": "u", "pull": true}),
                Some(
                    Subscription::notification("n")
                        .id("i")
                        .item("r")
                        .unsubscribe("u")
                        .pull(true),
                ),
            ),
        ];
        for (value, expected) in ok {
            assert_eq!(
                Subscription::from_extension(&value),
                Ok(expected),
                "{value}"
            );
        }
        let bad = [
            (json!("yes"), "must be `true` or an object"),
            (json!({"pull": "no"}), "`pull` must be a boolean"),
            (json!({"id": 3}), "`id` must be a non-empty string"),
            (
                json!({"notification": ""}),
                "`notification` must be a non-empty string",
            ),
            (
                json!({"topic": "x"}),
                "unknown key \"topic\": the keys are notification, id, item, unsubscribe, pull",
            ),
        ];
        for (value, message) in bad {
            assert_eq!(
                Subscription::from_extension(&value),
                Err(message.to_owned()),
                "{value}"
            );
        }
    }

    /// The JSON Schema of the extension (in `schemas/`) and the reader agree on its keys
    /// and their types.
    #[test]
    fn the_published_schema_names_the_keys_read() {
        let schema: Value =
            serde_json::from_str(include_str!("../../schemas/x-subscription.schema.json"))
                .expect("the schema is JSON");
        let properties = schema["anyOf"][1]["properties"]
            .as_object()
            .expect("the object form's properties");
        let mut full = serde_json::Map::new();
        for (key, property) in properties {
            let value = match property["type"].as_str() {
                Some("boolean") => json!(true),
                _ => json!("x"),
            };
            full.insert(key.clone(), value);
        }
        let read = Subscription::from_extension(&Value::Object(full)).expect("every key reads");
        let expected = Subscription::notification("x")
            .id("x")
            .item("x")
            .unsubscribe("x")
            .pull(true);
        assert_eq!(read, Some(expected));
        assert_eq!(schema["anyOf"][1]["additionalProperties"], json!(false));
    }

    #[test]
    fn the_command_line_form_reads_every_part() {
        let ok = [
            ("", Subscription::inferred()),
            ("pull", Subscription::inferred().pull(true)),
            ("n", Subscription::notification("n")),
            (
                "n,id=i,item=r,unsubscribe=u,pull",
                Subscription::notification("n")
                    .id("i")
                    .item("r")
                    .unsubscribe("u")
                    .pull(true),
            ),
            ("id=i", Subscription::inferred().id("i")),
            ("notification=n", Subscription::notification("n")),
        ];
        for (text, expected) in ok {
            assert_eq!(Subscription::parse(text), Ok(expected), "{text}");
        }
        for bad in ["n,id=", "n,,id=i", "n,topic=x", "n,m"] {
            let err = Subscription::parse(bad).unwrap_err().to_string();
            assert!(err.starts_with("cannot read"), "{bad}: {err}");
        }
    }
}
