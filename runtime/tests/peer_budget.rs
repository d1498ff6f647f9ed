//! A connection's byte budget on 127.0.0.1: a client that sends and never reads,
//! over WebSocket and over a byte stream, cannot make the server hold more than the
//! budget (plus one answer), is dropped when it stays stalled, and gives everything
//! back when it leaves; calls whose requests hold the budget while they run make the
//! next ones refused; an absurdly long id is refused rather than echoed.

mod peer_support;

use peer_support::{PATIENCE, ServerSide, eventually};
use rpcsmith::http;
use rpcsmith::server::{Context, Dispatch, Reply, Server};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::Codec;
use rpcsmith::transport::ws::Settings;
use serde_json::value::RawValue;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

/// Each answer's result: 100 KB.
const ANSWER: usize = 100_000;
/// The budget the server's connections get in these tests: 1 MiB.
const BUDGET: usize = 1 << 20;
/// Requests the client sends: answered in full, 200 MB.
const REQUESTS: usize = 2_000;

/// Answers every call with [`ANSWER`] bytes, and counts the calls.
#[derive(Clone, Default)]
struct Big {
    calls: Arc<AtomicUsize>,
}

impl Dispatch for Big {
    fn call(&self, _: &str, _: Option<&RawValue>, _: Context) -> Reply {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Reply::ok(&"r".repeat(ANSWER))
    }
}

#[derive(Debug, Clone, Copy)]
enum Wire {
    WebSocket,
    Lines,
}

/// One message, as `wire` frames it from a client: a masked WebSocket text frame (the
/// zero mask, which leaves the payload as it is), or a line.
fn frame(wire: Wire, message: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(message.len() + 16);
    match wire {
        Wire::WebSocket => {
            out.push(0x81);
            match message.len() {
                len @ 0..=125 => out.push(0x80 | len as u8),
                len @ 126..=65535 => {
                    out.push(0x80 | 126);
                    out.extend_from_slice(&(len as u16).to_be_bytes());
                }
                len => {
                    out.push(0x80 | 127);
                    out.extend_from_slice(&(len as u64).to_be_bytes());
                }
            }
            out.extend_from_slice(&[0; 4]);
            out.extend_from_slice(message.as_bytes());
        }
        Wire::Lines => {
            out.extend_from_slice(message.as_bytes());
            out.push(b'\n');
        }
    }
    out
}

/// A server connection built as the listeners build theirs, on a socket accepted on
/// 127.0.0.1, and the client's socket (the WebSocket handshake done by hand).
async fn connection(wire: Wire, peer: rpcsmith::transport::peer::Builder) -> (Peer, TcpStream) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let accept = tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        match wire {
            Wire::WebSocket => {
                let stream = tokio_tungstenite::accept_async(socket).await.unwrap();
                peer.websocket(stream, Settings::default())
            }
            Wire::Lines => {
                let (read, write) = socket.into_split();
                peer.framed(Codec::Newline, read, write)
            }
        }
    });
    let mut client = TcpStream::connect(address).await.unwrap();
    if let Wire::WebSocket = wire {
        client
            .write_all(
                b"GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n\
                  Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
                  Sec-WebSocket-Version: 13\r\n\r\n",
            )
            .await
            .unwrap();
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            head.push(client.read_u8().await.unwrap());
        }
        assert!(head.starts_with(b"HTTP/1.1 101"), "upgraded");
    }
    (accept.await.unwrap(), client)
}

/// Sends [`REQUESTS`] requests (ids of 1,000 bytes) and never reads. The task ends
/// when all are written, or when writing fails.
fn flood(wire: Wire, mut write: OwnedWriteHalf) -> tokio::task::JoinHandle<OwnedWriteHalf> {
    let id = format!(r#""{}""#, "i".repeat(998));
    let request = format!(r#"{{"jsonrpc":"2.0","method":"big","id":{id}}}"#);
    let bytes = frame(wire, &request);
    tokio::spawn(async move {
        for _ in 0..REQUESTS {
            if write.write_all(&bytes).await.is_err() {
                break;
            }
        }
        write
    })
}

/// What the server may hold for the connection: its budget, passed by one answer.
fn bound() -> usize {
    BUDGET + ANSWER + 2_000
}

// The stall timeout is wall-clock time by nature: the test sets it short and waits for
// its effect (the connection dropped), not for a guess of how long anything takes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_is_held_to_the_budget_then_dropped() {
    for wire in [Wire::WebSocket, Wire::Lines] {
        let big = Big::default();
        let builder = Peer::builder()
            .serve(Server::new(big.clone()))
            .byte_budget(BUDGET)
            .stall_timeout(Duration::from_millis(300));
        let (peer, client) = connection(wire, builder).await;
        let (_read, write) = client.into_split();
        let writer = flood(wire, write);

        let closed = tokio::time::timeout(PATIENCE, peer.closed()).await;
        assert!(
            closed.is_ok(),
            "{wire:?}: the stalled connection is dropped"
        );
        let peak = peer.queued_bytes_peak();
        assert!(peak >= BUDGET, "{wire:?}: the budget was reached ({peak})");
        assert!(peak <= bound(), "{wire:?}: held {peak} bytes");
        let calls = big.calls.load(Ordering::SeqCst);
        assert!(
            calls < REQUESTS / 4,
            "{wire:?}: read no more ({calls} calls)"
        );
        assert_eq!(peer.queued_bytes(), 0, "{wire:?}: nothing is left");
        writer.abort();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_leaves_unread_gets_everything_given_back() {
    for wire in [Wire::WebSocket, Wire::Lines] {
        let big = Big::default();
        // The default stall timeout (30 s), longer than the test waits: the connection
        // ends because the client left.
        let builder = Peer::builder()
            .serve(Server::new(big.clone()))
            .byte_budget(BUDGET);
        let (peer, client) = connection(wire, builder).await;
        let (read, write) = client.into_split();
        let writer = flood(wire, write);

        assert!(
            eventually(|| peer.queued_bytes() >= BUDGET).await,
            "{wire:?}: the server stops reading at its budget"
        );
        leave(read, writer).await;
        let closed = tokio::time::timeout(PATIENCE, peer.closed()).await;
        assert!(
            closed.is_ok(),
            "{wire:?}: the connection ends with the client"
        );
        let peak = peer.queued_bytes_peak();
        assert!(peak <= bound(), "{wire:?}: held {peak} bytes");
        assert_eq!(peer.queued_bytes(), 0, "{wire:?}");
    }
}

/// Closes the client's socket with what the server sent still unread.
async fn leave(read: OwnedReadHalf, writer: tokio::task::JoinHandle<OwnedWriteHalf>) {
    writer.abort();
    let write = writer.await.ok();
    drop((read, write));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_whose_requests_hold_the_budget_refuse_the_next() {
    use tokio::io::AsyncBufReadExt;
    let server = ServerSide::default();
    let started = Arc::clone(&server.started);
    let builder = Peer::builder()
        .serve(Server::new(server))
        .byte_budget(BUDGET);
    let (_peer, client) = connection(Wire::Lines, builder).await;
    let mut client = tokio::io::BufReader::new(client);
    // Each holds half the budget for as long as it runs: for ever.
    let hang = |id: u32| {
        let params = "p".repeat(BUDGET / 2);
        frame(
            Wire::Lines,
            &format!(r#"{{"jsonrpc":"2.0","method":"hang","params":["{params}"],"id":{id}}}"#),
        )
    };
    let socket = client.get_mut();
    socket
        .write_all(&[hang(1), hang(2)].concat())
        .await
        .unwrap();
    assert!(eventually(|| started.load(Ordering::SeqCst) == 2).await);
    socket.write_all(&hang(3)).await.unwrap();
    let mut answer = String::new();
    tokio::time::timeout(PATIENCE, client.read_line(&mut answer))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        answer.trim_end(),
        r#"{"jsonrpc":"2.0","error":{"code":-32009,"message":"Server busy"},"id":3}"#
    );
    assert_eq!(started.load(Ordering::SeqCst), 2, "the third did not run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_absurdly_long_id_is_refused_not_echoed_over_websocket() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = http::Service::new(Server::new(Big::default()))
        .websocket(Peer::builder(), Settings::default());
    tokio::spawn(http::serve(listener, service, std::future::pending()));
    let (mut socket, _) = tokio_tungstenite::connect_async(format!("ws://{address}/"))
        .await
        .unwrap();
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let id = format!(r#""{}""#, "i".repeat(1 << 20));
    let request = format!(r#"{{"jsonrpc":"2.0","method":"big","id":{id}}}"#);
    socket.send(Message::text(request)).await.unwrap();
    let answer = tokio::time::timeout(PATIENCE, socket.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(
        answer.to_text().unwrap(),
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}"#
    );
}
