//! The symmetric connection: one message stream on which both sides send requests and
//! notifications and answer the other's.
//!
//! A [`Peer`] joins the two engines on one connection: a [`Client`] for the calls this
//! side makes (its table of pending calls receives the responses), and a [`Server`]
//! connection for the calls the other side makes (each runs in a task of its own, up to
//! [`Limits::max_in_flight`](crate::server::Limits::max_in_flight) at once, beyond which
//! calls are answered `-32009`). Which side opened the socket does not matter:
//!
//! - a **server** pushes a notification, or calls the client back, from inside a handler
//!   through [`remote`], and from anywhere through a [`Hub`] of its connections;
//! - a **client** handles the requests and notifications the server sends by giving its
//!   peer a [`Server`] ([`Builder::serve`]); without one, requests are answered `-32601`.
//!
//! **Failure**: when the connection ends (the peer closes it, reading or writing fails,
//! a `Content-Length` header is broken), every pending call fails at once with
//! [`client::Error::Closed`], and so does every later one;
//! the calls the peer made that are still running are aborted.
//!
//! **Lifetime**: the connection stays open while the [`Peer`] or any clone of its
//! [`Client`] lives, until the other side closes it. Dropping the last of them stops
//! reading; once reading has stopped, for whatever reason, the messages already queued
//! are let out, the stream is closed, and [`Peer::closed`] returns.
//!
//! **Cancellation** ([`Builder::cancel`], off by default): a call whose future is dropped
//! or that times out sends `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":…}}`
//! (a batch sends one for each of its calls still unanswered), and a `$/cancelRequest`
//! received aborts the named call, which is answered `-32013` (cancelled). A batch
//! received runs as one unit: a cancellation naming one of its calls aborts nothing. The
//! byte-stream transport turns it on for `Content-Length` framing, as the Language
//! Server Protocol expects.
//!
//! The transports that carry a peer are in [`stream`](super::stream) (stdio, TCP, Unix
//! sockets) and, with the `ws` feature, `ws`.

mod inbound;
mod link;
mod outbound;
#[cfg(feature = "ws")]
mod switch;
pub(crate) mod wire;

use crate::client::{self, Client, WeakClient};
use crate::protocol::ErrorObject;
use crate::server::{Context, Dispatch, Metadata, Reply, Server};
use bytes::Bytes;
use inbound::Reader;
use link::{Link, Slots};
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
#[cfg(feature = "ws")]
pub use switch::Reconnect;
#[cfg(feature = "ws")]
pub(crate) use switch::reconnecting;
use tokio::sync::{mpsc, oneshot, watch};
use wire::{Incoming, Outgoing};

/// Largest message read when neither the builder nor the server says: 10 MiB.
const DEFAULT_MAX_MESSAGE: usize = 10 << 20;

/// Configures a [`Peer`]; the transport's constructor starts it.
#[derive(Debug, Clone)]
#[must_use]
pub struct Builder {
    pub(crate) server: Option<Server>,
    pub(crate) metadata: Metadata,
    pub(crate) cancel: Option<bool>,
    pub(crate) timeout: Duration,
    max_message_size: Option<usize>,
    pub(crate) queue: usize,
    hub: Option<Hub>,
}

impl Default for Builder {
    fn default() -> Self {
        Self {
            server: None,
            metadata: Metadata::default(),
            cancel: None,
            timeout: client::DEFAULT_TIMEOUT,
            max_message_size: None,
            queue: 1024,
            hub: None,
        }
    }
}

impl Builder {
    /// Answers the calls the other side makes with `server` (its dispatcher, limits and
    /// middleware). Without it, every request is answered `-32601`.
    pub fn serve(mut self, server: Server) -> Self {
        self.server = Some(server);
        self
    }

    /// What handlers see of this connection in [`Context::metadata`]; transports that
    /// know the peer's address set it themselves.
    pub fn metadata(mut self, metadata: Metadata) -> Self {
        self.metadata = metadata;
        self
    }

    /// Whether dropped calls send `$/cancelRequest`, and received ones abort calls.
    /// Default: on for `Content-Length` framing, off elsewhere.
    pub fn cancel(mut self, cancel: bool) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// How long this side's calls wait for their answer (default
    /// [`client::DEFAULT_TIMEOUT`]).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Largest message read. On a byte stream a larger one is answered `-32007` with
    /// `id: null` and skipped unread; on a WebSocket it closes the connection (close
    /// code 1009). Default: the server's
    /// [`max_request_size`](crate::server::Limits::max_request_size), or 10 MiB.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = Some(bytes);
        self
    }

    /// Registers the connection in `hub`, so the server can reach it from anywhere.
    pub fn hub(mut self, hub: &Hub) -> Self {
        self.hub = Some(hub.clone());
        self
    }

    /// A copy of the metadata this builder gives its connection.
    pub(crate) fn metadata_template(&self) -> Metadata {
        self.metadata.clone()
    }

    /// The message size limit this builder applies.
    pub(crate) fn message_limit(&self) -> usize {
        self.max_message_size
            .or_else(|| self.server.as_ref().map(|s| s.limits().max_request_size))
            .unwrap_or(DEFAULT_MAX_MESSAGE)
    }

    /// Fills in the cancellation default for a transport.
    pub(crate) fn cancel_by_default(mut self, cancel: bool) -> Self {
        self.cancel.get_or_insert(cancel);
        self
    }

    /// Starts the connection's reader and writer tasks.
    pub(crate) fn start(self, incoming: impl Incoming, outgoing: impl Outgoing) -> Peer {
        let cancel = self.cancel.unwrap_or(false);
        let (outbox, queue) = mpsc::channel(self.queue.max(1));
        let slots = Arc::new(Slots::default());
        let outbox_for_hub = outbox.downgrade();
        let link = Link {
            outbox: outbox.clone(),
            cancel,
            slots: Arc::clone(&slots),
        };
        let client = Client::builder().timeout(self.timeout).build(link);
        let server = self.server.unwrap_or_else(|| Server::new(NoMethods));
        let mut metadata = self.metadata;
        metadata.extensions.insert(Remote(client.downgrade()));
        let reader = Reader {
            inbox: client.inbox(),
            connection: server.connection(metadata),
            outbox,
            cancel,
            final_connection: true,
            max_tasks: server.limits().max_in_flight,
        };
        if let Some(hub) = &self.hub {
            hub.insert(&client, &outbox_for_hub);
        }
        let (reading, read) = oneshot::channel();
        let writer = tokio::spawn(outbound::write_all(
            queue,
            outgoing,
            client.inbox(),
            true,
            read,
        ));
        // Closed once reading has ended and the writer has let out what was queued.
        let (closed_sender, closed) = watch::channel(false);
        let task = tokio::spawn(async move {
            reader.run(incoming).await;
            drop(reading);
            let _ = writer.await;
            let _ = closed_sender.send(true);
        });
        let _ = slots.reader.set(task.abort_handle());
        Peer { client, closed }
    }
}

/// One end of a symmetric connection; see the [module docs](self).
#[derive(Clone)]
pub struct Peer {
    client: Client,
    closed: watch::Receiver<bool>,
}

impl Peer {
    /// Starts configuring a peer.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// The client for calls to the other side. Cloning it is cheap.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The client for calls to the other side, keeping the connection open.
    pub fn into_client(self) -> Client {
        self.client
    }

    /// Whether the connection has ended (see [`closed`](Self::closed)).
    pub fn is_closed(&self) -> bool {
        *self.closed.borrow() || self.closed.has_changed().is_err()
    }

    /// Waits until the connection has ended: reading has stopped (the other side closed
    /// it, or it broke), and what was queued to be sent by then has been written and the
    /// stream closed (or writing failed). A program may exit then without losing an
    /// answer it had already produced.
    pub async fn closed(&self) {
        let mut closed = self.closed.clone();
        // An error means the reader is gone, which also ends the connection.
        let _ = closed.wait_for(|closed| *closed).await;
    }
}

impl fmt::Debug for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Peer")
            .field("client", &self.client)
            .field("closed", &self.is_closed())
            .finish()
    }
}

/// The client of a connection, kept in its metadata without keeping it alive.
#[derive(Clone)]
struct Remote(WeakClient);

/// The client for calls and notifications back to the other side of the connection
/// `context`'s call came on: how a handler pushes a notification to its own caller, or
/// asks it something. `None` when the call did not come on a [`Peer`] (HTTP, in-memory)
/// or the connection is gone.
pub fn remote(context: &Context) -> Option<Client> {
    context.metadata().extensions.get::<Remote>()?.0.upgrade()
}

/// The live connections of a server, for pushing to them from outside any handler.
///
/// Give it to each connection's [`Builder::hub`] (the listeners of
/// [`stream`](super::stream) do when given one); connections leave it when they end.
///
/// ```no_run
/// # fn demo(hub: rpcsmith::transport::peer::Hub) -> Result<(), rpcsmith::client::Error> {
/// let pushed = hub.notify_all("priceChanged", &[42])?;
/// for laggard in pushed.full {
///     // This connection is 1,024 messages behind: wait for room (up to its timeout).
///     tokio::spawn(async move { laggard.notify("priceChanged", &[42]).await });
/// }
/// # Ok(()) }
/// ```
#[derive(Clone, Default)]
pub struct Hub {
    members: Arc<Mutex<HashMap<u64, Member>>>,
    next: Arc<std::sync::atomic::AtomicU64>,
}

/// One connection of a hub: its client, and its writer's queue, neither kept alive.
struct Member {
    client: WeakClient,
    outbox: mpsc::WeakSender<Bytes>,
}

/// What [`Hub::notify_all`] did with a notification.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Pushed {
    /// How many connections took it: it is queued, and written in turn.
    pub sent: usize,
    /// The connections whose queue was full (their peer has stopped reading, or reads
    /// slower than the server pushes), which did not get it. Send to them with
    /// [`Client::notify`], which waits for room up to its timeout, where a notification
    /// must not be missed.
    pub full: Vec<Client>,
}

impl Hub {
    /// An empty hub.
    pub fn new() -> Self {
        Self::default()
    }

    fn insert(&self, client: &Client, outbox: &mpsc::WeakSender<Bytes>) {
        let key = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut members = self.members();
        members.retain(|_, member| member.is_live());
        let member = Member {
            client: client.downgrade(),
            outbox: outbox.clone(),
        };
        members.insert(key, member);
    }

    fn members(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Member>> {
        self.members.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A client for each live connection.
    pub fn clients(&self) -> Vec<Client> {
        let mut members = self.members();
        let mut live = Vec::with_capacity(members.len());
        members.retain(|_, member| match member.client.upgrade() {
            Some(client) if !client.is_closed() => {
                live.push(client);
                true
            }
            _ => false,
        });
        live
    }

    /// Sends the notification `method` to every live connection, at once and without
    /// waiting: it is serialised once, and put in each connection's queue of messages
    /// to write (1,024 deep). A connection whose queue is full does not get it, and is
    /// reported in [`Pushed::full`]; one slow or stalled connection never delays the
    /// others, nor the caller.
    ///
    /// # Errors
    ///
    /// [`client::Error::Encode`] when `params` cannot be serialised to an array or an
    /// object; nothing is sent then.
    pub fn notify_all<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<Pushed, client::Error> {
        let mut message = Vec::with_capacity(64 + method.len());
        crate::protocol::write_typed_call(&mut message, None, method, params)
            .map_err(client::Error::Encode)?;
        let message = Bytes::from(message);
        let mut pushed = Pushed::default();
        self.members().retain(|_, member| {
            let Some(outbox) = member.outbox.upgrade() else {
                return false;
            };
            match outbox.try_send(message.clone()) {
                Ok(()) => pushed.sent += 1,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    pushed.full.extend(member.client.upgrade());
                }
                Err(mpsc::error::TrySendError::Closed(_)) => return false,
            }
            true
        });
        Ok(pushed)
    }
}

impl Member {
    fn is_live(&self) -> bool {
        self.client
            .upgrade()
            .is_some_and(|client| !client.is_closed())
    }
}

impl fmt::Debug for Hub {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.members.lock().map_or(0, |members| members.len());
        f.debug_struct("Hub").field("connections", &count).finish()
    }
}

/// The dispatcher of a peer that serves nothing.
struct NoMethods;

impl Dispatch for NoMethods {
    fn call(&self, _: &str, _: Option<&RawValue>, _: Context) -> Reply {
        Reply::err(ErrorObject::method_not_found())
    }
}
