//! The server engine's push port on a symmetric connection: a subscription's items go
//! to the connection's queue once little waits there ([`PUSH_ROOM`](super::queue::PUSH_ROOM)),
//! and within its byte budget, like any message this side sends.

use super::queue::Outbox;
use crate::server::{BoxFuture, Closed, Metadata, Outlet, Pushes};

/// Pushes through one connection's queue.
struct Queue(Outbox);

impl Outlet for Queue {
    fn push(&self, message: bytes::Bytes) -> BoxFuture<'_, Result<(), Closed>> {
        Box::pin(async move { self.0.push(message).await.map_err(|_| Closed) })
    }

    fn closed(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.0.closed())
    }
}

/// Gives the connection whose queue `outbox` is a registry of push subscriptions, in
/// the metadata its calls see.
pub(crate) fn install(metadata: &mut Metadata, outbox: &Outbox) {
    metadata
        .extensions
        .insert(Pushes::new(Queue(outbox.clone())));
}
