//! Deadlines that travel: a call's deadline (from `Client::with_timeout` or a method
//! timeout) goes with the request — the `Rpc-Deadline` header over HTTP, the params'
//! `_meta` over a byte stream or WebSocket — the handler sees it in its `Context`, is
//! cancelled when it passes (`-32018`), and a proxy forwards what is left of it. On
//! loopback sockets; the deadline passes on paused tokio time.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use rpcsmith::client::{Client, Error, Exchange, Middleware, Next, SendFuture};
use rpcsmith::http;
use rpcsmith::protocol::{ErrorObject, code, deadline};
use rpcsmith::proxy::{Proxy, Upstream};
use rpcsmith::server::{BoxFuture, Context, Dispatch, Reply, Server};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith::transport::ws::{self, Settings};
use serde_json::json;
use serde_json::value::RawValue;

/// `left`: the milliseconds the caller still waits (`null` without a deadline);
/// `hang`: never answers, counting its starts and its cancellations.
#[derive(Default)]
struct Waiter {
    started: AtomicUsize,
    cancelled: Arc<AtomicUsize>,
}

struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// The server's handle on the shared [`Waiter`].
struct Shared(Arc<Waiter>);

impl Dispatch for Shared {
    fn call(&self, method: &str, _: Option<&RawValue>, cx: Context) -> Reply {
        match method {
            "left" => Reply::ok(&cx.remaining().map(|left| left.as_millis() as u64)),
            "hang" => {
                assert!(cx.deadline().is_some(), "hang is called with a deadline");
                self.0.started.fetch_add(1, Ordering::SeqCst);
                let guard = Counted(Arc::clone(&self.0.cancelled));
                Reply::future(async move {
                    std::future::pending::<()>().await;
                    drop(guard);
                    rpcsmith::server::encode(&())
                })
            }
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

fn server(waiter: &Arc<Waiter>) -> Server {
    Server::builder(Shared(Arc::clone(waiter))).build()
}

/// `waiter` over HTTP and WebSocket on a free loopback port.
async fn serve_http(server: Server) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = http::Service::new(server).websocket(Peer::builder(), Settings::default());
    tokio::spawn(http::serve(listener, service, std::future::pending()));
    address
}

/// `waiter` over TCP, one JSON message a line, on a free loopback port.
async fn serve_tcp(server: Server) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let builder = Peer::builder().serve(server);
    tokio::spawn(stream::serve_tcp(
        listener,
        builder,
        Codec::Newline,
        std::future::pending(),
    ));
    address
}

fn http_client(address: SocketAddr, timeout: Duration) -> Client {
    let transport = http::Client::new(&format!("http://{address}/")).unwrap();
    Client::builder().timeout(timeout).build(transport)
}

fn left_of(answer: Option<u64>) -> u64 {
    answer.expect("the call carried a deadline")
}

#[tokio::test]
async fn with_timeout_travels_as_a_header_over_http() {
    let waiter = Arc::<Waiter>::default();
    let address = serve_http(server(&waiter)).await;
    let client = http_client(address, Duration::from_secs(30));
    // The client's default timeout is its own business: nothing travels.
    let none: Option<u64> = client.request("left", &json!({})).await.unwrap();
    assert_eq!(none, None);
    let left: Option<u64> = client
        .with_timeout(Duration::from_secs(7))
        .request("left", &[1])
        .await
        .unwrap();
    assert!((6_000..=7_000).contains(&left_of(left)), "{left:?}");
    let timed = Client::builder()
        .method_timeout("left", Duration::from_secs(3))
        .build(http::Client::new(&format!("http://{address}/")).unwrap());
    let left: Option<u64> = timed.request("left", &()).await.unwrap();
    assert!((2_000..=3_000).contains(&left_of(left)), "{left:?}");
    let quiet = Client::builder()
        .deadlines(false)
        .build(http::Client::new(&format!("http://{address}/")).unwrap());
    let none: Option<u64> = quiet
        .with_timeout(Duration::from_secs(3))
        .request("left", &())
        .await
        .unwrap();
    assert_eq!(none, None, "turned off");
}

#[tokio::test]
async fn with_timeout_travels_in_meta_over_websocket_and_tcp() {
    let waiter = Arc::<Waiter>::default();
    let http = serve_http(server(&waiter)).await;
    let tcp = serve_tcp(server(&waiter)).await;
    let over_ws = ws::connect(
        format!("ws://{http}/"),
        Peer::builder(),
        Settings::default(),
    )
    .await
    .unwrap();
    let over_tcp = stream::connect_tcp(Peer::builder(), Codec::Newline, tcp)
        .await
        .unwrap();
    for peer in [&over_ws, &over_tcp] {
        let client = peer.client().with_timeout(Duration::from_secs(9));
        let left: Option<u64> = client.request("left", &json!({"a": 1})).await.unwrap();
        assert!((8_000..=9_000).contains(&left_of(left)), "{left:?}");
        // Params by position have no room for `_meta`: the server's limit alone holds.
        let none: Option<u64> = client.request("left", &[1]).await.unwrap();
        assert_eq!(none, None);
    }
}

/// Puts a deadline `after` from now on every HTTP exchange, whatever the client's own
/// timeout: so that the server's clock alone decides.
struct DeadlineHeader(Duration);

impl Middleware for DeadlineHeader {
    fn send<'a>(&'a self, mut exchange: Exchange, next: Next<'a>) -> SendFuture<'a> {
        let at = deadline::format(SystemTime::now() + self.0).unwrap();
        exchange
            .headers_mut()
            .insert(deadline::HEADER, at.parse().unwrap());
        next.run(exchange)
    }
}

fn refused_with(outcome: Result<(), Error>, expected: i64) {
    match outcome {
        Err(Error::Undeclared(error)) => assert_eq!(error.code, expected, "{error:?}"),
        other => panic!("expected {expected}, got {other:?}"),
    }
}

// Paused time: the only timer is the server's deadline, so it passes as soon as the
// handler waits.
#[tokio::test(start_paused = true)]
async fn the_handler_is_cancelled_when_the_deadline_passes_over_http() {
    let waiter = Arc::<Waiter>::default();
    let address = serve_http(server(&waiter)).await;
    let client = Client::builder()
        .timeout(Duration::from_secs(3_600))
        .middleware(DeadlineHeader(Duration::from_secs(5)))
        .build(http::Client::new(&format!("http://{address}/")).unwrap());
    let started = tokio::time::Instant::now();
    refused_with(client.request("hang", &()).await, code::DEADLINE_EXCEEDED);
    let waited = started.elapsed();
    assert!(waited <= Duration::from_secs(5), "{waited:?}");
    assert!(waited >= Duration::from_secs(4), "{waited:?}");
    assert_eq!(waiter.started.load(Ordering::SeqCst), 1);
    assert_eq!(
        waiter.cancelled.load(Ordering::SeqCst),
        1,
        "the handler was dropped"
    );
    // A deadline already past on arrival: answered at once, the handler never runs.
    let late = Client::builder()
        .timeout(Duration::from_secs(3_600))
        .middleware(DeadlineHeader(Duration::ZERO))
        .build(http::Client::new(&format!("http://{address}/")).unwrap());
    refused_with(late.request("hang", &()).await, code::DEADLINE_EXCEEDED);
    assert_eq!(waiter.started.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn the_handler_is_cancelled_when_the_deadline_passes_over_tcp() {
    let waiter = Arc::<Waiter>::default();
    let address = serve_tcp(server(&waiter)).await;
    let peer = stream::connect_tcp(
        Peer::builder().timeout(Duration::from_secs(3_600)),
        Codec::Newline,
        address,
    )
    .await
    .unwrap();
    let at = deadline::format(SystemTime::now() + Duration::from_secs(5)).unwrap();
    let outcome = peer
        .client()
        .request("hang", &json!({"_meta": {"deadline": at}}))
        .await;
    refused_with(outcome, code::DEADLINE_EXCEEDED);
    assert_eq!(
        waiter.cancelled.load(Ordering::SeqCst),
        1,
        "the handler was dropped"
    );
}

/// The upstream's client, handed out after `delay`: the front's own share of the
/// caller's time.
struct Slow {
    client: Client,
    delay: Duration,
}

impl Upstream for Slow {
    fn client(&self, _: &Context) -> BoxFuture<'static, Result<Client, ErrorObject>> {
        let (client, delay) = (self.client.clone(), self.delay);
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            Ok(client)
        })
    }
}

#[tokio::test(start_paused = true)]
async fn a_proxy_forwards_what_is_left_of_the_deadline() {
    let waiter = Arc::<Waiter>::default();
    // Caller -HTTP-> proxy -TCP-> upstream: header in, `_meta` out.
    let upstream = serve_tcp(server(&waiter)).await;
    let peer = stream::connect_tcp(Peer::builder(), Codec::Newline, upstream)
        .await
        .unwrap();
    let proxy = Proxy::new(Slow {
        client: peer.client().clone(),
        delay: Duration::from_secs(2),
    });
    let front = serve_http(Server::builder(proxy).build()).await;
    let client = http_client(front, Duration::from_secs(30));
    let left: Option<u64> = client
        .with_timeout(Duration::from_secs(10))
        .request("left", &json!({}))
        .await
        .unwrap();
    // 10 s, less the 2 s the front spent, less the wall clock's few milliseconds.
    assert!((7_000..=8_000).contains(&left_of(left)), "{left:?}");
    // And the hop's share counts against the call: 3 s given, 2 s spent in front.
    let outcome = client
        .with_timeout(Duration::from_secs(3))
        .request::<(), _>("hang", &json!({}))
        .await;
    match outcome {
        // The upstream's -32018, answered through the proxy, or the proxy's own client
        // giving up at the same instant.
        Err(Error::Undeclared(error)) => assert!(
            [code::DEADLINE_EXCEEDED, code::TIMEOUT].contains(&error.code),
            "{error:?}"
        ),
        Err(Error::Timeout) => {}
        other => panic!("{other:?}"),
    }
}
