//! Pull streams: the server-wide registry of subscriptions consumed by asking, and the
//! two methods the engine answers for them, `rpc.stream.next` and `rpc.stream.cancel`.
//!
//! | call | answer |
//! |---|---|
//! | `rpc.stream.next {"stream": id}` | `{"item": …}`; `{"idle": true}` when no item came within [`Limits::pull_wait`]; `{"done": true}` once the stream has ended (the id is then forgotten) |
//! | `rpc.stream.cancel {"stream": id}` | `true`, or `false` for an unknown id |
//! | `rpc.stream.next` with an unknown or expired id | `-32602` `unknown stream` |
//!
//! Ids are random 128-bit `0x`-hex strings (the HTTP requests of one client may come
//! on different sockets, so the registry is the server's, and its ids must not be
//! guessable); there are at most [`Limits::max_pull_streams`] at once, and one that no
//! `rpc.stream.next` asked for in [`Limits::pull_idle_timeout`] is dropped.
//!
//! [`Limits::pull_wait`]: super::Limits::pull_wait
//! [`Limits::max_pull_streams`]: super::Limits::max_pull_streams
//! [`Limits::pull_idle_timeout`]: super::Limits::pull_idle_timeout

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use serde_json::value::RawValue;
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::metrics::LiveMeter;
use crate::protocol::{ErrorObject, Feed};

use super::dispatch::{CallResult, Reply};
use super::encoded::Encoded;
use super::limits::Limits;
use super::push::encoded_id;
use super::random_id;
use super::stream_call::{EncodedItems, write_next};

/// The method that asks for a pull stream's next item.
pub(crate) const NEXT: &str = "rpc.stream.next";
/// The method that ends a pull stream.
pub(crate) const CANCEL: &str = "rpc.stream.cancel";
/// The kotlinx-rpc JSON-RPC proposal's `next`: the item is the result.
pub(crate) const FLOW_NEXT: &str = "kotlinx.rpc.jsonrpc.internal.nextFlowValue";
/// The kotlinx-rpc JSON-RPC proposal's `cancel`.
pub(crate) const FLOW_CANCEL: &str = "kotlinx.rpc.jsonrpc.internal.cancelFlow";
/// What the proposal's `next` answers once the stream has ended.
const FLOW_COMPLETED: i64 = -32001;
/// The prefix of the proposal's reserved names.
pub(crate) const FLOW_PREFIX: &str = "kotlinx.rpc.jsonrpc.internal.";

/// How `rpc.stream.*` params name the stream: `{"stream": id}` or `[id]`.
static STREAM_PARAM: Feed = Feed::pull().unsubscribe(CANCEL, "stream", false);

/// The server's pull streams.
pub(crate) struct Pulls {
    state: Mutex<State>,
    max: usize,
    idle: Duration,
    wait: Duration,
}

#[derive(Default)]
struct State {
    /// Streams whose handler still runs.
    reserved: usize,
    /// Live streams by id (JSON text).
    live: HashMap<Box<str>, Arc<PullStream>>,
}

/// One pull stream.
struct PullStream {
    /// `None` once the stream has ended (cancelled, expired).
    items: tokio::sync::Mutex<Option<EncodedItems>>,
    /// When an `rpc.stream.next` last started or finished.
    touched: Mutex<Instant>,
    /// Told when the stream is ended while a `next` waits on it.
    ended: Notify,
    /// Counts the stream live while it is held.
    _live: LiveMeter,
}

impl Pulls {
    pub(crate) fn new(limits: &Limits) -> Self {
        Pulls {
            state: Mutex::default(),
            max: limits.max_pull_streams,
            idle: limits.pull_idle_timeout,
            wait: limits.pull_wait,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many pull streams are live.
    pub(crate) fn len(&self) -> usize {
        self.state().live.len()
    }

    /// Reserves room for one more stream, within the server's limit.
    pub(crate) fn reserve(self: &Arc<Self>) -> Result<PullReservation, ErrorObject> {
        let mut state = self.state();
        if state.live.len() + state.reserved >= self.max {
            return Err(ErrorObject::too_many_subscriptions(format!(
                "too many pull streams on this server (limit: {})",
                self.max
            )));
        }
        state.reserved += 1;
        Ok(PullReservation {
            pulls: Some(Arc::clone(self)),
        })
    }

    /// Ends the stream `id` (JSON text); whether there was one.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let removed = self.state().live.remove(id);
        let Some(stream) = removed else {
            return false;
        };
        stream.end();
        true
    }

    /// Answers `rpc.stream.next` and `rpc.stream.cancel`, and the kotlinx-rpc
    /// proposal's `nextFlowValue` and `cancelFlow`; `None` for other names.
    pub(crate) fn answer(
        self: &Arc<Self>,
        method: &str,
        params: Option<&RawValue>,
    ) -> Option<Reply> {
        let protocol = match method {
            NEXT | CANCEL => Protocol::Stream,
            FLOW_NEXT | FLOW_CANCEL => Protocol::Flow,
            _ => return None,
        };
        let id = match stream_id(params) {
            Ok(id) => id,
            Err(error) => return Some(Reply::err(error)),
        };
        Some(match method {
            NEXT | FLOW_NEXT => self.next(id, protocol),
            _ => Reply::ok(&self.remove(id)),
        })
    }

    fn next(self: &Arc<Self>, id: &str, protocol: Protocol) -> Reply {
        let stream = self.state().live.get(id).cloned();
        let Some(stream) = stream else {
            return Reply::err(unknown_stream(id));
        };
        let pulls = Arc::clone(self);
        let id = Box::<str>::from(id);
        // The proposal has no `idle` answer: its `next` waits as long as the call may.
        let wait = (protocol == Protocol::Stream).then_some(self.wait);
        Reply::future(async move {
            stream.touch();
            let pulled = stream.next_item(wait).await;
            stream.touch();
            if let Pulled::Done = pulled {
                pulls.remove(&id);
            }
            protocol.answer(pulled)
        })
    }
}

/// Which of the two pull protocols a call speaks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Protocol {
    /// `rpc.stream.*`: `{"item": …}`, `{"idle": true}`, `{"done": true}`.
    Stream,
    /// The kotlinx-rpc proposal's: the item as the result, `-32001` at the end.
    Flow,
}

/// What one `next` got from a stream.
enum Pulled {
    /// `{"item":` and the item's JSON text.
    Item(Vec<u8>),
    Idle,
    Done,
}

impl Protocol {
    fn answer(self, pulled: Pulled) -> CallResult {
        let text = match (self, pulled) {
            (Protocol::Flow, Pulled::Item(item)) => {
                return match item.get(ITEM_PREFIX.len()..).map(std::str::from_utf8) {
                    Some(Ok(json)) => Ok(encoded(json)),
                    _ => Err(ErrorObject::internal_error()),
                };
            }
            (Protocol::Flow, Pulled::Idle | Pulled::Done) => {
                return Err(ErrorObject::new(FLOW_COMPLETED, "Flow completed"));
            }
            (Protocol::Stream, Pulled::Item(mut item)) => {
                item.push(b'}');
                String::from_utf8(item).unwrap_or_default()
            }
            (Protocol::Stream, Pulled::Idle) => r#"{"idle":true}"#.to_owned(),
            (Protocol::Stream, Pulled::Done) => r#"{"done":true}"#.to_owned(),
        };
        Ok(encoded(&text))
    }
}

/// What a pulled item's answer starts with.
const ITEM_PREFIX: &[u8] = br#"{"item":"#;

/// An answer from JSON text the runtime wrote.
fn encoded(json: &str) -> Encoded {
    match serde_json::from_str::<&RawValue>(json) {
        Ok(raw) => Encoded::from_raw(raw),
        Err(_) => Encoded::from_raw(&Box::<RawValue>::default()),
    }
}

fn unknown_stream(id: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!(
        "unknown stream: {id} is not a live stream (it ended, was cancelled, expired, or never existed)"
    ))
}

/// The stream id in `rpc.stream.*` params.
fn stream_id(params: Option<&RawValue>) -> Result<&str, ErrorObject> {
    params
        .and_then(|params| STREAM_PARAM.read_unsubscribe_id(params))
        .map(RawValue::get)
        .ok_or_else(|| {
            ErrorObject::invalid_params(
                "invalid params: expected the stream id, as {\"stream\": <id>} or [<id>]",
            )
        })
}

impl PullStream {
    fn touch(&self) {
        *self.touched.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }

    fn touched(&self) -> Instant {
        *self.touched.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Drops the items, now or as soon as the `next` waiting on them lets go.
    fn end(&self) {
        self.ended.notify_one();
        if let Ok(mut items) = self.items.try_lock() {
            items.take();
        }
    }

    /// The next item, waiting at most `wait` (`None`: as long as it takes).
    async fn next_item(&self, wait: Option<Duration>) -> Pulled {
        let mut items = self.items.lock().await;
        loop {
            let Some(stream) = items.as_mut() else {
                return Pulled::Done;
            };
            let mut out = ITEM_PREFIX.to_vec();
            let next = async {
                let written = write_next(stream, &mut out);
                match wait {
                    Some(wait) => tokio::time::timeout(wait, written).await.ok(),
                    None => Some(written.await),
                }
            };
            let written = tokio::select! {
                biased;
                () = self.ended.notified() => None,
                written = next => Some(written),
            };
            match written {
                // Ended (cancelled, expired) while waiting.
                None | Some(Some(None)) => {
                    items.take();
                    return Pulled::Done;
                }
                Some(None) => return Pulled::Idle,
                Some(Some(Some(Ok(())))) => return Pulled::Item(out),
                Some(Some(Some(Err(error)))) => {
                    tracing::error!(%error, "a pull stream's item could not be serialized; skipped");
                }
            }
        }
    }
}

/// Room for one pull stream whose handler runs; given back when dropped unused.
pub(crate) struct PullReservation {
    pulls: Option<Arc<Pulls>>,
}

impl Drop for PullReservation {
    fn drop(&mut self) {
        if let Some(pulls) = &self.pulls {
            pulls.state().reserved -= 1;
        }
    }
}

impl PullReservation {
    /// Registers the stream under a new id, starts its idle timer, returns the id to
    /// answer.
    pub(crate) fn start(self, items: EncodedItems) -> Encoded {
        match self.register(items) {
            Some((_, id)) => encoded_id(&id),
            None => encoded_id("null"),
        }
    }

    /// Registers the stream under a new id and starts its idle timer; the registry and
    /// the id (JSON text).
    fn register(mut self, items: EncodedItems) -> Option<(Arc<Pulls>, String)> {
        let pulls = self.pulls.take()?;
        let id = random_id();
        let stream = Arc::new(PullStream {
            items: tokio::sync::Mutex::new(Some(items)),
            touched: Mutex::new(Instant::now()),
            ended: Notify::new(),
            _live: LiveMeter::pull_stream(),
        });
        {
            let mut state = pulls.state();
            state.reserved -= 1;
            state.live.insert(id.clone().into(), Arc::clone(&stream));
        }
        tokio::spawn(expire(
            Arc::downgrade(&pulls),
            id.clone(),
            Arc::downgrade(&stream),
            pulls.idle,
        ));
        Some((pulls, id))
    }
}

impl Pulls {
    /// Hosts `items` as a pull stream the other side of a connection asks for with
    /// `rpc.stream.next` (a client's stream param): registered, within the server's
    /// limit, until the [`Hosted`] returned is dropped (the call that carried its id
    /// has its answer), it ends, is cancelled, or nobody asks for it in
    /// [`Limits::pull_idle_timeout`].
    pub(crate) fn host(self: &Arc<Self>, items: EncodedItems) -> Result<Hosted, ErrorObject> {
        let (pulls, id) = self
            .reserve()?
            .register(items)
            .ok_or_else(ErrorObject::internal_error)?;
        Ok(Hosted {
            pulls: Arc::downgrade(&pulls),
            id,
        })
    }
}

/// A stream hosted by [`Pulls::host`]; ends it when dropped.
pub(crate) struct Hosted {
    pulls: Weak<Pulls>,
    id: String,
}

impl Hosted {
    /// The stream's id, as JSON text.
    #[cfg_attr(
        not(feature = "stream"),
        expect(
            dead_code,
            reason = "hosting is for the symmetric connections of feature `stream`"
        )
    )]
    pub(crate) fn id(&self) -> &str {
        &self.id
    }
}

impl Drop for Hosted {
    fn drop(&mut self) {
        if let Some(pulls) = self.pulls.upgrade() {
            pulls.remove(&self.id);
        }
    }
}

/// Drops the stream once no `rpc.stream.next` has asked for it in `idle`; ends when
/// the stream has ended otherwise.
async fn expire(pulls: Weak<Pulls>, id: String, stream: Weak<PullStream>, idle: Duration) {
    loop {
        let Some(deadline) = stream.upgrade().map(|s| s.touched() + idle) else {
            return;
        };
        tokio::time::sleep_until(deadline).await;
        let (Some(live), Some(pulls)) = (stream.upgrade(), pulls.upgrade()) else {
            return;
        };
        if live.items.try_lock().is_err() {
            // A `next` is waiting on it: it touches the stream when it finishes.
            tokio::time::sleep(idle).await;
            continue;
        }
        if Instant::now() >= live.touched() + idle {
            tracing::debug!(id, "pull stream expired");
            pulls.remove(&id);
            return;
        }
    }
}
