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

use futures_util::StreamExt as _;
use serde_json::value::RawValue;
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::protocol::{ErrorObject, Feed};

use super::dispatch::Reply;
use super::encoded::Encoded;
use super::limits::Limits;
use super::push::{encoded_id, random_id};
use super::subscription::EncodedItems;

/// The method that asks for a pull stream's next item.
pub(crate) const NEXT: &str = "rpc.stream.next";
/// The method that ends a pull stream.
pub(crate) const CANCEL: &str = "rpc.stream.cancel";

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

    /// Answers `rpc.stream.next` and `rpc.stream.cancel`; `None` for other names.
    pub(crate) fn answer(
        self: &Arc<Self>,
        method: &str,
        params: Option<&RawValue>,
    ) -> Option<Reply> {
        let reply = match (method, stream_id(params)) {
            (NEXT | CANCEL, Err(error)) => Reply::err(error),
            (NEXT, Ok(id)) => self.next(id),
            (CANCEL, Ok(id)) => Reply::ok(&self.remove(id)),
            _ => return None,
        };
        Some(reply)
    }

    fn next(self: &Arc<Self>, id: &str) -> Reply {
        let stream = self.state().live.get(id).cloned();
        let Some(stream) = stream else {
            return Reply::err(unknown_stream(id));
        };
        let (pulls, id, wait) = (Arc::clone(self), Box::<str>::from(id), self.wait);
        Reply::future(async move {
            stream.touch();
            let answer = stream.next_item(wait).await;
            stream.touch();
            if answer.get() == DONE {
                pulls.remove(&id);
            }
            Ok(Encoded::from_raw(&answer))
        })
    }
}

const DONE: &str = r#"{"done":true}"#;
const IDLE: &str = r#"{"idle":true}"#;

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

    /// The answer to one `rpc.stream.next`.
    async fn next_item(&self, wait: Duration) -> Box<RawValue> {
        let mut items = self.items.lock().await;
        let text = loop {
            let Some(stream) = items.as_mut() else {
                break DONE.to_owned();
            };
            let item = tokio::select! {
                biased;
                () = self.ended.notified() => {
                    items.take();
                    break DONE.to_owned();
                }
                item = tokio::time::timeout(wait, stream.next()) => item,
            };
            match item {
                Err(_) => break IDLE.to_owned(),
                Ok(None) => {
                    items.take();
                    break DONE.to_owned();
                }
                Ok(Some(Ok(item))) => break format!(r#"{{"item":{}}}"#, item.get()),
                Ok(Some(Err(error))) => {
                    tracing::error!(%error, "a pull stream's item could not be serialized; skipped");
                }
            }
        };
        RawValue::from_string(text).unwrap_or_default()
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
    pub(crate) fn start(mut self, items: EncodedItems) -> Encoded {
        let Some(pulls) = self.pulls.take() else {
            return encoded_id("null");
        };
        let id = random_id();
        let stream = Arc::new(PullStream {
            items: tokio::sync::Mutex::new(Some(items)),
            touched: Mutex::new(Instant::now()),
            ended: Notify::new(),
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
        encoded_id(&id)
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
