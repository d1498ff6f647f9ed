//! The client's port at its old paths, kept for one release so that code written
//! against the previous one compiles with a warning that names the new path, instead of
//! rustc's bare "no `Transport` in `transport`". The port moved to [`crate::client`]
//! when the runtime's layers were made to import one way (see `CHANGELOG.md`).
//!
//! `#[deprecated]` has no effect on a `pub use`, so each name is a deprecated item of its
//! own: type aliases for the types, and for the trait a sub-trait that every
//! [`client::Transport`] implements (usable as a bound; an `impl` of it must become an
//! `impl client::Transport`, which the warning says).
#![allow(deprecated)]

use crate::client;

/// Moved to [`rpcsmith::client::Transport`](crate::client::Transport).
#[deprecated(
    since = "0.1.0",
    note = "moved to `rpcsmith::client::Transport`: implement and name that trait instead"
)]
pub trait Transport: client::Transport {}

impl<T: client::Transport + ?Sized> Transport for T {}

/// Moved to [`rpcsmith::client::Delivery`](crate::client::Delivery).
#[deprecated(since = "0.1.0", note = "moved to `rpcsmith::client::Delivery`")]
pub type Delivery = client::Delivery;

/// Moved to [`rpcsmith::client::SendFuture`](crate::client::SendFuture).
#[deprecated(since = "0.1.0", note = "moved to `rpcsmith::client::SendFuture`")]
pub type SendFuture<'a> = client::SendFuture<'a>;

/// Renamed [`rpcsmith::client::TransportError`](crate::client::TransportError).
#[deprecated(since = "0.1.0", note = "renamed `rpcsmith::client::TransportError`")]
pub type Error = client::TransportError;

/// Renamed [`rpcsmith::client::TransportErrorKind`](crate::client::TransportErrorKind).
#[deprecated(
    since = "0.1.0",
    note = "renamed `rpcsmith::client::TransportErrorKind`"
)]
pub type ErrorKind = client::TransportErrorKind;

/// Moved to [`rpcsmith::client::Inbox`](crate::client::Inbox).
#[deprecated(since = "0.1.0", note = "moved to `rpcsmith::client::Inbox`")]
pub type Inbox = client::Inbox;
