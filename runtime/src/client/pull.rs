//! A pulled subscription's side of the pull protocol (after the kotlinx-rpc JSON-RPC
//! proposal's streams): `rpc.stream.next` with `{"stream": id}` answers
//! `{"item": …}`, `{"idle": true}` (nothing came within the server's wait: ask again)
//! or `{"done": true}` (the stream has ended; its id is forgotten); `rpc.stream.cancel`
//! with the same params ends it early.

use super::slot::Next;
use super::subscription_id::{OneParam, SubscriptionId};
use super::{Client, Error};
use bytes::Bytes;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// The request for a pull stream's next item.
pub(crate) const NEXT: &str = "rpc.stream.next";
/// The request that ends a pull stream.
pub(crate) const CANCEL: &str = "rpc.stream.cancel";
/// The name of both requests' one param, the stream's id.
pub(crate) const STREAM_PARAM: &str = "stream";

/// An `rpc.stream.next` under way.
pub(crate) type Asking = Pin<Box<dyn Future<Output = Result<Answer, Error>> + Send>>;

/// An answer to `rpc.stream.next`.
#[derive(Debug, Deserialize)]
pub(crate) struct Answer {
    /// Present, whatever its value (`null` included), when the answer is an item.
    #[serde(default, deserialize_with = "present")]
    item: Option<Box<RawValue>>,
    #[serde(default)]
    done: bool,
    #[serde(default)]
    idle: bool,
}

fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Box<RawValue>>, D::Error> {
    Box::<RawValue>::deserialize(deserializer).map(Some)
}

/// Asks for stream `id`'s next item, as long as the server says it is idle, and tells
/// what came. `asking` holds the request under way between polls.
pub(crate) fn poll(
    client: &Client,
    id: &SubscriptionId,
    asking: &mut Option<Asking>,
    cx: &mut Context<'_>,
) -> Poll<Next> {
    loop {
        let request = asking.get_or_insert_with(|| ask(client, id));
        let answer = ready!(request.as_mut().poll(cx));
        *asking = None;
        return Poll::Ready(match answer {
            Ok(Answer {
                item: Some(item), ..
            }) => Next::Item(Bytes::from(item.get().to_owned())),
            Ok(Answer { done: true, .. }) => Next::Done,
            // Idle: nothing yet. A timed-out request is asked again too.
            Ok(Answer { idle: true, .. }) | Err(Error::Timeout) => continue,
            Ok(_) => Next::Unreadable(
                "an answer to rpc.stream.next holds `item`, `idle` or `done`".into(),
            ),
            Err(Error::Undeclared(error)) => Next::Refused(error),
            Err(Error::Decode(mismatch)) => Next::Unreadable(mismatch.to_string()),
            Err(error) => {
                tracing::debug!(%error, "pulling a stream failed");
                Next::Closed
            }
        });
    }
}

/// Sends `rpc.stream.next` for stream `id`.
fn ask(client: &Client, id: &SubscriptionId) -> Asking {
    let params = id.as_raw().map(|stream| {
        serde_json::value::to_raw_value(&OneParam {
            name: STREAM_PARAM,
            id: stream,
        })
    });
    match params {
        Some(Ok(params)) => Box::pin(client.request(NEXT, &*params)),
        Some(Err(error)) => Box::pin(std::future::ready(Err(Error::Encode(error)))),
        None => Box::pin(std::future::ready(Err(Error::InvalidResponse(
            "the stream id is not JSON".into(),
        )))),
    }
}
