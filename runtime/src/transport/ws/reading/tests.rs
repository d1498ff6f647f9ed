//! The read buffer, and a server's frames shared with tungstenite.

use super::*;
use tokio::io::AsyncWriteExt as _;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

#[tokio::test]
async fn small_reads_hold_no_buffer_and_large_ones_release_it_when_drained() {
    let (mut near, far) = tokio::io::duplex(64 * 1024);
    let mut reading = Reading::new(far, 1024);
    let mut out = [0_u8; 16];

    near.write_all(b"hello").await.unwrap();
    let read = reading.read(&mut out).await.unwrap();
    assert_eq!(&out[..read], b"hello");
    assert!(
        !reading.holds_buffer(),
        "a small read goes straight through"
    );

    let message: Vec<u8> = (0..3000_u32).map(|i| (i % 251) as u8).collect();
    near.write_all(&message).await.unwrap();
    let mut got = Vec::new();
    while got.len() < message.len() {
        let read = reading.read(&mut out).await.unwrap();
        got.extend_from_slice(&out[..read]);
        if got.len() == 16 {
            assert!(reading.holds_buffer(), "a full read takes a buffer");
        }
    }
    assert_eq!(got, message, "every byte, in order");
    // Drained: the next read finds nothing waiting and gives the buffer back.
    let pending = futures_util::FutureExt::now_or_never(reading.read(&mut out));
    assert!(pending.is_none(), "nothing to read");
    assert!(
        !reading.holds_buffer(),
        "an idle connection holds no buffer"
    );

    drop(near);
    assert_eq!(
        reading.read(&mut out).await.unwrap(),
        0,
        "the end of the stream"
    );
}

/// A stream that counts the reads that gave bytes.
struct Counted<S> {
    inner: S,
    reads: usize,
}

impl<S: AsyncRead + Unpin> AsyncRead for Counted<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = out.filled().len();
        ready!(Pin::new(&mut this.inner).poll_read(cx, out))?;
        if out.filled().len() > before {
            this.reads += 1;
        }
        Poll::Ready(Ok(()))
    }
}

#[tokio::test]
async fn a_large_message_is_read_a_whole_buffer_at_a_time() {
    let (mut near, far) = tokio::io::duplex(64 * 1024);
    let mut reading = Reading::new(
        Counted {
            inner: far,
            reads: 0,
        },
        1024,
    );
    let message: Vec<u8> = (0..3000_u32).map(|i| (i % 251) as u8).collect();
    near.write_all(&message).await.unwrap();
    let mut out = [0_u8; 16];
    let mut got = Vec::new();
    while got.len() < message.len() {
        let read = reading.read(&mut out).await.unwrap();
        got.extend_from_slice(&out[..read]);
    }
    assert_eq!(got, message, "every byte, in order");
    // 16 bytes straight into `out`, then 1,024, 1,024 and the last 936 through the
    // buffer: a drained buffer is filled again, not left for another small read.
    assert_eq!(reading.inner.reads, 4);
}

#[tokio::test]
async fn writes_go_through() {
    let (near, mut far) = tokio::io::duplex(1024);
    let mut reading = Reading::new(near, 1024);
    reading.write_all(b"answer").await.unwrap();
    reading.flush().await.unwrap();
    let mut out = [0_u8; 6];
    far.read_exact(&mut out).await.unwrap();
    assert_eq!(&out, b"answer");
}

/// What one side sends, in frames its tungstenite would write.
#[derive(Debug, Clone)]
enum Sent {
    Text(String),
    Binary(Vec<u8>),
    Ping(Vec<u8>),
    /// A text message in fragments, with a ping between the first two.
    Fragmented(Vec<String>),
    /// A text frame that is not UTF-8.
    NotUtf8,
    /// A text frame masked when it must not be (a server's), or not when it must be (a
    /// client's).
    WrongMask,
    /// Longer than the limit.
    TooBig,
    /// A whole text message inside a fragmented one, after a ping (a client must not).
    Overlapping,
}

/// The message limit of the property below.
const LIMIT: usize = 3000;

/// `sent` as frames to a server (masked with `mask`), or to a client (not masked), and
/// each frame's length.
fn wire(sent: &[Sent], mask: [u8; 4], to_server: bool) -> (Vec<u8>, Vec<usize>) {
    use tokio_tungstenite::tungstenite::protocol::frame::Frame as WsFrame;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::{Control, Data, OpCode};
    let (mut out, mut lengths) = (Vec::new(), Vec::new());
    let mut put = |opcode, is_final, payload: &[u8], right: bool| {
        let masked = right == to_server;
        let mut frame = WsFrame::message(payload.to_vec(), OpCode::Data(Data::Text), is_final);
        frame.header_mut().opcode = opcode;
        frame.header_mut().mask = masked.then_some(mask);
        let before = out.len();
        frame.format(&mut out).unwrap();
        lengths.push(out.len() - before);
    };
    let (text, binary) = (OpCode::Data(Data::Text), OpCode::Data(Data::Binary));
    for item in sent {
        match item {
            Sent::Text(s) => put(text, true, s.as_bytes(), true),
            Sent::Binary(b) => put(binary, true, b, true),
            Sent::Ping(p) => put(OpCode::Control(Control::Ping), true, p, true),
            Sent::Fragmented(parts) => {
                for (i, part) in parts.iter().enumerate() {
                    let opcode = if i == 0 {
                        text
                    } else {
                        OpCode::Data(Data::Continue)
                    };
                    put(opcode, i + 1 == parts.len(), part.as_bytes(), true);
                    if i == 0 {
                        put(OpCode::Control(Control::Ping), true, b"mid", true);
                    }
                }
            }
            Sent::NotUtf8 => put(text, true, &[b'a', 0xff, b'b'], true),
            Sent::WrongMask => put(text, true, b"wrong", false),
            Sent::TooBig => put(binary, true, &[7; LIMIT + 1], true),
            Sent::Overlapping => {
                put(text, false, b"first", true);
                put(OpCode::Control(Control::Ping), true, b"", true);
                put(text, true, b"whole", true);
            }
        }
    }
    put(OpCode::Control(Control::Close), true, &[3, 232], true);
    (out, lengths)
}

/// What a server's tungstenite read, in words, with `true` when it ends the reading.
fn said(message: Option<Result<Message, WsError>>) -> (String, bool) {
    match message {
        Some(Ok(Message::Text(text))) => (format!("text {text}"), false),
        Some(Ok(Message::Binary(bytes))) => (format!("binary {bytes:?}"), false),
        Some(Ok(Message::Ping(bytes))) => (format!("ping {bytes:?}"), false),
        Some(Ok(other)) => (format!("{other:?}"), true),
        Some(Err(WsError::Utf8(_))) => ("not UTF-8".into(), true),
        Some(Err(error)) => (format!("error {error}"), true),
        None => ("end".into(), true),
    }
}

/// A server's answer to a client's handshake, as far as a [`Reading`] looks at it: its
/// lines ending in `\r\n`, or (as tungstenite's parser also reads them) in `\n`.
const ANSWERS: [&[u8]; 2] = [
    b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n",
    b"HTTP/1.1 101 Switching Protocols\nUpgrade: websocket\n\n",
];

/// Everything a server (or a client, after the handshake's `answer`) reads from `wire`,
/// written to it in pieces of `pieces` bytes: through a [`Reading`] that shares frames
/// with tungstenite when `shared`, else by tungstenite alone.
async fn read_all(
    wire: Vec<u8>,
    pieces: Vec<usize>,
    shared: bool,
    server: bool,
    answer: &[u8],
) -> Vec<String> {
    use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
    let wire = if server {
        wire
    } else {
        [answer, &wire].concat()
    };
    let (mut near, far) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let mut rest = &wire[..];
        for size in pieces.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (piece, after) = rest.split_at((*size).min(rest.len()));
            near.write_all(piece).await.unwrap();
            rest = after;
            tokio::task::yield_now().await;
        }
        // Kept open: the server reads to the close frame, not to the end.
        std::future::pending::<()>().await;
    });
    let mut reading = Reading::new(far, 2048);
    if shared {
        reading.read_frames(LIMIT, server);
    }
    if !server {
        // The handshake's answer, read as tungstenite reads it: never past its end.
        let mut read_answer = Vec::new();
        while read_answer.len() < answer.len() {
            let mut out = [0_u8; 4096];
            let read = if shared {
                reading.read(&mut out).await.unwrap()
            } else {
                reading
                    .read(&mut out[..answer.len() - read_answer.len()])
                    .await
                    .unwrap()
            };
            read_answer.extend_from_slice(&out[..read]);
        }
        assert_eq!(read_answer, answer, "the answer, and nothing after it");
        reading.handshake_read();
    }
    let role = if server { Role::Server } else { Role::Client };
    let config = WebSocketConfig::default()
        .read_buffer_size(super::super::FRAME_READ)
        .max_message_size(Some(LIMIT))
        .max_frame_size(Some(LIMIT));
    let mut ws =
        tokio_tungstenite::WebSocketStream::from_raw_socket(reading, role, Some(config)).await;
    let mut heard = Vec::new();
    loop {
        let next = std::future::poll_fn(|cx| ws.get_mut().poll_message(cx)).await;
        let (words, last) = match next.unwrap() {
            Next::Message(Incoming::Text(text)) => (format!("text {}", text.as_str()), false),
            Next::Message(Incoming::Bytes(bytes)) => (format!("binary {bytes:?}"), false),
            Next::NotUtf8(_) => ("not UTF-8".into(), true),
            Next::Lent => said(futures_util::StreamExt::next(&mut ws).await),
        };
        heard.push(words);
        if last {
            return heard;
        }
    }
}

fn sent() -> impl proptest::strategy::Strategy<Value = Sent> {
    use proptest::prelude::*;
    prop_oneof![
        8 => "[ -~]{0,40}".prop_map(Sent::Text),
        2 => proptest::collection::vec(any::<u8>(), 0..2500).prop_map(Sent::Binary),
        2 => proptest::collection::vec(any::<u8>(), 0..10).prop_map(Sent::Ping),
        2 => proptest::collection::vec("[a-z]{0,9}", 2..4).prop_map(Sent::Fragmented),
        1 => Just(Sent::NotUtf8),
        1 => Just(Sent::WrongMask),
        1 => Just(Sent::TooBig),
        1 => Just(Sent::Overlapping),
    ]
}

proptest::proptest! {
    /// Whatever one side sends, and however the bytes arrive, the other side whose
    /// `Reading` reads whole messages itself reads what tungstenite alone reads: the same
    /// messages, pings, refusals and close, in the same order. A server or a client;
    /// the bytes in pieces of any size, or each frame in a write of its own (the usual
    /// case, a message in one read of its own).
    #[test]
    fn each_side_reads_what_tungstenite_alone_reads(
        sent in proptest::collection::vec(sent(), 0..10),
        pieces in proptest::collection::vec(1_usize..700, 1..8),
        by_frame in proptest::prelude::any::<bool>(),
        mask in proptest::prelude::any::<[u8; 4]>(),
        server in proptest::prelude::any::<bool>(),
        answer in proptest::sample::select(&ANSWERS[..]),
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let (wire, lengths) = wire(&sent, mask, server);
        let pieces = match (by_frame, server) {
            (false, _) => pieces,
            (true, true) => lengths,
            (true, false) => [vec![answer.len()], lengths].concat(),
        };
        let alone = runtime.block_on(read_all(wire.clone(), pieces.clone(), false, server, answer));
        let shared = runtime.block_on(read_all(wire, pieces, true, server, answer));
        proptest::prop_assert_eq!(shared, alone);
    }
}

#[tokio::test]
async fn a_handshake_answer_not_seen_to_end_leaves_every_frame_to_tungstenite() {
    let (mut near, far) = tokio::io::duplex(1024);
    let mut reading = Reading::new(far, 2048);
    reading.read_frames(LIMIT, false);
    near.write_all(b"HTTP/1.1 101 Switching Protocols\r\n")
        .await
        .unwrap();
    let mut out = [0_u8; 64];
    let read = reading.read(&mut out).await.unwrap();
    assert_eq!(read, 34, "the answer so far");
    // Its end never seen: tungstenite reads everything after.
    reading.handshake_read();
    near.write_all(&[0x81, 1, b'x']).await.unwrap();
    let next = std::future::poll_fn(|cx| reading.poll_message(cx)).await;
    assert!(matches!(next, Ok(Next::Lent)), "{next:?}");
    let read = reading.read(&mut out).await.unwrap();
    assert_eq!(&out[..read], &[0x81, 1, b'x'], "the frame, as it came");
}
