//! The cross-instance scenario: subscribers on two server instances, items published on
//! one of them and carried to the other through a real `redis-server` (the runtime's
//! `fanout`); beside it, for scale, the same subscribers on one instance fed
//! in process, without a broker.
//!
//! Both instances run in this process (each its own HTTP + WebSocket server on a
//! loopback port, its own `Fanout` and connection to Redis); the subscribers are the
//! fan-out scenario's raw WebSocket connections, which check every item (numbered one
//! after the other, none lost). Pub/sub has no backpressure, so the publisher keeps at
//! most [`IN_FLIGHT`] items ahead of what the subscribers have received on average,
//! within each subscription's buffer of [`BUFFERED`]. The figure is items per second
//! received by every subscriber (deliveries / subscribers / seconds), over the window.
//!
//! Prints `cross_instance <items/s>` and `local_instance <items/s>` lines, then
//! `ratio cross_instance_items_per_s_vs_local`. Skipped, with a message, where
//! `redis-server` is not installed.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Context as _, ensure};
use rpcsmith::fanout::{Fanout, redis::Redis};
use rpcsmith::http;
use rpcsmith::server::{Items, Server, Shared, Sink, TrySendError, shared_channel};
use rpcsmith::transport::peer::{Hub, Peer};
use rpcsmith::transport::ws::Settings;

use crate::bench;
use crate::fanout::{self, Head, Subscribers, head};
use crate::load::Load;

/// Items a subscription may have waiting for its connection.
const BUFFERED: usize = 4096;
/// Items published ahead of what the subscribers received, on average.
const IN_FLIGHT: u64 = 256;
/// How long starting Redis, linking to it, or one wait for the subscribers may take.
const PATIENCE: Duration = Duration::from_secs(20);

/// Runs both figures and prints them, or says why not.
///
/// # Errors
///
/// When Redis or an instance does not start, or a subscriber sees an item lost.
pub(crate) fn report(settings: &bench::Settings) -> anyhow::Result<()> {
    let Some(program) = redis_server() else {
        println!(
            "\ncross-instance scenario skipped: redis-server not found (apt-get install redis-server)"
        );
        return Ok(());
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(settings.workers)
        .enable_all()
        .build()?;
    let redis = RedisChild::start(&program)?;
    let count = settings.subscribers.max(2);
    let cross = runtime.block_on(cross_instance(&redis, count, settings))?;
    let local = runtime.block_on(local_instance(count, settings))?;
    let deliveries = |items: f64| items * count as f64;
    println!("\nitems/s, each item to all {count} WebSocket subscribers (deliveries/s):");
    println!(
        "cross_instance {cross:.0} ({:.0})   two instances, published on one, through Redis",
        deliveries(cross)
    );
    println!(
        "local_instance {local:.0} ({:.0})   one instance, in process",
        deliveries(local)
    );
    println!(
        "ratio cross_instance_items_per_s_vs_local {:.3}",
        cross / local
    );
    Ok(())
}

/// Two instances, half the subscribers on each, published on the first.
async fn cross_instance(
    redis: &RedisChild,
    count: usize,
    settings: &bench::Settings,
) -> anyhow::Result<f64> {
    let mut topics = Vec::new();
    let mut urls = Vec::new();
    for _ in 0..2 {
        let fanout = Fanout::new(Redis::new(redis.address.clone()), &Hub::new(), "bench");
        let topic = fanout.topic::<Head>("heads");
        tokio::time::timeout(PATIENCE, topic.linked())
            .await
            .context("an instance did not link to Redis")?;
        let subscribed = topic.clone();
        urls.push(serve(move || subscribed.subscribe(BUFFERED)).await?);
        topics.push(topic);
    }
    let mut loads = Vec::new();
    for (url, count) in urls.iter().zip([count / 2, count - count / 2]) {
        loads.push(fanout::subscribe(url, Subscribers { count }).await?);
    }
    let publisher = topics.swap_remove(0);
    measure(loads, count, settings, move |number| {
        let publisher = publisher.clone();
        async move {
            publisher.publish(&head(number)).await?;
            anyhow::Ok(())
        }
    })
    .await
}

/// One instance, every subscriber on it, fed in process.
async fn local_instance(count: usize, settings: &bench::Settings) -> anyhow::Result<f64> {
    let sinks: Arc<Mutex<Vec<Sink<Shared<Head>>>>> = Arc::default();
    let joined = Arc::clone(&sinks);
    let url = serve(move || {
        let (sink, items) = shared_channel(BUFFERED);
        joined
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(sink);
        items
    })
    .await?;
    let loads = vec![fanout::subscribe(&url, Subscribers { count }).await?];
    measure(loads, count, settings, move |number| {
        let item = Shared::new(&head(number));
        let sinks = Arc::clone(&sinks);
        async move {
            let item = item?;
            for sink in sinks.lock().unwrap_or_else(PoisonError::into_inner).iter() {
                if let Err(TrySendError::Full(_)) = sink.try_send(item.clone()) {
                    anyhow::bail!("a subscription's buffer is full");
                }
            }
            Ok(())
        }
    })
    .await
}

/// An instance serving `items_subscribe` with what `subscribe` makes, over HTTP and
/// WebSocket on a loopback port, until the process ends; its `ws://` URL.
async fn serve(
    subscribe: impl Fn() -> Items<Head> + Send + Sync + 'static,
) -> anyhow::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("ws://{}/", listener.local_addr()?);
    let server: Server = fanout::rpcsmith_server_with(subscribe);
    let service = http::Service::new(server).websocket(Peer::builder(), Settings::default());
    tokio::spawn(http::serve(listener, service, std::future::pending()));
    Ok(url)
}

/// Publishes heads 1, 2, … with `publish`, at most [`IN_FLIGHT`] ahead of the
/// subscribers, warms up, measures one window; items per second each subscriber got.
async fn measure<F, Fut>(
    loads: Vec<Load>,
    count: usize,
    settings: &bench::Settings,
    publish: F,
) -> anyhow::Result<f64>
where
    F: Fn(u64) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = anyhow::Result<()>> + Send,
{
    // Taken out to be stopped: from then on heads go one a millisecond, unpaced, as
    // each subscriber stops after its next head (and those that stopped no longer count).
    let loads = Arc::new(Mutex::new(Some(loads)));
    let received = {
        let loads = Arc::clone(&loads);
        move || {
            let loads = loads.lock().unwrap_or_else(PoisonError::into_inner);
            Some(loads.as_ref()?.iter().map(Load::calls).sum::<u64>())
        }
    };
    let count = count as u64;
    let publishing = {
        let received = received.clone();
        tokio::spawn(async move {
            for number in 1.. {
                let deadline = Instant::now() + PATIENCE;
                loop {
                    match received() {
                        Some(received) if received / count + IN_FLIGHT < number => {
                            ensure!(
                                Instant::now() < deadline,
                                "the subscribers stopped receiving"
                            );
                        }
                        Some(_) => break,
                        None => {}
                    }
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    if received().is_none() {
                        break;
                    }
                }
                publish(number).await?;
            }
            Ok(())
        })
    };
    tokio::time::sleep(settings.warmup).await;
    let (start, from) = (Instant::now(), received().unwrap_or(0));
    tokio::time::sleep(settings.window.max(Duration::from_millis(500))).await;
    let (elapsed, delivered) = (start.elapsed(), received().unwrap_or(0) - from);
    ensure!(
        !publishing.is_finished(),
        "the publisher stopped: {:?}",
        publishing.await
    );
    let taken = loads.lock().unwrap_or_else(PoisonError::into_inner).take();
    for load in taken.into_iter().flatten() {
        load.stop().await?;
    }
    publishing.abort();
    Ok(delivered as f64 / count as f64 / elapsed.as_secs_f64())
}

/// `redis-server` on PATH or where Debian puts it.
fn redis_server() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin"), PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join("redis-server"))
        .find(|candidate| candidate.is_file())
}

/// A `redis-server` on a loopback port, persisting nothing; killed when dropped.
struct RedisChild {
    address: String,
    child: Child,
    _dir: tempfile::TempDir,
}

impl RedisChild {
    fn start(program: &PathBuf) -> anyhow::Result<Self> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let dir = tempfile::tempdir()?;
        let child = Command::new(program)
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .arg("--dir")
            .arg(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .context("starting redis-server")?;
        let address = format!("127.0.0.1:{port}");
        let mut redis = RedisChild {
            address,
            child,
            _dir: dir,
        };
        let deadline = Instant::now() + PATIENCE;
        while std::net::TcpStream::connect(&redis.address).is_err() {
            if let Some(status) = redis.child.try_wait()? {
                anyhow::bail!("redis-server exited: {status}");
            }
            ensure!(
                Instant::now() < deadline,
                "redis-server is not listening after {PATIENCE:?}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(redis)
    }
}

impl Drop for RedisChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
