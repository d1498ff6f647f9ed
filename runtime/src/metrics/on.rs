//! The meters when the `metrics` feature is on: each records through the `metrics`
//! facade into the recorder installed.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Instant;

use ::metrics::{
    Counter, Gauge, Histogram, SharedString, Unit, counter, describe_counter, describe_gauge,
    describe_histogram, gauge, histogram,
};

use super::*;

/// Gives the installed recorder the description and unit of every metric the runtime
/// records (Prometheus prints them as `# HELP` lines). Call it once, after installing
/// the recorder; metrics are recorded whether or not it was called.
pub fn describe() {
    let counters = [
        (
            SERVER_CALLS_TOTAL,
            "JSON-RPC calls answered, by method and outcome code",
        ),
        (
            SERVER_RECEIVED_BYTES_TOTAL,
            "message bytes received, by transport",
        ),
        (SERVER_SENT_BYTES_TOTAL, "message bytes sent, by transport"),
        (
            CLIENT_CALLS_TOTAL,
            "JSON-RPC calls made, by method and outcome",
        ),
        (
            CLIENT_ERRORS_TOTAL,
            "failed client calls, by method, kind and code",
        ),
        (
            CLIENT_RETRIES_TOTAL,
            "client calls sent again by a retry policy",
        ),
    ];
    for (name, help) in counters {
        let unit = if name.ends_with("_bytes_total") {
            Unit::Bytes
        } else {
            Unit::Count
        };
        describe_counter!(name, unit, help);
    }
    let gauges = [
        (
            SERVER_CALLS_IN_FLIGHT,
            "calls whose handler is waiting: started, not finished on their first poll",
        ),
        (SERVER_CONNECTIONS, "open connections, by transport"),
        (SERVER_SUBSCRIPTIONS, "push subscriptions live"),
        (SERVER_PULL_STREAMS, "pull streams live"),
    ];
    for (name, help) in gauges {
        describe_gauge!(name, Unit::Count, help);
    }
    describe_histogram!(
        SERVER_CALL_DURATION_SECONDS,
        Unit::Seconds,
        "server call durations, by method"
    );
    describe_histogram!(SERVER_BATCH_SIZE, Unit::Count, "entries per batch received");
    describe_histogram!(
        CLIENT_CALL_DURATION_SECONDS,
        Unit::Seconds,
        "client call durations, by method"
    );
}

/// Counts one call of `method` sent again (`rpcsmith_client_retries_total`): for a
/// retry policy layered over a client's transport.
pub fn record_client_retry(method: &str) {
    counter!(CLIENT_RETRIES_TOTAL, "method" => method.to_owned()).increment(1);
}

/// The `code` label of an outcome: `ok`, the error code, or `cancelled`.
fn code_label(code: Option<i64>) -> SharedString {
    let text = match code {
        None => "ok",
        Some(-32700) => "-32700",
        Some(-32600) => "-32600",
        Some(-32601) => "-32601",
        Some(-32602) => "-32602",
        Some(-32603) => "-32603",
        Some(code) => return SharedString::from_owned(code.to_string()),
    };
    SharedString::const_str(text)
}

const METHOD_NOT_FOUND: i64 = -32601;

/// Most names a server without a table labels by name; later ones are `unknown`.
const MAX_NAMES_LEARNED: usize = 256;

/// One method's label, and its handles once resolved.
struct Method {
    label: SharedString,
    ok: OnceLock<Counter>,
    duration: OnceLock<Histogram>,
}

impl Method {
    fn new(label: SharedString) -> Self {
        Method {
            label,
            ok: OnceLock::new(),
            duration: OnceLock::new(),
        }
    }

    fn record(&self, code: Option<i64>, seconds: f64) {
        match code {
            None => self
                .ok
                .get_or_init(
                    || counter!(SERVER_CALLS_TOTAL, "method" => self.label.clone(), "code" => "ok"),
                )
                .increment(1),
            Some(code) => calls(self.label.clone(), Some(code)).increment(1),
        }
        self.duration
            .get_or_init(
                || histogram!(SERVER_CALL_DURATION_SECONDS, "method" => self.label.clone()),
            )
            .record(seconds);
    }
}

fn calls(method: SharedString, code: Option<i64>) -> Counter {
    counter!(SERVER_CALLS_TOTAL, "method" => method, "code" => code_label(code))
}

/// A server's meters: its table of method labels, resolved handles, and in-flight gauge.
///
/// The table is looked up with foldhash rather than the standard library's SipHash,
/// once per call: SipHash cost about 250 instructions of the 600 that metrics added to
/// a call. Its keys are the server's own names, fixed when it is built, so a peer's
/// names cannot fill it (no flooding to defend against).
pub(crate) struct ServerMeter {
    methods: HashMap<Box<str>, Method, foldhash::fast::FixedState>,
    /// Every name not in `methods`, when there is a table.
    unknown: Method,
    /// No table: names are labelled as they come, unless not found.
    open: bool,
    /// Without a table, the names labelled so far (at most [`MAX_NAMES_LEARNED`]).
    learned: Mutex<HashSet<Box<str>>>,
    in_flight: OnceLock<Gauge>,
    batch_size: OnceLock<Histogram>,
    /// HTTP exchanges' bytes, received and sent.
    #[cfg(feature = "http")]
    http_bytes: OnceLock<(Counter, Counter)>,
}

impl ServerMeter {
    /// `table`: the dispatcher's names, when known; `reserved`: the `rpc.*` (and other
    /// engine-answered) names, always labelled by name.
    pub(crate) fn new<'a>(
        table: Option<impl IntoIterator<Item = &'a str>>,
        reserved: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let open = table.is_none();
        let methods = table
            .into_iter()
            .flatten()
            .chain(reserved)
            .map(|name| {
                let label = SharedString::from_shared(Arc::<str>::from(name));
                (Box::from(name), Method::new(label))
            })
            .collect();
        ServerMeter {
            methods,
            unknown: Method::new(SharedString::const_str("unknown")),
            open,
            learned: Mutex::default(),
            in_flight: OnceLock::new(),
            batch_size: OnceLock::new(),
            #[cfg(feature = "http")]
            http_bytes: OnceLock::new(),
        }
    }

    /// Whether `name`, answered, is labelled by name: known already, or learned while
    /// there is room.
    fn learn(&self, name: &str) -> bool {
        let mut learned = self.learned.lock().unwrap_or_else(PoisonError::into_inner);
        if learned.contains(name) {
            return true;
        }
        if learned.len() >= MAX_NAMES_LEARNED {
            return false;
        }
        learned.insert(name.into());
        true
    }

    fn in_flight(&self) -> &Gauge {
        self.in_flight
            .get_or_init(|| gauge!(SERVER_CALLS_IN_FLIGHT))
    }

    /// A call of `method` starts (counted in flight once it waits: [`CallMeter::wait`]).
    pub(crate) fn call(&self, method: &str) -> CallMeter<'_> {
        let method = match self.methods.get(method) {
            Some(known) => Label::Known(known),
            None if self.open => Label::Named(method.to_owned()),
            None => Label::Known(&self.unknown),
        };
        CallMeter {
            meter: self,
            method,
            started: Instant::now(),
            done: false,
            waiting: false,
        }
    }

    /// A batch of `len` entries arrived.
    pub(crate) fn batch(&self, len: usize) {
        self.batch_size
            .get_or_init(|| histogram!(SERVER_BATCH_SIZE))
            .record(len as f64);
    }

    /// One HTTP exchange's bytes: the request body read, the response body sent. The
    /// handles are resolved once (a lookup by name and label per exchange cost about
    /// a tenth of a call's CPU time).
    #[cfg(feature = "http")]
    pub(crate) fn http_exchange(&self, received: usize, sent: usize) {
        let (received_total, sent_total) = self.http_bytes.get_or_init(|| {
            (
                counter!(SERVER_RECEIVED_BYTES_TOTAL, "transport" => "http"),
                counter!(SERVER_SENT_BYTES_TOTAL, "transport" => "http"),
            )
        });
        received_total.increment(received as u64);
        sent_total.increment(sent as u64);
    }
}

enum Label<'a> {
    Known(&'a Method),
    Named(String),
}

/// One call's meter: records its outcome and duration when it finishes, `cancelled`
/// when dropped unfinished.
pub(crate) struct CallMeter<'a> {
    meter: &'a ServerMeter,
    method: Label<'a>,
    started: Instant,
    done: bool,
    /// Counted in flight: its handler did not finish on its first poll.
    waiting: bool,
}

impl CallMeter<'_> {
    /// The call's handler did not finish on its first poll: the call is counted in
    /// flight until it finishes or drops. A call answered within that poll is never
    /// counted: it would be counted and uncounted within a microsecond, two updates of
    /// a gauge that every worker thread shares, and no scrape could tell.
    pub(crate) fn wait(&mut self) {
        if !self.waiting {
            self.waiting = true;
            self.meter.in_flight().increment(1.0);
        }
    }

    /// The call answered: `code` is `None` for a result, the error's code otherwise.
    pub(crate) fn finish(&mut self, code: Option<i64>) {
        if !self.done {
            self.record(Some(code));
        }
    }

    /// `outcome`: `None` when cancelled.
    fn record(&mut self, outcome: Option<Option<i64>>) {
        self.done = true;
        if self.waiting {
            self.meter.in_flight().decrement(1.0);
        }
        let seconds = self.started.elapsed().as_secs_f64();
        let Some(code) = outcome else {
            let label = match &self.method {
                Label::Known(method) => method.label.clone(),
                Label::Named(name) if self.meter.learn(name) => {
                    SharedString::from_owned(name.clone())
                }
                Label::Named(_) => SharedString::const_str("unknown"),
            };
            counter!(SERVER_CALLS_TOTAL, "method" => label, "code" => "cancelled").increment(1);
            return;
        };
        match &mut self.method {
            Label::Known(method) => method.record(code, seconds),
            Label::Named(name) => {
                let label = if code != Some(METHOD_NOT_FOUND) && self.meter.learn(name) {
                    SharedString::from_owned(std::mem::take(name))
                } else {
                    SharedString::const_str("unknown")
                };
                calls(label.clone(), code).increment(1);
                histogram!(SERVER_CALL_DURATION_SECONDS, "method" => label).record(seconds);
            }
        }
    }
}

impl Drop for CallMeter<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.record(None);
        }
    }
}

/// An open connection's meter: counted in `rpcsmith_server_connections` while it
/// lives, with its byte counters.
#[cfg(any(feature = "http", feature = "stream"))]
pub(crate) struct ConnectionMeter(Option<Open>);

#[cfg(any(feature = "http", feature = "stream"))]
struct Open {
    transport: Transport,
    /// A peer's messages (HTTP counts its bodies per exchange: [`http_exchange`]).
    #[cfg(feature = "stream")]
    received: Counter,
    #[cfg(feature = "stream")]
    sent: Counter,
}

#[cfg(any(feature = "http", feature = "stream"))]
impl ConnectionMeter {
    /// A connection of `transport` opens (`None`: not a server's connection, not
    /// counted).
    pub(crate) fn open(transport: Option<Transport>) -> Self {
        ConnectionMeter(transport.map(|transport| {
            let label = transport.as_str();
            gauge!(SERVER_CONNECTIONS, "transport" => label).increment(1.0);
            Open {
                transport,
                #[cfg(feature = "stream")]
                received: counter!(SERVER_RECEIVED_BYTES_TOTAL, "transport" => label),
                #[cfg(feature = "stream")]
                sent: counter!(SERVER_SENT_BYTES_TOTAL, "transport" => label),
            }
        }))
    }

    /// A message of `bytes` arrived.
    #[cfg(feature = "stream")]
    pub(crate) fn received(&self, bytes: usize) {
        if let Some(open) = &self.0 {
            open.received.increment(bytes as u64);
        }
    }

    /// A message of `bytes` left.
    #[cfg(feature = "stream")]
    pub(crate) fn sent(&self, bytes: usize) {
        if let Some(open) = &self.0 {
            open.sent.increment(bytes as u64);
        }
    }
}

#[cfg(any(feature = "http", feature = "stream"))]
impl Drop for ConnectionMeter {
    fn drop(&mut self) {
        if let Some(open) = &self.0 {
            gauge!(SERVER_CONNECTIONS, "transport" => open.transport.as_str()).decrement(1.0);
        }
    }
}

/// Something live counted by a gauge while this lives: a push subscription, a pull
/// stream.
pub(crate) struct LiveMeter(Gauge);

impl LiveMeter {
    /// A push subscription starts.
    pub(crate) fn subscription() -> Self {
        Self::start(gauge!(SERVER_SUBSCRIPTIONS))
    }

    /// A pull stream starts.
    pub(crate) fn pull_stream() -> Self {
        Self::start(gauge!(SERVER_PULL_STREAMS))
    }

    fn start(gauge: Gauge) -> Self {
        gauge.increment(1.0);
        LiveMeter(gauge)
    }
}

impl Drop for LiveMeter {
    fn drop(&mut self) {
        self.0.decrement(1.0);
    }
}

/// One client call's meter.
pub(crate) struct ClientCall {
    method: SharedString,
    started: Instant,
}

impl ClientCall {
    /// A call of `method` starts.
    pub(crate) fn start(method: &str) -> Self {
        ClientCall {
            method: SharedString::from_owned(method.to_owned()),
            started: Instant::now(),
        }
    }

    /// The call ended as `outcome` says (computed only when metrics are on).
    pub(crate) fn finish(self, outcome: impl FnOnce() -> ClientOutcome) {
        let seconds = self.started.elapsed().as_secs_f64();
        let method = self.method;
        histogram!(CLIENT_CALL_DURATION_SECONDS, "method" => method.clone()).record(seconds);
        let ClientOutcome::Failed { kind, code } = outcome() else {
            counter!(CLIENT_CALLS_TOTAL, "method" => method, "outcome" => "ok").increment(1);
            return;
        };
        counter!(CLIENT_CALLS_TOTAL, "method" => method.clone(), "outcome" => "error").increment(1);
        let code = match code {
            Some(code) => SharedString::from_owned(code.to_string()),
            None => SharedString::const_str(""),
        };
        counter!(CLIENT_ERRORS_TOTAL, "method" => method, "kind" => kind, "code" => code)
            .increment(1);
    }
}
