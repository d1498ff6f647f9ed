//! Metrics through the [`metrics`](https://docs.rs/metrics) crate's facade, behind the
//! `metrics` feature: whatever recorder the program installs (the Prometheus exporter,
//! StatsD, a test recorder) receives them. Every metric the runtime records is named
//! here, and recorded here only; the engines and transports call the small meters of
//! this module at their seams.
//!
//! | name | kind | labels | what |
//! |---|---|---|---|
//! | `rpcsmith_server_calls_total` | counter | `method`, `code` | calls answered (notifications included), by method and outcome: `code` is `ok`, the JSON-RPC error code (`-32601`), or `cancelled` (the call was dropped unanswered: its connection closed, its batch outgrew the response limit) |
//! | `rpcsmith_server_call_duration_seconds` | histogram | `method` | from the call's start (its params still to decode) to its result |
//! | `rpcsmith_server_calls_in_flight` | gauge | | calls whose handler is waiting (started, and not finished on its first poll) and not yet finished, every connection together |
//! | `rpcsmith_server_batch_size` | histogram | | entries per batch received |
//! | `rpcsmith_server_connections` | gauge | `transport` | connections a server accepted and still holds: `http` (under `http::serve`), `ws` (upgrades), `tcp` and `unix` (`transport::stream::serve_tcp`, `serve_unix`), `stdio` (`transport::stream::stdio`) |
//! | `rpcsmith_server_received_bytes_total` | counter | `transport` | message bytes received (HTTP: request bodies; WebSocket and byte streams: messages, framing excluded) |
//! | `rpcsmith_server_sent_bytes_total` | counter | `transport` | message bytes sent, likewise |
//! | `rpcsmith_server_subscriptions` | gauge | | push subscriptions live (every connection together) |
//! | `rpcsmith_server_pull_streams` | gauge | | pull streams live |
//! | `rpcsmith_client_calls_total` | counter | `method`, `outcome` | calls made by a [`Client`](crate::client::Client) (`request`, generated methods), `outcome` `ok` or `error` |
//! | `rpcsmith_client_call_duration_seconds` | histogram | `method` | from the call's start to its outcome |
//! | `rpcsmith_client_errors_total` | counter | `method`, `kind`, `code` | failed calls by kind: `server` (an error answer; `code` is its code), `transport`, `timeout`, `closed`, `decode`, `encode`, `invalid_response`, `missing_response` (`code` empty but for `server`) |
//! | `rpcsmith_client_retries_total` | counter | `method` | calls sent again by a retry policy ([`record_client_retry`]) |
//!
//! **Bounded labels.** A server labels a call with its method name only when the name is
//! in its dispatcher's table ([`Dispatch::methods`](crate::server::Dispatch::methods),
//! or its document's methods: generated dispatchers always have one) or is one of the
//! `rpc.*` names the engine answers; any other name is labelled `unknown`, so a client
//! sending random names cannot create a series per name. A dispatcher with no table
//! has its calls labelled by name unless they are answered `-32601` (method not found),
//! for the first 256 names so labelled; later names are `unknown` too.
//!
//! **Cost.** Without the feature nothing of this is compiled: the meters are empty types
//! whose methods do nothing, and so are [`describe`] and [`record_client_retry`] (so a
//! layer may call them whatever the features). With it, a server resolves each method's
//! counter and histogram once (on its first call, from the recorder installed then:
//! install the recorder before serving) and then only updates them; the bench's
//! `ratio metrics_on_cpu_per_call` measures the cost with the Prometheus recorder.
//!
//! ```
//! # #[cfg(feature = "metrics")] {
//! use rpcsmith::metrics;
//! assert_eq!(metrics::SERVER_CALLS_TOTAL, "rpcsmith_server_calls_total");
//! // After installing a recorder: its descriptions (HELP lines) and units.
//! metrics::describe();
//! # }
//! ```

#[cfg(not(feature = "metrics"))]
mod off;
#[cfg(feature = "metrics")]
mod on;

#[cfg(not(feature = "metrics"))]
pub(crate) use off::*;
#[cfg(feature = "metrics")]
pub(crate) use on::*;

#[cfg(not(feature = "metrics"))]
pub use off::{describe, record_client_retry};
#[cfg(feature = "metrics")]
pub use on::{describe, record_client_retry};

/// Counter of calls a server answered, by `method` and `code`.
pub const SERVER_CALLS_TOTAL: &str = "rpcsmith_server_calls_total";
/// Histogram of a server's call durations in seconds, by `method`.
pub const SERVER_CALL_DURATION_SECONDS: &str = "rpcsmith_server_call_duration_seconds";
/// Gauge of a server's calls in flight.
pub const SERVER_CALLS_IN_FLIGHT: &str = "rpcsmith_server_calls_in_flight";
/// Histogram of the entries of the batches a server received.
pub const SERVER_BATCH_SIZE: &str = "rpcsmith_server_batch_size";
/// Gauge of a server's open connections, by `transport`.
pub const SERVER_CONNECTIONS: &str = "rpcsmith_server_connections";
/// Counter of message bytes a server received, by `transport`.
pub const SERVER_RECEIVED_BYTES_TOTAL: &str = "rpcsmith_server_received_bytes_total";
/// Counter of message bytes a server sent, by `transport`.
pub const SERVER_SENT_BYTES_TOTAL: &str = "rpcsmith_server_sent_bytes_total";
/// Gauge of a server's live push subscriptions.
pub const SERVER_SUBSCRIPTIONS: &str = "rpcsmith_server_subscriptions";
/// Gauge of a server's live pull streams.
pub const SERVER_PULL_STREAMS: &str = "rpcsmith_server_pull_streams";
/// Counter of a client's calls, by `method` and `outcome` (`ok`, `error`).
pub const CLIENT_CALLS_TOTAL: &str = "rpcsmith_client_calls_total";
/// Histogram of a client's call durations in seconds, by `method`.
pub const CLIENT_CALL_DURATION_SECONDS: &str = "rpcsmith_client_call_duration_seconds";
/// Counter of a client's failed calls, by `method`, `kind` and `code`.
pub const CLIENT_ERRORS_TOTAL: &str = "rpcsmith_client_errors_total";
/// Counter of a client's calls sent again, by `method`.
pub const CLIENT_RETRIES_TOTAL: &str = "rpcsmith_client_retries_total";

/// The `transport` label of a server's connection metrics.
#[cfg(any(feature = "http", feature = "stream"))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transport {
    #[cfg(feature = "http")]
    Http,
    #[cfg(feature = "ws")]
    Ws,
    #[cfg(feature = "stream")]
    Tcp,
    #[cfg(all(feature = "stream", unix))]
    Unix,
    #[cfg(feature = "stream")]
    Stdio,
}

#[cfg(all(feature = "metrics", any(feature = "http", feature = "stream")))]
impl Transport {
    /// The label's value.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            #[cfg(feature = "http")]
            Transport::Http => "http",
            #[cfg(feature = "ws")]
            Transport::Ws => "ws",
            #[cfg(feature = "stream")]
            Transport::Tcp => "tcp",
            #[cfg(all(feature = "stream", unix))]
            Transport::Unix => "unix",
            #[cfg(feature = "stream")]
            Transport::Stdio => "stdio",
        }
    }
}

/// How a client's call ended, for `ClientCall::finish`.
#[derive(Debug, Clone, Copy)]
// Read only by the meters that record (the `metrics` feature).
#[cfg_attr(not(feature = "metrics"), allow(dead_code))]
pub(crate) enum ClientOutcome {
    Ok,
    /// `kind` as in `rpcsmith_client_errors_total`; `code` for an error answer.
    Failed {
        kind: &'static str,
        code: Option<i64>,
    },
}

impl ClientOutcome {
    /// A failure of `kind` with no error code.
    pub(crate) fn failed(kind: &'static str) -> Self {
        ClientOutcome::Failed { kind, code: None }
    }
}
