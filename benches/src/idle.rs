//! Memory per idle connection: the server's resident memory with 10,000 idle WebSocket
//! connections, and with 10,000 idle keep-alive HTTP/1.1 connections, for rpcsmith and
//! jsonrpsee in the same run (`ratio ws_idle_rss_per_conn`, `ratio
//! http_idle_rss_per_conn`).
//!
//! Each connection is a realistic client's: connect, make one call (`add`, its answer
//! checked), then stay open and silent. The server is a fresh process per measurement
//! (`serve --max-connections`, so that its default limit of 1,024 does not refuse
//! them); its `VmRSS` is read before the first connection and once every connection has
//! had its answer and the server has settled. The figure per connection is the
//! difference over the count. A second call on every connection afterwards proves that
//! none was closed meanwhile (by an idle timeout, say), so that the memory measured is
//! that of open connections.
//!
//! The load side holds every connection at once, so it needs that many sockets: the
//! open-file limit is raised to its hard limit first (the servers, its children,
//! inherit it), and the scenario is skipped, saying so, when that is still too low.

use std::time::Duration;

use anyhow::{Context as _, bail, ensure};
use bytes::Bytes;
use futures_util::{SinkExt as _, StreamExt as _};
use http_body_util::{BodyExt as _, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::task::JoinSet;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use crate::api;
use crate::proc::{Server, rss_kib};
use crate::report::median;
use crate::serve::{Impl, Transport};

/// Open files the load side needs beyond one per connection: its own files, pipes to
/// the servers, the runtime's.
const SPARE_FILES: u64 = 256;

/// Connections opened at once.
const OPENING: usize = 64;

/// How long one connection may take to be opened and answered.
const OPENING_TIMEOUT: Duration = Duration::from_secs(20);

/// How long the server is left to settle (tasks parked, buffers released) before its
/// memory is read: wall-clock time is what this waits for, there is no state to poll.
const SETTLE: Duration = Duration::from_millis(1500);

/// Runs `rounds` rounds of the four measurements with `connections` connections each;
/// prints `rss` lines and the two ratios (medians over rounds of the ratio within each),
/// or one `skip idle:` line when the open-file limit is too low.
///
/// # Errors
///
/// When a server does not start, a connection fails or an answer is wrong.
pub(crate) fn report(connections: usize, rounds: usize, workers: usize) -> anyhow::Result<()> {
    let needed = connections as u64 + SPARE_FILES;
    let limit = raise_open_files();
    println!("\nIdle connections: {connections} per server; open-file limit {limit}");
    if limit < needed {
        println!(
            "skip idle: the open-file limit is {limit} (raised to the hard limit), fewer \
             than the {needed} this scenario needs for {connections} connections; raise \
             the hard limit (ulimit -Hn) or pass a smaller --connections"
        );
        return Ok(());
    }
    let runtime = crate::serve::runtime(workers)?;
    let mut ratios: Vec<(&str, Vec<f64>)> = vec![
        ("ws_idle_rss_per_conn", Vec::new()),
        ("http_idle_rss_per_conn", Vec::new()),
    ];
    for round in 0..rounds {
        eprintln!("idle: round {} of {rounds}", round + 1);
        for (index, transport) in [Transport::Ws, Transport::Http].into_iter().enumerate() {
            let mut per_connection = [0.0; 2];
            for (slot, implementation) in [Impl::Rpcsmith, Impl::Jsonrpsee].into_iter().enumerate()
            {
                let kib =
                    runtime.block_on(measure(implementation, transport, connections, workers))?;
                per_connection[slot] = kib;
            }
            ratios[index].1.push(per_connection[0] / per_connection[1]);
        }
    }
    for (name, values) in ratios {
        println!("ratio {name} {:.3}", median(values));
    }
    Ok(())
}

/// One server, `connections` idle connections: prints its `rss` lines and returns its
/// KiB per connection.
async fn measure(
    implementation: Impl,
    transport: Transport,
    connections: usize,
    workers: usize,
) -> anyhow::Result<f64> {
    let server = Server::start_with_connections(implementation, transport, workers, connections)?;
    let pid = Some(server.pid());
    let before = rss_kib(pid)?;
    let mut idle = Idle::open(server.url(), transport, connections).await?;
    tokio::time::sleep(SETTLE).await;
    let with = rss_kib(pid)?;
    idle.call_each_again().await?;
    drop(server);
    drop(idle);
    let scenario = match transport {
        Transport::Ws => "ws_idle",
        Transport::Http => "http_idle",
    };
    let name = implementation.name();
    let per_connection = with.saturating_sub(before) as f64 / connections as f64;
    println!("rss {scenario}_before {name} {before}");
    println!("rss {scenario} {name} {with}");
    println!("idle {scenario} {name}: {per_connection:.2} KiB per connection");
    Ok(per_connection)
}

type WsStream = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

/// One open connection after its call.
enum Connection {
    Ws(Box<WsStream>),
    Http {
        sender: SendRequest<Full<Bytes>>,
        uri: hyper::Uri,
    },
}

/// Every open connection to one server.
struct Idle {
    connections: Vec<Connection>,
}

impl Idle {
    /// Opens `count` connections to `url`, each making one call, [`OPENING`] at a time.
    async fn open(url: &str, transport: Transport, count: usize) -> anyhow::Result<Self> {
        let mut opening = JoinSet::new();
        let mut connections = Vec::with_capacity(count);
        for _ in 0..count {
            if opening.len() == OPENING {
                connections.push(joined(opening.join_next().await)?);
            }
            let url = url.to_owned();
            opening.spawn(async move {
                let open = async {
                    let mut connection = Connection::open(&url, transport).await?;
                    connection.call().await?;
                    anyhow::Ok(connection)
                };
                tokio::time::timeout(OPENING_TIMEOUT, open)
                    .await
                    .with_context(|| format!("a connection took more than {OPENING_TIMEOUT:?}"))?
            });
        }
        while let Some(done) = opening.join_next().await {
            connections.push(joined(Some(done))?);
        }
        Ok(Self { connections })
    }

    /// A second call on every connection: each is still open and served.
    async fn call_each_again(&mut self) -> anyhow::Result<()> {
        let calls = self.connections.iter_mut().map(Connection::call);
        let mut calls = futures_util::stream::iter(calls).buffer_unordered(OPENING);
        while let Some(called) = calls.next().await {
            called.context("a connection was closed while idle")?;
        }
        Ok(())
    }
}

fn joined<T>(done: Option<Result<anyhow::Result<T>, tokio::task::JoinError>>) -> anyhow::Result<T> {
    done.context("no connection was being opened")?
        .context("a connection task panicked")?
}

impl Connection {
    async fn open(url: &str, transport: Transport) -> anyhow::Result<Self> {
        match transport {
            Transport::Ws => {
                // Small buffers: this side's memory is not measured, but 10,000 of it.
                let config = WebSocketConfig::default().read_buffer_size(4 * 1024);
                let (stream, _) =
                    tokio_tungstenite::connect_async_with_config(url, Some(config), true)
                        .await
                        .with_context(|| format!("WebSocket connection to {url}"))?;
                Ok(Connection::Ws(Box::new(stream)))
            }
            Transport::Http => {
                let uri: hyper::Uri = url.parse().context("parsing the server's URL")?;
                let authority = uri.authority().context("the URL has no host")?.clone();
                let stream = TcpStream::connect(authority.as_str())
                    .await
                    .with_context(|| format!("connecting to {authority}"))?;
                stream.set_nodelay(true)?;
                let (sender, connection) =
                    hyper::client::conn::http1::handshake(TokioIo::new(stream))
                        .await
                        .context("HTTP/1.1 handshake")?;
                tokio::spawn(connection);
                Ok(Connection::Http { sender, uri })
            }
        }
    }

    /// `add(1, 2)`, its answer checked.
    async fn call(&mut self) -> anyhow::Result<()> {
        let answer = match self {
            Connection::Ws(stream) => {
                stream.send(Message::text(api::call(1))).await?;
                loop {
                    match stream.next().await.context("the WebSocket closed")?? {
                        Message::Text(text) => break Bytes::from(text),
                        Message::Binary(bytes) => break bytes,
                        Message::Close(frame) => {
                            bail!("the server closed the WebSocket: {frame:?}")
                        }
                        _ => {}
                    }
                }
            }
            Connection::Http { sender, uri } => {
                sender.ready().await.context("the HTTP connection closed")?;
                let authority = uri.authority().context("the URL has no host")?.as_str();
                let request = hyper::Request::post(uri.path())
                    .header(hyper::header::HOST, authority)
                    .header(hyper::header::CONTENT_TYPE, "application/json")
                    .body(Full::new(Bytes::from(api::call(1))))?;
                let response = sender.send_request(request).await.context("HTTP request")?;
                let status = response.status();
                let answer = response.into_body().collect().await?.to_bytes();
                ensure!(status == hyper::StatusCode::OK, "HTTP status {status}");
                answer
            }
        };
        api::check_answer(&answer, 1)
    }
}

/// Raises this process's soft limit of open files to its hard limit (children inherit
/// it) and returns the soft limit then in force (`u64::MAX` for unlimited).
pub(crate) fn raise_open_files() -> u64 {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current != limit.maximum {
        limit.current = limit.maximum;
        if let Err(error) = setrlimit(Resource::Nofile, limit) {
            eprintln!("could not raise the open-file limit: {error}");
        }
    }
    getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX)
}
