//! A subscription's id ([`SubscriptionId`]), and how it is sent back as the one param of
//! a call (unsubscribe, `rpc.stream.next`).

use serde::Serialize;
use serde_json::value::RawValue;
use std::fmt;
use std::sync::Arc;

/// A subscription's id, as the server assigned it: the JSON text of its subscribe
/// call's result (`"0x4f2a…"` with its quotes, or `7`). Displayed as that text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SubscriptionId(Arc<str>);

impl SubscriptionId {
    /// The id whose JSON text is `json` (valid JSON).
    pub(crate) fn new(json: &str) -> Self {
        Self(json.into())
    }

    /// The id a subscribe call's result names. Strings are compared by value: one
    /// written with escapes is kept in the plain form a notification most likely uses.
    pub(crate) fn from_result(result: &[u8]) -> Self {
        let text = String::from_utf8_lossy(result);
        let text = text.trim();
        if text.starts_with('"')
            && text.contains('\\')
            && let Ok(plain) = serde_json::from_str::<String>(text)
            && let Ok(json) = serde_json::to_string(&plain)
        {
            return Self(json.into());
        }
        Self(text.into())
    }

    /// The id's JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The id as a JSON value, to send back.
    pub(crate) fn as_raw(&self) -> Option<&RawValue> {
        serde_json::from_str(&self.0).ok()
    }
}

impl fmt::Display for SubscriptionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `{name: id}`.
pub(crate) struct OneParam<'a> {
    pub(crate) name: &'a str,
    pub(crate) id: &'a RawValue,
}

impl Serialize for OneParam<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(self.name, self.id)?;
        map.end()
    }
}
