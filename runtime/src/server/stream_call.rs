//! A subscription call as a dispatcher returns it inside a [`Reply`](super::Reply), for
//! the engine to resolve with its registries; and a subscription's items, serialized.
//! The floor of the subscription files: it imports none of them.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use crate::protocol::{ErrorObject, Feed};

use super::context::Context;

/// Where a subscription's items come from, whatever their type: each is written as
/// JSON text straight into the buffer of the message that carries it.
pub(crate) trait ItemSource: Send {
    /// Polls for the next item; when there is one, appends its JSON text to `out`.
    /// `None` once the items have ended. On an error, `out` may hold part of the item.
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        out: &mut Vec<u8>,
    ) -> Poll<Option<Result<(), serde_json::Error>>>;
}

/// The items of one subscription, for the runtime.
pub(crate) type EncodedItems = Pin<Box<dyn ItemSource>>;

/// Items already written as JSON text, one each (a client's stream param, which the
/// client engine serialized).
pub(crate) struct JsonTexts(
    pub(crate) Pin<Box<dyn futures_core::Stream<Item = bytes::Bytes> + Send>>,
);

impl ItemSource for JsonTexts {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        out: &mut Vec<u8>,
    ) -> Poll<Option<Result<(), serde_json::Error>>> {
        self.0.as_mut().poll_next(cx).map(|item| {
            item.map(|text| {
                out.extend_from_slice(&text);
                Ok(())
            })
        })
    }
}

/// Appends the next item's JSON text to `out`; `None` once the items have ended. On
/// an error, `out` is as it was.
pub(crate) async fn write_next(
    items: &mut EncodedItems,
    out: &mut Vec<u8>,
) -> Option<Result<(), serde_json::Error>> {
    let start = out.len();
    let written = std::future::poll_fn(|cx| items.as_mut().poll_write(cx, out)).await;
    if let Some(Err(_)) = written {
        out.truncate(start);
    }
    written
}

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
