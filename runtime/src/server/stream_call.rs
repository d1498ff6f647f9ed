//! A subscription call as a dispatcher returns it inside a [`Reply`](super::Reply), for
//! the engine to resolve with its registries; and a subscription's items, serialized.
//! The floor of the subscription files: it imports none of them.

use std::future::Future;
use std::pin::Pin;

use futures_util::Stream;
use serde_json::value::RawValue;

use crate::protocol::{ErrorObject, Feed};

use super::context::Context;

/// An item, serialized.
pub(crate) type EncodedItem = Result<Box<RawValue>, serde_json::Error>;

/// The items of one subscription, serialized as they come.
pub(crate) type EncodedItems = Pin<Box<dyn Stream<Item = EncodedItem> + Send>>;

/// A subscribe method's handler: its items, or the error to answer.
pub(crate) type Handler =
    Pin<Box<dyn Future<Output = Result<EncodedItems, ErrorObject>> + Send + 'static>>;

/// A subscription call the engine resolves.
pub(crate) enum StreamCall {
    Open(Box<Opening>),
    Close(Box<Closing>),
}

/// A subscribe call: its handler, not yet run.
pub(crate) struct Opening {
    pub(crate) context: Context,
    pub(crate) feed: &'static Feed,
    pub(crate) handler: Handler,
}

/// An unsubscribe call naming `id` (JSON text).
pub(crate) struct Closing {
    pub(crate) context: Context,
    pub(crate) id: Box<str>,
    /// What to answer for an unknown id; `None`: `false`.
    pub(crate) unknown: Option<ErrorObject>,
}
