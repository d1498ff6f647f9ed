//! The clients under test, as loads: rpcsmith's generated client (`AddClient`) and
//! jsonrpsee's, over HTTP and WebSocket, each with `concurrency` calls in flight (one
//! task per call slot, all sharing one client, as an application would).

use std::sync::Arc;

use anyhow::{Context as _, ensure};
use jsonrpsee::http_client::HttpClientBuilder;
use jsonrpsee::rpc_params;
use jsonrpsee::ws_client::WsClientBuilder;
use rpcsmith::client::Client;
use rpcsmith::http;
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::ws;

use crate::api::AddClient;
use crate::load::{Gauge, Load};
use crate::serve::{Impl, Transport};

/// `concurrency` tasks calling `add(1, 2)` through `implementation`'s client at `url`.
///
/// # Errors
///
/// When the client cannot be built or cannot connect.
pub(crate) async fn load(
    implementation: Impl,
    transport: Transport,
    url: &str,
    concurrency: usize,
) -> anyhow::Result<Load> {
    match implementation {
        Impl::Rpcsmith => {
            let client = rpcsmith_client(transport, url).await?;
            Ok(spawn(concurrency, |gauge| {
                rpcsmith_loop(client.clone(), gauge)
            }))
        }
        Impl::Jsonrpsee => jsonrpsee_load(transport, url, concurrency).await,
        Impl::Floor | Impl::Handwritten => anyhow::bail!("the floor has no client"),
        Impl::RpcsmithMetrics => anyhow::bail!("the metrics scenario measures servers only"),
    }
}

fn spawn<F, Fut>(concurrency: usize, mut task: F) -> Load
where
    F: FnMut(Gauge) -> Fut,
    Fut: Future<Output = anyhow::Result<()>> + Send + 'static,
{
    let mut load = Load::default();
    for _ in 0..concurrency {
        load.spawn(&mut task);
    }
    load
}

/// The generated client over rpcsmith's HTTP transport (pooled keep-alive connections),
/// or over one WebSocket connection.
async fn rpcsmith_client(transport: Transport, url: &str) -> anyhow::Result<AddClient> {
    let client = match transport {
        Transport::Http => Client::new(http::Client::new(url)?),
        Transport::Ws => ws::connect(url, Peer::builder(), ws::Settings::default())
            .await?
            .into_client(),
    };
    Ok(AddClient::new(client))
}

async fn rpcsmith_loop(client: AddClient, gauge: Gauge) -> anyhow::Result<()> {
    while gauge.next().await {
        let sum = client.add(1, 2).await.context("rpcsmith client: add")?;
        ensure!(sum == 3, "rpcsmith client: add(1, 2) = {sum}");
        gauge.add(1);
    }
    Ok(())
}

/// jsonrpsee's HTTP client (its own pool of keep-alive connections), or its WebSocket
/// client on one connection; both with their default settings.
async fn jsonrpsee_load(
    transport: Transport,
    url: &str,
    concurrency: usize,
) -> anyhow::Result<Load> {
    Ok(match transport {
        Transport::Http => {
            let client = Arc::new(HttpClientBuilder::default().build(url)?);
            spawn(concurrency, |gauge| {
                let client = Arc::clone(&client);
                async move { jsonrpsee_loop(&*client, gauge).await }
            })
        }
        Transport::Ws => {
            let client = Arc::new(WsClientBuilder::default().build(url).await?);
            spawn(concurrency, |gauge| {
                let client = Arc::clone(&client);
                async move { jsonrpsee_loop(&*client, gauge).await }
            })
        }
    })
}

async fn jsonrpsee_loop(
    client: &impl jsonrpsee::core::client::ClientT,
    gauge: Gauge,
) -> anyhow::Result<()> {
    while gauge.next().await {
        let sum: i64 = client
            .request("add", rpc_params![1, 2])
            .await
            .context("jsonrpsee client: add")?;
        ensure!(sum == 3, "jsonrpsee client: add(1, 2) = {sum}");
        gauge.add(1);
    }
    Ok(())
}
