//! A large typed result: `eth_getBlockByNumber` answering a block of a few hundred
//! hydrated transactions (about 100 KB of JSON), through rpcsmith's generated client and
//! server, against jsonrpsee's client and server with the same serde types (the
//! generated ones), over HTTP and WebSocket (`ratio large_result_calls_per_s`, HTTP;
//! `ratio large_result_ws_calls_per_s`).
//!
//! The block is made from the execution-apis document of the corpus: its
//! `eth_getBlockByNumber` example (a block whose transactions are hashes) with its
//! transactions replaced by [`TRANSACTIONS`] copies of its `eth_getTransactionByHash`
//! example (a full transaction), each with its own index. No example in the corpus is
//! that large; a real block's transactions differ, but not in shape or size. Without
//! the corpus the scenario prints a `skip` line saying why.
//!
//! Both servers and both clients run in this process, each server on a runtime of its
//! own (the `--workers` threads) and the clients on another, `CONCURRENCY` calls in
//! flight. The two clients take turns within each round (`load::Turns`), the other
//! one paused; the ratio is the median over rounds of the ratio of calls per second
//! within each.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, ensure};
use jsonrpsee::RpcModule;
use jsonrpsee::core::client::ClientT;
use jsonrpsee::rpc_params;
use rpcsmith::client::Client;
use rpcsmith::http;
use rpcsmith::server::{Context, Failure, Server};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::ws;
use serde_json::Value;
use tokio::net::TcpListener;

use crate::load::{Gauge, Load, Turns};
use crate::report::median;
use crate::serve::{Impl, Transport};

rpcsmith::include_api!("block");

use block::types::Block;
use block::{BlockClient, BlockDispatcher, BlockServer};

/// Transactions in the block.
pub(crate) const TRANSACTIONS: usize = 200;

/// Calls in flight through each client.
const CONCURRENCY: usize = 8;

/// The block number asked for (that of the corpus example).
const NUMBER: &str = "0x68b3";

/// How the scenario runs.
#[derive(Debug)]
pub(crate) struct Settings {
    /// Rounds, each measuring every implementation per transport, in turns.
    pub(crate) rounds: usize,
    /// What one implementation is measured for in a round ([`TURNS`] slices); a quarter
    /// of it warms each up before the first round.
    pub(crate) window: Duration,
    /// Worker threads of the servers' runtime, and of the clients'.
    pub(crate) workers: usize,
    /// Only this transport (`http` or `ws`), when given.
    pub(crate) transport: Option<String>,
    /// Only this implementation (for profilers: no ratio then), when given.
    pub(crate) implementation: Option<Impl>,
    /// For profilers: exactly this many calls, one at a time, with the implementation
    /// and over the transport given, instead of the rounds.
    pub(crate) calls: Option<u64>,
}

/// Runs the scenario: `rounds` rounds of a `window` per implementation and transport,
/// the implementations in turns; prints calls per second and the ratios, or a `skip
/// large_result:` line without the corpus.
///
/// # Errors
///
/// When the corpus example cannot be read as a block, a server cannot start, or an
/// answer is wrong.
pub(crate) fn report(settings: &Settings) -> anyhow::Result<()> {
    let Settings {
        rounds,
        window,
        workers,
        ..
    } = *settings;
    if let Some(name) = &settings.transport {
        ensure!(
            name == "http" || name == "ws",
            "unknown transport {name:?}: http or ws"
        );
    }
    let Some(corpus) = rpcsmith_corpus::dir() else {
        println!(
            "skip large_result: the OpenRPC corpus is absent (set RPCSMITH_CORPUS_DIR): the \
             block is made from its execution-apis examples"
        );
        return Ok(());
    };
    let block = Arc::new(corpus_block(&corpus)?);
    let size = serde_json::to_vec(&*block)?.len();
    println!(
        "\nLarge result: a block of {TRANSACTIONS} transactions, {size} bytes of JSON; \
         {CONCURRENCY} calls in flight"
    );
    let servers = crate::serve::runtime(workers)?;
    let clients = crate::serve::runtime(workers)?;
    let mut urls = Vec::new();
    for implementation in [Impl::Rpcsmith, Impl::Jsonrpsee] {
        for transport in [Transport::Http, Transport::Ws] {
            let bound = servers.block_on(serve(implementation, transport, Arc::clone(&block)))?;
            let scheme = if transport == Transport::Http {
                "http"
            } else {
                "ws"
            };
            urls.push((implementation, transport, format!("{scheme}://{bound}/")));
        }
    }
    if let Some(calls) = settings.calls {
        let (Some(implementation), Some(name)) = (settings.implementation, &settings.transport)
        else {
            anyhow::bail!("--calls needs --impl and --transport");
        };
        let transport = if name == "ws" {
            Transport::Ws
        } else {
            Transport::Http
        };
        let url = &urls
            .iter()
            .find(|(i, t, _)| *i == implementation && *t == transport)
            .context("no server for the scenario")?
            .2;
        clients.block_on(fixed_calls(
            implementation,
            transport,
            url,
            &block.number,
            calls,
        ))?;
        println!(
            "large_result {name} {}: {calls} calls",
            implementation.name()
        );
        return Ok(());
    }
    let transports = [
        ("large_result_calls_per_s", Transport::Http),
        ("large_result_ws_calls_per_s", Transport::Ws),
    ];
    let only =
        |t: Transport| (settings.transport.as_deref()).is_none_or(|name| name == scheme_name(t));
    let impls: Vec<Impl> = [Impl::Rpcsmith, Impl::Jsonrpsee]
        .into_iter()
        .filter(|&i| settings.implementation.is_none_or(|only| only == i))
        .collect();
    for (name, transport) in transports.into_iter().filter(|&(_, t)| only(t)) {
        let mut loads = Vec::new();
        for &implementation in &impls {
            let url = &urls
                .iter()
                .find(|(i, t, _)| *i == implementation && *t == transport)
                .context("no server for the scenario")?
                .2;
            let number = block.number.clone();
            loads.push(clients.block_on(start(implementation, transport, url, number))?);
        }
        let mut ratios = Vec::with_capacity(rounds);
        for round in 0..rounds {
            let per_s = clients.block_on(calls_per_s(&loads, window, round == 0))?;
            for (implementation, per_s) in impls.iter().zip(&per_s) {
                println!(
                    "large_result {} {}: {per_s:.0} calls/s",
                    scheme_name(transport),
                    implementation.name(),
                );
            }
            if let [ours, theirs] = per_s[..] {
                ratios.push(ours / theirs);
            }
        }
        for load in loads {
            clients.block_on(load.stop())?;
        }
        if settings.implementation.is_none() {
            println!("ratio {name} {:.3}", median(ratios));
        }
    }
    Ok(())
}

fn scheme_name(transport: Transport) -> &'static str {
    match transport {
        Transport::Http => "http",
        Transport::Ws => "ws",
    }
}

/// The corpus's `eth_getBlockByNumber` example with [`TRANSACTIONS`] copies of its
/// `eth_getTransactionByHash` example as its transactions, as the generated `Block`.
fn corpus_block(corpus: &std::path::Path) -> anyhow::Result<Block> {
    let path = corpus.join("ethereum-execution-apis/openrpc.json");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let document: Value =
        serde_json::from_str(&text).context("parsing the execution-apis document")?;
    let example = |method: &str| -> anyhow::Result<Value> {
        let methods = document["methods"].as_array().context("no methods")?;
        let found = methods.iter().find(|m| m["name"] == method);
        found
            .and_then(|m| m["examples"][0]["result"]["value"].as_object())
            .map(|value| Value::Object(value.clone()))
            .with_context(|| format!("no result example for {method} in {}", path.display()))
    };
    let mut block = example("eth_getBlockByNumber")?;
    let transaction = example("eth_getTransactionByHash")?;
    let transactions = (0..TRANSACTIONS)
        .map(|index| {
            let mut copy = transaction.clone();
            copy["transactionIndex"] = Value::String(format!("{index:#x}"));
            copy
        })
        .collect();
    block["transactions"] = Value::Array(transactions);
    serde_json::from_value(block).context("the corpus examples as the generated Block")
}

/// rpcsmith's handler: the block, whatever the number.
struct Blocks(Arc<Block>);

impl BlockServer for Blocks {
    async fn eth_get_block_by_number(
        &self,
        _cx: Context,
        _block: String,
        _hydrated: bool,
    ) -> Result<Block, Failure> {
        Ok((*self.0).clone())
    }
}

/// Starts `implementation`'s server for `transport` on a free port; its address.
async fn serve(
    implementation: Impl,
    transport: Transport,
    block: Arc<Block>,
) -> anyhow::Result<SocketAddr> {
    match implementation {
        Impl::Rpcsmith => {
            let listener = TcpListener::bind("127.0.0.1:0").await?;
            let bound = listener.local_addr()?;
            let mut service = http::Service::new(Server::new(BlockDispatcher::new(Blocks(block))));
            if transport == Transport::Ws {
                service = service.websocket(Peer::builder(), ws::Settings::default());
            }
            tokio::spawn(http::serve(listener, service, std::future::pending()));
            Ok(bound)
        }
        _ => {
            let mut module = RpcModule::new(block);
            module.register_method("eth_getBlockByNumber", |params, block, _| {
                let (_number, _hydrated): (String, bool) = params.parse()?;
                Ok::<_, jsonrpsee::types::ErrorObjectOwned>((**block).clone())
            })?;
            crate::serve::jsonrpsee(module, transport, "127.0.0.1:0".parse()?, None, None).await
        }
    }
}

/// `implementation`'s client at `url`, [`CONCURRENCY`] calls in flight, paused: every
/// answer's block number checked.
async fn start(
    implementation: Impl,
    transport: Transport,
    url: &str,
    number: String,
) -> anyhow::Result<Load> {
    let mut load = Load::default();
    load.pause();
    match implementation {
        Impl::Rpcsmith => {
            let client = rpcsmith_client(transport, url).await?;
            for _ in 0..CONCURRENCY {
                let (client, number) = (client.clone(), number.clone());
                load.spawn(move |gauge| rpcsmith_loop(client, number, gauge));
            }
        }
        _ => match transport {
            Transport::Http => {
                let client = jsonrpsee::http_client::HttpClientBuilder::default().build(url)?;
                spawn_jsonrpsee(&mut load, Arc::new(client), &number);
            }
            Transport::Ws => {
                let client = jsonrpsee::ws_client::WsClientBuilder::default()
                    .build(url)
                    .await?;
                spawn_jsonrpsee(&mut load, Arc::new(client), &number);
            }
        },
    }
    Ok(load)
}

/// Calls per second of each of `loads` in one round of `window`, the loads taking
/// [`TURNS`] turns ([`Turns`]): a quarter of the window to warm up first, when `warm`.
async fn calls_per_s(loads: &[Load], window: Duration, warm: bool) -> anyhow::Result<Vec<f64>> {
    let turns = Turns {
        warmup: if warm { window / 4 } else { Duration::ZERO },
        turns: TURNS,
        window,
    };
    let loads: Vec<&Load> = loads.iter().collect();
    let mut counted = vec![(0, Duration::ZERO); loads.len()];
    let read = |i: usize| Ok((loads[i].calls(), Instant::now()));
    let add = |i: usize, (calls, start): (u64, Instant), (end_calls, end): (u64, Instant)| {
        counted[i].0 += end_calls - calls;
        counted[i].1 += end - start;
    };
    turns.run(&loads, read, add).await?;
    Ok(counted
        .into_iter()
        .map(|(calls, elapsed)| calls as f64 / elapsed.as_secs_f64())
        .collect())
}

/// Turns each load takes in a round.
const TURNS: usize = 5;

/// rpcsmith's generated client for the server at `url`.
async fn rpcsmith_client(transport: Transport, url: &str) -> anyhow::Result<BlockClient> {
    let client = match transport {
        Transport::Http => Client::new(http::Client::new(url)?),
        Transport::Ws => ws::connect(url, Peer::builder(), ws::Settings::default())
            .await?
            .into_client(),
    };
    Ok(BlockClient::new(client))
}

/// `calls` calls one at a time, each answer checked (for profilers: callgrind's counts of
/// two numbers of calls differ by what the extra calls cost, start-up cancelled).
async fn fixed_calls(
    implementation: Impl,
    transport: Transport,
    url: &str,
    number: &str,
    calls: u64,
) -> anyhow::Result<()> {
    if implementation == Impl::Rpcsmith {
        let client = rpcsmith_client(transport, url).await?;
        for _ in 0..calls {
            let block = client
                .eth_get_block_by_number(NUMBER.to_owned(), true)
                .await?;
            check(&block, number)?;
        }
        return Ok(());
    }
    if transport == Transport::Http {
        let client = jsonrpsee::http_client::HttpClientBuilder::default().build(url)?;
        return jsonrpsee_calls(&client, number, calls).await;
    }
    let client = jsonrpsee::ws_client::WsClientBuilder::default()
        .build(url)
        .await?;
    jsonrpsee_calls(&client, number, calls).await
}

async fn jsonrpsee_calls<C: ClientT>(client: &C, number: &str, calls: u64) -> anyhow::Result<()> {
    for _ in 0..calls {
        let block: Block = client
            .request("eth_getBlockByNumber", rpc_params![NUMBER, true])
            .await?;
        check(&block, number)?;
    }
    Ok(())
}

async fn rpcsmith_loop(client: BlockClient, number: String, gauge: Gauge) -> anyhow::Result<()> {
    while gauge.next().await {
        let block = client
            .eth_get_block_by_number(NUMBER.to_owned(), true)
            .await
            .context("rpcsmith client: eth_getBlockByNumber")?;
        check(&block, &number)?;
        gauge.add(1);
    }
    Ok(())
}

fn spawn_jsonrpsee<C: ClientT + Send + Sync + 'static>(
    load: &mut Load,
    client: Arc<C>,
    number: &str,
) {
    for _ in 0..CONCURRENCY {
        let (client, number) = (Arc::clone(&client), number.to_owned());
        load.spawn(move |gauge| jsonrpsee_loop(client, number, gauge));
    }
}

async fn jsonrpsee_loop<C: ClientT + Send + Sync>(
    client: Arc<C>,
    number: String,
    gauge: Gauge,
) -> anyhow::Result<()> {
    while gauge.next().await {
        let block: Block = client
            .request("eth_getBlockByNumber", rpc_params![NUMBER, true])
            .await
            .context("jsonrpsee client: eth_getBlockByNumber")?;
        check(&block, &number)?;
        gauge.add(1);
    }
    Ok(())
}

fn check(block: &Block, number: &str) -> anyhow::Result<()> {
    ensure!(
        block.number == number && block.transactions.len() == TRANSACTIONS,
        "wrong block: number {}, {} transactions",
        block.number,
        block.transactions.len()
    );
    Ok(())
}
