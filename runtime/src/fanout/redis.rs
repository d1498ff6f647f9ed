//! A [`Broker`] on Redis pub/sub, spoken through the `redis` crate: `PUBLISH`
//! on one multiplexed connection kept open (opened again after a failure, at the next
//! publish), and each subscription on a pub/sub connection of its own (`SUBSCRIBE`),
//! pinged when idle so that a broker gone silent is noticed.
//!
//! What managed Redis services ask for is supported: TLS (`rediss://`, rustls with the
//! system's root certificates, or [`Redis::root_certificate`]'s), and an ACL user name
//! with its password ([`Redis::user`], [`Redis::password`], or in the URL).
//!
//! **Bounds.** The crate reads a message whole before this module sees it, and queues a
//! subscription's messages for this module without a bound: how large a message may be
//! is Redis's own `proto-max-bulk-len`, and how many may wait is capped by Redis's
//! `client-output-buffer-limit pubsub` (past it, Redis drops the subscriber, which then
//! subscribes again). The queue stays short here because the [`Fanout`](super::Fanout)
//! reading it never waits: it hands each message to its connections' bounded queues.
//! Messages larger than [`Redis::max_message_size`] are dropped (and logged) on receipt,
//! and refused on publish. The broker is trusted like the instances themselves (see the
//! [module](super)).
//!
//! The crate replaced the runtime's own RESP client, which spoke neither TLS nor ACL
//! user names: the client of the Redis project's Rust users, with its TLS and
//! authentication tested against the server on every release, is the one to trust
//! with credentials.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use ::redis::aio::{MultiplexedConnection, PubSubSink, PubSubStream};
use ::redis::{AsyncConnectionConfig, Client, IntoConnectionInfo, RedisError, TlsCertificates};
use bytes::Bytes;
use futures_util::StreamExt;

use super::{Broker, Error, Messages};
use crate::server::BoxFuture;

/// Default of [`Redis::timeout`]: 2 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);
/// Default of [`Redis::max_message_size`]: 1 MiB.
pub const DEFAULT_MAX_MESSAGE: usize = 1 << 20;
/// Default of [`Redis::ping_interval`]: 15 seconds.
pub const DEFAULT_PING_INTERVAL: Duration = Duration::from_secs(15);

/// A Redis server's pub/sub.
///
/// ```no_run
/// use rpcsmith::fanout::{Fanout, redis::Redis};
/// use rpcsmith::transport::peer::Hub;
///
/// # async fn demo() {
/// let hub = Hub::new();
/// // A managed Redis: TLS, and an ACL user allowed PUBLISH and SUBSCRIBE.
/// let redis = Redis::new("rediss://redis.internal:6380")
///     .user("fanout")
///     .password(std::env::var("REDIS_PASSWORD").unwrap_or_default());
/// let fanout = Fanout::new(redis, &hub, "prices");
/// // Every instance's connections in `hub`, and the other instances' hubs, get it.
/// fanout.notify_all("priceChanged", &[42]).await.ok();
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Redis {
    settings: Arc<Settings>,
    /// The publishing connection, opened at the first publish; one publish at a time.
    publisher: Arc<tokio::sync::Mutex<Option<MultiplexedConnection>>>,
}

#[derive(Clone)]
struct Settings {
    url: String,
    user: Option<String>,
    password: Option<String>,
    root_certificate: Option<Vec<u8>>,
    timeout: Duration,
    ping_interval: Duration,
    max_message: usize,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The password (and a URL that may hold one) stays out of logs.
        let host = self.url.rsplit('@').next().unwrap_or_default();
        f.debug_struct("Settings")
            .field("host", &host)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "…"))
            .field("root_certificate", &self.root_certificate.is_some())
            .field("timeout", &self.timeout)
            .field("ping_interval", &self.ping_interval)
            .field("max_message", &self.max_message)
            .finish()
    }
}

impl Redis {
    /// The Redis server at `url`, reached when first used: `redis://host:port`,
    /// `rediss://host:port` for TLS (a user name and password may be in the URL), or a
    /// bare `host:port` (plain TCP). A URL that does not parse fails the first publish
    /// and subscription with [`Error::Invalid`].
    pub fn new(url: impl Into<String>) -> Self {
        let mut url = url.into();
        if !url.contains("://") {
            url = format!("redis://{url}");
        }
        Redis {
            settings: Arc::new(Settings {
                url,
                user: None,
                password: None,
                root_certificate: None,
                timeout: DEFAULT_TIMEOUT,
                ping_interval: DEFAULT_PING_INTERVAL,
                max_message: DEFAULT_MAX_MESSAGE,
            }),
            publisher: Arc::default(),
        }
    }

    /// The ACL user to authenticate as (`AUTH user password`); it needs `PUBLISH`,
    /// `SUBSCRIBE` and `PING` on the fan-out's channels. Without one, the password is
    /// that of the `default` user (`requirepass`).
    #[must_use]
    pub fn user(mut self, user: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.settings).user = Some(user.into());
        self
    }

    /// The password sent with `AUTH` on each connection.
    #[must_use]
    pub fn password(mut self, password: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.settings).password = Some(password.into());
        self
    }

    /// For `rediss://`: the certificate authority (PEM) that signed the server's
    /// certificate, trusted instead of the system's root certificates.
    #[must_use]
    pub fn root_certificate(mut self, pem: impl Into<Vec<u8>>) -> Self {
        Arc::make_mut(&mut self.settings).root_certificate = Some(pem.into());
        self
    }

    /// How long connecting, and each answer, may take; a publish fails with
    /// [`Error::Unavailable`] past it. Default: [`DEFAULT_TIMEOUT`].
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        Arc::make_mut(&mut self.settings).timeout = timeout;
        self
    }

    /// How long a subscription's connection may stay silent before it is pinged; a ping
    /// unanswered within the [`timeout`](Self::timeout) gives the subscription up (the
    /// fan-out then subscribes again). A broker gone silent (a network partition, a
    /// stopped process) is noticed within the sum of the two. Default:
    /// [`DEFAULT_PING_INTERVAL`].
    #[must_use]
    pub fn ping_interval(mut self, interval: Duration) -> Self {
        Arc::make_mut(&mut self.settings).ping_interval = interval;
        self
    }

    /// The largest message published or received, in bytes; larger ones received are
    /// dropped (and logged). Default: [`DEFAULT_MAX_MESSAGE`].
    #[must_use]
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        Arc::make_mut(&mut self.settings).max_message = bytes;
        self
    }

    async fn publish_now(&self, topic: &str, payload: &[u8]) -> Result<(), Error> {
        let limit = self.settings.max_message;
        if payload.len() > limit {
            return Err(Error::TooLarge {
                size: payload.len(),
                limit,
            });
        }
        let mut publisher = self.publisher.lock().await;
        // Taken out while in use: a publish cancelled halfway leaves no connection
        // behind, and the next one connects afresh.
        let mut connection = match publisher.take() {
            Some(connection) => connection,
            None => self.settings.publisher().await?,
        };
        let command = ::redis::cmd("PUBLISH").arg(topic).arg(payload).clone();
        let sent = command.query_async::<i64>(&mut connection);
        match tokio::time::timeout(self.settings.timeout, sent).await {
            Ok(Ok(_receivers)) => {
                *publisher = Some(connection);
                Ok(())
            }
            Ok(Err(error)) => {
                let error = classify(error);
                if !matches!(error, Error::Unavailable(_)) {
                    *publisher = Some(connection);
                }
                Err(error)
            }
            // Whether the broker took it is unknown: the next publish starts afresh.
            Err(_) => Err(Error::Unavailable(io::ErrorKind::TimedOut.into())),
        }
    }

    async fn subscribe_now(&self, topic: &str) -> Result<Messages, Error> {
        let settings = &self.settings;
        let client = settings.client()?;
        let (mut sink, stream) = within(settings.timeout, client.get_async_pubsub())
            .await?
            .split();
        within(settings.timeout, sink.subscribe(topic)).await?;
        let subscription = Subscription {
            sink,
            stream,
            settings: Arc::clone(settings),
        };
        let messages = futures_util::stream::unfold(subscription, |mut subscription| async {
            let payload = subscription.next_message().await?;
            Some((payload, subscription))
        });
        Ok(Box::pin(messages))
    }
}

impl Broker for Redis {
    fn publish<'a>(&'a self, topic: &'a str, payload: Bytes) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(async move { self.publish_now(topic, &payload).await })
    }

    fn subscribe<'a>(&'a self, topic: &'a str) -> BoxFuture<'a, Result<Messages, Error>> {
        Box::pin(self.subscribe_now(topic))
    }
}

impl Settings {
    /// The crate's client of these settings (it connects only when asked).
    fn client(&self) -> Result<Client, Error> {
        let invalid = |error: RedisError| Error::Invalid(error.to_string());
        let info = self.url.as_str().into_connection_info().map_err(invalid)?;
        let mut redis = info.redis_settings().clone();
        if let Some(user) = &self.user {
            redis = redis.set_username(user);
        }
        if let Some(password) = &self.password {
            redis = redis.set_password(password);
        }
        let info = info.set_redis_settings(redis);
        match &self.root_certificate {
            Some(pem) => {
                let certificates = TlsCertificates {
                    client_tls: None,
                    root_cert: Some(pem.clone()),
                };
                Client::build_with_tls(info, certificates).map_err(invalid)
            }
            None => Client::open(info).map_err(invalid),
        }
    }

    /// A new publishing connection, authenticated when credentials are set.
    async fn publisher(&self) -> Result<MultiplexedConnection, Error> {
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(self.timeout))
            .set_response_timeout(Some(self.timeout));
        let connecting = self.client()?;
        let connecting = connecting.get_multiplexed_async_connection_with_config(&config);
        within(self.timeout, connecting).await
    }
}

/// A subscription's pub/sub connection: its messages, and the half that pings it.
struct Subscription {
    sink: PubSubSink,
    stream: PubSubStream,
    settings: Arc<Settings>,
}

impl Subscription {
    /// The next message of the subscription; `None` once it is lost (logged). Silent
    /// for the ping interval, the connection is pinged; a ping unanswered within the
    /// timeout gives it up.
    async fn next_message(&mut self) -> Option<Bytes> {
        loop {
            let message = tokio::select! {
                message = self.stream.next() => message,
                // Wall-clock time is the point: how long the broker has been silent.
                () = tokio::time::sleep(self.settings.ping_interval) => {
                    // Subscribed, Redis answers `["pong", ""]`: any answer will do.
                    let ping = within(self.settings.timeout, self.sink.ping::<::redis::Value>());
                    if let Err(error) = ping.await {
                        tracing::warn!(%error, "the Redis subscription is lost");
                        return None;
                    }
                    continue;
                }
            };
            let Some(message) = message else {
                tracing::warn!("the Redis subscription is lost: the connection closed");
                return None;
            };
            let payload = message.get_payload_bytes();
            if payload.len() > self.settings.max_message {
                tracing::warn!(
                    size = payload.len(),
                    limit = self.settings.max_message,
                    "a message from Redis over the size limit was dropped"
                );
                continue;
            }
            return Some(Bytes::copy_from_slice(payload));
        }
    }
}

/// `future`'s result within `timeout`, its error classified.
async fn within<T>(
    timeout: Duration,
    future: impl Future<Output = Result<T, RedisError>>,
) -> Result<T, Error> {
    match tokio::time::timeout(timeout, future).await {
        Ok(result) => result.map_err(classify),
        Err(_) => Err(Error::Unavailable(io::ErrorKind::TimedOut.into())),
    }
}

/// The [`Error`] a failure of the crate is: the connection's (unavailable), the
/// settings' (invalid), or the server's answer (refused: a wrong password, a command
/// the ACL user may not run).
fn classify(error: RedisError) -> Error {
    use ::redis::ErrorKind;
    if error.is_io_error()
        || error.is_timeout()
        || error.is_connection_dropped()
        || error.is_connection_refusal()
    {
        let kind = if error.is_timeout() {
            io::ErrorKind::TimedOut
        } else {
            io::ErrorKind::ConnectionAborted
        };
        return Error::Unavailable(io::Error::new(kind, error));
    }
    match error.kind() {
        ErrorKind::InvalidClientConfig => Error::Invalid(error.to_string()),
        _ => Error::Refused(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loopback address nothing listens on (bound, then let go).
    fn closed_port() -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().to_string()
    }

    #[test]
    fn a_bare_address_is_a_plain_redis_url() {
        assert_eq!(
            Redis::new("127.0.0.1:6379").settings.url,
            "redis://127.0.0.1:6379"
        );
        let tls = Redis::new("rediss://cache.internal:6380");
        assert_eq!(tls.settings.url, "rediss://cache.internal:6380");
    }

    #[test]
    fn secrets_stay_out_of_debug() {
        let redis = Redis::new("rediss://fanout:in-the-url@cache.internal:6380")
            .user("fanout")
            .password("set-apart");
        let printed = format!("{redis:?}");
        assert!(printed.contains("cache.internal:6380"), "{printed}");
        assert!(!printed.contains("in-the-url"), "{printed}");
        assert!(!printed.contains("set-apart"), "{printed}");
    }

    #[tokio::test]
    async fn a_url_that_does_not_parse_is_invalid_not_unavailable() {
        let redis = Redis::new("redis://[::1");
        let publish = redis.publish("t", Bytes::from_static(b"{}")).await;
        assert!(matches!(publish, Err(Error::Invalid(_))), "{publish:?}");
        let subscribe = redis.subscribe("t").await.map(|_| ());
        assert!(matches!(subscribe, Err(Error::Invalid(_))), "{subscribe:?}");
    }

    #[tokio::test]
    async fn a_broker_that_is_not_there_is_unavailable() {
        let redis = Redis::new(closed_port());
        let publish = redis.publish("t", Bytes::from_static(b"{}")).await;
        assert!(matches!(publish, Err(Error::Unavailable(_))), "{publish:?}");
        let subscribe = redis.subscribe("t").await.map(|_| ());
        assert!(
            matches!(subscribe, Err(Error::Unavailable(_))),
            "{subscribe:?}"
        );
    }

    #[tokio::test]
    async fn a_message_over_the_limit_is_refused_before_any_connection() {
        let redis = Redis::new(closed_port()).max_message_size(4);
        let publish = redis.publish("t", Bytes::from_static(b"12345")).await;
        assert!(
            matches!(publish, Err(Error::TooLarge { size: 5, limit: 4 })),
            "{publish:?}"
        );
    }
}
