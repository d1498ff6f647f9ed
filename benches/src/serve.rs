//! The servers under test, each serving `add` until killed: rpcsmith's generated server
//! (HTTP, WebSocket), jsonrpsee's (HTTP, WebSocket), and the floor, a bare hyper
//! HTTP/1.1 server that reads each request and answers a fixed body. For the fan-out
//! scenario, rpcsmith and jsonrpsee serve the `items` subscription instead (`fanout`).
//!
//! Each listener prints one line, `serving <api> with <impl> on <url>`, as soon as it is
//! bound: the benchmark reads the URL from it (its last word).

use std::io::Write as _;
use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use jsonrpsee::RpcModule;
use jsonrpsee::server::{BatchRequestConfig, ServerConfig};
use rpcsmith::server::{Limits, Server};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::{http, ws};
use tokio::net::TcpListener;

use crate::{api, fanout};

/// An implementation under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub(crate) enum Impl {
    /// rpcsmith's generated server (or client).
    Rpcsmith,
    /// jsonrpsee 0.26.
    Jsonrpsee,
    /// A bare hyper HTTP/1.1 server answering a fixed body: the floor.
    Floor,
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
/// When an address cannot be bound, the floor is asked for WebSocket, or the fan-out
/// subscription for HTTP or for the floor.
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
    if served == Api::FanOut && listeners.iter().any(|&(t, _)| t != Transport::Ws) {
        bail!("the fan-out subscription is served over WebSocket only: give --ws ADDRESS");
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
                    rpcsmith(server, transport, address, None).await?
                }
                (Impl::Jsonrpsee, None) => {
                    jsonrpsee(api::jsonrpsee_module(), transport, address, max_connections).await?
                }
                (Impl::Jsonrpsee, Some(start)) => {
                    let module = fanout::jsonrpsee_module(Arc::clone(start));
                    jsonrpsee(module, transport, address, None).await?
                }
                (Impl::Floor, None) => floor(transport, address).await?,
                (Impl::Floor, Some(_)) => bail!("the floor serves no subscription"),
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
/// two have the same knob: connections, batch length, request and response size.
pub(crate) async fn jsonrpsee<Ctx: Send + Sync + 'static>(
    module: RpcModule<Ctx>,
    transport: Transport,
    address: SocketAddr,
    max_connections: Option<usize>,
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

/// The floor: hyper's HTTP/1.1 server, each request's body read, the fixed answer sent.
async fn floor(transport: Transport, address: SocketAddr) -> anyhow::Result<SocketAddr> {
    if transport != Transport::Http {
        bail!("the floor serves HTTP only");
    }
    let (listener, bound) = bind(address).await?;
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(fixed_answer);
                let connection = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service);
                let _ = connection.await;
            });
        }
    });
    Ok(bound)
}

async fn fixed_answer(request: Request<Incoming>) -> hyper::Result<Response<Full<Bytes>>> {
    request.into_body().collect().await?;
    let mut response = Response::new(Full::new(Bytes::from_static(api::FLOOR_ANSWER.as_bytes())));
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    Ok(response)
}
