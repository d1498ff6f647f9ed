//! One arm of a generated dispatcher, as generic code: the arm names the method's params
//! type and its handler, [`handle`] does the rest (answer a params error at once, else
//! run the handler and encode its answer). Reached through [`crate::__private`]; not a
//! public API: it changes with the generator.
//!
//! Generic and `#[inline]`, so each arm compiles to what it did when it was spelled out
//! in the generated code, while the generated code holds one call per method. That call is
//! written by `__arm!` from a line naming the method's kind, params and handler.

use std::future::Future;
use std::sync::Arc;

use serde::Serialize;

use crate::protocol::constraint::Validate;
use crate::protocol::{ErrorObject, Feed};

use super::dispatch::{CallResult, Reply};
use super::failure::Failure;
use super::params::check;
use super::{Context, Items, subscribe};

/// Answers `params`' error at once, or runs `handler` on the server and the decoded
/// params: its future answers the call (`__arm!` writes one that turns the handler's
/// result into the answer with [`answer`](super::failure::answer), its declared error as
/// its error object).
///
/// The answer is made inside the future that awaits the handler rather than by a `map`
/// around it: about 20 instructions a call fewer (BENCHMARKS.md, "Issue 28, item 3,
/// second round").
#[inline]
pub fn handle<S, P, F>(
    server: &Arc<S>,
    params: Result<P, ErrorObject>,
    handler: impl FnOnce(Arc<S>, P) -> F,
) -> Reply
where
    F: Future<Output = CallResult> + Send + 'static,
{
    match params {
        Ok(params) => Reply::future(handler(Arc::clone(server), params)),
        Err(error) => Reply::err(error),
    }
}

/// What a notification's handler answers: `null` (the engine sends nothing). `__arm!`
/// runs a notification through [`handle`] with this in place of
/// [`answer`](super::failure::answer).
#[inline]
pub fn noticed((): ()) -> CallResult {
    super::encode(&())
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

/// One arm of a generated dispatcher: the call of [`handle`] or [`open`] that
/// decodes the params and runs the handler on them.
///
/// ```text
/// arm!(self, cx, at, S, divide(dividend, divisor) from DivideParams checked)
/// arm!(self, cx, at, S, zero() from by_position)
/// arm!(self, cx, at, S, notification log(dividend, divisor) from DivideParams)
/// arm!(self, cx, at, S, subscription watch(pair) from WatchParams, feed WATCH_FEED)
/// ```
///
/// The dispatcher passes its `self`, the call's `cx`, its params `at` (a
/// [`CallParams`](crate::__private::CallParams), made once per call by
/// [`CallParams::at`](crate::__private::CallParams::at) from the params, the module's
/// table of places and the method's wire name: a param that does not decode cites its
/// schema under that method, with its position) and its server type (a generated
/// dispatcher through a local `arm!` that passes these). Then the
/// method's kind: nothing for a call (the handler's result is answered), `notification`
/// (nothing is answered), `subscription` (it opens a subscription whose items go out by
/// `feed`). Then the
/// handler `S::divide` with the params struct's fields it takes, in order, and `from`
/// the params struct (`checked`: its constraints are checked before the handler runs)
/// or, for a method without params, the shape of params it accepts (`by_name`,
/// `by_position` or `by_name_or_position`). Like `__declared_errors!`, it saves generated
/// text, not compile work: it expands to the call the generator wrote before. The params
/// are made once before the `match` rather than in each arm: in a dispatcher of hundreds
/// of arms, each arm's temporaries cost the borrow checker in proportion to the whole
/// function (BENCHMARKS.md, "Issue 30: compile cost … (branch `compile`)").
///
/// ```
/// use std::sync::Arc;
///
/// use rpcsmith::__private as __rt;
///
/// pub struct DivideParams {
///     pub dividend: i64,
///     pub divisor: i64,
/// }
/// __rt::decode_params!(DivideParams by_name_or_position { dividend = "a", divisor = "b" });
///
/// pub trait Calc: Send + Sync + 'static {
///     fn divide(&self, cx: __rt::Context, a: i64, b: i64)
///         -> impl Future<Output = Result<i64, __rt::Failure>> + Send;
///     fn zero(&self, cx: __rt::Context) -> impl Future<Output = Result<i64, __rt::Failure>> + Send;
///     fn log(&self, cx: __rt::Context, a: i64, b: i64) -> impl Future<Output = ()> + Send;
/// }
///
/// struct Dispatcher<S> {
///     server: Arc<S>,
/// }
///
/// static PLACES: __rt::Places = __rt::Places::new("calc.json", "", "");
///
/// impl<S: Calc> Dispatcher<S> {
///     fn call(&self, method: &str, params: Option<&__rt::serde_json::value::RawValue>, cx: __rt::Context) -> __rt::Reply {
///         let at = __rt::CallParams::at(params, &PLACES, method);
///         match method {
///             "divide" => __rt::arm!(self, cx, at, S, divide(dividend, divisor) from DivideParams),
///             "zero" => __rt::arm!(self, cx, at, S, zero() from by_position),
///             "log" => __rt::arm!(self, cx, at, S, notification log(dividend, divisor) from DivideParams),
///             _ => __rt::Reply::err(__rt::ErrorObject::method_not_found()),
///         }
///     }
/// }
///
/// struct Halves;
///
/// impl Calc for Halves {
///     async fn divide(&self, _: __rt::Context, a: i64, b: i64) -> Result<i64, __rt::Failure> {
///         a.checked_div(b).ok_or(__rt::Failure::Object(__rt::ErrorObject::new(1, "by zero")))
///     }
///     async fn zero(&self, _: __rt::Context) -> Result<i64, __rt::Failure> {
///         Ok(0)
///     }
///     async fn log(&self, _: __rt::Context, _: i64, _: i64) {}
/// }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let dispatcher = Dispatcher { server: Arc::new(Halves) };
/// let cx = || __rt::Context::new("divide", None, Default::default());
/// let raw = |json: &str| __rt::serde_json::value::RawValue::from_string(json.to_owned()).unwrap();
/// let answer = dispatcher.call("divide", Some(&raw("[7, 2]")), cx()).into_future().await;
/// assert_eq!(answer.unwrap().json(), "3");
/// let answer = dispatcher.call("divide", Some(&raw("[7]")), cx()).into_future().await;
/// assert_eq!(answer.unwrap_err().code, -32602);
/// let answer = dispatcher.call("zero", None, cx()).into_future().await;
/// assert_eq!(answer.unwrap().json(), "0");
/// let answer = dispatcher.call("log", Some(&raw(r#"{"a": 1, "b": 2}"#)), cx()).into_future().await;
/// assert_eq!(answer.unwrap().json(), "null");
/// # });
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __arm {
    (
        $self:ident, $cx:ident, $params:ident, $server:ident,
        subscription $handler:ident($($field:ident),*) from $ty:ident $($checked:ident)?,
        feed $feed:ident
    ) => {
        $crate::__private::open(
            &$self.server,
            $crate::__arm!(@decode $params $ty $($checked)?; $($field)*),
            $cx,
            &$feed,
            move |server, $cx, $crate::__arm!(@bind p $($field)*)| async move {
                $server::$handler(&server, $cx $(, p.$field)*).await
            },
        )
    };
    (
        $self:ident, $cx:ident, $params:ident, $server:ident,
        notification $handler:ident($($field:ident),*) from $ty:ident $($checked:ident)?
    ) => {
        $crate::__arm!(@run noticed $self, $cx, $params, $server, $handler($($field),*) $ty $($checked)?)
    };
    // A call: the common arm, with no word for its kind.
    (
        $self:ident, $cx:ident, $params:ident, $server:ident,
        $handler:ident($($field:ident),*) from $ty:ident $($checked:ident)?
    ) => {
        $crate::__arm!(@run answer $self, $cx, $params, $server, $handler($($field),*) $ty $($checked)?)
    };
    // A call or a notification: `handle`, its future finishing the handler's result
    // with `answer` (a call) or `noticed` (a notification).
    (
        @run $finish:ident $self:ident, $cx:ident, $params:ident, $server:ident,
        $handler:ident($($field:ident),*) $ty:ident $($checked:ident)?
    ) => {
        $crate::__private::handle(
            &$self.server,
            $crate::__arm!(@decode $params $ty $($checked)?; $($field)*),
            move |server, $crate::__arm!(@bind p $($field)*)| async move {
                $crate::__private::$finish($server::$handler(&server, $cx $(, p.$field)*).await)
            },
        )
    };
    // Without params the shape of params the method accepts is named instead of a
    // params type.
    (@decode $params:ident by_name;) => {
        $crate::__private::decode($params, $crate::__private::Structure::ByName, &[])
    };
    (@decode $params:ident by_position;) => {
        $crate::__private::decode($params, $crate::__private::Structure::ByPosition, &[])
    };
    (@decode $params:ident by_name_or_position;) => {
        $crate::__private::decode($params, $crate::__private::Structure::Either, &[])
    };
    (@decode $params:ident $ty:ident; $($field:ident)+) => {
        $ty::decode($params)
    };
    (@decode $params:ident $ty:ident checked; $($field:ident)+) => {
        $ty::decode($params).and_then($crate::__private::checked)
    };
    // The handler's params: `()` without fields (nothing left unused), else `$p`.
    (@bind $p:ident) => {
        ()
    };
    (@bind $p:ident $($field:ident)+) => {
        $p
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_arm_answers_the_params_error_or_the_handlers_result() {
        use super::super::failure::answer;
        let server = Arc::new(2_u8);
        let failed = handle(
            &server,
            Err(ErrorObject::invalid_params("no")),
            |_, (): ()| async { answer(Ok::<u8, Failure>(0)) },
        );
        assert_eq!(failed.into_future().await.unwrap_err().code, -32602);
        let doubled = handle(&server, Ok(21_u8), |s, n| async move {
            answer(Ok::<u8, Failure>(*s * n))
        });
        assert_eq!(doubled.into_future().await.unwrap().json(), "42");
        let declared = handle(&server, Ok(()), |_, ()| async {
            answer(Err::<u8, _>(Failure::Declared(ErrorObject::new(
                7, "seven",
            ))))
        });
        assert_eq!(declared.into_future().await.unwrap_err().code, 7);
        let noticed = handle(&server, Ok(()), |_, ()| async { noticed(()) });
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
