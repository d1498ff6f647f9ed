//! The HTTP server's connections: shutdown, keep-alive and HTTP/2 multiplexing, the
//! in-flight limit across a connection's streams, bodies and garbage refused as they
//! arrive, and the connection limit.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_refuses_new_connections_and_finishes_a_call_in_flight() {
    let (running, mut started, open) = start_gated().await;
    let client = running.client().with_timeout(PATIENCE);
    let call = tokio::spawn(client.request::<String, _>("wait", &()));
    started.recv().await.expect("the call reached its handler");

    let Running {
        addr,
        stop,
        mut serving,
    } = running;
    stop.send(()).expect("the server is running");
    // The listener closes: new connections are refused...
    let mut refused = false;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let mut ticks = tokio::time::interval(Duration::from_millis(5));
    while !refused && tokio::time::Instant::now() < deadline {
        ticks.tick().await;
        refused = tokio::net::TcpStream::connect(addr).await.is_err();
    }
    assert!(refused, "new connections are refused once shutdown starts");
    // ...while the call in flight holds the server open until it is answered.
    assert!(!call.is_finished());
    assert!(
        futures_util::poll!(&mut serving).is_pending(),
        "serve waits for the call in flight"
    );
    open.send_replace(true);
    assert_eq!(call.await.expect("task").expect("answered"), "done");
    tokio::time::timeout(PATIENCE, serving)
        .await
        .expect("serve returns once the call is answered")
        .expect("serve does not panic");
}

// On two worker threads: the client's pool takes an HTTP/1.1 connection back as soon
// as its answer has been read, before the call returns, so the next call finds it
// whichever thread runs what.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http1_keeps_one_connection_alive_and_http2_multiplexes_one() {
    let (running, _, _) = start_gated().await;
    let url = format!("http://{}", running.addr);
    for (http2, version) in [(false, "HTTP/1.1"), (true, "HTTP/2.0")] {
        let transport = http::Client::builder(url.clone())
            .http2_only(http2)
            .build()
            .expect("valid");
        let client = Client::new(transport);
        let mut ports = std::collections::BTreeSet::new();
        for _ in 0..10 {
            let (port, seen): (Option<u16>, String) =
                client.request("where", &()).await.expect("answered");
            assert_eq!(seen, format!("Some({version})"));
            ports.insert(port.expect("serve sets the peer address"));
        }
        if http2 {
            // Concurrent calls share the one HTTP/2 connection too.
            let calls = (0..20).map(|_| client.request::<(Option<u16>, String), _>("where", &()));
            for answer in futures_util::future::join_all(calls).await {
                ports.insert(answer.expect("answered").0.expect("a peer address"));
            }
        }
        assert_eq!(
            ports.len(),
            1,
            "{version}: one connection, kept alive: {ports:?}"
        );
    }
    running.stop().await;
}

/// An HTTP/2 connection to `addr`, made by hand: every request sent through it is a
/// stream of that one socket.
async fn h2(addr: SocketAddr) -> hyper::client::conn::http2::SendRequest<Full<Bytes>> {
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (sender, connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .expect("an HTTP/2 handshake");
    tokio::spawn(connection);
    sender
}

/// Posts one JSON-RPC message on `sender`'s connection; the answer as JSON.
async fn h2_call(
    mut sender: hyper::client::conn::http2::SendRequest<Full<Bytes>>,
    message: &'static str,
) -> Value {
    let request = Request::post("http://localhost/")
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from_static(message.as_bytes())))
        .expect("a request");
    let response = sender.send_request(request).await.expect("answered");
    let body = response.into_body().collect().await.expect("a body");
    json(&body.to_bytes())
}

#[tokio::test]
async fn http2_streams_of_one_connection_share_its_in_flight_limit() {
    let (started, mut started_rx) = tokio::sync::mpsc::unbounded_channel();
    let (open, gate) = tokio::sync::watch::channel(false);
    let mut limits = rpcsmith::server::Limits::default();
    limits.max_in_flight = 1;
    let server = Server::builder(Gated { started, gate })
        .limits(limits)
        .build();
    let running = start(Service::new(server)).await;
    let wait = r#"{"jsonrpc":"2.0","method":"wait","id":1}"#;
    let probe = r#"{"jsonrpc":"2.0","method":"where","id":2}"#;

    let one = h2(running.addr).await;
    let waiting = tokio::spawn(h2_call(one.clone(), wait));
    started_rx
        .recv()
        .await
        .expect("the call reached its handler");
    // Another stream of the same connection finds its one slot taken...
    let busy = h2_call(one.clone(), probe).await;
    assert_eq!(busy["error"]["code"], code::SERVER_BUSY, "{busy}");
    // ...while another connection has a budget of its own.
    let other = h2_call(h2(running.addr).await, probe).await;
    assert!(other["result"].is_array(), "{other}");

    open.send_replace(true);
    assert_eq!(waiting.await.expect("task")["result"], "done");
    let free = h2_call(one, probe).await;
    assert!(free["result"].is_array(), "the slot is free again: {free}");
    running.stop().await;
}

#[tokio::test]
async fn a_chunked_body_over_the_limit_is_refused_while_it_is_still_arriving() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let running = start(Service::new(client_support::server()).max_request_size(1024)).await;
    let mut socket = tokio::net::TcpStream::connect(running.addr)
        .await
        .expect("connect");
    let head = "POST / HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n\
                transfer-encoding: chunked\r\n\r\n";
    socket.write_all(head.as_bytes()).await.expect("write");
    // 2 KiB of body, no length announced, and no final chunk: the body never ends.
    for _ in 0..4 {
        socket.write_all(b"200\r\n").await.expect("write");
        socket.write_all(&[b' '; 512]).await.expect("write");
        socket.write_all(b"\r\n").await.expect("write");
    }
    let mut answer = Vec::new();
    let mut buffer = [0; 1024];
    while !answer.windows(6).any(|w| w == b"-32007") {
        let read = tokio::time::timeout(PATIENCE, socket.read(&mut buffer))
            .await
            .expect("an answer before the body ends")
            .expect("read");
        assert!(read > 0, "closed without an answer: {answer:?}");
        answer.extend_from_slice(&buffer[..read]);
    }
    assert!(
        answer.starts_with(b"HTTP/1.1 413"),
        "{}",
        String::from_utf8_lossy(&answer)
    );
    running.stop().await;
}

#[tokio::test]
async fn garbage_on_the_port_closes_that_connection_only() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let running = start(Service::new(client_support::server())).await;
    let client = running.client();
    assert_eq!(
        client
            .request::<i64, _>("add", &[1, 2])
            .await
            .expect("answered"),
        3
    );
    let mut socket = tokio::net::TcpStream::connect(running.addr)
        .await
        .expect("connect");
    socket
        .write_all(b"\x16\x03\x01 this is not HTTP\r\n\r\n")
        .await
        .expect("write");
    let mut rest = Vec::new();
    let read = tokio::time::timeout(PATIENCE, socket.read_to_end(&mut rest)).await;
    assert!(matches!(read, Ok(Ok(_))), "the server closed it: {read:?}");
    assert!(
        rest.is_empty() || rest.starts_with(b"HTTP/1.1 400"),
        "{}",
        String::from_utf8_lossy(&rest)
    );
    // The other client's kept-alive connection, and new ones, are still served.
    assert_eq!(
        client
            .request::<i64, _>("add", &[2, 2])
            .await
            .expect("answered"),
        4
    );
    assert_eq!(
        running
            .client()
            .request::<i64, _>("add", &[3, 3])
            .await
            .expect("answered"),
        6
    );
    running.stop().await;
}

#[tokio::test]
async fn connections_beyond_the_limit_are_refused_until_a_slot_is_free() {
    let service = Service::new(client_support::server());
    let running = start_with(move |listener, shutdown| {
        Serve::new(listener, service)
            .max_connections(1)
            .run(shutdown)
    })
    .await;
    let first = running.client();
    assert_eq!(
        first
            .request::<i64, _>("add", &[1, 1])
            .await
            .expect("answered"),
        2
    );
    // The only slot is taken: refused at once, with a JSON-RPC error.
    let second = running.client().with_timeout(Duration::from_secs(5));
    let refused = second.request::<i64, _>("add", &[2, 2]).await;
    assert!(
        matches!(&refused, Err(Error::Undeclared(error)) if error.code == -32009),
        "the only slot is taken: {refused:?}"
    );
    drop((first, second));
    // Once the first connection has closed, its slot serves another.
    let third = running.client().with_timeout(Duration::from_secs(5));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let served = loop {
        match third.request::<i64, _>("add", &[3, 3]).await {
            Err(Error::Undeclared(error))
                if error.code == -32009 && tokio::time::Instant::now() < deadline =>
            {
                tokio::task::yield_now().await;
            }
            other => break other,
        }
    };
    assert_eq!(served.expect("a slot is free"), 6);
    running.stop().await;
}
