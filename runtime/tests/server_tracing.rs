//! Every call runs in a `call` span carrying its method and id.
//!
//! The only test in its binary: the subscriber is set per thread, and tracing caches each
//! callsite's interest process-wide, so a test running beside it on another thread (with
//! no subscriber) could turn the span off for it.

mod support;

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rpcsmith::server::{Metadata, Server};
use support::{TestMethods, json, request};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata as TracingMetadata, Subscriber};

/// Records the name and fields of every span created.
#[derive(Clone, Default)]
struct Spans {
    seen: Arc<Mutex<Vec<String>>>,
    next: Arc<AtomicU64>,
}

/// Appends each recorded field's value.
struct Fields<'a>(&'a mut String);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, _: &Field, value: &dyn fmt::Debug) {
        self.0.push_str(&format!(" {value:?}"));
    }
    fn record_str(&mut self, _: &Field, value: &str) {
        self.0.push(' ');
        self.0.push_str(value);
    }
}

impl Subscriber for Spans {
    fn enabled(&self, _: &TracingMetadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let mut seen = span.metadata().name().to_owned();
        span.record(&mut Fields(&mut seen));
        self.seen.lock().unwrap().push(seen);
        Id::from_u64(self.next.fetch_add(1, Ordering::Relaxed) + 1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

#[test]
fn each_call_gets_a_span_with_its_method_and_id() {
    let spans = Spans::default();
    let _guard = tracing::subscriber::set_default(spans.clone());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = Server::builder(TestMethods::default()).build();
    let batch = format!(
        r#"[{},{},{{"jsonrpc":"2.0","method":"sleep","params":[1]}},5]"#,
        request("add", "[1,2]", 1),
        request("rpc.discover", "[]", 2)
    );
    let answer = rt.block_on(server.handle(batch.as_bytes(), Metadata::default()));
    assert_eq!(json(&answer.unwrap()).as_array().map(Vec::len), Some(3));
    let seen = spans.seen.lock().unwrap().clone();
    assert_eq!(seen, ["call add 1", "call rpc.discover 2", "call sleep"]);
}
