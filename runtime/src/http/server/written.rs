//! The data of the server's answers: [`Bytes`] for the tower service, [`Written`]
//! under [`serve`](super::serve), each counted among its connection's unsent bytes.

use super::unsent::Held;
use bytes::{Buf, Bytes};

/// The data of an answer's body: [`Bytes`] for the tower service (what axum and other
/// hosts expect), [`Written`] where [`serve`](super::serve) calls the service directly.
pub(super) trait Data: Buf + Send + 'static {
    fn from_vec(bytes: Vec<u8>) -> Self;

    /// `bytes`, counted among its connection's unsent answers until dropped.
    fn held(bytes: Vec<u8>, held: Held) -> Self;
}

impl Data for Bytes {
    fn from_vec(bytes: Vec<u8>) -> Self {
        bytes.into()
    }

    fn held(bytes: Vec<u8>, held: Held) -> Self {
        Bytes::from_owner(Owned { bytes, _held: held })
    }
}

/// An answer's vector and its place among its connection's unsent bytes, released
/// when the last [`Bytes`] of it is dropped.
struct Owned {
    bytes: Vec<u8>,
    _held: Held,
}

impl AsRef<[u8]> for Owned {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

/// A body as the engine wrote it, sent from its vector: turning that into [`Bytes`]
/// allocates whenever the vector has spare capacity, which it usually has.
#[derive(Debug, Default)]
pub(super) struct Written {
    bytes: Vec<u8>,
    sent: usize,
    _held: Option<Held>,
}

impl Data for Written {
    fn from_vec(bytes: Vec<u8>) -> Self {
        Self {
            bytes,
            sent: 0,
            _held: None,
        }
    }

    fn held(bytes: Vec<u8>, held: Held) -> Self {
        Self {
            bytes,
            sent: 0,
            _held: Some(held),
        }
    }
}

impl Buf for Written {
    fn remaining(&self) -> usize {
        self.bytes.len() - self.sent
    }

    fn chunk(&self) -> &[u8] {
        &self.bytes[self.sent..]
    }

    fn advance(&mut self, count: usize) {
        assert!(count <= self.remaining(), "advanced past the end of a body");
        self.sent += count;
    }
}

#[cfg(test)]
mod tests {
    use super::super::unsent::Unsent;
    use super::*;
    use http_body_util::{BodyExt as _, Full};

    #[test]
    fn held_answers_count_until_their_last_piece_is_dropped() {
        let unsent = std::sync::Arc::new(Unsent::new(1024));
        let mut bytes = Bytes::held(b"{\"result\":3}".to_vec(), unsent.hold(12));
        let rest = bytes.split_off(4);
        drop(bytes);
        assert_eq!(unsent.bytes(), 12, "a piece is still held");
        assert_eq!(rest, "sult\":3}");
        drop(rest);
        assert_eq!(unsent.bytes(), 0);
        let written = Written::held(b"[]".to_vec(), unsent.hold(2));
        assert_eq!(unsent.bytes(), 2);
        drop(written);
        assert_eq!(unsent.bytes(), 0);
    }

    #[tokio::test]
    async fn written_bodies_send_their_vector() {
        let mut bytes = Vec::with_capacity(64);
        bytes.extend_from_slice(b"{\"result\":3}");
        let body = Full::new(Written::from_vec(bytes));
        let sent = body.collect().await.expect("infallible").to_bytes();
        assert_eq!(sent, "{\"result\":3}");
        let mut written = Written::from_vec(b"abc".to_vec());
        written.advance(1);
        assert_eq!(written.chunk(), b"bc");
    }
}
