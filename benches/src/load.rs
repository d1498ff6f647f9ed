//! The load generator: tasks that each keep one call in flight, counting completed calls
//! into a shared gauge until told to stop. Raw HTTP/1.1 connections (one hyper
//! handshake each, keep-alive) and raw WebSocket connections (tokio-tungstenite) send a
//! fixed body; the clients under test plug in the same way (`clients`).
//!
//! Every answer is checked: the first one of each connection in full, the others against
//! it byte for byte (and in full when they differ), so a server cannot win by answering
//! wrongly.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use anyhow::{Context as _, bail, ensure};
use bytes::Bytes;
use futures_util::{SinkExt as _, StreamExt as _};
use http_body_util::{BodyExt as _, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::sync::Notify;
use tokio::task::JoinSet;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use crate::api;

/// How long stopping may take: every task finishes the call it is in.
const STOP_TIMEOUT: Duration = Duration::from_secs(10);

/// What every task of a load shares: the count of completed calls, and the stop flag.
#[derive(Debug, Clone, Default)]
pub(crate) struct Gauge {
    calls: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    /// Wakes the tasks waiting in [`Gauge::stopped`] when the load stops.
    stopping: Arc<Notify>,
    /// Set while another load has its turn ([`Load::pause`]).
    paused: Arc<AtomicBool>,
    /// Wakes the tasks waiting in [`Gauge::next`] when the load resumes or stops.
    resumed: Arc<Notify>,
}

impl Gauge {
    /// Whether the task should make another call.
    pub(crate) fn running(&self) -> bool {
        !self.stop.load(Ordering::Relaxed)
    }

    /// Completes once the load is told to stop: for a task that waits for the server
    /// (a subscriber waiting for its next item) to stop waiting when told.
    pub(crate) async fn stopped(&self) {
        let notified = self.stopping.notified();
        let mut notified = std::pin::pin!(notified);
        // Registered before the flag is read, so a stop in between is not missed.
        notified.as_mut().enable();
        if self.running() {
            notified.await;
        }
    }

    /// Whether the task should make another call, once the load is not paused: a load
    /// paused for another's turn makes no call until resumed.
    pub(crate) async fn next(&self) -> bool {
        loop {
            let resumed = self.resumed.notified();
            let mut resumed = std::pin::pin!(resumed);
            // Registered before the flags are read, so a resume in between is not missed.
            resumed.as_mut().enable();
            if !self.paused.load(Ordering::Relaxed) || !self.running() {
                return self.running();
            }
            resumed.await;
        }
    }

    /// Counts `calls` completed calls.
    pub(crate) fn add(&self, calls: u64) {
        self.calls.fetch_add(calls, Ordering::Relaxed);
    }
}

/// Tasks running calls in a loop.
#[derive(Debug, Default)]
pub(crate) struct Load {
    gauge: Gauge,
    tasks: JoinSet<anyhow::Result<()>>,
}

impl Load {
    /// Starts `task`, which loops while its gauge says so.
    pub(crate) fn spawn<F, Fut>(&mut self, task: F)
    where
        F: FnOnce(Gauge) -> Fut,
        Fut: Future<Output = anyhow::Result<()>> + Send + 'static,
    {
        self.tasks.spawn(task(self.gauge.clone()));
    }

    /// Calls completed so far.
    pub(crate) fn calls(&self) -> u64 {
        self.gauge.calls.load(Ordering::Relaxed)
    }

    /// Waits for every task to end by itself (each with a count of calls to make).
    ///
    /// # Errors
    ///
    /// The first task's failure.
    pub(crate) async fn finish(mut self) -> anyhow::Result<()> {
        while let Some(joined) = self.tasks.join_next().await {
            joined.context("a load task panicked")??;
        }
        Ok(())
    }

    /// Lets each task finish the call it is in, then make no other until
    /// [`Load::resume`] (tasks that loop on [`Gauge::next`]).
    pub(crate) fn pause(&self) {
        self.gauge.paused.store(true, Ordering::Relaxed);
    }

    /// Lets paused tasks call again.
    pub(crate) fn resume(&self) {
        self.gauge.paused.store(false, Ordering::Relaxed);
        self.gauge.resumed.notify_waiters();
    }

    /// Stops every task and waits for them.
    ///
    /// # Errors
    ///
    /// The first task's failure, or a timeout when a task does not finish.
    pub(crate) async fn stop(mut self) -> anyhow::Result<()> {
        self.gauge.stop.store(true, Ordering::Relaxed);
        self.gauge.stopping.notify_waiters();
        self.gauge.resumed.notify_waiters();
        let all = async {
            while let Some(joined) = self.tasks.join_next().await {
                joined.context("a load task panicked")??;
            }
            anyhow::Ok(())
        };
        match tokio::time::timeout(STOP_TIMEOUT, all).await {
            Ok(result) => result,
            Err(_) => bail!("load tasks did not stop within {STOP_TIMEOUT:?}"),
        }
    }
}

/// How a set of loads takes turns: each warms up once, then, `turns` times, each in turn
/// runs alone for a settling moment and a measured [`slice`](Turns::slice) of its
/// `window`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Turns {
    /// Each load's warm-up, once, before the turns.
    pub(crate) warmup: Duration,
    /// How many times each load takes its turn.
    pub(crate) turns: usize,
    /// What each load is measured for in all, shared among its turns.
    pub(crate) window: Duration,
}

/// How long a resumed load runs before its slice is measured, so that its tasks each
/// have a call in flight again: wall-clock time, as the slice is.
const SETTLE: Duration = Duration::from_millis(20);

impl Turns {
    /// The measured part of one turn.
    pub(crate) fn slice(&self) -> Duration {
        self.window / self.turns.max(1) as u32
    }

    /// Runs `loads` (paused) in turns: each resumed alone, the others paused;
    /// `read(i)` is taken at the start and at the end of each of load `i`'s slices,
    /// and `add(i, before, after)` counts the slice. Each load is paused again after.
    ///
    /// Turns, not one load after the other: this machine's neighbours take a share of
    /// the cores that changes from second to second, so loads measured seconds apart
    /// were not measured alike.
    ///
    /// # Errors
    ///
    /// The first failure of `read`.
    pub(crate) async fn run<R>(
        self,
        loads: &[&Load],
        mut read: impl FnMut(usize) -> anyhow::Result<R>,
        mut add: impl FnMut(usize, R, R),
    ) -> anyhow::Result<()> {
        // Each load warms up in turn, for the warm-up's wall-clock time.
        for load in loads {
            load.resume();
            tokio::time::sleep(self.warmup).await;
            load.pause();
        }
        // Wall-clock slices are what is measured: each sleep is a load's time to run.
        let slice = self.slice();
        for _ in 0..self.turns.max(1) {
            for (i, load) in loads.iter().enumerate() {
                load.resume();
                tokio::time::sleep(SETTLE).await;
                let before = read(i)?;
                tokio::time::sleep(slice).await;
                let after = read(i)?;
                load.pause();
                add(i, before, after);
            }
        }
        Ok(())
    }
}

/// Checks answers to one body: the first in full, then the others against it.
struct Checker {
    len: usize,
    first: Option<Bytes>,
}

impl Checker {
    fn new(len: usize) -> Self {
        Checker { len, first: None }
    }

    fn check(&mut self, answer: &Bytes) -> anyhow::Result<()> {
        if self.first.as_ref() == Some(answer) {
            return Ok(());
        }
        api::check_answer(answer, self.len)?;
        self.first.get_or_insert_with(|| answer.clone());
        Ok(())
    }
}

/// `connections` HTTP/1.1 keep-alive connections to `url`, each posting the body of a
/// batch of `len` calls (a single call when 1), one request in flight per connection.
///
/// # Errors
///
/// When a connection cannot be opened.
pub(crate) async fn http(url: &str, len: usize, connections: usize) -> anyhow::Result<Load> {
    let uri: hyper::Uri = url.parse().context("parsing the server's URL")?;
    let authority = uri.authority().context("the URL has no host")?.clone();
    let body = Bytes::from(api::body(len));
    let mut load = Load::default();
    for _ in 0..connections {
        let stream = TcpStream::connect(authority.as_str())
            .await
            .with_context(|| format!("connecting to {authority}"))?;
        stream.set_nodelay(true)?;
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .context("HTTP/1.1 handshake")?;
        tokio::spawn(connection);
        let request = post(&uri, &authority)?;
        let body = body.clone();
        load.spawn(move |gauge| http_loop(sender, request, body, len, gauge));
    }
    Ok(load)
}

fn post(
    uri: &hyper::Uri,
    authority: &hyper::http::uri::Authority,
) -> anyhow::Result<hyper::http::request::Builder> {
    let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();
    Ok(hyper::Request::post(path)
        .header(hyper::header::HOST, authority.as_str())
        .header(hyper::header::CONTENT_TYPE, "application/json"))
}

async fn http_loop(
    mut sender: SendRequest<Full<Bytes>>,
    request: hyper::http::request::Builder,
    body: Bytes,
    len: usize,
    gauge: Gauge,
) -> anyhow::Result<()> {
    let mut checker = Checker::new(len);
    let (parts, ()) = request.body(())?.into_parts();
    while gauge.next().await {
        sender.ready().await.context("the HTTP connection closed")?;
        let request = hyper::Request::from_parts(clone_parts(&parts), Full::new(body.clone()));
        let response = sender.send_request(request).await.context("HTTP request")?;
        let status = response.status();
        let answer = response.into_body().collect().await?.to_bytes();
        ensure!(status == hyper::StatusCode::OK, "HTTP status {status}");
        checker.check(&answer)?;
        gauge.add(len as u64);
    }
    Ok(())
}

fn clone_parts(parts: &hyper::http::request::Parts) -> hyper::http::request::Parts {
    let mut request = hyper::Request::new(());
    *request.method_mut() = parts.method.clone();
    *request.uri_mut() = parts.uri.clone();
    *request.headers_mut() = parts.headers.clone();
    request.into_parts().0
}

/// `connections` WebSocket connections to `url`, each sending the single-call body as a
/// text message and waiting for its answer, one call in flight per connection.
///
/// The read buffer is 8 KiB rather than tungstenite's 128 KiB: tungstenite zero-fills
/// the free part of its read buffer before every read, which would make the load
/// generator take cores from the server under test.
///
/// # Errors
///
/// When a connection cannot be opened.
pub(crate) async fn ws(url: &str, connections: usize) -> anyhow::Result<Load> {
    let body = Utf8Bytes::from(api::call(1));
    let mut load = Load::default();
    for _ in 0..connections {
        let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER);
        let (stream, _) = tokio_tungstenite::connect_async_with_config(url, Some(config), true)
            .await
            .with_context(|| format!("WebSocket connection to {url}"))?;
        let body = body.clone();
        load.spawn(move |gauge| ws_loop(stream, body, gauge));
    }
    Ok(load)
}

const READ_BUFFER: usize = 8 * 1024;

type WsStream = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

async fn ws_loop(mut stream: WsStream, body: Utf8Bytes, gauge: Gauge) -> anyhow::Result<()> {
    let mut checker = Checker::new(1);
    while gauge.next().await {
        stream.send(Message::Text(body.clone())).await?;
        let answer = loop {
            match stream.next().await.context("the WebSocket closed")?? {
                Message::Text(text) => break Bytes::from(text),
                Message::Binary(bytes) => break bytes,
                Message::Close(frame) => bail!("the server closed the WebSocket: {frame:?}"),
                _ => {}
            }
        };
        checker.check(&answer)?;
        gauge.add(1);
    }
    let _ = stream.close(None).await;
    Ok(())
}
