//! Bodies: reading one whole within a size limit (requests on the server, answers on
//! the client), and the data of the server's answers.

use super::server::Held;
use bytes::{Buf, BufMut, Bytes, BytesMut};
use http_body_util::Full;
use hyper::body::Body;

/// Why a body could not be read whole.
#[derive(Debug)]
pub(super) enum ReadError<E> {
    /// It is larger than the limit; reading stopped there.
    TooLarge,
    /// Reading it failed.
    Body(E),
}

/// Reads `body` whole, refusing it as soon as it is larger than `limit` bytes. A body
/// that comes in one piece (the usual case) is that piece, not a copy. Trailers are
/// skipped: JSON-RPC reads none.
pub(super) async fn read<B: Body>(body: B, limit: usize) -> Result<Bytes, ReadError<B::Error>> {
    let mut body = std::pin::pin!(body);
    let mut first = Bytes::new();
    let mut rest: Option<BytesMut> = None;
    while let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        let Ok(mut data) = frame.map_err(ReadError::Body)?.into_data() else {
            continue;
        };
        let length = data.remaining();
        let read = first.len() + rest.as_ref().map_or(0, BytesMut::len);
        if length > limit.saturating_sub(read) {
            return Err(ReadError::TooLarge);
        }
        if let Some(rest) = &mut rest {
            rest.put(data);
        } else if first.is_empty() {
            first = data.copy_to_bytes(length);
        } else {
            let mut joined = BytesMut::with_capacity(read + length);
            joined.extend_from_slice(&std::mem::take(&mut first));
            joined.put(data);
            rest = Some(joined);
        }
    }
    Ok(rest.map_or(first, BytesMut::freeze))
}

/// The data of a [`Full`] body, which is ready at once: a request the client's pool
/// could not send, a WebSocket upgrade's answer.
pub(super) fn whole(body: Full<Bytes>) -> Bytes {
    use http_body_util::BodyExt as _;
    futures_util::FutureExt::now_or_never(body.collect())
        .and_then(Result::ok)
        .map(http_body_util::Collected::to_bytes)
        .unwrap_or_default()
}

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
    use super::*;
    use http_body_util::{BodyExt as _, StreamBody};

    fn chunked(
        pieces: &[&'static str],
    ) -> impl Body<Data = Bytes, Error = std::convert::Infallible> {
        let frames = pieces.iter().map(|piece| {
            Ok(hyper::body::Frame::data(Bytes::from_static(
                piece.as_bytes(),
            )))
        });
        StreamBody::new(futures_util::stream::iter(frames.collect::<Vec<_>>()))
    }

    #[tokio::test]
    async fn bodies_are_read_whole_within_the_limit() {
        let one = read(Full::new(Bytes::from_static(b"[1,2]")), 5).await;
        assert_eq!(one.expect("within the limit"), "[1,2]");
        let pieces = read(chunked(&["[1", ",", "2]"]), 5).await;
        assert_eq!(pieces.expect("within the limit"), "[1,2]");
        assert!(matches!(
            read(chunked(&["[1", ",", "2]"]), 4).await,
            Err(ReadError::TooLarge)
        ));
        assert!(matches!(
            read(Full::new(Bytes::from_static(b"[1,2]")), 4).await,
            Err(ReadError::TooLarge)
        ));
        assert_eq!(read(chunked(&[]), 0).await.expect("empty"), "");
        let many = read(chunked(&["[1", ",", "2", ",", "3]"]), 7).await;
        assert_eq!(many.expect("exactly the limit"), "[1,2,3]");
    }

    #[test]
    fn held_answers_count_until_their_last_piece_is_dropped() {
        let unsent = std::sync::Arc::new(crate::http::server::Unsent::new(1024));
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
