//! Calls over real transports on 127.0.0.1: WebSocket (rpcsmith and jsonrpsee, each
//! client against each server), stdio to a child process (rpcsmith only: jsonrpsee has
//! no stdio transport) and the in-process link, for `add(a, b)`. Two shapes: pipelined
//! (up to 100 calls in flight on one connection) and sequential round trips. Prints
//! medians (best) of interleaved rounds, in nanoseconds per call, and ratios.
//!
//! Run with `cargo bench -p rpcsmith --bench transports`.

use futures_util::StreamExt;
use jsonrpsee::core::client::ClientT;
use jsonrpsee::rpc_params;
use jsonrpsee::ws_client::{WsClient, WsClientBuilder};
use rpcsmith::client::Client;
use rpcsmith::http;
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Reply, Server, encode};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith::transport::{memory, ws};
use serde_json::value::RawValue;
use std::future::Future;
use std::time::Instant;

const ROUNDS: usize = 7;
const PIPELINED_CALLS: usize = 20_000;
const WINDOW: usize = 100;
const SEQUENTIAL_CALLS: usize = 4_000;
const CHILD: &str = "RPCSMITH_BENCH_STDIO_CHILD";

/// `add` as a generated dispatcher implements it.
struct Add;

impl Dispatch for Add {
    fn call(&self, method: &str, params: Option<&RawValue>, _: Context) -> Reply {
        match (
            method,
            serde_json::from_str::<(i64, i64)>(params.map_or("null", RawValue::get)),
        ) {
            ("add", Ok((a, b))) => Reply::future(async move { encode(&(a + b)) }),
            ("add", Err(e)) => Reply::err(ErrorObject::invalid_params(e.to_string())),
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

/// A client under test: rpcsmith's or jsonrpsee's.
enum Caller {
    Rpcsmith(Client),
    Jsonrpsee(WsClient),
}

impl Caller {
    async fn add(&self, n: i64) -> i64 {
        let sum = match self {
            Caller::Rpcsmith(client) => client.request("add", &[n, 2]).await.ok(),
            Caller::Jsonrpsee(client) => client.request("add", rpc_params![n, 2]).await.ok(),
        };
        sum.unwrap_or_else(|| panic!("add({n}, 2) failed"))
    }

    /// Nanoseconds per call, `WINDOW` calls in flight.
    async fn pipelined(&self) -> f64 {
        let start = Instant::now();
        futures_util::stream::iter(0..PIPELINED_CALLS as i64)
            .map(|n| self.add(n))
            .buffer_unordered(WINDOW)
            .for_each(|sum| async move {
                std::hint::black_box(sum);
            })
            .await;
        start.elapsed().as_nanos() as f64 / PIPELINED_CALLS as f64
    }

    /// Nanoseconds per call, one at a time.
    async fn sequential(&self) -> f64 {
        let start = Instant::now();
        for n in 0..SEQUENTIAL_CALLS as i64 {
            std::hint::black_box(self.add(n).await);
        }
        start.elapsed().as_nanos() as f64 / SEQUENTIAL_CALLS as f64
    }
}

async fn rpcsmith_ws_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    let service =
        http::Service::new(Server::new(Add)).websocket(Peer::builder(), ws::Settings::default());
    tokio::spawn(http::serve(listener, service, std::future::pending()));
    format!("ws://{address}/")
}

async fn jsonrpsee_ws_server() -> (String, jsonrpsee::server::ServerHandle) {
    let server = jsonrpsee::server::Server::builder()
        .build("127.0.0.1:0")
        .await
        .expect("bind");
    let address = server.local_addr().expect("address");
    let mut module = jsonrpsee::RpcModule::new(());
    module
        .register_method("add", |params, _, _| {
            let (a, b): (i64, i64) = params.parse()?;
            Ok::<_, jsonrpsee::types::ErrorObjectOwned>(a + b)
        })
        .expect("add registers once");
    (format!("ws://{address}/"), server.start(module))
}

async fn rpcsmith_ws(url: &str) -> Caller {
    let peer = ws::connect(url, Peer::builder(), ws::Settings::default())
        .await
        .expect("connect");
    Caller::Rpcsmith(peer.into_client())
}

async fn jsonrpsee_ws(url: &str) -> Caller {
    let client = WsClientBuilder::default()
        .build(url)
        .await
        .expect("connect");
    Caller::Jsonrpsee(client)
}

fn stdio_child() -> (Caller, tokio::process::Child) {
    let exe = std::env::current_exe().expect("own path");
    let mut command = tokio::process::Command::new(exe);
    command.env(CHILD, "1");
    let (peer, child) = stream::spawn(Peer::builder(), Codec::Newline, command).expect("spawn");
    (Caller::Rpcsmith(peer.into_client()), child)
}

/// Median and best.
fn summary(mut rounds: Vec<f64>) -> (f64, f64) {
    rounds.sort_by(f64::total_cmp);
    (rounds[rounds.len() / 2], rounds[0])
}

async fn measure<F: Future<Output = f64>>(rows: &mut [(String, Vec<f64>)], index: usize, run: F) {
    rows[index].1.push(run.await);
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    if std::env::var_os(CHILD).is_some() {
        runtime.block_on(async {
            let server = Peer::builder().serve(Server::new(Add));
            stream::stdio(server, Codec::Newline).closed().await;
        });
        std::process::exit(0);
    }
    runtime.block_on(run());
}

async fn run() {
    let ours = rpcsmith_ws_server().await;
    let (theirs, _handle) = jsonrpsee_ws_server().await;
    // Dropping the child kills it: keep it for the whole run.
    let (stdio, _child) = stdio_child();
    let callers: Vec<(&str, Caller)> = vec![
        (
            "WebSocket: rpcsmith client -> rpcsmith server",
            rpcsmith_ws(&ours).await,
        ),
        (
            "WebSocket: jsonrpsee client -> jsonrpsee server",
            jsonrpsee_ws(&theirs).await,
        ),
        (
            "WebSocket: rpcsmith client -> jsonrpsee server",
            rpcsmith_ws(&theirs).await,
        ),
        (
            "WebSocket: jsonrpsee client -> rpcsmith server",
            jsonrpsee_ws(&ours).await,
        ),
        ("stdio child process (newline), rpcsmith", stdio),
        (
            "in process (memory link), rpcsmith",
            Caller::Rpcsmith(memory::connect(Server::new(Add))),
        ),
    ];
    let mut pipelined: Vec<(String, Vec<f64>)> = callers
        .iter()
        .map(|(name, _)| (name.to_string(), Vec::new()))
        .collect();
    let mut sequential = pipelined.clone();
    for (_, caller) in &callers {
        caller.pipelined().await; // warm up
    }
    for _ in 0..ROUNDS {
        for (index, (_, caller)) in callers.iter().enumerate() {
            measure(&mut pipelined, index, caller.pipelined()).await;
            measure(&mut sequential, index, caller.sequential()).await;
        }
    }
    print("pipelined, 100 in flight", pipelined);
    print("sequential round trips", sequential);
}

fn print(title: &str, rows: Vec<(String, Vec<f64>)>) {
    println!("\n{title}: ns per call, median (best) of {ROUNDS} rounds; ratio to the first row");
    let mut first = None;
    for (name, rounds) in rows {
        let (median, best) = summary(rounds);
        let base = *first.get_or_insert(median);
        println!(
            "| {name} | {median:.0} ({best:.0}) | {:.2}x |",
            median / base
        );
    }
}
