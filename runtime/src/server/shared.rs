//! The floor of the server's files: what every call of a server shares ([`Shared`]),
//! what a connection's calls share ([`InFlight`], their metadata), and where a message's
//! calls come from ([`Origin`]). It imports none of the files that stand on it.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

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
/// and their calls count together. Cheap to clone (an `Arc` inside).
#[derive(Clone, Default)]
pub struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    /// A count of its own, at zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many calls are in flight now.
    pub fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }

    pub(crate) fn counter(&self) -> &AtomicUsize {
        &self.0
    }
}

impl fmt::Debug for InFlight {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("InFlight").field(&self.get()).finish()
    }
}

/// Where a message's calls come from: the metadata their contexts share (`None` when
/// the transport said nothing), and the count of calls in flight they join (`None` for
/// a message handled as if on a connection of its own).
#[derive(Clone, Copy)]
pub(crate) struct Origin<'s, 'a> {
    pub(crate) metadata: Option<&'s Arc<Metadata>>,
    pub(crate) in_flight: Option<&'a AtomicUsize>,
}
