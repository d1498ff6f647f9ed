//! Where the client's timers, clock and background tasks run: Tokio natively, the
//! browser's event loop on `wasm32` (feature `browser`).
//!
//! The engine names these four functions and nothing of either runtime, so one engine
//! serves both. Natively they are Tokio's own calls, unchanged. In a browser there is no
//! Tokio runtime to drive a timer (`tokio::time` would panic) and `SystemTime::now`
//! panics, so a timer is the page's `setTimeout`, the clock `Date.now()` and a task
//! `wasm_bindgen_futures::spawn_local`.

/// A timer ran out before the future it bounded finished.
#[derive(Debug)]
pub(crate) struct Elapsed;

#[cfg(not(all(feature = "browser", target_arch = "wasm32")))]
pub(crate) use native::{now, sleep, spawn, timeout};

#[cfg(not(all(feature = "browser", target_arch = "wasm32")))]
mod native {
    use super::Elapsed;
    use std::future::Future;
    use std::time::{Duration, SystemTime};

    /// Runs `future` for at most `duration`. Not `async`: a future of this function's
    /// own would hold `future` twice, its argument and Tokio's `Timeout` (issue 30: every
    /// call's future carried both, and each of them is copied when it moves).
    pub(crate) fn timeout<F: Future>(
        duration: Duration,
        future: F,
    ) -> impl Future<Output = Result<F::Output, Elapsed>> {
        futures_util::FutureExt::map(tokio::time::timeout(duration, future), |result| {
            result.map_err(|_| Elapsed)
        })
    }

    /// Waits `duration`.
    pub(crate) async fn sleep(duration: Duration) {
        tokio::time::sleep(duration).await;
    }

    /// The wall clock's now.
    pub(crate) fn now() -> SystemTime {
        SystemTime::now()
    }

    /// Runs `task` in the background, when there is a runtime to run it: `false` (and
    /// `task` dropped) outside a Tokio runtime.
    pub(crate) fn spawn(task: impl Future<Output = ()> + Send + 'static) -> bool {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return false;
        };
        drop(runtime.spawn(task));
        true
    }
}

#[cfg(all(feature = "browser", target_arch = "wasm32"))]
pub(crate) use browser::{now, sleep, spawn, timeout};

#[cfg(all(feature = "browser", target_arch = "wasm32"))]
mod browser {
    use super::Elapsed;
    use futures_util::future::{Either, select};
    use std::future::Future;
    use std::pin::pin;
    use std::time::{Duration, SystemTime};
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen]
    extern "C" {
        /// The global `setTimeout` (a window's or a worker's).
        #[wasm_bindgen(js_name = setTimeout)]
        fn set_timeout(handler: &js_sys::Function, milliseconds: i32) -> JsValue;
        /// The global `clearTimeout`.
        #[wasm_bindgen(js_name = clearTimeout)]
        fn clear_timeout(handle: &JsValue);
    }

    /// A `setTimeout` cleared when dropped, so a call that finishes first leaves no
    /// timer behind.
    struct Timer {
        handle: JsValue,
    }

    impl Drop for Timer {
        fn drop(&mut self) {
            clear_timeout(&self.handle);
        }
    }

    /// Waits `duration` on the page's timer (at most `i32::MAX` milliseconds, 24 days,
    /// as `setTimeout` takes). The browser's futures are `!Send`; the page has one
    /// thread, which the wrapper checks.
    pub(crate) fn sleep(duration: Duration) -> impl Future<Output = ()> + Send {
        send_wrapper::SendWrapper::new(sleep_here(duration))
    }

    async fn sleep_here(duration: Duration) {
        let milliseconds = i32::try_from(duration.as_millis()).unwrap_or(i32::MAX);
        let mut timer = None;
        let fired = js_sys::Promise::new(&mut |resolve, _reject| {
            timer = Some(Timer {
                handle: set_timeout(&resolve, milliseconds),
            });
        });
        let _timer = timer;
        // A promise that only resolves: the result carries nothing.
        let _ = wasm_bindgen_futures::JsFuture::from(fired).await;
    }

    /// Runs `future` for at most `duration`.
    pub(crate) async fn timeout<F: Future>(
        duration: Duration,
        future: F,
    ) -> Result<F::Output, Elapsed> {
        match select(pin!(future), pin!(sleep(duration))).await {
            Either::Left((output, _)) => Ok(output),
            Either::Right(((), _)) => Err(Elapsed),
        }
    }

    /// `Date.now()`: `SystemTime::now` panics in a browser.
    pub(crate) fn now() -> SystemTime {
        // Milliseconds since the epoch, integral for every date a browser reports.
        let milliseconds = js_sys::Date::now().max(0.0) as u64;
        SystemTime::UNIX_EPOCH + Duration::from_millis(milliseconds)
    }

    /// Runs `task` on the page's event loop.
    pub(crate) fn spawn(task: impl Future<Output = ()> + Send + 'static) -> bool {
        wasm_bindgen_futures::spawn_local(task);
        true
    }
}
