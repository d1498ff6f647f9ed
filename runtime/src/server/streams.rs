//! Where the engine resolves what [`subscribe`](super::subscribe) and
//! [`unsubscribe`](super::unsubscribe) return: with the connection's push registry
//! ([`Pushes`], when its transport can push) or the server's pull streams ([`Pulls`]).

use std::sync::Arc;

use crate::protocol::{ErrorObject, Feed};

use super::context::Context;
use super::dispatch::{BoxFuture, Reply};
use super::limits::Limits;
use super::pull::Pulls;
use super::push::Pushes;
use super::subscription::EncodedItems;

/// A subscription call the engine resolves.
pub(crate) enum StreamCall {
    Open(Box<Opening>),
    Close(Closing),
}

/// A subscribe call: its handler, not yet run.
pub(crate) struct Opening {
    pub(crate) context: Context,
    pub(crate) feed: &'static Feed,
    pub(crate) handler: BoxFuture<'static, Result<EncodedItems, ErrorObject>>,
}

/// An unsubscribe call naming `id` (JSON text).
pub(crate) struct Closing {
    pub(crate) context: Context,
    pub(crate) id: Box<str>,
    /// What to answer for an unknown id; `None`: `false`.
    pub(crate) unknown: Option<ErrorObject>,
}

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

    /// How many pull streams are live.
    pub(crate) fn pull_streams(&self) -> usize {
        self.pulls.len()
    }

    pub(crate) fn resolve(&self, call: StreamCall) -> Reply {
        match call {
            StreamCall::Open(opening) => self.open(*opening),
            StreamCall::Close(closing) => self.close(closing),
        }
    }

    fn open(&self, opening: Opening) -> Reply {
        let Opening {
            context,
            feed,
            handler,
        } = opening;
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
        let ended =
            pushes(&context).is_some_and(|pushes| pushes.remove(&id)) || self.pulls.remove(&id);
        match (ended, unknown) {
            (false, Some(error)) => Reply::err(error),
            _ => Reply::ok(&ended),
        }
    }
}

/// The connection's push registry, when its transport can push.
fn pushes(context: &Context) -> Option<Pushes> {
    context.metadata().extensions.get::<Pushes>().cloned()
}
