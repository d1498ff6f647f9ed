//! The byte-stream peer as a raw client meets it, writing and reading bytes by hand:
//! malformed lines and headers, a peer that serves nothing, the in-flight limit, and
//! frames over the size limit refused before they arrive whole.

use super::*;

/// A TCP server of [`ServerSide`] with `codec`, serving until the test ends.
async fn raw_server(codec: Codec) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let builder = Peer::builder().serve(Server::new(ServerSide::default()));
    tokio::spawn(stream::serve_tcp(
        listener,
        builder,
        codec,
        std::future::pending(),
    ));
    address
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_lines_are_answered_and_the_connection_survives() {
    use tokio::io::{AsyncWriteExt, BufReader};
    let address = raw_server(Codec::Newline).await;
    let bystander = stream::connect_tcp(Peer::builder(), Codec::Newline, address)
        .await
        .unwrap();
    let mut socket = BufReader::new(tokio::net::TcpStream::connect(address).await.unwrap());
    let input: &[&[u8]] = &[
        b"not json\n",
        b"\xff\xfe invalid UTF-8\n",
        b"{\"jsonrpc\":\"2.0\",\"method\"\n",
        b"42\n",
        b"[]\n",
        b"{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":[1,2],\"id\":\"a\"}\n",
    ];
    socket.get_mut().write_all(&input.concat()).await.unwrap();
    let answers = json_lines(&mut socket, input.len()).await;
    // Calls run concurrently, so the answers may come in any order.
    let mut codes: Vec<i64> = answers
        .iter()
        .filter_map(|answer| answer["error"]["code"].as_i64())
        .collect();
    codes.sort_unstable();
    assert_eq!(
        codes,
        [-32700, -32700, -32700, -32600, -32600],
        "{answers:?}"
    );
    assert!(
        answers.contains(&serde_json::json!({"jsonrpc": "2.0", "result": 3, "id": "a"})),
        "{answers:?}"
    );
    let sum: i64 = bystander.client().request("add", &[2, 2]).await.unwrap();
    assert_eq!(sum, 4, "other connections are served on");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_header_closes_only_its_connection() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = raw_server(Codec::ContentLength).await;
    let bystander = stream::connect_tcp(Peer::builder(), Codec::ContentLength, address)
        .await
        .unwrap();
    let mut socket = tokio::net::TcpStream::connect(address).await.unwrap();
    socket
        .write_all(b"Content-Length: many\r\n\r\n{}")
        .await
        .unwrap();
    let mut rest = Vec::new();
    let read = tokio::time::timeout(PATIENCE, socket.read_to_end(&mut rest)).await;
    assert!(
        matches!(read, Ok(Ok(0))),
        "closed without an answer: {read:?}"
    );
    let sum: i64 = bystander.client().request("add", &[1, 2]).await.unwrap();
    assert_eq!(sum, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_to_a_peer_that_serves_nothing_are_method_not_found() {
    let (near, far) = tokio::io::duplex(1024);
    let (read, write) = tokio::io::split(far);
    let quiet = Peer::builder().framed(Codec::Newline, read, write);
    let (read, write) = tokio::io::split(near);
    let caller = Peer::builder().framed(Codec::Newline, read, write);
    let outcome = caller.client().request::<(), _>("anything", &()).await;
    assert!(
        matches!(outcome, Err(Error::Undeclared(ref e)) if e.code == -32601),
        "{outcome:?}"
    );
    // Dropping one end closes the other.
    drop(quiet);
    tokio::time::timeout(PATIENCE, caller.closed())
        .await
        .unwrap();
    assert!(caller.is_closed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_beyond_the_in_flight_limit_are_refused_busy() {
    let (server, started) = two_slot_server();
    let (near, far) = tokio::io::duplex(4096);
    let (read, write) = tokio::io::split(far);
    let _server = Peer::builder()
        .serve(server)
        .framed(Codec::Newline, read, write);
    let (read, write) = tokio::io::split(near);
    let peer = Peer::builder().framed(Codec::Newline, read, write);
    let hung: Vec<_> = (0..2)
        .map(|_| tokio::spawn(peer.client().request::<(), _>("hang", &())))
        .collect();
    assert!(eventually(|| started.load(Ordering::SeqCst) == 2).await);
    let busy = peer.client().request::<i64, _>("add", &[1, 1]).await;
    assert!(
        matches!(busy, Err(Error::Undeclared(ref e)) if e.code == -32009),
        "{busy:?}"
    );
    for call in hung {
        call.abort();
    }
}

/// The next `n` lines of `reader`, each read as JSON.
pub(crate) async fn json_lines<R>(reader: &mut R, n: usize) -> Vec<serde_json::Value>
where
    R: tokio::io::AsyncBufRead + Unpin,
{
    use tokio::io::AsyncBufReadExt;
    let mut lines = Vec::with_capacity(n);
    for _ in 0..n {
        let mut line = String::new();
        tokio::time::timeout(PATIENCE, reader.read_line(&mut line))
            .await
            .expect("a line in time")
            .expect("a readable line");
        lines.push(serde_json::from_str(&line).expect("a line of JSON"));
    }
    lines
}

/// A [`ServerSide`] server that runs two calls at most per connection, and the count
/// of `hang` calls it started.
pub(crate) fn two_slot_server() -> (Server, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let mut limits = rpcsmith::server::Limits::default();
    limits.max_in_flight = 2;
    let server = ServerSide::default();
    let started = server.started.clone();
    (Server::builder(server).limits(limits).build(), started)
}

/// A TCP server of [`ServerSide`] with `codec` that refuses messages over 1 KiB.
async fn limited_server(codec: Codec) -> std::net::SocketAddr {
    let mut limits = rpcsmith::server::Limits::default();
    limits.max_request_size = 1024;
    let server = Server::builder(ServerSide::default())
        .limits(limits)
        .build();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(stream::serve_tcp(
        listener,
        Peer::builder().serve(server),
        codec,
        std::future::pending(),
    ));
    address
}

/// A raw connection to `address`: frames of `codec` read from it, its writing half.
async fn raw_connection(
    address: std::net::SocketAddr,
    codec: Codec,
) -> (
    stream::FrameReader<tokio::io::BufReader<tokio::net::tcp::OwnedReadHalf>>,
    tokio::net::tcp::OwnedWriteHalf,
) {
    let socket = tokio::net::TcpStream::connect(address).await.unwrap();
    let (reader, writer) = socket.into_split();
    let frames = stream::FrameReader::new(tokio::io::BufReader::new(reader), codec, 1 << 20);
    (frames, writer)
}

/// The next message on a raw connection, as JSON.
pub(crate) async fn next_answer<R: tokio::io::AsyncBufRead + Unpin>(
    frames: &mut stream::FrameReader<R>,
) -> serde_json::Value {
    let frame = tokio::time::timeout(PATIENCE, frames.read())
        .await
        .expect("an answer in time")
        .expect("a frame")
        .expect("the connection is open");
    serde_json::from_slice(&frame).unwrap()
}

const ADD: &[u8] = br#"{"jsonrpc":"2.0","method":"add","params":[1,2],"id":7}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_announced_frame_is_refused_before_its_body_arrives() {
    use tokio::io::AsyncWriteExt;
    let address = limited_server(Codec::ContentLength).await;
    // A terabyte announced: refused at once (reading it into memory would abort the
    // process; waiting for it would never answer).
    let (mut frames, mut writer) = raw_connection(address, Codec::ContentLength).await;
    writer
        .write_all(b"Content-Length: 1099511627776\r\n\r\n{\"jsonrpc\"")
        .await
        .unwrap();
    let refusal = next_answer(&mut frames).await;
    assert_eq!(
        (refusal["error"]["code"].clone(), refusal["id"].clone()),
        (serde_json::json!(-32007), serde_json::Value::Null),
        "{refusal}"
    );
    // A megabyte announced, refused before it is sent; once it has been sent (and
    // skipped), the same connection serves the next frame.
    let (mut frames, mut writer) = raw_connection(address, Codec::ContentLength).await;
    writer
        .write_all(b"Content-Length: 1048576\r\n\r\n")
        .await
        .unwrap();
    assert_eq!(next_answer(&mut frames).await["error"]["code"], -32007);
    writer.write_all(&vec![b' '; 1 << 20]).await.unwrap();
    stream::write_frame(&mut writer, Codec::ContentLength, ADD)
        .await
        .unwrap();
    assert_eq!(
        next_answer(&mut frames).await,
        serde_json::json!({"jsonrpc": "2.0", "result": 3, "id": 7})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_line_is_refused_before_its_end_and_skipped() {
    use tokio::io::AsyncWriteExt;
    let address = limited_server(Codec::Newline).await;
    let (mut frames, mut writer) = raw_connection(address, Codec::Newline).await;
    // 64 KiB and no newline yet: refused while the line is still coming.
    writer.write_all(&vec![b'x'; 64 << 10]).await.unwrap();
    let refusal = next_answer(&mut frames).await;
    assert_eq!(
        (refusal["error"]["code"].clone(), refusal["id"].clone()),
        (serde_json::json!(-32007), serde_json::Value::Null),
        "{refusal}"
    );
    // More of the same line, its end, then a call: answered on the same connection.
    writer.write_all(&vec![b'x'; 64 << 10]).await.unwrap();
    writer.write_all(b"\n").await.unwrap();
    stream::write_frame(&mut writer, Codec::Newline, ADD)
        .await
        .unwrap();
    assert_eq!(
        next_answer(&mut frames).await,
        serde_json::json!({"jsonrpc": "2.0", "result": 3, "id": 7})
    );
}
