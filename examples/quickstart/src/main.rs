use std::time::Duration;

use futures_util::StreamExt;
use rpcsmith::http;
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Failure, Items, Server, channel};
use rpcsmith::transport::{peer::Peer, ws};
use tokio::net::TcpListener;

rpcsmith::include_api!("clock"); // the module generated from openrpc.json (its title)
use clock::{ClockClient, ClockDispatcher, ClockServer, types::Tick};

struct Clock;

impl ClockServer for Clock {
    async fn clock_add(&self, _cx: Context, a: i64, b: i64) -> Result<i64, Failure> {
        a.checked_add(b)
            .ok_or_else(|| ErrorObject::invalid_params("the sum overflows").into())
    }

    async fn clock_subscribe_ticks(
        &self,
        _cx: Context,
        every_ms: u64,
    ) -> Result<Items<Tick>, Failure> {
        let (sink, items) = channel(16);
        tokio::spawn(async move {
            let mut interval = tokio::time::interval(Duration::from_millis(every_ms));
            for n in 1.. {
                interval.tick().await;
                if sink.send(Tick { n }).await.is_err() {
                    break; // unsubscribed, or the connection closed
                }
            }
        });
        Ok(items) // the runtime answers the id, then sends each item as clock_subscriptionTicks
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The server: HTTP, and WebSocket on the same port.
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("ws://{}", listener.local_addr()?);
    let service = http::Service::new(Server::new(ClockDispatcher::new(Clock)))
        .websocket(Peer::builder(), ws::Settings::default());
    tokio::spawn(http::serve(listener, service, std::future::pending::<()>()));

    // The client (a wss:// URL works the same, with the `tls` feature).
    let peer = ws::connect(url.as_str(), Peer::builder(), ws::Settings::default()).await?;
    let clock = ClockClient::new(peer.into_client());
    println!("2 + 3 = {}", clock.clock_add(2, 3).await?);

    let mut ticks = clock.clock_subscribe_ticks(10).await?;
    while let Some(tick) = ticks.next().await {
        let tick = tick?;
        println!("tick {}", tick.n);
        if tick.n == 3 {
            break; // dropping `ticks` sends clock_unsubscribe
        }
    }
    Ok(())
}
