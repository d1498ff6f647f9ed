//! The servers under test, each serving `add` until killed: rpcsmith's generated server
//! (HTTP, WebSocket), jsonrpsee's (HTTP, WebSocket), and the floors: a bare hyper
//! HTTP/1.1 server that reads each request and answers a fixed body (or, for batches,
//! answers it with the hand-written dispatcher of `floor`), and a bare tokio-tungstenite
//! server that reads each message and answers a fixed message (or, as `handwritten`,
//! answers it with that dispatcher). For the fan-out
//! scenario, rpcsmith and jsonrpsee serve the `items` subscription instead (`fanout`).
//!
//! Each listener prints one line, `serving <api> with <impl> on <url>`, as soon as it is
//! bound: the benchmark reads the URL from it (its last word).

use std::future::Future;
use std::io::Write as _;
use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use bytes::Bytes;
use futures_util::{SinkExt as _, StreamExt as _};
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use jsonrpsee::RpcModule;
use jsonrpsee::server::{BatchRequestConfig, ServerConfig};
use rpcsmith::http;
use rpcsmith::server::{Limits, Server};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::ws;
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use crate::{api, fanout, sse_fanout};

/// An implementation under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub(crate) enum Impl {
    /// rpcsmith's generated server (or client).
    Rpcsmith,
    /// jsonrpsee 0.26.
    Jsonrpsee,
    /// The floor: a bare hyper HTTP/1.1 server answering a fixed body, or a bare
    /// tokio-tungstenite server answering a fixed message.
    Floor,
    /// The hand-written parse-once dispatcher (`floor`), in process or behind the same
    /// bare hyper or tokio-tungstenite server as `Floor`: the floor of the in-process and
    /// batch scenarios, and the floor with JSON-RPC work of the WebSocket one.
    Handwritten,
    /// rpcsmith's generated server with the runtime's `metrics` feature and the
    /// Prometheus recorder: a binary of its own, `rpcsmith-bench-metrics` (see
    /// `proc::metrics_server`), since this one's runtime is built without the feature.
    RpcsmithMetrics,
}

impl Impl {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Impl::Rpcsmith => "rpcsmith",
            Impl::Jsonrpsee => "jsonrpsee",
            Impl::Floor => "floor",
            Impl::Handwritten => "handwritten",
            Impl::RpcsmithMetrics => "rpcsmith_metrics",
        }
    }
}

/// What a server serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Api {
    /// `add(a, b)`.
    Add,
    /// The `items` subscription of the fan-out scenario, publishing once `publish` is read
    /// on standard input (WebSocket only).
    FanOut,
}

impl Api {
    fn name(self) -> &'static str {
        match self {
            Api::Add => "add",
            Api::FanOut => "items",
        }
    }
}

/// The transport a listener speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transport {
    Http,
    Ws,
}

impl Transport {
    fn scheme(self) -> &'static str {
        match self {
            Transport::Http => "http",
            Transport::Ws => "ws",
        }
    }
}

/// A multi-thread Tokio runtime with `workers` worker threads: the same for every
/// implementation, and for the load generator.
///
/// # Errors
///
/// When the runtime cannot start.
pub(crate) fn runtime(workers: usize) -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers.max(1))
        .enable_all()
        .build()
        .context("starting a Tokio runtime")
}

/// Serves `served` with `implementation` on each `(transport, address)` until the process
/// is killed; at most `max_connections` connections at once when given (and then with
/// the open-file limit raised to its hard limit), each implementation's default
/// otherwise.
///
/// # Errors
///
/// When an address cannot be bound, or the fan-out subscription is asked for HTTP or
/// for the floor.
pub(crate) fn run(
    implementation: Impl,
    served: Api,
    listeners: &[(Transport, SocketAddr)],
    workers: usize,
    max_connections: Option<usize>,
) -> anyhow::Result<()> {
    if listeners.is_empty() {
        bail!("nothing to serve: give --http ADDRESS and/or --ws ADDRESS");
    }
    if served == Api::FanOut
        && implementation != Impl::Rpcsmith
        && listeners.iter().any(|&(t, _)| t != Transport::Ws)
    {
        bail!("only rpcsmith serves the fan-out subscription over HTTP (SSE): give --ws ADDRESS");
    }
    if max_connections.is_some() {
        crate::idle::raise_open_files();
    }
    runtime(workers)?.block_on(async {
        let start = (served == Api::FanOut).then(fanout::start_on_stdin);
        for &(transport, address) in listeners {
            let bound = match (implementation, &start) {
                (Impl::Rpcsmith, None) => {
                    rpcsmith(api::rpcsmith_server(), transport, address, max_connections).await?
                }
                (Impl::Rpcsmith, Some(start)) => {
                    let server = fanout::rpcsmith_server(Arc::clone(start));
                    match transport {
                        Transport::Ws => {
                            rpcsmith(server, transport, address, max_connections).await?
                        }
                        Transport::Http => {
                            sse_fanout::serve(server, address, max_connections).await?
                        }
                    }
                }
                (Impl::Jsonrpsee, None) => {
                    jsonrpsee(
                        api::jsonrpsee_module(),
                        transport,
                        address,
                        max_connections,
                        None,
                    )
                    .await?
                }
                (Impl::Jsonrpsee, Some(start)) => {
                    let module = fanout::jsonrpsee_module(Arc::clone(start));
                    let buffered = Some(fanout::CHANNEL);
                    jsonrpsee(module, transport, address, max_connections, buffered).await?
                }
                (Impl::Floor, None) => floor(transport, address).await?,
                (Impl::Handwritten, None) => hand_written(transport, address).await?,
                (Impl::Floor | Impl::Handwritten, Some(_)) => {
                    bail!("the floor serves no subscription")
                }
                (Impl::RpcsmithMetrics, _) => {
                    bail!("rpcsmith with metrics is served by rpcsmith-bench-metrics")
                }
            };
            announce(implementation, served, transport, bound)?;
        }
        std::future::pending::<anyhow::Result<()>>().await
    })
}

fn announce(
    implementation: Impl,
    served: Api,
    transport: Transport,
    bound: SocketAddr,
) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let scheme = transport.scheme();
    writeln!(
        out,
        "serving {} with {} on {scheme}://{bound}/",
        served.name(),
        implementation.name()
    )?;
    out.flush().context("writing to standard output")
}

async fn bind(address: SocketAddr) -> anyhow::Result<(TcpListener, SocketAddr)> {
    let listener = TcpListener::bind(address)
        .await
        .with_context(|| format!("cannot bind {address}"))?;
    let bound = listener.local_addr()?;
    Ok((listener, bound))
}

/// rpcsmith's HTTP service on a generated dispatcher; for WebSocket, the same service
/// upgrading connections to peers served by the same server.
async fn rpcsmith(
    server: Server,
    transport: Transport,
    address: SocketAddr,
    max_connections: Option<usize>,
) -> anyhow::Result<SocketAddr> {
    let (listener, bound) = bind(address).await?;
    let mut service = http::Service::new(server);
    if transport == Transport::Ws {
        service = service.websocket(Peer::builder(), ws::Settings::default());
    }
    let serve = http::Serve::new(listener, service)
        .max_connections(max_connections.unwrap_or(http::DEFAULT_MAX_CONNECTIONS));
    tokio::spawn(serve.run(std::future::pending()));
    Ok(bound)
}

/// jsonrpsee's server for `module`, limited as rpcsmith's server is by default where the
/// two have the same knob: connections, batch length, request and response size; and,
/// where given, the messages a connection may have waiting (`buffered`: the fan-out gives
/// jsonrpsee the bound its rpcsmith server gives each subscription's channel).
pub(crate) async fn jsonrpsee<Ctx: Send + Sync + 'static>(
    module: RpcModule<Ctx>,
    transport: Transport,
    address: SocketAddr,
    max_connections: Option<usize>,
    buffered: Option<usize>,
) -> anyhow::Result<SocketAddr> {
    let limits = Limits::default();
    let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let config = ServerConfig::builder()
        .max_connections(clamp(
            max_connections.unwrap_or(http::DEFAULT_MAX_CONNECTIONS),
        ))
        .set_batch_request_config(BatchRequestConfig::Limit(clamp(limits.max_batch_len)))
        .max_request_body_size(clamp(limits.max_request_size))
        .max_response_body_size(clamp(limits.max_response_size));
    let config = match buffered {
        Some(n) => config.set_message_buffer_capacity(clamp(n.max(1))),
        None => config,
    };
    let config = match transport {
        Transport::Http => config.http_only(),
        Transport::Ws => config.ws_only(),
    };
    let server = jsonrpsee::server::Server::builder()
        .set_config(config.build())
        .build(address)
        .await
        .with_context(|| format!("cannot bind {address}"))?;
    let bound = server.local_addr()?;
    let handle = server.start(module);
    // Serves until the process ends: the handle must outlive this function.
    std::mem::forget(handle);
    Ok(bound)
}

/// The floor of `transport`: what serving a call costs with nothing but the protocol
/// library, each request or message read whole and a fixed answer sent.
async fn floor(transport: Transport, address: SocketAddr) -> anyhow::Result<SocketAddr> {
    match transport {
        Transport::Http => {
            bare_hyper(address, |_| {
                Bytes::from_static(api::FLOOR_ANSWER.as_bytes())
            })
            .await
        }
        Transport::Ws => bare_tungstenite(address, fixed_message).await,
    }
}

/// The hand-written dispatcher (`floor`) behind the floor's server of `transport`: the
/// bare hyper server, each request answered by it (an empty body when nothing is
/// answered), or the bare tokio-tungstenite server, each message answered by it (nothing
/// sent when nothing is answered). Over WebSocket this is the floor with the JSON-RPC
/// work done: the lower bound of what a JSON-RPC server over tokio-tungstenite costs.
async fn hand_written(transport: Transport, address: SocketAddr) -> anyhow::Result<SocketAddr> {
    match transport {
        Transport::Http => {
            bare_hyper(address, |body| {
                crate::floor::handle(body).map_or_else(Bytes::new, Bytes::from)
            })
            .await
        }
        Transport::Ws => bare_tungstenite(address, hand_written_message).await,
    }
}

/// The hand-written dispatcher's answer to one WebSocket message, as text (serde_json
/// writes UTF-8; checked, as rpcsmith checks its answers, since proving it needs `unsafe`).
fn hand_written_message(message: &[u8]) -> Option<Utf8Bytes> {
    let answer = crate::floor::handle(message)?;
    String::from_utf8(answer).ok().map(Utf8Bytes::from)
}

/// The fixed answer of the WebSocket floor, whatever the message.
fn fixed_message(_: &[u8]) -> Option<Utf8Bytes> {
    Some(Utf8Bytes::from_static(api::FLOOR_ANSWER))
}

/// hyper's HTTP/1.1 server, each request's body read whole and `answer`ed.
async fn bare_hyper(address: SocketAddr, answer: fn(&[u8]) -> Bytes) -> anyhow::Result<SocketAddr> {
    each_connection(address, move |stream| async move {
        let service = hyper::service::service_fn(move |request| answered(request, answer));
        let connection = hyper::server::conn::http1::Builder::new()
            .serve_connection(TokioIo::new(stream), service);
        let _ = connection.await;
    })
    .await
}

/// What the bare tokio-tungstenite server answers to a message (`None`: nothing).
type Answer = fn(&[u8]) -> Option<Utf8Bytes>;

/// tokio-tungstenite's server on its own listener, each message `answer`ed.
async fn bare_tungstenite(address: SocketAddr, answer: Answer) -> anyhow::Result<SocketAddr> {
    each_connection(address, move |stream| ws_floor(stream, answer)).await
}

/// Listens on `address` and runs `serve` on each accepted connection (Nagle off) in a
/// task of its own.
async fn each_connection<F, S>(address: SocketAddr, serve: F) -> anyhow::Result<SocketAddr>
where
    F: Fn(TcpStream) -> S + Send + 'static,
    S: Future<Output = ()> + Send + 'static,
{
    let (listener, bound) = bind(address).await?;
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            tokio::spawn(serve(stream));
        }
    });
    Ok(bound)
}

/// tokio-tungstenite's server (its own handshake, no HTTP server in front), each
/// message read whole and `answer`ed as a text message, flushed at once.
///
/// It reads the socket as rpcsmith's WebSocket does ([`ws_floor_io`]): tungstenite's
/// default 128 KiB read buffer, which it zero-fills before every read, would cost more
/// than everything else here, and make a floor no careful server stands on.
async fn ws_floor(stream: TcpStream, answer: Answer) {
    let config = WebSocketConfig::default().read_buffer_size(WS_FLOOR_FRAME_READ);
    let io = ws_floor_io(stream);
    let Ok(mut socket) = tokio_tungstenite::accept_async_with_config(io, Some(config)).await else {
        return;
    };
    while let Some(Ok(message)) = socket.next().await {
        let answered = match &message {
            Message::Text(text) => answer(text.as_bytes()),
            Message::Binary(bytes) => answer(bytes),
            Message::Close(_) => return,
            Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => None,
        };
        if let Some(text) = answered
            && socket.send(Message::Text(text)).await.is_err()
        {
            return;
        }
    }
}

/// What tungstenite takes from the socket's buffer at once, as in rpcsmith's WebSocket.
const WS_FLOOR_FRAME_READ: usize = 1024;

/// The socket read 8 KiB at a time (rpcsmith's default `ws::Settings::read_buffer`).
fn ws_floor_io(stream: TcpStream) -> tokio::io::BufReader<TcpStream> {
    tokio::io::BufReader::with_capacity(8 * 1024, stream)
}

async fn answered(
    request: Request<Incoming>,
    answer: fn(&[u8]) -> Bytes,
) -> hyper::Result<Response<Full<Bytes>>> {
    let body = request.into_body().collect().await?.to_bytes();
    let mut response = Response::new(Full::new(answer(&body)));
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    Ok(response)
}
