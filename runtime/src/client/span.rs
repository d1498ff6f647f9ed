//! The client's `tracing` spans: one per call, notification or batch, named `call` (as
//! the server's), with `method` and `id`, and the `outcome` recorded when it ends.
//!
//! Spans are at `DEBUG` level: with no subscriber, or one that filters `DEBUG` out of
//! `rpcsmith::client`, making one is a check of the callsite's cached interest and
//! recording does nothing. `otel.kind = "client"` tells `tracing-opentelemetry` the
//! span is the client side of a remote call.

use tracing::Span;
use tracing::field::Empty;

use super::error::UntypedFailure;

/// The span of a call of `method` with `id` (a notification has none).
pub(crate) fn call(method: &str, id: Option<u64>) -> Span {
    tracing::debug_span!(
        "call",
        method,
        id,
        outcome = Empty,
        code = Empty,
        otel.kind = "client"
    )
}

/// The span of a batch of `entries` calls and notifications.
pub(crate) fn batch(entries: usize) -> Span {
    tracing::debug_span!(
        "call",
        method = "batch",
        entries,
        outcome = Empty,
        otel.kind = "client"
    )
}

/// Records how the exchange of `span` ended: `outcome` is `ok`, or the failure's kind
/// (`error` with its `code`, `transport`, `timeout`, `closed`, `invalid`, `missing`).
pub(crate) fn record<T>(span: &Span, result: &Result<T, UntypedFailure>) {
    if span.is_disabled() {
        return;
    }
    let outcome = match result {
        Ok(_) => "ok",
        Err(UntypedFailure::Error(error)) => {
            span.record("code", error.code);
            "error"
        }
        Err(UntypedFailure::Transport(_)) => "transport",
        Err(UntypedFailure::Timeout) => "timeout",
        Err(UntypedFailure::Closed) => "closed",
        Err(UntypedFailure::Invalid(_)) => "invalid",
        Err(UntypedFailure::Missing) => "missing",
    };
    span.record("outcome", outcome);
}
