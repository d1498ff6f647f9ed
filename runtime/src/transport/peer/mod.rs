//! The symmetric connection: one message stream on which both sides send requests and
//! notifications and answer the other's.
//!
//! A [`Peer`] joins the two engines on one connection: a [`Client`] for the calls this
//! side makes (its table of pending calls receives the responses), and a [`Server`]
//! connection for the calls the other side makes (up to
//! [`Limits::max_in_flight`](crate::server::Limits::max_in_flight) at once, answers not
//! yet written included, beyond which calls are answered `-32009`). One task runs the
//! connection: it reads each message once, runs a call in place when its handler
//! answers on the first poll, and gives a task of its own only to a call still pending
//! then. (So a handler that computes for long before its first `.await` holds up the
//! other messages of its connection: give such work to `spawn_blocking`.) Which side
//! opened the socket does not matter:
//!
//! - a **server** pushes a notification, or calls the client back, from inside a handler
//!   through [`remote`], and from anywhere through a [`Hub`] of its connections;
//! - a **client** handles the requests and notifications the server sends by giving its
//!   peer a [`Server`] ([`Builder::serve`]); without one, requests are answered `-32601`.
//!
//! **Subscriptions** ([`server::subscribe`](crate::server::subscribe)) are pushed on a
//! peer: each connection carries its registry of push subscriptions
//! ([`server::Pushes`](crate::server::Pushes), in its metadata), a subscription's items
//! are queued only after the answer that carries its id (its message's handling runs
//! inside [`server::hold`](crate::server::hold)), wait for room in the byte budget like
//! any message this side sends (so a slow connection holds up only its own
//! subscriptions, never its reader nor other connections), and end when the connection
//! does.
//!
//! **Memory**: a connection holds at most its [byte budget](Builder::byte_budget) of
//! messages waiting to be written to the other side (plus one message per sender), and
//! as much again of requests whose calls are still running. Past the first, it stops
//! reading from the other side until that side has taken enough (a client that sends
//! without reading stalls itself); one that takes nothing for the
//! [stall timeout](Builder::stall_timeout) is dropped. Past the second, calls are
//! refused `-32009`. [`Peer::queued_bytes`] tells how much waits.
//!
//! **Failure**: when the connection ends (the peer closes it, reading or writing fails,
//! a `Content-Length` header is broken), every pending call fails at once with
//! [`client::Error::Closed`], and so does every later one;
//! the calls the peer made that are still running are aborted.
//!
//! **Lifetime**: a connection ends when the other side closes it (or it breaks), or
//! when this side closes it: with [`Peer::close`], or by letting go of it, once the
//! [`Peer`] and every clone of its [`Client`] are dropped. A connection a server
//! accepted belongs to the server: [`serve_tcp`](super::stream::serve_tcp),
//! [`serve_unix`](super::stream::serve_unix) and the HTTP service's WebSocket upgrades
//! close it when the server shuts down, whatever clients of it are still held by
//! handlers and the tasks they spawned ([`remote`], [`Hub::clients`], a generated
//! `<Doc>Push`). Such clients never keep a connection open: once it has ended, their
//! calls and notifications fail at once with [`client::Error::Closed`], which is how a
//! subscription's task learns to stop. (A server that accepts connections itself closes
//! each with [`Peer::close`] when it stops.) Once reading has stopped, for whatever
//! reason, the messages already queued are let out, the stream is closed, and
//! [`Peer::closed`] returns.
//!
//! **Cancellation** ([`Builder::cancellation`], off by default): a call whose future is
//! dropped or that times out sends the protocol's cancellation notification
//! ([`Cancellation::LSP`]: `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":…}}`,
//! [`Cancellation::MCP`]: `notifications/cancelled` with `{"requestId":…}`; a batch sends
//! one for each of its calls still unanswered), and that notification received aborts the
//! named call, which is answered as the protocol says (LSP: the error `-32800`; MCP: not
//! at all). A batch received runs as one unit: a cancellation naming one of its calls
//! aborts nothing. The byte-stream transport turns the LSP's on for `Content-Length`
//! framing, as the Language Server Protocol expects.
//!
//! **Order** ([`Builder::order`], concurrent by default): a connection's notifications,
//! or all its calls, can be made to run one after another in arrival order, at the cost
//! of head-of-line blocking; see [`Order`].
//!
//! **Proxying** between peers: a [`Bridge`] gives each connection of a front server an
//! upstream connection of its own, so that a [`Proxy`](crate::proxy::Proxy) forwards both
//! ways.
//!
//! The transports that carry a peer are in [`stream`](super::stream) (stdio, TCP, Unix
//! sockets) and, with the `ws` feature, `ws`.

mod bridge;
mod cancellation;
mod doorbell;
mod driver;
mod inbound;
mod lane;
mod link;
mod outlet;
mod queue;
mod spare;
mod switch;
pub(crate) mod wire;

pub use super::remote;
pub(crate) use super::remote::Remote;
pub use bridge::Bridge;
pub use cancellation::{Cancellation, LSP_REQUEST_CANCELLED};
pub use lane::Order;

use crate::client::{self, Client, WeakClient};
use crate::metrics::{ConnectionMeter, Transport};
use crate::protocol::ErrorObject;
use crate::server::{Context, Dispatch, Metadata, Reply, Server};
use bytes::Bytes;
use driver::Driver;
use inbound::Inbound;
use link::{Link, Stop};
use queue::{Budget, Outbox, Refused, WeakOutbox};
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
pub(crate) use switch::reconnecting;
pub use switch::{ConnectionState, Reconnect};
use tokio::sync::watch;
use wire::Wire;

/// Largest message read when neither the builder nor the server says: 10 MiB.
const DEFAULT_MAX_MESSAGE: usize = 10 << 20;
/// Default of [`Builder::byte_budget`]: 4 MiB.
pub const DEFAULT_BYTE_BUDGET: usize = 4 << 20;
/// Default of [`Builder::stall_timeout`]: 30 seconds.
pub const DEFAULT_STALL_TIMEOUT: Duration = Duration::from_secs(30);

/// Configures a [`Peer`]; the transport's constructor starts it.
#[derive(Debug, Clone)]
#[must_use]
pub struct Builder {
    pub(crate) server: Option<Server>,
    pub(crate) metadata: Metadata,
    /// The cancellation set, if any: `Some(None)` is off on purpose.
    pub(crate) cancel: Option<Option<Cancellation>>,
    pub(crate) order: Order,
    pub(crate) timeout: Duration,
    max_message_size: Option<usize>,
    pub(crate) queue: usize,
    pub(crate) byte_budget: usize,
    pub(crate) stall_timeout: Duration,
    hub: Option<Hub>,
    subscription_buffer: (usize, usize),
    client_middleware: Vec<Arc<dyn client::Middleware>>,
    /// The transport a server accepted this connection on (`None`: not accepted by a
    /// server), for its metrics.
    accepted_on: Option<Transport>,
}

impl Default for Builder {
    fn default() -> Self {
        Self {
            server: None,
            metadata: Metadata::default(),
            cancel: None,
            order: Order::Concurrent,
            timeout: client::DEFAULT_TIMEOUT,
            max_message_size: None,
            queue: 1024,
            byte_budget: DEFAULT_BYTE_BUDGET,
            stall_timeout: DEFAULT_STALL_TIMEOUT,
            hub: None,
            subscription_buffer: (
                client::DEFAULT_SUBSCRIPTION_ITEMS,
                client::DEFAULT_SUBSCRIPTION_BYTES,
            ),
            client_middleware: Vec::new(),
            accepted_on: None,
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

    /// Whether dropped calls send `$/cancelRequest`, and received ones abort calls
    /// ([`Cancellation::LSP`] when `true`; none when `false`). Default: on for
    /// `Content-Length` framing, off elsewhere.
    pub fn cancel(mut self, cancel: bool) -> Self {
        self.cancel = Some(cancel.then_some(Cancellation::LSP));
        self
    }

    /// Cancels calls both ways by `cancellation`'s notification: a call of this side
    /// whose future is dropped or that times out sends it, and one received aborts the
    /// other side's call it names, answered as `cancellation` says. Presets:
    /// [`Cancellation::LSP`], [`Cancellation::MCP`].
    pub fn cancellation(mut self, cancellation: Cancellation) -> Self {
        self.cancel = Some(Some(cancellation));
        self
    }

    /// Which of the other side's messages run one after another in arrival order
    /// (default [`Order::Concurrent`]); see [`Order`] for the trade-off.
    pub fn order(mut self, order: Order) -> Self {
        self.order = order;
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

    /// The connection's byte budget (default [`DEFAULT_BYTE_BUDGET`], 4 MiB), which
    /// bounds, each on its own, the two things a connection holds for the other side:
    ///
    /// - **what waits to be written** to it: answers, refusals, this side's calls and
    ///   notifications, pushes ([`queued_bytes`](Peer::queued_bytes)). While they hold
    ///   the whole budget, the connection reads nothing more from the other side (so a
    ///   peer that sends without reading stalls itself, and TCP's flow control holds it
    ///   back), this side's sends wait for room, and [`Hub::notify_all`] passes it by;
    ///   reading resumes as soon as the other side has taken enough. A connection that
    ///   stays stalled is dropped after the [`stall_timeout`](Self::stall_timeout).
    /// - **the requests of its calls still running** in tasks of their own (each keeps
    ///   its message until it finishes): while they hold the budget, further calls
    ///   are refused `-32009` (server busy), as past
    ///   [`max_in_flight`](crate::server::Limits::max_in_flight).
    ///
    /// A message is let in while there is room, whatever its size, so each bound may be
    /// passed by one message; and a call already running when the budget is spent still
    /// adds its answer (at most the server's
    /// [`max_response_size`](crate::server::Limits::max_response_size)) when it ends.
    pub fn byte_budget(mut self, bytes: usize) -> Self {
        self.byte_budget = bytes;
        self
    }

    /// How long the other side may take nothing of what waits for it while the
    /// connection is over its [budget](Self::byte_budget), or is letting out its
    /// last messages after reading ended (default [`DEFAULT_STALL_TIMEOUT`], 30 s); then
    /// the connection is dropped, what was queued with it, as if it had broken. (Over
    /// its budget, a connection reads nothing: two peers that both send without end
    /// and both hold their budget would otherwise wait for each other for ever.)
    pub fn stall_timeout(mut self, timeout: Duration) -> Self {
        self.stall_timeout = timeout;
        self
    }

    /// How much each of this side's pushed subscriptions holds for a consumer slower
    /// than the other side: see [`client::Builder::subscription_buffer`] (defaults
    /// 1,024 items and 1 MiB). Bounded so that a slow consumer can neither stall the
    /// connection's reader (which serves every call and subscription on it) nor make
    /// this side hold without limit.
    pub fn subscription_buffer(mut self, items: usize, bytes: usize) -> Self {
        self.subscription_buffer = (items, bytes);
        self
    }

    /// Adds `middleware` around every message this side's client sends (see
    /// [`client::Middleware`]): the first added runs outermost.
    pub fn client_middleware(mut self, middleware: impl client::Middleware) -> Self {
        self.client_middleware.push(Arc::new(middleware));
        self
    }

    /// Registers the connection in `hub`, so the server can reach it from anywhere.
    pub fn hub(mut self, hub: &Hub) -> Self {
        self.hub = Some(hub.clone());
        self
    }

    /// The builder of this side's client.
    pub(crate) fn client_builder(&self) -> client::Builder {
        let (items, bytes) = self.subscription_buffer;
        let builder = Client::builder()
            .timeout(self.timeout)
            .subscription_buffer(items, bytes);
        self.client_middleware
            .iter()
            .fold(builder, |builder, middleware| {
                builder.middleware(Arc::clone(middleware))
            })
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

    /// Marks the connection as one a server accepted on `transport` (its metrics count
    /// it).
    pub(crate) fn accepted_on(mut self, transport: Transport) -> Self {
        self.accepted_on = Some(transport);
        self
    }

    /// Fills in the cancellation default for a transport (`true`: the LSP's).
    pub(crate) fn cancel_by_default(mut self, cancel: bool) -> Self {
        self.cancel
            .get_or_insert_with(|| cancel.then_some(Cancellation::LSP));
        self
    }

    /// The cancellation the connection uses, if any.
    pub(crate) fn cancel_setting(&self) -> Option<Arc<Cancellation>> {
        self.cancel.clone().flatten().map(Arc::new)
    }

    /// Starts the connection's task.
    pub(crate) fn start(self, wire: impl Wire) -> Peer {
        let cancel = self.cancel_setting();
        let budget = Arc::new(Budget::new(self.byte_budget));
        let (outbox, queue) = Outbox::new(self.queue, Arc::clone(&budget));
        let stop = Arc::new(Stop::default());
        let server = self
            .server
            .clone()
            .unwrap_or_else(|| Server::new(NoMethods));
        let link = Link {
            outbox: outbox.clone(),
            cancel: cancel.clone(),
            stop: Arc::clone(&stop),
            server: server.clone(),
        };
        let client = self.client_builder().build(link);
        let mut metadata = self.metadata;
        metadata.extensions.insert(Remote(client.downgrade()));
        outlet::install(&mut metadata, &outbox);
        if let Some(hub) = &self.hub {
            hub.insert(&client, outbox.downgrade());
        }
        let inbound = Inbound::new(
            client.inbox(),
            server.connection(metadata),
            outbox,
            (cancel, self.order),
            server.limits(),
            (self.queue, self.byte_budget),
        );
        let driver = Driver::new(
            wire,
            (queue, Arc::clone(&budget)),
            inbound,
            (Arc::clone(&stop), self.stall_timeout),
            true,
        )
        .metered(ConnectionMeter::open(self.accepted_on));
        // Closed once reading has ended and what was queued by then is let out.
        let (closed_sender, closed) = watch::channel(false);
        tokio::spawn(async move {
            driver.await;
            let _ = closed_sender.send(true);
        });
        Peer {
            client,
            closed,
            stop,
            budget,
        }
    }
}

/// One end of a symmetric connection; see the [module docs](self).
#[derive(Clone)]
pub struct Peer {
    client: Client,
    closed: watch::Receiver<bool>,
    stop: Arc<Stop>,
    budget: Arc<Budget>,
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

    /// Closes the connection now, whatever clients of it are still held: reading
    /// stops, this side's pending calls and every later one fail with
    /// [`client::Error::Closed`], the other side's calls still running are aborted,
    /// what was queued is let out, and the stream is closed (a WebSocket with a close
    /// frame). [`closed`](Self::closed) tells when that is done.
    pub fn close(&self) {
        self.stop.trigger();
    }

    /// How many bytes wait to be written to the other side now (answers, calls,
    /// notifications), out of the connection's
    /// [budget](Builder::byte_budget); 0 once the connection has ended.
    pub fn queued_bytes(&self) -> usize {
        self.budget.queued()
    }

    /// The most bytes that ever waited at once to be written to the other side on this
    /// connection (see [`queued_bytes`](Self::queued_bytes)): how close it came to its
    /// budget.
    pub fn queued_bytes_peak(&self) -> usize {
        self.budget.peak()
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

/// The live connections of a server, for pushing to them from outside any handler.
///
/// Give it to each connection's [`Builder::hub`] (the listeners of
/// [`stream`](super::stream) do when given one); connections leave it when they end.
///
/// ```no_run
/// # fn demo(hub: rpcsmith::transport::peer::Hub) -> Result<(), rpcsmith::client::Error> {
/// let pushed = hub.notify_all("priceChanged", &[42])?;
/// for laggard in pushed.full {
///     // This connection is behind (1,024 messages, or its byte budget): wait for
///     // room (up to its timeout).
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
    outbox: WeakOutbox,
}

/// What [`Hub::notify_all`] did with a notification.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Pushed {
    /// How many connections took it: it is queued, and written in turn.
    pub sent: usize,
    /// The connections whose queue was full, 1,024 messages deep or holding its
    /// [budget](Builder::byte_budget) of bytes (their peer has stopped reading,
    /// or reads slower than the server pushes), which did not get it. Send to them with
    /// [`Client::notify`], which waits for room up to its timeout, where a notification
    /// must not be missed.
    pub full: Vec<Client>,
}

impl Hub {
    /// An empty hub.
    pub fn new() -> Self {
        Self::default()
    }

    fn insert(&self, client: &Client, outbox: WeakOutbox) {
        let key = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut members = self.members();
        members.retain(|_, member| member.is_live());
        let member = Member {
            client: client.downgrade(),
            outbox,
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
    /// to write (1,024 deep, and [bounded in bytes](Builder::byte_budget)). A
    /// connection whose queue is full does not get it, and is
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
        Ok(self.push_all(Bytes::from(message)))
    }

    /// Queues `message` (a whole JSON-RPC message) on every live connection, as
    /// [`notify_all`](Self::notify_all) does once it is serialised.
    pub(crate) fn push_all(&self, message: Bytes) -> Pushed {
        let mut pushed = Pushed::default();
        self.members().retain(|_, member| {
            let Some(outbox) = member.outbox.upgrade() else {
                return false;
            };
            match outbox.try_send(message.clone()) {
                Ok(()) => pushed.sent += 1,
                Err(Refused::Full) => pushed.full.extend(member.client.upgrade()),
                Err(Refused::Closed) => return false,
            }
            true
        });
        pushed
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
