//! Metrics scraped by Prometheus: `cargo run -p rpcsmith --example prometheus --features metrics`.
//!
//! The runtime records through the `metrics` facade; this program installs the
//! Prometheus exporter's recorder (with buckets for the latency histograms), serves
//! JSON-RPC on one loopback port with rpcsmith's own `serve`, and the exposition text on
//! another (`GET /metrics`, an axum route rendering the exporter's handle: any HTTP
//! server does). Then it makes a few calls, scrapes `/metrics` once over HTTP like
//! Prometheus would, prints the `rpcsmith_` lines, and exits 0 when the calls are there.

use std::time::Duration;

use axum::Router;
use axum::routing::get;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};
use rpcsmith::client::Client;
use rpcsmith::http;
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Reply, Server, encode};
use serde_json::value::RawValue;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// `add(a, b)`, with its table of names (generated dispatchers have one), so that the
/// metrics label calls by method and any other name as `unknown`.
struct Calculator;

impl Dispatch for Calculator {
    fn call(&self, method: &str, params: Option<&RawValue>, _cx: Context) -> Reply {
        match method {
            "add" => match serde_json::from_str::<(i64, i64)>(params.map_or("null", |p| p.get())) {
                Ok((a, b)) => Reply::future(async move { encode(&(a + b)) }),
                Err(e) => Reply::err(ErrorObject::invalid_params(format!("invalid params: {e}"))),
            },
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }

    fn methods(&self) -> Option<Vec<&str>> {
        Some(vec!["add"])
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The recorder first: a server resolves its metrics on its first call.
    let prometheus = PrometheusBuilder::new()
        .set_buckets_for_metric(
            Matcher::Suffix("_duration_seconds".into()),
            &[0.000_1, 0.001, 0.01, 0.1, 1.0, 10.0],
        )?
        .install_recorder()?;
    rpcsmith::metrics::describe();
    // Histograms are drained into their buckets by the exporter's upkeep.
    let upkeep = prometheus.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(5)).await;
            upkeep.run_upkeep();
        }
    });

    let rpc = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let rpc_address = rpc.local_addr()?;
    let service = http::Service::new(Server::new(Calculator));
    tokio::spawn(http::serve(rpc, service, std::future::pending()));
    let scrape = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let scrape_address = scrape.local_addr()?;
    let exposition =
        Router::new().route("/metrics", get(move || async move { prometheus.render() }));
    tokio::spawn(async move { axum::serve(scrape, exposition).await });
    println!("JSON-RPC on http://{rpc_address}/, metrics on http://{scrape_address}/metrics");

    let client = Client::new(http::Client::new(&format!("http://{rpc_address}/"))?);
    for (a, b) in [(1, 2), (3, 4), (5, 6)] {
        let sum: i64 = client.request("add", &(a, b)).await?;
        println!("add({a}, {b}) = {sum}");
    }
    let unknown = client.request::<i64, _>("subtract", &(1, 2)).await;
    println!(
        "subtract: {}",
        unknown.map_or_else(|e| e.to_string(), |n| n.to_string())
    );

    let text = scrape_once(scrape_address).await?;
    println!("\nGET /metrics (the rpcsmith_ lines):");
    for line in text.lines().filter(|line| line.contains("rpcsmith_")) {
        println!("{line}");
    }
    for expected in [
        r#"rpcsmith_server_calls_total{method="add",code="ok"} 3"#,
        r#"rpcsmith_server_calls_total{method="unknown",code="-32601"} 1"#,
        r#"rpcsmith_client_calls_total{method="add",outcome="ok"} 3"#,
        r#"rpcsmith_server_connections{transport="http"} 1"#,
    ] {
        if !text.lines().any(|line| line == expected) {
            return Err(format!("the scrape lacks `{expected}`").into());
        }
    }
    Ok(())
}

/// One `GET /metrics` over HTTP/1.1, as a scraper sends it: the response's body.
async fn scrape_once(address: std::net::SocketAddr) -> Result<String, Box<dyn std::error::Error>> {
    let mut stream = tokio::net::TcpStream::connect(address).await?;
    let request = format!("GET /metrics HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut response = String::new();
    stream.read_to_string(&mut response).await?;
    let (head, body) = response
        .split_once("\r\n\r\n")
        .ok_or("no end of headers in the response")?;
    if !head.starts_with("HTTP/1.1 200") {
        return Err(format!("the scrape was answered {head:?}").into());
    }
    Ok(body.to_owned())
}
