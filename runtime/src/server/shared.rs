//! The floor of the server's files: what every call of a server shares ([`Shared`]),
//! what a connection's calls share ([`InFlight`], its [`ConnectionId`], their metadata),
//! and where a message's calls come from ([`Origin`]). It imports none of the files that
//! stand on it.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::connection_id::ConnectionId;
use crate::metrics::ServerMeter;

use super::endpoint::Endpoint;
use super::limits::Limits;
use super::metadata::Metadata;
use super::middleware::Middleware;

/// What every clone of a [`Server`](super::Server) shares.
pub(crate) struct Shared {
    /// The end of the middleware chain: `rpc.*` names, then the dispatcher.
    pub(crate) endpoint: Endpoint,
    pub(crate) middleware: Vec<Box<dyn Middleware>>,
    pub(crate) limits: Limits,
    /// Its metrics (nothing without the `metrics` feature).
    pub(crate) meter: ServerMeter,
}

/// A count of calls in flight, which [`Limits::max_in_flight`] limits: one for each
/// [`Connection`](super::Connection), shared by every message handled through it.
///
/// Connections may share one ([`Server::connection_sharing`](super::Server::connection_sharing)):
/// the requests of one HTTP socket each come with metadata of their own (their headers),
/// and their calls count together. Cheap to clone (an `Arc` inside). Each count names a
/// connection of its own: the [`ConnectionId`] its calls' contexts carry.
#[derive(Clone)]
pub struct InFlight {
    count: Arc<AtomicUsize>,
    connection: ConnectionId,
}

impl InFlight {
    /// A count of its own, at zero, for a new connection.
    pub fn new() -> Self {
        InFlight {
            count: Arc::default(),
            connection: ConnectionId::next(),
        }
    }

    /// How many calls are in flight now.
    pub fn get(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }

    /// The connection this count is for.
    pub fn connection(&self) -> ConnectionId {
        self.connection
    }

    pub(crate) fn counter(&self) -> &AtomicUsize {
        &self.count
    }
}

impl Default for InFlight {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for InFlight {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InFlight")
            .field("calls", &self.get())
            .field("connection", &self.connection.get())
            .finish()
    }
}

/// Where a message's calls come from: the metadata their contexts share (`None` when
/// the transport said nothing), the count of calls in flight they join and the
/// connection it is for (`None` for a message handled as if on a connection of its own).
#[derive(Clone, Copy)]
pub(crate) struct Origin<'s, 'a> {
    pub(crate) metadata: Option<&'s Arc<Metadata>>,
    pub(crate) in_flight: Option<&'a AtomicUsize>,
    pub(crate) connection: Option<ConnectionId>,
}
