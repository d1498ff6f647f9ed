//! A [`Broker`] on NATS core subjects, spoken through [`async_nats`]: one client per
//! [`Nats`] (connected at the first use, reconnecting on its own after a loss), a
//! subject per topic, a subscription per topic.
//!
//! TLS (`tls://`, rustls with the system's root certificates, or
//! [`Nats::root_certificates`]), a user name and password ([`Nats::user`],
//! [`Nats::password`], or in the URL) and a token ([`Nats::token`]) are supported.
//!
//! **The link follows the connection.** `async-nats` reconnects and renews its
//! subscriptions by itself, and queues publishes made while disconnected. So that
//! [`Fanout::is_linked`](super::Fanout::is_linked) says the truth and a publish while the
//! server is away fails visibly, as with Redis: a subscription's stream ends when the
//! client reports the connection lost (the fan-out then subscribes again, which
//! succeeds once the client is connected), and a publish while disconnected fails
//! with [`Error::Unavailable`] without being queued. A subscription counts as made once
//! its `SUB` is flushed to the server (NATS confirms none): a message another instance
//! publishes in the moment the server takes to read it is missed, as during any relink.
//!
//! **Delivery.** NATS core acknowledges no publish: a publish resolves once its bytes
//! were flushed to the server's connection, and one that times out (the connection died
//! under it) may still be sent after the client reconnects. What is lost is what the
//! [module](super) says of pub/sub; besides, a message flushed just before the server
//! died may be lost without an error.
//!
//! **Bounds.** The server refuses messages over its `max_payload` (1 MiB by default),
//! and each subscription holds up to [`SUBSCRIPTION_CAPACITY`] messages for the fan-out
//! (past it, the client drops messages and reports a slow consumer); messages larger
//! than [`Nats::max_message_size`] are refused on publish and dropped on receipt.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_nats::{Client, ConnectOptions, Event, Subscriber};
use bytes::Bytes;
use futures_util::StreamExt;
use tokio::sync::{OnceCell, watch};

use super::{Broker, Error, Messages};
use crate::server::BoxFuture;

/// Default of [`Nats::timeout`]: 2 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);
/// Default of [`Nats::max_message_size`]: 1 MiB, the server's default `max_payload`.
pub const DEFAULT_MAX_MESSAGE: usize = 1 << 20;
/// Default of [`Nats::ping_interval`]: 15 seconds.
pub const DEFAULT_PING_INTERVAL: Duration = Duration::from_secs(15);
/// How many received messages of one subscription wait for the fan-out.
pub const SUBSCRIPTION_CAPACITY: usize = 1024;
/// The first pause before reconnecting, doubled after each failure up to
/// [`MAX_RECONNECT_DELAY`].
const MIN_RECONNECT_DELAY: Duration = Duration::from_millis(20);
/// The longest pause between two attempts to reconnect.
const MAX_RECONNECT_DELAY: Duration = Duration::from_secs(2);

/// A NATS server's subjects.
///
/// ```no_run
/// use rpcsmith::fanout::{Fanout, nats::Nats};
/// use rpcsmith::transport::peer::Hub;
///
/// # async fn demo() {
/// let hub = Hub::new();
/// let nats = Nats::new("tls://nats.internal:4222")
///     .user("fanout")
///     .password(std::env::var("NATS_PASSWORD").unwrap_or_default());
/// let fanout = Fanout::new(nats, &hub, "prices");
/// fanout.notify_all("priceChanged", &[42]).await.ok();
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Nats {
    settings: Arc<Settings>,
    /// The client, connected at the first use.
    linked: Arc<OnceCell<Linked>>,
}

#[derive(Clone)]
struct Settings {
    url: String,
    user: Option<String>,
    password: Option<String>,
    token: Option<String>,
    root_certificates: Option<PathBuf>,
    timeout: Duration,
    ping_interval: Duration,
    max_message: usize,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Secrets (and a URL that may hold one) stay out of logs.
        let host = self.url.rsplit('@').next().unwrap_or_default();
        f.debug_struct("Settings")
            .field("host", &host)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "…"))
            .field("token", &self.token.as_ref().map(|_| "…"))
            .field("root_certificates", &self.root_certificates)
            .field("timeout", &self.timeout)
            .field("ping_interval", &self.ping_interval)
            .field("max_message", &self.max_message)
            .finish()
    }
}

/// The connected client, and whether its connection is up now.
#[derive(Debug)]
struct Linked {
    client: Client,
    connected: watch::Receiver<bool>,
}

impl Nats {
    /// The NATS server at `url` (`nats://host:port`, `tls://host:port` to require TLS,
    /// or a bare `host:port`), reached when first used.
    pub fn new(url: impl Into<String>) -> Self {
        Nats {
            settings: Arc::new(Settings {
                url: url.into(),
                user: None,
                password: None,
                token: None,
                root_certificates: None,
                timeout: DEFAULT_TIMEOUT,
                ping_interval: DEFAULT_PING_INTERVAL,
                max_message: DEFAULT_MAX_MESSAGE,
            }),
            linked: Arc::default(),
        }
    }

    /// The user to authenticate as, with [`password`](Self::password).
    #[must_use]
    pub fn user(mut self, user: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.settings).user = Some(user.into());
        self
    }

    /// The password of [`user`](Self::user).
    #[must_use]
    pub fn password(mut self, password: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.settings).password = Some(password.into());
        self
    }

    /// The token to authenticate with (the server's `authorization { token }`).
    #[must_use]
    pub fn token(mut self, token: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.settings).token = Some(token.into());
        self
    }

    /// A PEM file of the certificate authorities that sign the server's certificate,
    /// trusted besides the system's root certificates.
    #[must_use]
    pub fn root_certificates(mut self, pem_file: impl Into<PathBuf>) -> Self {
        Arc::make_mut(&mut self.settings).root_certificates = Some(pem_file.into());
        self
    }

    /// How long connecting, and each flush, may take; a publish fails with
    /// [`Error::Unavailable`] past it. Default: [`DEFAULT_TIMEOUT`].
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        Arc::make_mut(&mut self.settings).timeout = timeout;
        self
    }

    /// How often the client pings the server; with more than two pings unanswered it takes the
    /// connection for lost (so a broker gone silent is noticed within about three
    /// intervals) and reconnects. Default: [`DEFAULT_PING_INTERVAL`].
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

    /// The client, connecting it at the first call; fails while it is disconnected.
    async fn connected(&self) -> Result<&Linked, Error> {
        let linked = self
            .linked
            .get_or_try_init(|| self.settings.connect())
            .await?;
        if *linked.connected.borrow() {
            Ok(linked)
        } else {
            let lost = "the connection to NATS is lost (reconnecting)";
            Err(Error::Unavailable(io::Error::new(
                io::ErrorKind::NotConnected,
                lost,
            )))
        }
    }

    async fn publish_now(&self, topic: &str, payload: Bytes) -> Result<(), Error> {
        let limit = self.settings.max_message;
        if payload.len() > limit {
            let size = payload.len();
            return Err(Error::TooLarge { size, limit });
        }
        let linked = self.connected().await?;
        let timeout = self.settings.timeout;
        let sent = async {
            let published = linked.client.publish(topic.to_owned(), payload).await;
            published.map_err(|error| Error::Refused(error.to_string()))?;
            linked.client.flush().await.map_err(unavailable)
        };
        tokio::time::timeout(timeout, sent)
            .await
            .unwrap_or_else(|_| Err(Error::Unavailable(io::ErrorKind::TimedOut.into())))
    }

    async fn subscribe_now(&self, topic: &str) -> Result<Messages, Error> {
        let linked = self.connected().await?;
        let subscribing = async {
            let subscriber = linked.client.subscribe(topic.to_owned()).await;
            let subscriber = subscriber.map_err(|error| Error::Refused(error.to_string()))?;
            // The server has the subscription once the `SUB` is flushed.
            linked.client.flush().await.map_err(unavailable)?;
            Ok::<_, Error>(subscriber)
        };
        let subscriber = tokio::time::timeout(self.settings.timeout, subscribing)
            .await
            .unwrap_or_else(|_| Err(Error::Unavailable(io::ErrorKind::TimedOut.into())))?;
        let subscription = Subscription {
            subscriber,
            connected: linked.connected.clone(),
            max_message: self.settings.max_message,
        };
        let messages = futures_util::stream::unfold(subscription, |mut subscription| async {
            let payload = subscription.next_message().await?;
            Some((payload, subscription))
        });
        Ok(Box::pin(messages))
    }
}

impl Broker for Nats {
    fn publish<'a>(&'a self, topic: &'a str, payload: Bytes) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(self.publish_now(topic, payload))
    }

    fn subscribe<'a>(&'a self, topic: &'a str) -> BoxFuture<'a, Result<Messages, Error>> {
        Box::pin(self.subscribe_now(topic))
    }
}

impl Settings {
    /// Connects a client, which then tells `connected` when its connection comes and
    /// goes.
    async fn connect(&self) -> Result<Linked, Error> {
        let (tell, connected) = watch::channel(true);
        let mut options = ConnectOptions::new()
            .connection_timeout(self.timeout)
            .request_timeout(Some(self.timeout))
            .ping_interval(self.ping_interval)
            .subscription_capacity(SUBSCRIPTION_CAPACITY)
            .reconnect_delay_callback(|attempts| {
                let doublings = u32::try_from(attempts.min(10)).unwrap_or(10);
                (MIN_RECONNECT_DELAY * 2_u32.pow(doublings)).min(MAX_RECONNECT_DELAY)
            })
            .event_callback(move |event| {
                match event {
                    Event::Connected => tell.send_replace(true),
                    Event::Disconnected | Event::Closed => tell.send_replace(false),
                    _ => true,
                };
                std::future::ready(())
            });
        if let Some(user) = &self.user {
            let password = self.password.clone().unwrap_or_default();
            options = options.user_and_password(user.clone(), password);
        }
        if let Some(token) = &self.token {
            options = options.token(token.clone());
        }
        if let Some(file) = &self.root_certificates {
            options = options.add_root_certificates(file.clone());
        }
        let client = options.connect(self.url.as_str()).await.map_err(|error| {
            use async_nats::ConnectErrorKind as Kind;
            match error.kind() {
                Kind::ServerParse | Kind::Tls => Error::Invalid(error.to_string()),
                Kind::Authentication | Kind::AuthorizationViolation => {
                    Error::Refused(error.to_string())
                }
                _ => Error::Unavailable(io::Error::other(error)),
            }
        })?;
        Ok(Linked { client, connected })
    }
}

/// A subscription, and whether the client's connection is up.
struct Subscription {
    subscriber: Subscriber,
    connected: watch::Receiver<bool>,
    max_message: usize,
}

impl Subscription {
    /// The next message; `None` once the connection is lost (logged), or the client
    /// closed.
    async fn next_message(&mut self) -> Option<Bytes> {
        loop {
            let message = tokio::select! {
                message = self.subscriber.next() => message?,
                _ = self.connected.wait_for(|up| !up) => {
                    tracing::warn!("the NATS subscription is lost: the connection closed");
                    return None;
                }
            };
            if message.payload.len() > self.max_message {
                tracing::warn!(
                    size = message.payload.len(),
                    limit = self.max_message,
                    "a message from NATS over the size limit was dropped"
                );
                continue;
            }
            return Some(message.payload);
        }
    }
}

/// A flush that failed: the connection's trouble.
fn unavailable(error: async_nats::client::FlushError) -> Error {
    Error::Unavailable(io::Error::other(error))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loopback address nothing listens on (bound, then let go).
    fn closed_port() -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("nats://{}", listener.local_addr().unwrap())
    }

    #[test]
    fn secrets_stay_out_of_debug() {
        let nats = Nats::new("nats://fanout:in-the-url@bus.internal:4222")
            .user("fanout")
            .password("set-apart")
            .token("a-token");
        let printed = format!("{nats:?}");
        assert!(printed.contains("bus.internal:4222"), "{printed}");
        for secret in ["in-the-url", "set-apart", "a-token"] {
            assert!(!printed.contains(secret), "{printed}");
        }
    }

    #[tokio::test]
    async fn a_broker_that_is_not_there_is_unavailable_and_tried_again() {
        let nats = Nats::new(closed_port()).timeout(Duration::from_secs(1));
        for _ in 0..2 {
            let publish = nats.publish("t", Bytes::from_static(b"{}")).await;
            assert!(matches!(publish, Err(Error::Unavailable(_))), "{publish:?}");
        }
        let subscribe = nats.subscribe("t").await.map(|_| ());
        assert!(
            matches!(subscribe, Err(Error::Unavailable(_))),
            "{subscribe:?}"
        );
    }

    #[tokio::test]
    async fn a_message_over_the_limit_is_refused_before_any_connection() {
        let nats = Nats::new(closed_port()).max_message_size(4);
        let publish = nats.publish("t", Bytes::from_static(b"12345")).await;
        assert!(
            matches!(publish, Err(Error::TooLarge { size: 5, limit: 4 })),
            "{publish:?}"
        );
    }
}
