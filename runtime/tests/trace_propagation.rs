//! One trace across client and server (feature `otel`): the client's
//! `TracePropagation` sends the W3C trace context of its call span, the server adopts it,
//! and the OpenTelemetry SDK's in-memory exporter sees the server's span for the call as
//! a child of the client's, in the same trace. Over HTTP (headers) and WebSocket (the
//! params' `_meta`), on loopback.

use opentelemetry::trace::{SpanKind, TraceId, TracerProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use rpcsmith::client::{Client, TracePropagation};
use rpcsmith::http;
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Reply, Server};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::ws::{self, Settings};
use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;
use std::net::SocketAddr;
use std::time::Duration;
use tracing_subscriber::layer::SubscriberExt;

/// `add` of `{"a", "b"}` or `[a, b]`.
struct Adder;

#[derive(Deserialize)]
struct Terms {
    a: i64,
    b: i64,
}

impl Dispatch for Adder {
    fn call(&self, method: &str, params: Option<&RawValue>, _: Context) -> Reply {
        let text = params.map_or("null", RawValue::get);
        let terms = serde_json::from_str::<Terms>(text)
            .or_else(|_| serde_json::from_str::<(i64, i64)>(text).map(|(a, b)| Terms { a, b }));
        match (method, terms) {
            ("add", Ok(terms)) => Reply::ok(&(terms.a + terms.b)),
            ("add", Err(_)) => Reply::err(ErrorObject::invalid_params("two numbers")),
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

/// The spans of this thread go to `tracing-opentelemetry`, and from there to an
/// in-memory exporter (until the guard is dropped).
fn telemetry() -> (
    InMemorySpanExporter,
    SdkTracerProvider,
    tracing::subscriber::DefaultGuard,
) {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("rpcsmith-test"));
    let guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
    (exporter, provider, guard)
}

/// The server over HTTP and WebSocket on a free loopback port.
async fn serve() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = http::Service::new(Server::builder(Adder).build())
        .websocket(Peer::builder(), Settings::default());
    tokio::spawn(http::serve(listener, service, std::future::pending()));
    address
}

/// The client's span of the call and the server's span of the same call (the server's
/// closes as it answers, maybe just after the client read the answer: waited for).
async fn call_spans(exporter: &InMemorySpanExporter, calls: usize) -> Vec<(SpanData, SpanData)> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let spans = exporter.get_finished_spans().unwrap();
        let (clients, servers): (Vec<_>, Vec<_>) = spans
            .into_iter()
            .filter(|span| span.name == "call")
            .partition(|span| span.span_kind == SpanKind::Client);
        if clients.len() == calls && servers.len() == calls {
            return clients.into_iter().zip(servers).collect();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{} client and {} server spans, expected {calls} each",
            clients.len(),
            servers.len()
        );
        tokio::task::yield_now().await;
    }
}

fn assert_child(client: &SpanData, server: &SpanData) {
    let trace = client.span_context.trace_id();
    assert_ne!(trace, TraceId::INVALID);
    assert_eq!(server.span_context.trace_id(), trace, "one trace");
    assert_eq!(
        server.parent_span_id,
        client.span_context.span_id(),
        "the server's span is the client span's child"
    );
    assert!(server.parent_span_is_remote);
}

#[tokio::test]
async fn one_trace_over_http() {
    let (exporter, _provider, _guard) = telemetry();
    let address = serve().await;
    let transport = http::Client::new(&format!("http://{address}/")).unwrap();
    let client = Client::builder()
        .middleware(TracePropagation)
        .build(transport);
    // In headers: params by name or by position alike.
    let sum: i64 = client
        .request("add", &json!({ "a": 1, "b": 2 }))
        .await
        .unwrap();
    assert_eq!(sum, 3);
    let sum: i64 = client.request("add", &[3, 4]).await.unwrap();
    assert_eq!(sum, 7);
    for (client, server) in call_spans(&exporter, 2).await {
        assert_child(&client, &server);
    }
}

#[tokio::test]
async fn one_trace_over_websocket() {
    let (exporter, _provider, _guard) = telemetry();
    let address = serve().await;
    let builder = Peer::builder().client_middleware(TracePropagation);
    let peer = ws::connect(format!("ws://{address}/"), builder, Settings::default())
        .await
        .unwrap();
    // In the params' `_meta`, which the server reads and the handler never sees.
    let sum: i64 = peer
        .client()
        .request("add", &json!({ "a": 5, "b": 6 }))
        .await
        .unwrap();
    assert_eq!(sum, 11);
    let [(client, server)] = <[_; 1]>::try_from(call_spans(&exporter, 1).await).unwrap();
    assert_child(&client, &server);
}

#[tokio::test]
async fn without_propagation_the_server_starts_its_own_trace() {
    let (exporter, _provider, _guard) = telemetry();
    let address = serve().await;
    let transport = http::Client::new(&format!("http://{address}/")).unwrap();
    let client = Client::new(transport);
    let sum: i64 = client.request("add", &[1, 1]).await.unwrap();
    assert_eq!(sum, 2);
    let [(client, server)] = <[_; 1]>::try_from(call_spans(&exporter, 1).await).unwrap();
    assert_ne!(
        server.span_context.trace_id(),
        client.span_context.trace_id()
    );
    assert!(!server.parent_span_is_remote);
}
