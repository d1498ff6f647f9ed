//! What a connection does with the next WebSocket frame it receives: read it itself when
//! it is a whole message, or lend it to tungstenite.
//!
//! tungstenite reads a message through tokio-tungstenite's bridge from async to its
//! blocking `Read`: wakers registered for its reads and for its writes, a flush of
//! whatever it may owe before every read, its own buffer zeroed before each read of the
//! socket, and a second read that ends in `WouldBlock`. By callgrind that was 2,323
//! instructions of a small WebSocket call's 8,845 on the server, where the whole
//! hand-written floor server takes about 4,150 (BENCHMARKS.md); and a client read a large
//! answer 1 KiB at a time through it. So a connection's
//! [`Reading`](super::reading::Reading) reads the usual frame itself: one that is a whole
//! text or binary message (final, no extension bits, masked if and only if it comes from
//! a client, within the message limit). Its header is read here, its payload unmasked in place and
//! its text checked as UTF-8 once, by tungstenite's
//! [`Utf8Bytes`](tokio_tungstenite::tungstenite::Utf8Bytes). (tungstenite's own
//! `FrameHeader::parse` reads the header through `io::Read` on a cursor, with trace
//! logging at each step: 330 instructions a call by callgrind, against about 40 for the
//! few lines of RFC 6455 section 5.2 below.)
//!
//! Every other frame (a ping, a pong, a close, a fragment, one with extension bits, an
//! unmasked or oversized one) is lent to tungstenite whole, exactly its bytes, so that it
//! answers or refuses it as it always did and, having read no further, holds nothing
//! when it returns. After a close, a frame that does not parse, or the end of the stream,
//! tungstenite reads everything that follows.
//!
//! On a client's side, tungstenite reads the handshake's answer through the same
//! [`Reading`](super::reading::Reading), which gives it the answer's bytes up to its
//! blank line and no further: tungstenite would otherwise keep what it read past the
//! answer (the server's first frames, if they came in the same packet) for itself, and a
//! read here would overtake them.

/// What the bytes at the front of a connection's read buffer begin with.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Frame {
    /// Not a whole header yet.
    Partial,
    /// A whole message, read here: its header's length, its payload's, the mask (a
    /// client's frame's), and whether it is text.
    Whole {
        header: usize,
        payload: usize,
        mask: Option<[u8; 4]>,
        text: bool,
    },
    /// A frame for tungstenite: its length in all (header and payload), and what it
    /// changes.
    Lend { length: u64, then: After },
    /// A header with a reserved opcode: tungstenite reads it, and everything after it,
    /// and refuses it.
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

/// What `bytes` begin with, for a connection whose messages are at most `limit` bytes,
/// and whose frames come `masked` (to a server) or not (to a client).
pub(super) fn classify(bytes: &[u8], limit: usize, masked: bool) -> Frame {
    let Some(&[first, second]) = bytes.get(..2) else {
        return Frame::Partial;
    };
    let (fin, extended, opcode) = (first & 0x80 != 0, first & 0x70 != 0, first & 0x0f);
    let (length, mut header) = match second & 0x7f {
        126 => (
            bytes
                .get(2..4)
                .map(|b| u64::from(u16::from_be_bytes([b[0], b[1]]))),
            4,
        ),
        127 => (
            bytes
                .get(2..10)
                .map(|b| u64::from_be_bytes(b.try_into().unwrap_or_default())),
            10,
        ),
        short => (Some(u64::from(short)), 2),
    };
    let Some(payload) = length else {
        return Frame::Partial;
    };
    let mask = if second & 0x80 != 0 {
        let Some(&[a, b, c, d]) = bytes.get(header..header + 4) else {
            return Frame::Partial;
        };
        header += 4;
        Some([a, b, c, d])
    } else {
        None
    };
    // Within the limit, and (whatever the limit) its length and the header's in a
    // `usize`: a message read here is held whole.
    let fits = payload <= limit as u64 && payload <= isize::MAX as u64 / 2;
    let plain = fin && !extended && mask.is_some() == masked;
    match opcode {
        TEXT | BINARY if plain && fits => {
            Frame::Whole {
                header,
                // Within `limit`, a `usize`.
                payload: payload as usize,
                mask,
                text: opcode == TEXT,
            }
        }
        CONTINUE | TEXT | BINARY if fin => lend(header, payload, After::Completed),
        CONTINUE | TEXT | BINARY => lend(header, payload, After::Fragmented),
        CLOSE => lend(header, payload, After::Closed),
        PING | PONG => lend(header, payload, After::Nothing),
        // A reserved opcode.
        _ => Frame::Broken,
    }
}

/// The opcodes of RFC 6455 section 5.2.
const CONTINUE: u8 = 0x0;
const TEXT: u8 = 0x1;
const BINARY: u8 = 0x2;
const CLOSE: u8 = 0x8;
const PING: u8 = 0x9;
const PONG: u8 = 0xa;

/// A frame of a `header` and a `payload` lent to tungstenite.
fn lend(header: usize, payload: u64, then: After) -> Frame {
    Frame::Lend {
        length: (header as u64).saturating_add(payload),
        then,
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
    use tokio_tungstenite::tungstenite::protocol::frame::coding::{Control, Data, OpCode};

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
        } = classify(&bytes, 1024, true)
        else {
            panic!("a whole text message")
        };
        assert_eq!((header, payload, got), (6, text.len(), Some(mask)));
        let mut body = bytes[header..].to_vec();
        unmask(&mut body, mask);
        assert_eq!(body, text);
        // Each of the three lengths of a length: 7 bits, 16 and 64.
        for (len, header_len) in [(125, 6), (126, 8), (65_535, 8), (65_536, 14)] {
            let bytes = client_frame(OpCode::Data(Data::Binary), true, &vec![1; len], mask);
            let whole = classify(&bytes, 1 << 20, true);
            assert!(
                matches!(whole, Frame::Whole { header, payload, text: false, .. }
                    if header == header_len && payload == len),
                "{len} bytes: {whole:?}"
            );
        }
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
            match classify(&bytes, 1024, true) {
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
        // A length no buffer holds, whatever the limit: lent, not read here.
        let huge = [
            0x82, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4,
        ];
        assert!(matches!(
            classify(&huge, usize::MAX, true),
            Frame::Lend { length, .. } if length == 14 + (i64::MAX as u64)
        ));
        // Unmasked, from a client: tungstenite refuses it with 1002.
        let mut unmasked = Vec::new();
        WsFrame::message(b"x".to_vec(), text, true)
            .format(&mut unmasked)
            .unwrap();
        assert!(matches!(
            classify(&unmasked, 1024, true),
            Frame::Lend { .. }
        ));
        // The same frame to a client is a whole message; a masked one is lent (refused).
        assert!(matches!(
            classify(&unmasked, 1024, false),
            Frame::Whole { mask: None, .. }
        ));
        let masked = client_frame(text, true, b"x", mask);
        assert!(matches!(classify(&masked, 1024, false), Frame::Lend { .. }));
        // Extension bits set.
        let mut rsv = client_frame(text, true, b"x", mask);
        rsv[0] |= 0x40;
        assert!(matches!(classify(&rsv, 1024, true), Frame::Lend { .. }));
    }

    #[test]
    fn a_short_header_waits_and_a_bad_opcode_is_broken() {
        let bytes = client_frame(OpCode::Data(Data::Text), true, &[b'x'; 300], [9; 4]);
        for cut in 0..8 {
            assert_eq!(
                classify(&bytes[..cut], 1024, true),
                Frame::Partial,
                "{cut} bytes"
            );
        }
        assert!(matches!(
            classify(&bytes[..8], 1024, true),
            Frame::Whole { .. }
        ));
        assert_eq!(
            classify(&[0x83, 0x80, 0, 0, 0, 0], 1024, true),
            Frame::Broken
        );
    }
}
