//! The names that moved in the last release still compile at their old paths (for one
//! release, deprecated, so the compiler's warning names the new path), and are the very
//! items at the new paths.
#![allow(deprecated)]

use bytes::Bytes;
use rpcsmith::client::{self, Client};
use rpcsmith::transport;

/// A transport written against the old paths' names: bounds, types and variants.
fn deliver<T: transport::Transport>(port: &T) -> transport::SendFuture<'_> {
    client::Transport::send(port, Bytes::from_static(b"{}"))
}

struct Echo;

impl client::Transport for Echo {
    fn send(&self, message: Bytes) -> client::SendFuture<'_> {
        Box::pin(async move { Ok(client::Delivery::Answer(message)) })
    }
}

#[tokio::test]
async fn the_old_paths_name_the_new_items() {
    let delivered: transport::Delivery = deliver(&Echo).await.expect("delivered");
    assert!(matches!(delivered, transport::Delivery::Answer(ref body) if body == "{}"));
    let kind: Option<transport::ErrorKind> = None;
    let error: Option<transport::Error> = None;
    let inbox: Option<transport::Inbox> = None;
    let _: (
        Option<client::TransportErrorKind>,
        Option<client::TransportError>,
        Option<client::Inbox>,
    ) = (kind, error, inbox);
    // A client built on a transport named through the old trait.
    let _client = Client::new(Echo);
}
