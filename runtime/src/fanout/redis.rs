//! A [`Broker`] on Redis pub/sub: `PUBLISH` on one connection kept open (opened again
//! after a failure, at the next publish), and each subscription on a connection of its
//! own (`SUBSCRIBE`), pinged when idle so that a broker gone silent is noticed.
//!
//! Only what the [`Fanout`](super::Fanout) needs is spoken (RESP 2, three commands); a
//! password ([`Redis::password`]) is sent with `AUTH` on each connection. TLS is not
//! spoken: reach a remote Redis through a tunnel, or keep it on the instances' private
//! network.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

use super::resp::{Frame, read_frame, write_command};
use super::{Broker, Error, Messages};
use crate::server::BoxFuture;

/// Default of [`Redis::timeout`]: 2 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);
/// Default of [`Redis::max_message_size`]: 1 MiB.
pub const DEFAULT_MAX_MESSAGE: usize = 1 << 20;
/// How long a subscription's connection may stay silent before it is pinged.
const IDLE: Duration = Duration::from_secs(15);

/// A Redis server's pub/sub, reached over TCP.
///
/// ```no_run
/// use rpcsmith::fanout::{Fanout, redis::Redis};
/// use rpcsmith::transport::peer::Hub;
///
/// # async fn demo() {
/// let hub = Hub::new();
/// let fanout = Fanout::new(Redis::new("127.0.0.1:6379"), &hub, "prices");
/// // Every instance's connections in `hub`, and the other instances' hubs, get it.
/// fanout.notify_all("priceChanged", &[42]).await.ok();
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Redis {
    settings: Arc<Settings>,
    /// The publishing connection, opened at the first publish; one publish at a time.
    publisher: Arc<tokio::sync::Mutex<Option<Connection>>>,
}

#[derive(Clone)]
struct Settings {
    address: String,
    password: Option<String>,
    timeout: Duration,
    max_message: usize,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The password stays out of logs.
        f.debug_struct("Settings")
            .field("address", &self.address)
            .field("password", &self.password.as_ref().map(|_| "…"))
            .field("timeout", &self.timeout)
            .field("max_message", &self.max_message)
            .finish()
    }
}

/// One connection to Redis, read through a buffer.
#[derive(Debug)]
struct Connection {
    reader: BufReader<OwnedReadHalf>,
    writer: OwnedWriteHalf,
}

impl Redis {
    /// The Redis server at `address` (`host:port`), reached when first used.
    pub fn new(address: impl Into<String>) -> Self {
        Redis {
            settings: Arc::new(Settings {
                address: address.into(),
                password: None,
                timeout: DEFAULT_TIMEOUT,
                max_message: DEFAULT_MAX_MESSAGE,
            }),
            publisher: Arc::default(),
        }
    }

    /// Sent with `AUTH` on each connection (Redis's `requirepass`).
    #[must_use]
    pub fn password(mut self, password: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.settings).password = Some(password.into());
        self
    }

    /// How long connecting, and each answer, may take; a publish fails with
    /// [`Error::Unavailable`] past it. Default: [`DEFAULT_TIMEOUT`].
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        Arc::make_mut(&mut self.settings).timeout = timeout;
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
        // Taken out while in use: a publish cancelled halfway (its reply unread) leaves
        // no connection behind, and the next one connects afresh.
        let mut connection = match publisher.take() {
            Some(connection) => connection,
            None => self.settings.connect().await?,
        };
        let command: [&[u8]; 3] = [b"PUBLISH", topic.as_bytes(), payload];
        match connection.ask(&self.settings, &command).await {
            Ok(Frame::Integer(_)) => {
                *publisher = Some(connection);
                Ok(())
            }
            Ok(Frame::Error(text)) => {
                *publisher = Some(connection);
                Err(Error::Refused(text))
            }
            Ok(other) => Err(Error::Protocol(format!("{other:?} answering PUBLISH"))),
            // Whether the broker took it is unknown: the next publish starts afresh.
            Err(error) => Err(Error::Unavailable(error)),
        }
    }

    async fn subscribe_now(&self, topic: &str) -> Result<Messages, Error> {
        let mut connection = self.settings.connect().await?;
        let answer = connection
            .ask(&self.settings, &[b"SUBSCRIBE", topic.as_bytes()])
            .await
            .map_err(Error::Unavailable)?;
        match answer {
            Frame::Array(elements) if elements.first() == Some(&bulk(b"subscribe")) => {}
            Frame::Error(text) => return Err(Error::Refused(text)),
            other => return Err(Error::Protocol(format!("{other:?} answering SUBSCRIBE"))),
        }
        let settings = Arc::clone(&self.settings);
        let messages = futures_util::stream::unfold(connection, move |mut connection| {
            let settings = Arc::clone(&settings);
            async move {
                let payload = connection.next_message(&settings).await?;
                Some((payload, connection))
            }
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
    /// A new connection, authenticated when a password is set.
    async fn connect(&self) -> Result<Connection, Error> {
        let connecting = TcpStream::connect(&self.address);
        let stream = tokio::time::timeout(self.timeout, connecting)
            .await
            .map_err(|_| Error::Unavailable(io::ErrorKind::TimedOut.into()))?
            .map_err(Error::Unavailable)?;
        stream.set_nodelay(true).map_err(Error::Unavailable)?;
        let (reader, writer) = stream.into_split();
        let mut connection = Connection {
            reader: BufReader::new(reader),
            writer,
        };
        if let Some(password) = &self.password {
            let answer = connection
                .ask(self, &[b"AUTH", password.as_bytes()])
                .await
                .map_err(Error::Unavailable)?;
            match answer {
                Frame::Simple(_) => {}
                Frame::Error(text) => return Err(Error::Refused(text)),
                other => return Err(Error::Protocol(format!("{other:?} answering AUTH"))),
            }
        }
        Ok(connection)
    }
}

impl Connection {
    /// Sends a command and reads its answer, within the timeout.
    async fn ask(&mut self, settings: &Settings, words: &[&[u8]]) -> io::Result<Frame> {
        let mut command = Vec::with_capacity(64 + words.iter().map(|w| w.len()).sum::<usize>());
        write_command(&mut command, words);
        let exchange = async {
            self.writer.write_all(&command).await?;
            read_frame(&mut self.reader, settings.max_message).await
        };
        tokio::time::timeout(settings.timeout, exchange)
            .await
            .unwrap_or_else(|_| Err(io::ErrorKind::TimedOut.into()))
    }

    /// The next message of the subscription; `None` once it is lost (logged).
    async fn next_message(&mut self, settings: &Settings) -> Option<Bytes> {
        loop {
            let frame = match self.next_frame(settings).await {
                Ok(frame) => frame,
                Err(error) => {
                    tracing::warn!(%error, "the Redis subscription is lost");
                    return None;
                }
            };
            match frame {
                Frame::Array(mut elements)
                    if elements.len() == 3 && elements[0] == bulk(b"message") =>
                {
                    match elements.pop() {
                        Some(Frame::Bulk(Some(payload))) => return Some(payload),
                        Some(Frame::Skipped(size)) => tracing::warn!(
                            size,
                            limit = settings.max_message,
                            "a message from Redis over the size limit was dropped"
                        ),
                        _ => tracing::warn!("a message from Redis without a payload was dropped"),
                    }
                }
                // Pongs, and confirmations.
                _ => {}
            }
        }
    }

    /// The next frame of a subscription's connection. Silent for [`IDLE`], the
    /// connection is pinged (the frame being read is kept: nothing is lost); silent
    /// for the timeout after that, it is given up.
    async fn next_frame(&mut self, settings: &Settings) -> io::Result<Frame> {
        let Connection { reader, writer } = self;
        let read = read_frame(reader, settings.max_message);
        tokio::pin!(read);
        let mut pinged = false;
        loop {
            let wait = if pinged { settings.timeout } else { IDLE };
            tokio::select! {
                frame = &mut read => return frame,
                // Wall-clock time is the point: how long the broker has been silent.
                () = tokio::time::sleep(wait) => {
                    if pinged {
                        let silent = "Redis did not answer a ping";
                        return Err(io::Error::new(io::ErrorKind::TimedOut, silent));
                    }
                    let mut ping = Vec::new();
                    write_command(&mut ping, &[b"PING"]);
                    writer.write_all(&ping).await?;
                    pinged = true;
                }
            }
        }
    }
}

fn bulk(text: &[u8]) -> Frame {
    Frame::Bulk(Some(Bytes::copy_from_slice(text)))
}
