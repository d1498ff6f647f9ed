//! A call's deadline on the wire: the instant after which the caller no longer waits
//! for the answer, so that a server (or a proxy) spends no work on a call nobody will
//! read, and passes on only what is left of it.
//!
//! JSON-RPC 2.0 has no member for it; it travels where the call's trace context does:
//!
//! | transport | carrier |
//! |---|---|
//! | HTTP | the header [`HEADER`]: `Rpc-Deadline: 2026-11-29T07:00:00.25Z` |
//! | WebSocket, byte streams, in-memory | the params' `_meta` object, member [`META`]: `"params":{"_meta":{"deadline":"2026-11-29T07:00:00.25Z"},…}` |
//!
//! The value is an RFC 3339 timestamp in UTC with up to nanosecond precision, the
//! encoding jrpc2's `jctx` package gives its `deadline` (Go's `time.Time` in JSON), so a
//! value read from one carries over to the other unchanged. The carrier is not jctx's:
//! jctx replaced the params with a wrapper (`{"jctx":"1","deadline":…,"payload":<params>}`),
//! which every peer that does not know it reads as the wrong arguments, and jrpc2 itself
//! dropped it in 2022 (commit `520888a`, "Remove support for parameter injection") in
//! favour of metadata carried inside the arguments — what `_meta` is, as MCP has it. An absolute instant rather
//! than a duration (gRPC's `grpc-timeout: 250m`) keeps its meaning however long the
//! message waited in a queue or a proxy on the way; the price is that the two clocks
//! must agree, which NTP gives to well within the seconds deadlines are made of. A
//! server bounds a call by its own handler time limit as well, so a skewed or hostile
//! deadline can shorten a call but never lengthen it.
//!
//! Only calls with params by name carry `_meta` (see the guide); params by position or
//! none, and batches over transports without headers, go without a deadline, and the
//! server applies its own limit alone.

use std::time::SystemTime;

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// The HTTP header that carries a call's deadline (lower case, as `http` spells
/// header names).
pub const HEADER: &str = "rpc-deadline";

/// The member of the params' `_meta` object that carries a call's deadline.
pub const META: &str = "deadline";

/// `deadline` as RFC 3339 text in UTC (`2009-11-10T23:00:00.00000015Z`), or `None` for
/// an instant the format cannot write (beyond the year 9999).
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use rpcsmith::protocol::deadline;
///
/// let at = SystemTime::UNIX_EPOCH + Duration::from_millis(1_258_894_000_250);
/// assert_eq!(deadline::format(at).as_deref(), Some("2009-11-22T12:46:40.25Z"));
/// ```
pub fn format(deadline: SystemTime) -> Option<String> {
    OffsetDateTime::from(deadline).format(&Rfc3339).ok()
}

/// The instant RFC 3339 `text` names (any offset), or `None` when it is not one.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use rpcsmith::protocol::deadline;
///
/// // As jrpc2's `jctx` writes it.
/// let at = deadline::parse("2009-11-10T23:00:00.00000015Z").unwrap();
/// let since = at.duration_since(SystemTime::UNIX_EPOCH).unwrap();
/// assert_eq!(since, Duration::new(1_257_894_000, 150));
/// assert_eq!(deadline::parse("2009-11-11T00:00:00.00000015+01:00"), Some(at));
/// assert_eq!(deadline::parse("tomorrow"), None);
/// ```
pub fn parse(text: &str) -> Option<SystemTime> {
    OffsetDateTime::parse(text, &Rfc3339)
        .ok()
        .map(SystemTime::from)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn round_trips_to_the_nanosecond() {
        for nanos in [0, 1, 150, 250_000_000, 999_999_999] {
            let at = SystemTime::UNIX_EPOCH + Duration::new(1_800_000_000, nanos);
            let text = format(at).unwrap();
            assert!(text.ends_with('Z'), "{text}");
            assert_eq!(parse(&text), Some(at), "{text}");
        }
    }

    /// jrpc2's `jctx` test vectors and doc example (Go's `RFC3339Nano`, trailing zeros
    /// of the fraction dropped), read and written alike.
    #[test]
    fn writes_and_reads_jctx_deadlines() {
        for (secs, nanos, text) in [
            // time.Date(1976, 7, 4, 1, 2, 3, 4, time.UTC), jctx_test.go's `bicent`.
            (205_290_123, 4, "1976-07-04T01:02:03.000000004Z"),
            (1_257_894_000, 150, "2009-11-10T23:00:00.00000015Z"),
        ] {
            let at = SystemTime::UNIX_EPOCH + Duration::new(secs, nanos);
            assert_eq!(format(at).as_deref(), Some(text));
            assert_eq!(parse(text), Some(at));
        }
    }

    #[test]
    fn refuses_what_is_not_rfc_3339() {
        // (A space for the `T` is RFC 3339's own allowance, and accepted.)
        for text in [
            "",
            "2009-11-10",
            "2009-11-10T23:00:00",
            "Tue, 10 Nov 2009 23:00:00 GMT",
            "1257894000",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
    }
}
