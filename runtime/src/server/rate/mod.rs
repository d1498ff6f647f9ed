//! Rate limits: a token bucket per connection and per peer address, as a
//! [`Middleware`].
//!
//! Every call takes a token, each member of a batch alone, notifications included (a
//! flood of notifications costs the server as much as one of requests; a refused
//! notification is dropped, as nothing may be answered to it). A call refused is
//! answered `-32005` ([`code::RATE_LIMITED`]), the code Ethereum's EIP-1474 names
//! "limit exceeded" and its providers answer on rate limits, with a retry hint:
//!
//! ```json
//! {"code":-32005,"message":"Rate limit exceeded for this connection","data":{"retryAfterMs":250}}
//! ```
//!
//! `retryAfterMs` is how long until the bucket holds a token again (rounded up to the
//! millisecond). Over HTTP such an answer comes with `200 OK`, as every other
//! per-call error: a batch is judged call by call, so its answer may hold refusals and
//! results side by side, and clients of every transport read the hint at the same place.
//!
//! Buckets use Tokio's clock ([`tokio::time::Instant`]), so tests can run them in
//! paused time. Rates are a policy of the service (a call may cost a microsecond or a
//! second), so there is no default rate: a server limits nothing until it is given a
//! [`RateLimit`]; what a client could exhaust is bounded anyway by
//! [`Limits`](super::Limits) (calls in flight, sizes) and by the transports (connections).

mod buckets;

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use serde::Serialize;

use crate::protocol::{ErrorObject, code};

use super::connection_id::ConnectionId;
use super::context::Context;
use super::dispatch::{BoxFuture, CallResult};
use super::middleware::{Call, Middleware, Next};
use buckets::Buckets;

/// How many peer addresses (or connections) a [`RateLimit`] keeps a bucket for, unless
/// told otherwise: 65,536 (a few MiB).
pub const DEFAULT_MAX_TRACKED: usize = 65_536;

/// A token bucket's shape: how many calls it holds (the burst) and how fast it refills.
///
/// ```
/// use std::time::Duration;
/// use rpcsmith::server::Rate;
///
/// // 100 calls a second on average, bursts of up to 200.
/// let rate = Rate::per_second(100).capacity(200);
/// assert_eq!(rate.interval(), Duration::from_millis(10));
/// assert_eq!(rate.burst(), 200);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    capacity: u32,
    /// The time one token takes to come back.
    interval: Duration,
}

impl Rate {
    /// `tokens` calls per `period` (0 counts as 1), in bursts of up to `tokens` (see
    /// [`capacity`](Self::capacity)). A zero `period` limits nothing.
    pub fn new(tokens: u32, period: Duration) -> Self {
        let tokens = tokens.max(1);
        Rate {
            capacity: tokens,
            interval: period / tokens,
        }
    }

    /// `tokens` calls a second (0 counts as 1), in bursts of up to `tokens`.
    pub fn per_second(tokens: u32) -> Self {
        Self::new(tokens, Duration::from_secs(1))
    }

    /// How many calls a full bucket holds: how many may come at once after a quiet
    /// time (0 counts as 1). The rate at which they come back stays the same.
    pub fn capacity(mut self, calls: u32) -> Self {
        self.capacity = calls.max(1);
        self
    }

    /// How many calls a full bucket holds.
    pub fn burst(&self) -> u32 {
        self.capacity
    }

    /// The time one token takes to come back.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// The time an empty bucket takes to be full.
    fn window(&self) -> Duration {
        self.interval.saturating_mul(self.capacity)
    }
}

/// Where the address a peer bucket is kept for comes from.
type PeerAddress = Box<dyn Fn(&Context) -> Option<IpAddr> + Send + Sync>;

/// A [`Middleware`] that limits the rate of calls per connection and per peer address
/// (see the [module docs](self) for what counts and how a refusal reads).
///
/// - **Per connection**: the calls of one [`ConnectionId`] (a WebSocket, a byte stream,
///   the requests of one socket accepted by `http::serve`). A message handled alone
///   (`Server::handle`, an HTTP `Service` mounted in another server) has no connection:
///   only the peer limit applies to it.
/// - **Per peer address**: the calls of every connection from one address, read from
///   [`Context::peer`] unless [`peer_address`](Self::peer_address) says otherwise. IPv4
///   addresses are counted one by one, IPv6 ones by their `/64` network (one host is
///   commonly given a whole `/64`; counting each address would let it pick a new
///   bucket per call). Calls with no address (the in-memory transport, Unix sockets)
///   are not limited by it.
///
/// A call takes a token from both buckets, or from neither: refused by the second, it
/// gives the first its token back. Each table keeps at most
/// [`DEFAULT_MAX_TRACKED`] buckets unless told otherwise (a bucket full again is
/// forgotten, as a new one would be the same; past the size, the buckets nearest to full
/// are), so a client with many addresses cannot grow it without bound.
///
/// ```
/// use rpcsmith::server::{Rate, RateLimit, Server};
/// # use rpcsmith::server::{Context, Dispatch, Reply};
/// # struct Api;
/// # impl Dispatch for Api {
/// #     fn call(&self, _: &str, _: Option<&serde_json::value::RawValue>, _: Context) -> Reply {
/// #         Reply::ok(&())
/// #     }
/// # }
///
/// let server = Server::builder(Api)
///     .middleware(
///         RateLimit::new()
///             .per_connection(Rate::per_second(50).capacity(100))
///             .per_peer(Rate::per_second(200).capacity(400)),
///     )
///     .build();
/// ```
pub struct RateLimit {
    connections: Option<Buckets<ConnectionId>>,
    peers: Option<Buckets<PeerKey>>,
    max_connections: usize,
    max_peers: usize,
    peer_address: PeerAddress,
}

impl RateLimit {
    /// A rate limit that limits nothing yet: give it
    /// [`per_connection`](Self::per_connection), [`per_peer`](Self::per_peer) or both.
    pub fn new() -> Self {
        RateLimit {
            connections: None,
            peers: None,
            max_connections: DEFAULT_MAX_TRACKED,
            max_peers: DEFAULT_MAX_TRACKED,
            peer_address: Box::new(|context| context.peer().map(|peer| peer.ip())),
        }
    }

    /// Limits the calls of each connection to `rate`.
    pub fn per_connection(mut self, rate: Rate) -> Self {
        self.connections = Some(Buckets::new(rate, self.max_connections));
        self
    }

    /// Limits the calls from each peer address to `rate`, whatever connection they
    /// come on.
    pub fn per_peer(mut self, rate: Rate) -> Self {
        self.peers = Some(Buckets::new(rate, self.max_peers));
        self
    }

    /// Most connections a bucket is kept for at once (0 counts as 1). Default:
    /// [`DEFAULT_MAX_TRACKED`].
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections;
        if let Some(buckets) = &mut self.connections {
            buckets.set_max_keys(connections);
        }
        self
    }

    /// Most peer addresses a bucket is kept for at once (0 counts as 1). Default:
    /// [`DEFAULT_MAX_TRACKED`].
    pub fn max_peers(mut self, peers: usize) -> Self {
        self.max_peers = peers;
        if let Some(buckets) = &mut self.peers {
            buckets.set_max_keys(peers);
        }
        self
    }

    /// Where a call's peer address comes from (default: [`Context::peer`]). Behind a
    /// reverse proxy every call comes from the proxy's address: read the address it
    /// forwards instead (a header only the proxy can set), or every client shares one
    /// bucket.
    pub fn peer_address(
        mut self,
        address: impl Fn(&Context) -> Option<IpAddr> + Send + Sync + 'static,
    ) -> Self {
        self.peer_address = Box::new(address);
        self
    }

    /// How many peer addresses have a bucket now (at most
    /// [`max_peers`](Self::max_peers)).
    pub fn tracked_peers(&self) -> usize {
        self.peers.as_ref().map_or(0, Buckets::len)
    }

    /// How many connections have a bucket now (at most
    /// [`max_connections`](Self::max_connections)).
    pub fn tracked_connections(&self) -> usize {
        self.connections.as_ref().map_or(0, Buckets::len)
    }

    /// Takes a token for a call with `context` from each of its buckets, or refuses it.
    fn admit(&self, context: &Context) -> Result<(), ErrorObject> {
        let now = tokio::time::Instant::now();
        let connection = self.connections.as_ref().zip(context.connection());
        if let Some((buckets, id)) = connection {
            buckets
                .take(id, now)
                .map_err(|wait| refusal("Rate limit exceeded for this connection", wait))?;
        }
        let peer = self
            .peers
            .as_ref()
            .zip((self.peer_address)(context).map(PeerKey::of));
        if let Some((buckets, key)) = peer
            && let Err(wait) = buckets.take(key, now)
        {
            if let Some((buckets, id)) = connection {
                buckets.give_back(id);
            }
            return Err(refusal("Rate limit exceeded for this address", wait));
        }
        Ok(())
    }
}

impl Default for RateLimit {
    fn default() -> Self {
        Self::new()
    }
}

impl Middleware for RateLimit {
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, CallResult> {
        match self.admit(&call.context) {
            Ok(()) => next.run(call),
            Err(refused) => {
                tracing::debug!(method = call.method, "rate limited");
                Box::pin(std::future::ready(Err(refused)))
            }
        }
    }
}

impl std::fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimit")
            .field(
                "per_connection",
                &self.connections.as_ref().map(|b| b.rate()),
            )
            .field("per_peer", &self.peers.as_ref().map(|b| b.rate()))
            .field("max_connections", &self.max_connections)
            .field("max_peers", &self.max_peers)
            .finish_non_exhaustive()
    }
}

/// The `data` of a refusal.
#[derive(Serialize)]
struct RetryHint {
    #[serde(rename = "retryAfterMs")]
    retry_after_ms: u64,
}

fn refusal(message: &'static str, wait: Duration) -> ErrorObject {
    // Rounded up: a client that waits this long finds a token.
    let millis = wait.as_nanos().div_ceil(1_000_000).max(1);
    let hint = RetryHint {
        retry_after_ms: u64::try_from(millis).unwrap_or(u64::MAX),
    };
    ErrorObject::with_data(code::RATE_LIMITED, message, &hint)
}

/// The key of a peer's bucket: an IPv4 address, or an IPv6 `/64` network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum PeerKey {
    V4(Ipv4Addr),
    V6Network(u64),
}

impl PeerKey {
    fn of(address: IpAddr) -> Self {
        match address.to_canonical() {
            IpAddr::V4(v4) => PeerKey::V4(v4),
            IpAddr::V6(v6) => PeerKey::V6Network((v6.to_bits() >> 64) as u64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_peers_share_their_network_and_mapped_ipv4_is_ipv4() {
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(PeerKey::of(a), PeerKey::of(b));
        assert_ne!(PeerKey::of(a), PeerKey::of(c));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(PeerKey::of(mapped), PeerKey::V4(Ipv4Addr::new(10, 0, 0, 1)));
    }

    #[test]
    fn the_hint_is_rounded_up_to_the_millisecond() {
        let refused = refusal("x", Duration::from_micros(1500));
        assert_eq!(refused.code, code::RATE_LIMITED);
        assert_eq!(
            refused.data.as_deref().map(|d| d.get()),
            Some(r#"{"retryAfterMs":2}"#)
        );
    }
}
