//! One arm of a generated dispatcher, as generic code: the arm names the method's params
//! type and its handler, [`handle`] does the rest (answer a params error at once, else
//! run the handler and encode its answer). Reached through [`crate::__private`]; not a
//! public API: it changes with the generator.
//!
//! Generic and `#[inline]`, so each arm compiles to what it did when it was spelled out
//! in the generated code, while the generated code holds one call per method.

use std::future::Future;
use std::sync::Arc;

use serde::Serialize;

use crate::protocol::constraint::Validate;
use crate::protocol::{ErrorObject, Feed};

use super::dispatch::Reply;
use super::failure::{Failure, answer};
use super::params::check;
use super::{Context, Items, subscribe};

/// Answers `params`' error at once, or runs `handler` on the server and the decoded
/// params and answers with its result (its declared error as its error object).
#[inline]
pub fn handle<S, P, F, R, E>(
    server: &Arc<S>,
    params: Result<P, ErrorObject>,
    handler: impl FnOnce(Arc<S>, P) -> F,
) -> Reply
where
    F: Future<Output = Result<R, Failure<E>>> + Send + 'static,
    R: Serialize,
    E: Into<ErrorObject>,
{
    match params {
        Ok(params) => {
            let future = handler(Arc::clone(server), params);
            Reply::future(async move { answer(future.await) })
        }
        Err(error) => Reply::err(error),
    }
}

/// Like [`handle`], for a notification: its handler answers nothing.
#[inline]
pub fn notice<S, P, F>(
    server: &Arc<S>,
    params: Result<P, ErrorObject>,
    handler: impl FnOnce(Arc<S>, P) -> F,
) -> Reply
where
    F: Future<Output = ()> + Send + 'static,
{
    match params {
        Ok(params) => {
            let future = handler(Arc::clone(server), params);
            Reply::future(async move {
                future.await;
                super::encode(&())
            })
        }
        Err(error) => Reply::err(error),
    }
}

/// Like [`handle`], for a subscription: its handler gives the items, which
/// [`subscribe`] opens on `feed` (the handler gets the call's context).
#[inline]
pub fn open<S, P, F, T, E>(
    server: &Arc<S>,
    params: Result<P, ErrorObject>,
    cx: Context,
    feed: &'static Feed,
    handler: impl FnOnce(Arc<S>, Context, P) -> F,
) -> Reply
where
    F: Future<Output = Result<Items<T>, Failure<E>>> + Send + 'static,
    T: Serialize + Send + 'static,
    E: Into<ErrorObject> + Send + 'static,
{
    match params {
        Ok(params) => subscribe(cx.clone(), feed, handler(Arc::clone(server), cx, params)),
        Err(error) => Reply::err(error),
    }
}

/// `params` when they satisfy their constraints, else the `-32602` [`check`] words.
///
/// # Errors
///
/// As [`check`].
#[inline]
pub fn checked<P: Validate>(params: P) -> Result<P, ErrorObject> {
    check(&params).map(|()| params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_arm_answers_the_params_error_or_the_handlers_result() {
        let server = Arc::new(2_u8);
        let failed = handle(
            &server,
            Err(ErrorObject::invalid_params("no")),
            |_, (): ()| async { Ok::<u8, Failure>(0) },
        );
        assert_eq!(failed.into_future().await.unwrap_err().code, -32602);
        let doubled = handle(&server, Ok(21_u8), |s, n| async move {
            Ok::<u8, Failure>(*s * n)
        });
        assert_eq!(doubled.into_future().await.unwrap().json(), "42");
        let declared = handle(&server, Ok(()), |_, ()| async {
            Err::<u8, _>(Failure::Declared(ErrorObject::new(7, "seven")))
        });
        assert_eq!(declared.into_future().await.unwrap_err().code, 7);
        let noticed = notice(&server, Ok(()), |_, ()| async {});
        assert_eq!(noticed.into_future().await.unwrap().json(), "null");
    }

    #[tokio::test]
    async fn a_subscription_arm_answers_the_params_error_without_its_handler() {
        static FEED: Feed = Feed::pull();
        let cx = Context::new("watch", None, crate::server::Metadata::default());
        let refused = open(
            &Arc::new(()),
            Err::<(), _>(ErrorObject::invalid_params("no")),
            cx,
            &FEED,
            // Were it run, the answer would be -32603.
            |_, _, ()| async {
                Err::<Items<u8>, Failure>(Failure::Object(ErrorObject::internal_error()))
            },
        );
        assert_eq!(refused.into_future().await.unwrap_err().code, -32602);
    }
}
