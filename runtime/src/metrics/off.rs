//! The meters when the `metrics` feature is off: empty types whose methods do nothing,
//! so that the engines call them unconditionally and nothing is compiled in.

use super::ClientOutcome;

/// Does nothing: the `metrics` feature is off.
#[inline(always)]
pub fn describe() {}

/// Does nothing: the `metrics` feature is off.
#[inline(always)]
pub fn record_client_retry(_method: &str) {}
#[cfg(any(feature = "http", feature = "stream"))]
use super::Transport;

/// Records nothing (the `metrics` feature is off).
pub(crate) struct ServerMeter;

impl ServerMeter {
    #[inline(always)]
    pub(crate) fn new<'a>(
        _table: Option<impl IntoIterator<Item = &'a str>>,
        _reserved: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        ServerMeter
    }

    #[inline(always)]
    pub(crate) fn call(&self, _method: &str) -> CallMeter<'_> {
        CallMeter(std::marker::PhantomData)
    }

    #[inline(always)]
    pub(crate) fn batch(&self, _len: usize) {}

    #[cfg(feature = "http")]
    #[inline(always)]
    pub(crate) fn http_exchange(&self, _received: usize, _sent: usize) {}
}

/// Records nothing (the `metrics` feature is off).
pub(crate) struct CallMeter<'a>(std::marker::PhantomData<&'a ()>);

impl CallMeter<'_> {
    #[inline(always)]
    pub(crate) fn wait(&mut self) {}

    #[inline(always)]
    pub(crate) fn finish(&mut self, _code: Option<i64>) {}
}

/// Records nothing (the `metrics` feature is off).
#[cfg(any(feature = "http", feature = "stream"))]
pub(crate) struct ConnectionMeter;

#[cfg(any(feature = "http", feature = "stream"))]
impl ConnectionMeter {
    #[inline(always)]
    pub(crate) fn open(_transport: Option<Transport>) -> Self {
        ConnectionMeter
    }

    #[cfg(feature = "stream")]
    #[inline(always)]
    pub(crate) fn received(&self, _bytes: usize) {}

    #[cfg(feature = "stream")]
    #[inline(always)]
    pub(crate) fn sent(&self, _bytes: usize) {}
}

/// Records nothing (the `metrics` feature is off).
pub(crate) struct LiveMeter;

impl LiveMeter {
    #[inline(always)]
    pub(crate) fn subscription() -> Self {
        LiveMeter
    }

    #[inline(always)]
    pub(crate) fn pull_stream() -> Self {
        LiveMeter
    }
}

/// Records nothing (the `metrics` feature is off).
pub(crate) struct ClientCall;

impl ClientCall {
    #[inline(always)]
    pub(crate) fn start(_method: &str) -> Self {
        ClientCall
    }

    #[inline(always)]
    pub(crate) fn finish(self, _outcome: impl FnOnce() -> ClientOutcome) {}
}
