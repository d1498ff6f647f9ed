//! One server instance of the scale-out tests and bench: HTTP and WebSocket on one
//! loopback port (printed as `listening 127.0.0.1:PORT` on stdout once bound), its
//! notifications and subscription items carried to the other instances through a broker.
//!
//! `scaleout-instance ID [BROKER_URL]`: `redis://` or `rediss://` for Redis, `nats://` or
//! `tls://` for NATS; credentials and a certificate authority (a PEM file) are read from
//! `SCALEOUT_BROKER_USER`, `SCALEOUT_BROKER_PASSWORD`, `SCALEOUT_BROKER_TOKEN` (NATS) and
//! `SCALEOUT_BROKER_CA`, and the brokers' ping interval (in milliseconds) from
//! `SCALEOUT_BROKER_PING_MS`. Without a broker the instance pushes to its own connections only. `scaleout-instance --mcp ID` serves MCP's Streamable HTTP
//! instead ([`mcp`]). Methods:
//!
//! | method | answer |
//! |---|---|
//! | `instance` | `ID` |
//! | `linked` | whether it is subscribed to the broker (always `true` without one) |
//! | `publish [text]` | sends the notification `pushed [ID, text]` to every connection of every instance; `{"sent": n}` with the local connections that took it, or `-32050` when the broker did not take it (`data.sent` as well) |
//! | `subscribeTicks` | a subscription to the topic `ticks`, items pushed as `tick {"subscription", "result"}` |
//! | `tick [n]` | publishes `n` to every `subscribeTicks` subscriber of every instance, answered as `publish` |

mod mcp;

use rpcsmith::fanout::{Fanout, PublishError, Topic, nats::Nats, redis::Redis};
use rpcsmith::http;
use rpcsmith::protocol::{ErrorObject, Feed};
use rpcsmith::server::{CallResult, Context, Dispatch, Failure, Reply, Server, encode, subscribe};
use rpcsmith::transport::peer::{Hub, Peer};
use rpcsmith::transport::ws::Settings;
use serde_json::json;
use serde_json::value::RawValue;
use std::time::Duration;
use tokio::io::AsyncWriteExt;

/// The code of a publish that reached this instance's connections only.
const NOT_PUBLISHED: i64 = -32050;
/// How many ticks wait for one subscriber's connection.
const TICK_BUFFER: usize = 1024;

static TICKS: Feed = Feed::push("tick", "subscription", "result");

struct Instance {
    id: String,
    hub: Hub,
    /// `None` without a broker.
    broker: Option<(Fanout, Topic<u64>)>,
}

impl Dispatch for Instance {
    fn call(&self, method: &str, params: Option<&RawValue>, cx: Context) -> Reply {
        let params = params.map_or("null", RawValue::get);
        match method {
            "instance" => Reply::ok(&self.id),
            "linked" => Reply::ok(
                &self
                    .broker
                    .as_ref()
                    .is_none_or(|(fanout, ticks)| fanout.is_linked() && ticks.is_linked()),
            ),
            "publish" => match serde_json::from_str::<(String,)>(params) {
                Ok((text,)) => self.publish(text),
                Err(error) => Reply::err(ErrorObject::invalid_params(error.to_string())),
            },
            "subscribeTicks" => match &self.broker {
                Some((_, ticks)) => {
                    let items = ticks.subscribe(TICK_BUFFER);
                    subscribe(cx, &TICKS, async move { Ok::<_, Failure>(items) })
                }
                None => Reply::err(ErrorObject::new(NOT_PUBLISHED, "no broker")),
            },
            "tick" => match (serde_json::from_str::<(u64,)>(params), &self.broker) {
                (Ok((n,)), Some((_, ticks))) => {
                    let ticks = ticks.clone();
                    Reply::future(async move { answer(ticks.publish(&n).await, |d| d.sent) })
                }
                (Err(error), _) => Reply::err(ErrorObject::invalid_params(error.to_string())),
                (_, None) => Reply::err(ErrorObject::new(NOT_PUBLISHED, "no broker")),
            },
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

impl Instance {
    fn publish(&self, text: String) -> Reply {
        let id = self.id.clone();
        match &self.broker {
            Some((fanout, _)) => {
                let fanout = fanout.clone();
                Reply::future(async move {
                    let published = fanout.notify_all("pushed", &(id, text)).await;
                    answer(published, |pushed| pushed.sent)
                })
            }
            None => match self.hub.notify_all("pushed", &(id, text)) {
                Ok(pushed) => Reply::ok(&json!({ "sent": pushed.sent })),
                Err(error) => Reply::err(ErrorObject::new(NOT_PUBLISHED, error.to_string())),
            },
        }
    }
}

/// The answer to a publish: how many local connections took it, and whether the
/// broker did.
fn answer<D>(published: Result<D, PublishError<D>>, sent: fn(&D) -> usize) -> CallResult {
    match published {
        Ok(local) => encode(&json!({ "sent": sent(&local) })),
        Err(PublishError::Broker { local, error }) => Err(ErrorObject::with_data(
            NOT_PUBLISHED,
            format!("not published to the other instances: {error}"),
            &json!({ "sent": sent(&local) }),
        )),
        Err(other) => Err(ErrorObject::new(NOT_PUBLISHED, other.to_string())),
    }
}

/// The fan-out of `hub` through the broker at `url`, with the credentials and
/// certificate authority of the environment.
fn link(url: String, hub: &Hub) -> std::io::Result<Fanout> {
    let var = |name| std::env::var(name).ok();
    let (user, password) = (var("SCALEOUT_BROKER_USER"), var("SCALEOUT_BROKER_PASSWORD"));
    let authority = var("SCALEOUT_BROKER_CA");
    let ping = var("SCALEOUT_BROKER_PING_MS").map(|ms| ms.parse().map(Duration::from_millis));
    let ping = ping.transpose().map_err(std::io::Error::other)?;
    if url.starts_with("nats://") || url.starts_with("tls://") {
        let mut nats = Nats::new(url);
        if let Some(interval) = ping {
            nats = nats.ping_interval(interval);
        }
        if let Some(user) = user {
            nats = nats.user(user).password(password.unwrap_or_default());
        }
        if let Some(token) = var("SCALEOUT_BROKER_TOKEN") {
            nats = nats.token(token);
        }
        if let Some(file) = authority {
            nats = nats.root_certificates(file);
        }
        return Ok(Fanout::new(nats, hub, "scaleout"));
    }
    let mut redis = Redis::new(url);
    if let Some(interval) = ping {
        redis = redis.ping_interval(interval);
    }
    if let Some(user) = user {
        redis = redis.user(user);
    }
    if let Some(password) = password {
        redis = redis.password(password);
    }
    if let Some(file) = authority {
        redis = redis.root_certificate(std::fs::read(file)?);
    }
    Ok(Fanout::new(redis, hub, "scaleout"))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).peekable();
    let mcp = args.next_if(|arg| arg == "--mcp").is_some();
    let id = args
        .next()
        .ok_or("usage: scaleout-instance ID [BROKER_URL] | --mcp ID")?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    let mut stdout = tokio::io::stdout();
    if mcp {
        stdout
            .write_all(format!("listening {address}\n").as_bytes())
            .await?;
        stdout.flush().await?;
        mcp::serve(id, listener).await;
        return Ok(());
    }
    let hub = Hub::new();
    let broker = args.next().map(|url| {
        let fanout = link(url, &hub)?;
        let ticks = fanout.topic::<u64>("ticks");
        Ok::<_, std::io::Error>((fanout, ticks))
    });
    let broker = broker.transpose()?;
    let instance = Instance {
        id,
        hub: hub.clone(),
        broker,
    };
    let service = http::Service::new(Server::new(instance))
        .websocket(Peer::builder().hub(&hub), Settings::default());
    stdout
        .write_all(format!("listening {address}\n").as_bytes())
        .await?;
    stdout.flush().await?;
    // Serves until killed.
    http::serve(listener, service, std::future::pending()).await;
    Ok(())
}
