//! What a server does with a client's next WebSocket frame: read it itself when it is a
//! whole message, or lend it to tungstenite.
//!
//! tungstenite reads a message through tokio-tungstenite's bridge from async to its
//! blocking `Read`: wakers registered for its reads and for its writes, a flush of
//! whatever it may owe before every read, its own buffer zeroed before each read of the
//! socket, and a second read that ends in `WouldBlock`. By callgrind that was 2,323
//! instructions of a small WebSocket call's 8,845 on the server, where the whole
//! hand-written floor server takes about 4,150 (BENCHMARKS.md). So a server's
//! [`Reading`](super::reading::Reading) reads the usual frame itself: one that is a whole
//! text or binary message (final, no extension bits, masked as a client's must be,
//! within the message limit). Its header is parsed by tungstenite's own
//! [`FrameHeader::parse`], its payload unmasked in place and its text checked as UTF-8
//! once, by tungstenite's [`Utf8Bytes`](tokio_tungstenite::tungstenite::Utf8Bytes).
//!
//! Every other frame (a ping, a pong, a close, a fragment, one with extension bits, an
//! unmasked or oversized one) is lent to tungstenite whole, exactly its bytes, so that it
//! answers or refuses it as it always did and, having read no further, holds nothing
//! when it returns. After a close, a frame that does not parse, or the end of the stream,
//! tungstenite reads everything that follows.
//!
//! Only a server's frames are read so: a client's tungstenite may hold bytes it read past
//! its handshake's answer, which a read of the socket here would overtake.

use std::io::Cursor;
use tokio_tungstenite::tungstenite::protocol::frame::FrameHeader;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Control, Data, OpCode};

/// What the bytes at the front of a server's read buffer begin with.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Frame {
    /// Not a whole header yet.
    Partial,
    /// A whole message, read here: its header's length, its payload's, the mask, and
    /// whether it is text.
    Whole {
        header: usize,
        payload: usize,
        mask: [u8; 4],
        text: bool,
    },
    /// A frame for tungstenite: its length in all (header and payload), and what it
    /// changes.
    Lend { length: u64, then: After },
    /// A header that does not parse (an unknown opcode, a length over 2^63):
    /// tungstenite reads it, and everything after it, and refuses it.
    Broken,
}

/// What a frame lent to tungstenite changes for the frames after it.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub(super) enum After {
    /// Nothing: a ping or a pong, or a frame tungstenite will refuse.
    Nothing,
    /// A fragment that is not the last: the message's next frames are tungstenite's too.
    Fragmented,
    /// A message's last fragment: the next frame may be read here again.
    Completed,
    /// A close: tungstenite reads everything from here on.
    Closed,
}

/// What `bytes` begin with, for a server whose messages are at most `limit` bytes.
pub(super) fn classify(bytes: &[u8], limit: usize) -> Frame {
    let mut cursor = Cursor::new(bytes);
    let (header, payload) = match FrameHeader::parse(&mut cursor) {
        Ok(Some(parsed)) => parsed,
        Ok(None) => return Frame::Partial,
        Err(_) => return Frame::Broken,
    };
    // At most 14 bytes: the cursor's position fits.
    let length = cursor.position() as usize;
    let data = match header.opcode {
        OpCode::Data(Data::Text) => Some(true),
        OpCode::Data(Data::Binary) => Some(false),
        _ => None,
    };
    let plain = header.is_final && !(header.rsv1 || header.rsv2 || header.rsv3);
    match (data, header.mask) {
        (Some(text), Some(mask)) if plain && payload <= limit as u64 => Frame::Whole {
            header: length,
            // Within `limit`, a `usize`.
            payload: payload as usize,
            mask,
            text,
        },
        _ => Frame::Lend {
            length: (length as u64).saturating_add(payload),
            then: match header.opcode {
                OpCode::Control(Control::Close) => After::Closed,
                OpCode::Data(_) if header.is_final => After::Completed,
                OpCode::Data(_) => After::Fragmented,
                OpCode::Control(_) => After::Nothing,
            },
        },
    }
}

/// Removes a client's `mask` from `payload` (RFC 6455 section 5.3), eight bytes at a
/// time. (tungstenite's own function for this is not public.)
pub(super) fn unmask(payload: &mut [u8], mask: [u8; 4]) {
    let wide = u64::from_ne_bytes([
        mask[0], mask[1], mask[2], mask[3], mask[0], mask[1], mask[2], mask[3],
    ]);
    let mut words = payload.chunks_exact_mut(8);
    for word in &mut words {
        let masked = u64::from_ne_bytes([
            word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7],
        ]);
        word.copy_from_slice(&(masked ^ wide).to_ne_bytes());
    }
    // The rest starts at a multiple of eight: the mask starts again at its first byte.
    for (byte, key) in words.into_remainder().iter_mut().zip(mask.iter().cycle()) {
        *byte ^= key;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_tungstenite::tungstenite::protocol::frame::Frame as WsFrame;

    /// A client's frame as tungstenite writes it: `payload` masked with `mask`.
    fn client_frame(opcode: OpCode, is_final: bool, payload: &[u8], mask: [u8; 4]) -> Vec<u8> {
        let mut frame = WsFrame::message(payload.to_vec(), OpCode::Data(Data::Text), is_final);
        let header = frame.header_mut();
        header.opcode = opcode;
        header.mask = Some(mask);
        let mut out = Vec::new();
        frame.format(&mut out).unwrap();
        out
    }

    #[test]
    fn a_whole_masked_message_is_read_here_and_unmasks_to_its_text() {
        let text = br#"{"jsonrpc":"2.0","method":"add","params":[1,2],"id":7}"#;
        let mask = [0x37, 0xfa, 0x21, 0x3d];
        let bytes = client_frame(OpCode::Data(Data::Text), true, text, mask);
        let Frame::Whole {
            header,
            payload,
            mask: got,
            text: true,
        } = classify(&bytes, 1024)
        else {
            panic!("a whole text message")
        };
        assert_eq!((header, payload, got), (6, text.len(), mask));
        let mut body = bytes[header..].to_vec();
        unmask(&mut body, got);
        assert_eq!(body, text);
        // Any length, with a rest after the eight-byte words.
        for len in 0..20 {
            let plain: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let bytes = client_frame(OpCode::Data(Data::Binary), true, &plain, mask);
            let mut body = bytes[bytes.len() - len..].to_vec();
            unmask(&mut body, mask);
            assert_eq!(body, plain, "{len} bytes");
        }
    }

    #[test]
    fn every_other_frame_is_lent_whole_to_tungstenite() {
        let mask = [1, 2, 3, 4];
        let lent = |opcode, is_final, payload: &[u8]| {
            let bytes = client_frame(opcode, is_final, payload, mask);
            match classify(&bytes, 1024) {
                Frame::Lend { length, then } => {
                    assert_eq!(length, bytes.len() as u64, "exactly the frame");
                    then
                }
                other => panic!("lent, not {other:?}"),
            }
        };
        let ping = OpCode::Control(Control::Ping);
        assert_eq!(lent(ping, true, b"hi"), After::Nothing);
        let close = OpCode::Control(Control::Close);
        assert_eq!(lent(close, true, &[3, 232]), After::Closed);
        let text = OpCode::Data(Data::Text);
        assert_eq!(lent(text, false, b"part"), After::Fragmented);
        let more = OpCode::Data(Data::Continue);
        assert_eq!(lent(more, true, b"rest"), After::Completed);
        // Over the limit: tungstenite refuses it with 1009.
        assert_eq!(lent(text, true, &[b'x'; 1025]), After::Completed);
        // Unmasked, from a client: tungstenite refuses it with 1002.
        let mut unmasked = Vec::new();
        WsFrame::message(b"x".to_vec(), text, true)
            .format(&mut unmasked)
            .unwrap();
        assert!(matches!(classify(&unmasked, 1024), Frame::Lend { .. }));
        // Extension bits set.
        let mut rsv = client_frame(text, true, b"x", mask);
        rsv[0] |= 0x40;
        assert!(matches!(classify(&rsv, 1024), Frame::Lend { .. }));
    }

    #[test]
    fn a_short_header_waits_and_a_bad_opcode_is_broken() {
        let bytes = client_frame(OpCode::Data(Data::Text), true, &[b'x'; 300], [9; 4]);
        for cut in 0..8 {
            assert_eq!(classify(&bytes[..cut], 1024), Frame::Partial, "{cut} bytes");
        }
        assert!(matches!(classify(&bytes[..8], 1024), Frame::Whole { .. }));
        assert_eq!(classify(&[0x83, 0x80, 0, 0, 0, 0], 1024), Frame::Broken);
    }
}
