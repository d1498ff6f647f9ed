//! Streams both ways, the client engine's part: a stream this side hosts for the other
//! to pull ([`Client::host_stream`], what a stream param of a call is sent as), and a
//! stream the other side hosts, pulled from here ([`Client::pull_stream`], what a
//! server handler receives for such a param, through the connection's client).
//!
//! The protocol is the pull streams' (after the kotlinx-rpc JSON-RPC proposal's flows),
//! in whichever direction the stream goes: `rpc.stream.next {"stream": id}` answers
//! `{"item": …}`, `{"idle": true}` or `{"done": true}`, and `rpc.stream.cancel` ends it.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use futures_core::Stream;
use serde::Serialize;

use super::subscription_id::SubscriptionId;
use super::{Client, Hosting, Subscription};
use crate::protocol::Feed;

/// The feed of a stream the other side hosts: pulled, ended by `rpc.stream.cancel`.
static HOSTED: Feed = Feed::pull();

impl Client {
    /// Hosts `items` for the other side of the connection to pull with
    /// `rpc.stream.next` (each item serialized as it is asked for), and returns its id
    /// with the registration: send the id as a call's param, and keep the [`Hosting`]
    /// until the call has its answer (dropping it ends the stream; so does the other
    /// side's `rpc.stream.cancel`, and nobody asking for
    /// [`Limits::pull_idle_timeout`](crate::server::Limits::pull_idle_timeout) of the
    /// connection's server). An item that cannot be serialized ends the stream, logged.
    ///
    /// `None` when the transport cannot host a stream: the other side cannot call this
    /// one (HTTP), or the connection's server is at its
    /// [`max_pull_streams`](crate::server::Limits::max_pull_streams).
    pub fn host_stream<S>(&self, items: S) -> Option<Hosting>
    where
        S: Stream + Send + 'static,
        S::Item: Serialize,
    {
        self.shared
            .transport
            .host(Box::pin(JsonItems(Box::pin(items))))
    }

    /// The stream the other side hosts under `id` (a stream param of the call being
    /// handled), pulled one item at a time with `rpc.stream.next`; dropping it before
    /// it ends sends `rpc.stream.cancel`.
    pub fn pull_stream<T>(&self, id: SubscriptionId) -> Subscription<T> {
        Subscription::pulled(self.clone(), &HOSTED, id)
    }
}

/// A stream's items as JSON text; ends at the first that cannot be serialized.
struct JsonItems<S>(Pin<Box<S>>);

impl<S> Stream for JsonItems<S>
where
    S: Stream + Send,
    S::Item: Serialize,
{
    type Item = Bytes;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        let Some(item) = ready!(self.0.as_mut().poll_next(cx)) else {
            return Poll::Ready(None);
        };
        Poll::Ready(match serde_json::to_vec(&item) {
            Ok(text) => Some(Bytes::from(text)),
            Err(error) => {
                tracing::warn!(%error, "a streamed item could not be serialized: the stream ends");
                None
            }
        })
    }
}
