//! Bodies: reading one whole within a size limit (requests on the server, answers on
//! the client).

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

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::StreamBody;

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
}
