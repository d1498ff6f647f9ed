//! Retrying idempotent calls: [`Retry`], with its [`Backoff`].

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::chain::{Carries, Exchange, Middleware, Next};
use crate::client::codec;
use crate::client::port::{Delivery, SendFuture};
use crate::client::transport_error::{TransportError, TransportErrorKind};

/// The HTTP statuses retried unless told otherwise: 429 Too Many Requests, 502 Bad
/// Gateway, 503 Service Unavailable.
pub const DEFAULT_RETRY_STATUSES: [u16; 3] = [429, 502, 503];

/// Sends again the calls of methods marked idempotent when their exchange failed in a
/// way that is safe to retry, waiting a [`Backoff`] between attempts. Other methods,
/// and batches, are never retried.
///
/// An exchange is retried when, and only when:
///
/// - the transport failed with kind [`Connect`](TransportErrorKind::Connect) (no
///   connection was made) or [`Io`](TransportErrorKind::Io) (the connection broke
///   before the whole answer was read: the call may have run, which an idempotent
///   method allows);
/// - the peer answered with an HTTP status and no JSON-RPC answer, and the status is
///   one of [`statuses`](Self::status) (by default [`DEFAULT_RETRY_STATUSES`]);
/// - the answer is a JSON-RPC error whose code is one the user listed with
///   [`code`](Self::code) (none by default). Such answers are seen where they come back
///   from the exchange (HTTP, in-memory); on message streams (WebSocket, byte
///   streams) the answer arrives later through the client's inbox, and only failures
///   to send are retried.
///
/// A closed connection ([`Closed`](TransportErrorKind::Closed)), a configuration
/// error, a result, and every other error answer are returned at once. All attempts
/// happen within the call's one timeout (`Builder::timeout`, per method or per call):
/// a retry never makes a call wait longer than it would have.
///
/// ```
/// use std::time::Duration;
/// use rpcsmith::client::{Backoff, Client, Retry};
/// # let transport = rpcsmith::http::Client::new("http://127.0.0.1:1")?;
///
/// let retry = Retry::idempotent(["eth_getBalance", "eth_blockNumber"])
///     .max_retries(4)
///     .backoff(Backoff::exponential(Duration::from_millis(50), Duration::from_secs(2)))
///     .code(-32005); // the server's "limit exceeded"
/// let client = Client::builder().middleware(retry).build(transport);
/// # drop(client);
/// # Ok::<(), rpcsmith::client::TransportError>(())
/// ```
#[derive(Debug)]
pub struct Retry {
    idempotent: HashSet<Box<str>>,
    max_retries: u32,
    backoff: Backoff,
    statuses: Vec<u16>,
    codes: Vec<i64>,
    /// The jitter generator's state (splitmix64).
    random: AtomicU64,
}

impl Retry {
    /// Retries the calls of `methods` (by their wire names), at most 3 times, with
    /// [`Backoff::default`].
    pub fn idempotent<I>(methods: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<Box<str>>,
    {
        let backoff = Backoff::default();
        Self {
            idempotent: methods.into_iter().map(Into::into).collect(),
            max_retries: 3,
            random: AtomicU64::new(backoff.seed()),
            backoff,
            statuses: DEFAULT_RETRY_STATUSES.to_vec(),
            codes: Vec::new(),
        }
    }

    /// Marks one more method idempotent.
    pub fn method(mut self, method: impl Into<Box<str>>) -> Self {
        self.idempotent.insert(method.into());
        self
    }

    /// How many times an exchange is sent again at most (0 never retries). The default is 3.
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// How long to wait before each retry.
    pub fn backoff(mut self, backoff: Backoff) -> Self {
        self.random = AtomicU64::new(backoff.seed());
        self.backoff = backoff;
        self
    }

    /// Retries an answer with HTTP `status` (and no JSON-RPC body) too; see the list
    /// [`DEFAULT_RETRY_STATUSES`] starts with.
    pub fn status(mut self, status: u16) -> Self {
        self.statuses.push(status);
        self
    }

    /// Retries a JSON-RPC error answer with `code` (a declared "try again" error, say).
    pub fn code(mut self, code: i64) -> Self {
        self.codes.push(code);
        self
    }

    fn applies_to(&self, exchange: &Exchange) -> bool {
        self.max_retries > 0
            && match exchange.carries() {
                Carries::Call { method, .. } | Carries::Notification { method } => {
                    self.idempotent.contains(&**method)
                }
                Carries::Batch { .. } => false,
            }
    }

    /// Whether `outcome` is a failure that is safe to retry (see the type's docs).
    fn is_retryable(&self, outcome: &Result<Delivery, TransportError>) -> bool {
        match outcome {
            Err(error) => match error.kind() {
                TransportErrorKind::Connect | TransportErrorKind::Io => true,
                TransportErrorKind::Status => error
                    .http_status()
                    .is_some_and(|status| self.statuses.contains(&status)),
                _ => false,
            },
            Ok(Delivery::Answer(answer)) => {
                !self.codes.is_empty()
                    && codec::error_code(answer).is_some_and(|code| self.codes.contains(&code))
            }
            Ok(_) => false,
        }
    }

    fn random(&self) -> u64 {
        splitmix64(self.random.fetch_add(GOLDEN_GAMMA, Ordering::Relaxed))
    }
}

impl Middleware for Retry {
    fn send<'a>(&'a self, exchange: Exchange, next: Next<'a>) -> SendFuture<'a> {
        if !self.applies_to(&exchange) {
            return next.run(exchange);
        }
        Box::pin(async move {
            let mut retries = 0;
            loop {
                let outcome = next.run(exchange.clone()).await;
                if retries == self.max_retries || !self.is_retryable(&outcome) {
                    return outcome;
                }
                let delay = self.backoff.delay(retries, || self.random());
                retries += 1;
                let method = exchange.method().unwrap_or_default();
                crate::metrics::record_client_retry(method);
                tracing::debug!(method, retry = retries, ?delay, "retrying");
                crate::client::rt::sleep(delay).await;
            }
        })
    }
}

/// How long [`Retry`] waits before each retry: exponential, capped, with optional jitter.
///
/// The `n`th retry (from 0) waits `first × factorⁿ`, at most `max`. With jitter, each
/// wait is drawn uniformly between half of that and all of it, so that clients that
/// failed together do not retry together; [`jitter_seed`](Self::jitter_seed) makes the
/// draws repeatable (tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backoff {
    first: Duration,
    max: Duration,
    factor: u32,
    jitter: Jitter,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Jitter {
    None,
    Random,
    Seeded(u64),
}

impl Default for Backoff {
    /// 100 ms, doubling, at most 5 s, with random jitter.
    fn default() -> Self {
        Self::exponential(Duration::from_millis(100), Duration::from_secs(5)).jitter()
    }
}

impl Backoff {
    /// Waits `first`, then twice as long at each retry, at most `max`; no jitter.
    pub fn exponential(first: Duration, max: Duration) -> Self {
        Self {
            first,
            max,
            factor: 2,
            jitter: Jitter::None,
        }
    }

    /// Multiplies the wait by `factor` at each retry instead of 2 (1 keeps it constant).
    pub fn factor(mut self, factor: u32) -> Self {
        self.factor = factor;
        self
    }

    /// Draws each wait at random between half of it and all of it.
    pub fn jitter(mut self) -> Self {
        self.jitter = Jitter::Random;
        self
    }

    /// As [`jitter`](Self::jitter), with draws from a generator seeded with `seed`: the
    /// same seed gives the same waits.
    pub fn jitter_seed(mut self, seed: u64) -> Self {
        self.jitter = Jitter::Seeded(seed);
        self
    }

    /// The wait before retry `retry` (from 0), `random` drawing the jitter.
    pub fn delay(&self, retry: u32, random: impl FnOnce() -> u64) -> Duration {
        let growth = self.factor.checked_pow(retry).unwrap_or(u32::MAX);
        let full = self.first.saturating_mul(growth).min(self.max);
        if self.jitter == Jitter::None {
            return full;
        }
        let nanos = u64::try_from(full.as_nanos()).unwrap_or(u64::MAX);
        let half = nanos / 2;
        Duration::from_nanos(half + random() % (nanos - half + 1))
    }

    fn seed(&self) -> u64 {
        match self.jitter {
            Jitter::Seeded(seed) => seed,
            Jitter::None | Jitter::Random => RandomState::new().hash_one(0x5eed_u64),
        }
    }
}

const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// One output of the splitmix64 generator for `state`.
fn splitmix64(state: u64) -> u64 {
    let mut z = state.wrapping_add(GOLDEN_GAMMA);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        let backoff = Backoff::exponential(Duration::from_millis(100), Duration::from_secs(1));
        let waits: Vec<_> = (0..6).map(|n| backoff.delay(n, || 0)).collect();
        let ms = |ms| Duration::from_millis(ms);
        assert_eq!(
            waits,
            [ms(100), ms(200), ms(400), ms(800), ms(1000), ms(1000)]
        );
        assert_eq!(backoff.delay(200, || 0), ms(1000), "no overflow");
        let constant = backoff.clone().factor(1);
        assert_eq!(constant.delay(5, || 0), ms(100));
    }

    #[test]
    fn jitter_stays_between_half_and_all_and_is_repeatable() {
        let backoff =
            Backoff::exponential(Duration::from_millis(100), Duration::from_secs(1)).jitter_seed(7);
        let draw = |retry: Retry| -> Vec<Duration> {
            (0..50)
                .map(|n| retry.backoff.delay(n % 4, || retry.random()))
                .collect()
        };
        let first = draw(Retry::idempotent(["m"]).backoff(backoff.clone()));
        let second = draw(Retry::idempotent(["m"]).backoff(backoff.clone()));
        assert_eq!(first, second, "the same seed, the same waits");
        for (n, wait) in first.iter().enumerate() {
            let full = backoff.delay(n as u32 % 4, || 0) * 2;
            assert!(
                *wait >= full / 2 && *wait <= full,
                "{wait:?} within [{:?}, {full:?}]",
                full / 2
            );
        }
        assert!(
            first
                .windows(2)
                .any(|pair| pair[0] != pair[1] && pair[0] / 2 != pair[1])
        );
    }

    #[test]
    fn only_safe_failures_of_idempotent_calls_are_retried() {
        let retry = Retry::idempotent(["get"]).code(-32005);
        let call = |method: &str| {
            Exchange::new(
                bytes::Bytes::new(),
                Carries::Call {
                    method: method.into(),
                    id: 1,
                },
            )
        };
        assert!(retry.applies_to(&call("get")));
        assert!(!retry.applies_to(&call("set")));
        assert!(!retry.applies_to(&Exchange::new(
            bytes::Bytes::new(),
            Carries::Batch { entries: 1 }
        )));
        assert!(
            !Retry::idempotent(["get"])
                .max_retries(0)
                .applies_to(&call("get"))
        );

        let error = |kind| Err(TransportError::new(kind, "x"));
        assert!(retry.is_retryable(&error(TransportErrorKind::Connect)));
        assert!(retry.is_retryable(&error(TransportErrorKind::Io)));
        assert!(!retry.is_retryable(&error(TransportErrorKind::Closed)));
        assert!(!retry.is_retryable(&error(TransportErrorKind::Config)));
        for (status, expected) in [
            (503, true),
            (502, true),
            (429, true),
            (500, false),
            (401, false),
        ] {
            let outcome = Err(TransportError::from_http_status(status));
            assert_eq!(retry.is_retryable(&outcome), expected, "{status}");
        }
        let answer =
            |text: &'static str| Ok(Delivery::Answer(bytes::Bytes::from_static(text.as_bytes())));
        assert!(retry.is_retryable(&answer(
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"slow down"}}"#
        )));
        assert!(!retry.is_retryable(&answer(
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"no"}}"#
        )));
        assert!(!retry.is_retryable(&answer(r#"{"jsonrpc":"2.0","id":1,"result":1}"#)));
        assert!(!retry.is_retryable(&Ok(Delivery::NoAnswer)));
    }
}
