//! Adopting the caller's W3C trace context (feature `otel`): the call's span becomes a
//! child of the span that sent the call, so that one trace crosses client and server.
//!
//! The context is read from the params' `_meta` object (how a client's
//! `TracePropagation` sends it where there are no headers) when it has a `traceparent`,
//! else from the `traceparent` and `tracestate` HTTP headers (a call over HTTP, or over
//! a WebSocket whose upgrade request had them). A call that carries none keeps the
//! span's parent as it is.

use std::collections::BTreeMap;

use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::TraceContextExt;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use serde_json::value::RawValue;
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use super::metadata::Metadata;
use crate::protocol::meta;

const TRACEPARENT: &str = "traceparent";

/// Makes `span` (not yet entered) a child of the trace context the call carries.
pub(super) fn adopt(span: &Span, metadata: Option<&Metadata>, params: Option<&RawValue>) {
    if span.is_disabled() {
        return;
    }
    let propagator = TraceContextPropagator::new();
    // The call's own `_meta` first: a WebSocket's headers are its upgrade request's,
    // shared by every call on the connection.
    let fields = params
        .filter(|params| params.get().contains(r#""_meta""#))
        .and_then(meta::read_meta)
        .filter(|fields| fields.contains_key(TRACEPARENT));
    let headers = metadata.and_then(|metadata| metadata.headers.as_ref());
    let context = match (fields, headers) {
        (Some(fields), _) => propagator.extract(&Fields(fields)),
        (None, Some(headers)) if headers.contains_key(TRACEPARENT) => {
            propagator.extract(&Headers(headers))
        }
        (None, _) => return,
    };
    if context.span().span_context().is_valid() {
        // Fails only where no `tracing-opentelemetry` layer listens: nothing to adopt.
        let _ = span.set_parent(context);
    }
}

struct Headers<'a>(&'a http::HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}

struct Fields(BTreeMap<String, String>);

impl Extractor for Fields {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}
