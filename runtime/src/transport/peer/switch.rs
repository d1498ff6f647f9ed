//! A client that outlives its connections: when one ends, pending calls fail with
//! `Closed`, and a new connection is opened after the [`Reconnect`] policy's delay; calls
//! made meanwhile wait for it (up to their timeout), and the subscriptions live on the
//! lost connection are re-issued on the new one ([`Client::resubscribe`]).

use super::cancellation::Cancellation;
use super::driver::Driver;
use super::inbound::Inbound;
use super::link::Stop;
use super::queue::{Budget, Outbox};
use super::wire::Wire;
use super::{Builder, NoMethods, Remote};
use crate::client::{Client, Inbox, WeakClient};
use crate::client::{Delivery, SendFuture, Transport, TransportError};
use crate::server::Server;
use bytes::Bytes;
use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// When to open a new connection after one is lost.
///
/// A retry is the connection attempt that follows a lost connection or a failed
/// attempt; the count of retries starts again at each connection made. A policy is
/// refined by [`jitter`](Reconnect::jitter) (so that many clients that lost the same
/// server do not all come back at once) and [`max_retries`](Reconnect::max_retries):
///
/// ```
/// use rpcsmith::transport::peer::Reconnect;
/// use std::time::Duration;
///
/// let policy = Reconnect::Exponential { initial: Duration::from_millis(100), max: Duration::from_secs(10) }
///     .jitter(0.5)
///     .max_retries(20);
/// # drop(policy);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Reconnect {
    /// Never: the first lost connection closes the client, as without reconnection.
    Never,
    /// After the same delay every time.
    Fixed(Duration),
    /// After `initial`, then twice as long each failed attempt, at most `max`.
    Exponential {
        /// The first delay.
        initial: Duration,
        /// The longest delay.
        max: Duration,
    },
    /// `policy`'s delays, each shortened by a random part of at most `fraction` of it
    /// (between 0 and 1); made by [`Reconnect::jitter`].
    Jitter {
        /// The delays before jitter.
        policy: Box<Reconnect>,
        /// The largest part of each delay taken off at random.
        fraction: f64,
    },
    /// `policy`, giving up (the client closes, its calls fail with `Closed`) once
    /// `retries` retries in a row have failed; made by [`Reconnect::max_retries`].
    Limited {
        /// The delays.
        policy: Box<Reconnect>,
        /// How many retries in a row are made at most.
        retries: u32,
    },
}

impl Reconnect {
    /// This policy with each delay shortened by a random part of at most `fraction` of
    /// it (clamped between 0 and 1; 0.5 waits between half and all of each delay).
    #[must_use]
    pub fn jitter(self, fraction: f64) -> Self {
        let fraction = if fraction.is_nan() {
            0.0
        } else {
            fraction.clamp(0.0, 1.0)
        };
        Reconnect::Jitter {
            policy: Box::new(self),
            fraction,
        }
    }

    /// This policy, giving up once `retries` retries in a row have failed (0 is
    /// [`Reconnect::Never`] after a lost connection). Without it, a client retries as
    /// long as any clone of it lives.
    #[must_use]
    pub fn max_retries(self, retries: u32) -> Self {
        Reconnect::Limited {
            policy: Box::new(self),
            retries,
        }
    }

    /// The delay before retry `attempt` (0 for the first); `None` to give up.
    fn delay(&self, attempt: u32) -> Option<Duration> {
        match self {
            Reconnect::Never => None,
            Reconnect::Fixed(delay) => Some(*delay),
            Reconnect::Exponential { initial, max } => {
                let factor = 2_u32.saturating_pow(attempt.min(31));
                Some(initial.saturating_mul(factor).min(*max))
            }
            Reconnect::Jitter { policy, fraction } => {
                let delay = policy.delay(attempt)?;
                Some(delay.mul_f64(1.0 - fraction * random_unit()))
            }
            Reconnect::Limited { policy, retries } => (attempt < *retries)
                .then(|| policy.delay(attempt))
                .flatten(),
        }
    }
}

/// A random number in `[0, 1)`, from the standard library's randomly keyed hasher: good
/// enough to spread reconnections, with no random-number crate.
fn random_unit() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let bits = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    // The top 53 bits, as a fraction of 2^53.
    (bits >> 11) as f64 / (1_u64 << 53) as f64
}

/// Where a reconnecting client's connection stands; watched through the receiver that
/// `ws::Reconnecting::connect_watched` and
/// [`stream::Reconnecting`](crate::transport::stream::Reconnecting)'s `*_watched`
/// constructors return.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConnectionState {
    /// Opening a connection: `retry` is 0 for the first attempt (at the start, or after
    /// a connection was lost), then counts the failed attempts before this one.
    Connecting {
        /// How many attempts in a row failed before this one.
        retry: u32,
    },
    /// Connected: calls are sent.
    Connected,
    /// Waiting `delay` before the next attempt, after a lost connection or a failed
    /// attempt; calls wait too (up to their timeout).
    Waiting {
        /// How long until the next attempt.
        delay: Duration,
    },
    /// For good: the policy gave up, or every clone of the client was dropped. Calls
    /// fail with `Closed`.
    Closed,
}

/// The transport of a reconnecting client: the current connection's queue, if any.
struct Switch {
    current: watch::Receiver<Option<Outbox>>,
    cancel: Option<Arc<Cancellation>>,
}

impl Transport for Switch {
    fn receives_pushes(&self) -> bool {
        true
    }

    fn send(&self, message: Bytes) -> SendFuture<'_> {
        Box::pin(async move {
            let mut current = self.current.clone();
            let mut message = message;
            loop {
                let outbox = current.borrow_and_update().clone();
                if let Some(outbox) = outbox {
                    match outbox.send(message).await {
                        Ok(()) => return Ok(Delivery::Routed),
                        Err(returned) => message = returned,
                    }
                }
                // Wait for the next connection; the client's timeout bounds the wait.
                if current.changed().await.is_err() {
                    return Err(TransportError::closed());
                }
            }
        })
    }

    fn cancel(&self, id: u64) {
        let outbox = self.current.borrow().clone();
        if let (Some(cancel), Some(outbox)) = (&self.cancel, outbox) {
            let _ = outbox.try_send(cancel.message(id));
        }
    }
}

/// A client whose connections `connect` opens, again after each is lost, per `policy`,
/// and its connection's state. The first connection is opened in the background: calls
/// wait for it.
pub(crate) fn reconnecting<C, F, W>(
    mut builder: Builder,
    policy: Reconnect,
    connect: C,
) -> (Client, watch::Receiver<ConnectionState>)
where
    C: Fn() -> F + Send + Sync + 'static,
    F: Future<Output = io::Result<W>> + Send + 'static,
    W: Wire,
{
    let cancel = builder.cancel_setting();
    let (publish, current) = watch::channel(None);
    let client = builder.client_builder().build(Switch {
        current,
        cancel: cancel.clone(),
    });
    let inbox = client.inbox();
    builder
        .metadata
        .extensions
        .insert(Remote(client.downgrade()));
    let (state, states) = watch::channel(ConnectionState::Connecting { retry: 0 });
    let supervisor = Supervisor {
        client: client.downgrade(),
        builder,
        policy,
        inbox,
        publish,
        state,
        cancel,
    };
    tokio::spawn(supervisor.run(connect));
    (client, states)
}

struct Supervisor {
    /// The client, to re-issue its subscriptions on each new connection.
    client: WeakClient,
    builder: Builder,
    policy: Reconnect,
    inbox: Inbox,
    publish: watch::Sender<Option<Outbox>>,
    state: watch::Sender<ConnectionState>,
    cancel: Option<Arc<Cancellation>>,
}

impl Supervisor {
    /// Connects, serves the connection until it ends, waits, and again, until the
    /// policy gives up or the client is dropped.
    async fn run<C, F, W>(self, connect: C)
    where
        C: Fn() -> F,
        F: Future<Output = io::Result<W>>,
        W: Wire,
    {
        let server = self
            .builder
            .server
            .clone()
            .unwrap_or_else(|| Server::new(NoMethods));
        let mut attempt = 0;
        loop {
            self.state
                .send_replace(ConnectionState::Connecting { retry: attempt });
            let connected = tokio::select! {
                () = self.publish.closed() => break,
                connected = connect() => connected,
            };
            match connected {
                Ok(wire) => {
                    attempt = 0;
                    if self.run_connection(&server, wire).await == Ended::ClientGone {
                        break;
                    }
                }
                Err(error) => tracing::debug!(%error, "reconnecting failed"),
            }
            let Some(delay) = self.policy.delay(attempt) else {
                self.inbox.close();
                break;
            };
            attempt = attempt.saturating_add(1);
            self.state.send_replace(ConnectionState::Waiting { delay });
            tokio::select! {
                () = self.publish.closed() => break,
                () = tokio::time::sleep(delay) => {}
            }
        }
        self.state.send_replace(ConnectionState::Closed);
    }

    /// Runs one connection until it ends, or until the client is gone (then closes it).
    async fn run_connection(&self, server: &Server, wire: impl Wire) -> Ended {
        let budget = Arc::new(Budget::new(self.builder.byte_budget));
        let (outbox, queue) = Outbox::new(self.builder.queue, Arc::clone(&budget));
        let stop = Arc::new(Stop::default());
        let mut metadata = self.builder.metadata.clone();
        super::outlet::install(&mut metadata, &outbox);
        let inbound = Inbound::new(
            self.inbox.clone(),
            server.connection(metadata),
            outbox.clone(),
            (self.cancel.clone(), self.builder.order),
            server.limits(),
            (self.builder.queue, self.builder.byte_budget),
        );
        let driver = Driver::new(
            wire,
            (queue, budget),
            inbound,
            (Arc::clone(&stop), self.builder.stall_timeout),
            false,
        );
        let mut driver = std::pin::pin!(driver);
        self.publish.send_replace(Some(outbox));
        self.state.send_replace(ConnectionState::Connected);
        // The subscriptions live on the lost connection go on on this one.
        if let Some(client) = self.client.upgrade() {
            tokio::spawn(async move { client.resubscribe().await });
        }
        let ended = tokio::select! {
            () = self.publish.closed() => Ended::ClientGone,
            () = driver.as_mut() => Ended::Lost,
        };
        self.publish.send_replace(None);
        if ended == Ended::ClientGone {
            // Let out what is queued, and close the stream.
            stop.trigger();
            driver.await;
        }
        ended
    }
}

/// How a connection of a reconnecting client ended.
#[derive(Debug, PartialEq, Eq)]
enum Ended {
    /// It was lost: connect again.
    Lost,
    /// Every clone of the client is dropped: stop.
    ClientGone,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays() {
        let ms = Duration::from_millis;
        assert_eq!(Reconnect::Never.delay(0), None);
        assert_eq!(Reconnect::Fixed(ms(7)).delay(9), Some(ms(7)));
        let policy = Reconnect::Exponential {
            initial: ms(10),
            max: ms(50),
        };
        let delays: Vec<_> = (0..5).map(|attempt| policy.delay(attempt)).collect();
        assert_eq!(delays, [10, 20, 40, 50, 50].map(|n| Some(ms(n))));
        assert_eq!(policy.delay(u32::MAX), Some(ms(50)));
    }

    #[test]
    fn retries_are_limited() {
        let ms = Duration::from_millis;
        let policy = Reconnect::Fixed(ms(7)).max_retries(3);
        let delays: Vec<_> = (0..5).map(|attempt| policy.delay(attempt)).collect();
        assert_eq!(delays, [Some(ms(7)), Some(ms(7)), Some(ms(7)), None, None]);
        assert_eq!(Reconnect::Fixed(ms(7)).max_retries(0).delay(0), None);
        assert_eq!(Reconnect::Never.max_retries(9).delay(0), None);
    }

    #[test]
    fn jitter_shortens_each_delay_by_at_most_its_fraction() {
        let ms = Duration::from_millis;
        let policy = Reconnect::Exponential {
            initial: ms(100),
            max: ms(1000),
        }
        .jitter(0.5);
        let mut seen = std::collections::HashSet::new();
        for attempt in 0..200 {
            let full = ms(100 * 2_u64.pow(attempt % 4)).min(ms(1000));
            let delay = policy.delay(attempt % 4).unwrap();
            assert!(delay <= full && delay >= full / 2, "{delay:?} of {full:?}");
            seen.insert(delay);
        }
        // Random: 200 draws are not all the same few values.
        assert!(seen.len() > 100, "{}", seen.len());
        for fraction in [0.0, -1.0, f64::NAN] {
            let exact = Reconnect::Fixed(ms(40)).jitter(fraction);
            assert_eq!(exact.delay(0), Some(ms(40)), "{fraction}");
        }
        let whole = Reconnect::Fixed(ms(40)).jitter(7.0);
        assert!(whole.delay(0).unwrap() <= ms(40));
        assert_eq!(Reconnect::Never.jitter(0.5).delay(0), None);
    }
}
