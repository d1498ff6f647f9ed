//! A server's frame made in place: the header of an unmasked frame (RFC 6455 section 5.2)
//! written in front of an answer, in the answer's own vector, and the vector given for
//! the next call's result once written (see [`Hooks::direct`](super::Hooks::direct)).

use std::io;

use tokio::io::AsyncWrite;

use super::writing::Writing;
use crate::server::reuse;

/// An answer with its frame's header written in front of it (the answer moved up by
/// the header's two to four bytes, within its vector's spare room as a rule).
pub(super) struct Framed {
    bytes: Vec<u8>,
    header: usize,
}

/// `answer` as a server's whole frame: text when it is UTF-8 (JSON written by serde),
/// binary otherwise, as [`text_or_binary`](super::text_or_binary) makes tungstenite's.
/// ASCII, the usual answer, is told by a word-at-a-time test (about 25 instructions for
/// a small answer, where the UTF-8 check took 70).
pub(super) fn framed(mut answer: Vec<u8>) -> Framed {
    let len = answer.len();
    let text = answer.is_ascii() || std::str::from_utf8(&answer).is_ok();
    let (header, used) = frame_header(text, len);
    answer.resize(len + used, 0);
    answer.copy_within(..len, used);
    answer[..used].copy_from_slice(&header[..used]);
    Framed {
        bytes: answer,
        header: used,
    }
}

/// The answer of a [`Framed`] one that was not written.
pub(super) fn unframed(frame: Framed) -> Vec<u8> {
    let mut bytes = frame.bytes;
    bytes.drain(..frame.header);
    bytes
}

impl<S: AsyncWrite + Unpin> Writing<S> {
    /// [`put_alone`](Writing::put_alone) for a [`Framed`] answer. Its vector, once its
    /// bytes are taken, serializes the next call's result ([`reuse`]).
    pub(super) fn put_frame(&mut self, frame: Framed) -> io::Result<Option<Framed>> {
        if !self.put_alone(&frame.bytes)? {
            return Ok(Some(frame));
        }
        reuse(frame.bytes);
        Ok(None)
    }
}

/// The longest header of an unmasked frame.
pub(super) const MAX_HEADER: usize = 10;

/// The header of a whole unmasked frame of `len` bytes (a server's, RFC 6455 section
/// 5.2), text or binary: its bytes and its length.
fn frame_header(text: bool, len: usize) -> ([u8; MAX_HEADER], usize) {
    let mut header = [0_u8; MAX_HEADER];
    header[0] = 0x80 | if text { 0x1 } else { 0x2 };
    match len {
        0..=125 => {
            header[1] = len as u8;
            (header, 2)
        }
        126..=0xffff => {
            header[1] = 126;
            header[2..4].copy_from_slice(&(len as u16).to_be_bytes());
            (header, 4)
        }
        _ => {
            header[1] = 127;
            header[2..10].copy_from_slice(&(len as u64).to_be_bytes());
            (header, 10)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_tungstenite::tungstenite::protocol::frame::Frame;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data as OpData, OpCode};

    /// The header written here for a server's frame is the one tungstenite writes, at
    /// every length boundary of RFC 6455's three length encodings.
    #[test]
    fn frame_headers_are_tungstenites() {
        for len in [0, 1, 125, 126, 127, 4000, 0xffff, 0x1_0000, 200_000] {
            for (text, data) in [(true, OpData::Text), (false, OpData::Binary)] {
                let mut theirs = Vec::new();
                Frame::message(vec![b'x'; len], OpCode::Data(data), true)
                    .format(&mut theirs)
                    .unwrap();
                let (header, used) = frame_header(text, len);
                assert_eq!(
                    header[..used],
                    theirs[..theirs.len() - len],
                    "{len}, {text}"
                );
            }
        }
        // A whole answer framed in its own vector is tungstenite's frame of it, and
        // unframed it is the answer again.
        let answers: [&[u8]; 4] = [
            b"{}",
            "{\"é\":1}".as_bytes(),
            &[b'{', 0xff, b'}'],
            &[b'x'; 300],
        ];
        for answer in answers {
            let data = match std::str::from_utf8(answer) {
                Ok(_) => OpData::Text,
                Err(_) => OpData::Binary,
            };
            let mut theirs = Vec::new();
            Frame::message(answer.to_vec(), OpCode::Data(data), true)
                .format(&mut theirs)
                .unwrap();
            let frame = framed(answer.to_vec());
            assert_eq!(frame.bytes, theirs);
            assert_eq!(unframed(frame), answer);
        }
    }
}
