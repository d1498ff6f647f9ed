//! W3C trace context on every exchange: [`TracePropagation`].

use std::collections::BTreeMap;

use bytes::Bytes;
use http::{HeaderName, HeaderValue};
use opentelemetry::propagation::{Injector, TextMapPropagator};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use super::chain::{Exchange, Middleware, Next};
use crate::client::port::SendFuture;
use crate::protocol::meta;

/// Sends the current span's trace context (W3C `traceparent` and `tracestate`) with
/// every exchange, so that the server's span for the call joins the client's trace
/// (a server built with feature `otel` adopts it; see the guide's [tracing chapter](crate::guide::production#tracing-and-trace-propagation)).
///
/// Run inside the engine's span for the call (`call`, kind client), the current span's
/// context is that call's, so the server's span becomes its child. The span's
/// OpenTelemetry context comes from `tracing-opentelemetry`: without its layer in the
/// subscriber there is no context, and nothing is sent.
///
/// Where it rides:
///
/// - over HTTP, as the `traceparent` and `tracestate` headers (the W3C Trace Context
///   specification's own carrier);
/// - over transports without headers (WebSocket, byte streams, in-memory), in the
///   params' `_meta` object, as the Model Context Protocol does:
///   `"params":{"_meta":{"traceparent":"00-…"},…}`. JSON-RPC 2.0 has no member for
///   metadata and a member of its own beside `params` would make the request
///   non-conforming; `_meta` stays inside the method's own argument object, which
///   servers that ignore unknown members accept unchanged. Only object params carry
///   it (a `_meta` of their own gets the fields added): a call with params by position
///   or none, or a batch, is sent without trace context on those transports.
#[derive(Debug, Clone, Copy, Default)]
pub struct TracePropagation;

impl Middleware for TracePropagation {
    fn send<'a>(&'a self, mut exchange: Exchange, next: Next<'a>) -> SendFuture<'a> {
        let context = tracing::Span::current().context();
        let mut fields = Fields::default();
        TraceContextPropagator::new().inject_context(&context, &mut fields);
        if !fields.0.is_empty() {
            if next.carries_headers() {
                for (name, value) in fields.0 {
                    if let (Ok(name), Ok(value)) =
                        (HeaderName::try_from(name), HeaderValue::try_from(value))
                    {
                        exchange.headers_mut().insert(name, value);
                    }
                }
            } else if let Some(message) = meta::insert_meta(exchange.message(), &fields.0) {
                exchange.set_message(Bytes::from(message));
            }
        }
        next.run(exchange)
    }
}

/// The propagator's output, sorted by name.
#[derive(Default)]
struct Fields(BTreeMap<String, String>);

impl Injector for Fields {
    fn set(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), value);
    }
}
