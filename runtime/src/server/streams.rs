//! Where the engine resolves what [`subscribe`](super::subscribe) and
//! [`unsubscribe`](super::unsubscribe) return: with the connection's push registry
//! ([`Pushes`], when its transport can push) or the server's pull streams ([`Pulls`]).

use std::sync::Arc;

use crate::protocol::ErrorObject;

use super::context::Context;
use super::dispatch::Reply;
use super::encoded::encode;
use super::limits::Limits;
use super::pull::Pulls;
use super::push::Pushes;
use super::stream_call::{Closing, Opening, StreamCall};

/// The server's side of subscriptions: its pull streams, and the limit on each
/// connection's push subscriptions.
pub(crate) struct Streams {
    pulls: Arc<Pulls>,
    max_subscriptions: usize,
}

impl Streams {
    pub(crate) fn new(limits: &Limits) -> Self {
        Streams {
            pulls: Arc::new(Pulls::new(limits)),
            max_subscriptions: limits.max_subscriptions,
        }
    }

    /// Answers `rpc.stream.*` names; `None` for other names.
    pub(crate) fn answer(
        &self,
        method: &str,
        params: Option<&serde_json::value::RawValue>,
    ) -> Option<Reply> {
        self.pulls.answer(method, params)
    }

    /// Hosts `items` for the other side to pull (see [`Pulls::host`]).
    pub(crate) fn host(
        &self,
        items: super::stream_call::EncodedItems,
    ) -> Result<super::pull::Hosted, crate::protocol::ErrorObject> {
        self.pulls.host(items)
    }

    /// How many pull streams are live.
    pub(crate) fn pull_streams(&self) -> usize {
        self.pulls.len()
    }

    pub(crate) fn resolve(&self, call: StreamCall) -> Reply {
        match call {
            StreamCall::Open(opening) => self.open(*opening),
            StreamCall::Close(closing) => self.close(*closing),
        }
    }

    fn open(&self, opening: Opening) -> Reply {
        let Opening {
            context,
            feed,
            handler,
        } = opening;
        if context.is_notification() {
            // No answer: no one could learn the id. Nothing is sent back anyway.
            return Reply::err(ErrorObject::invalid_request());
        }
        if tokio::runtime::Handle::try_current().is_err() {
            return Reply::err(ErrorObject::new(
                crate::protocol::code::INTERNAL_ERROR,
                "Internal error: subscriptions need a Tokio runtime",
            ));
        }
        let pushes = pushes(&context).filter(|_| !feed.pull_only);
        drop(context);
        match pushes {
            Some(pushes) => match pushes.reserve(self.max_subscriptions) {
                Ok(room) => Reply::future(async move {
                    let items = handler.await?;
                    Ok(room.start(feed, items))
                }),
                Err(error) => Reply::err(error),
            },
            None => match self.pulls.reserve() {
                Ok(room) => Reply::future(async move {
                    let items = handler.await?;
                    Ok(room.start(items))
                }),
                Err(error) => Reply::err(error),
            },
        }
    }

    fn close(&self, closing: Closing) -> Reply {
        let Closing {
            context,
            id,
            unknown,
        } = closing;
        if let Some(ending) = pushes(&context).and_then(|pushes| pushes.end(&id)) {
            return Reply::future(async move {
                // Answered once the pump has stopped, and never on the first poll: a
                // peer writes the answers made on a first poll ahead of its queue, where
                // the subscription's last items may still wait; answered later, the
                // answer goes through that queue, after them. So no item follows it.
                ending.stopped().await;
                tokio::task::yield_now().await;
                encode(&true)
            });
        }
        match (self.pulls.remove(&id), unknown) {
            (false, Some(error)) => Reply::err(error),
            (ended, _) => Reply::ok(&ended),
        }
    }
}

/// The connection's push registry, when its transport can push.
fn pushes(context: &Context) -> Option<Pushes> {
    context.metadata().extensions.get::<Pushes>().cloned()
}
