//! The client back to the other side of a connection, kept in the metadata of the
//! calls that came on it.

/// The client of a connection (or an HTTP session), kept in its metadata without
/// keeping it alive.
#[derive(Clone)]
pub(crate) struct Remote(pub(crate) crate::client::WeakClient);

/// The client for calls and notifications back to the other side of the connection
/// `context`'s call came on: how a handler pushes a notification to its own caller, or
/// asks it something. On a [`peer`](super::peer) connection (byte streams, WebSocket), and over HTTP
/// in a [streaming](crate::http::Service::streaming) service (sent as events, on the call's
/// own event stream while it runs, else on its session's `GET` stream; the other
/// side's responses come back as `POST`s of the session). `None` when the call came
/// another way (plain HTTP, in-memory) or the connection or session is gone.
pub fn remote(context: &crate::server::Context) -> Option<crate::client::Client> {
    context.metadata().extensions.get::<Remote>()?.0.upgrade()
}
