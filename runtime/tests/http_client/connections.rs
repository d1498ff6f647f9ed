//! The HTTP client's connections: one kept alive and reused, at most `max_connections`
//! at once, closed when idle past the timeout, and not reused once the server closed it.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sequential_calls_reuse_one_kept_alive_connection() {
    let raw = raw_server(|body, _| ok(sum(&body))).await;
    let client = client(&raw);
    for n in 0..20_i64 {
        let total = client
            .request::<i64, _>("add", &[n, 1])
            .await
            .expect("answered");
        assert_eq!(total, n + 1);
    }
    assert_eq!(raw.connections.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_open_at_most_max_connections() {
    let (gate, held) = watch::channel(false);
    let (reported, mut arrived) = mpsc::unbounded_channel();
    let raw = gated_server(held, reporting_sum(reported)).await;
    let transport = http::Client::builder(format!("http://{}", raw.addr))
        .max_connections(2)
        .build()
        .expect("valid");
    let client = Client::builder()
        .timeout(Duration::from_secs(5))
        .build(transport);
    let calls = (0..8_i64).map(|n| {
        let client = client.clone();
        tokio::spawn(async move { client.request::<i64, _>("add", &[n, 1]).await })
    });
    let calls: Vec<_> = calls.collect();
    // Two calls held at the server, one on each connection; the other six wait for one.
    arrivals(&mut arrived, 2).await;
    gate.send_replace(true);
    for (n, call) in calls.into_iter().enumerate() {
        let total = call.await.expect("task").expect("answered in turn");
        assert_eq!(total, n as i64 + 1);
    }
    assert_eq!(raw.connections.load(Ordering::SeqCst), 2);
    // A call waiting for a free connection still ends at its timeout: both are held
    // by calls the server does not answer until the test lets it. (A real timeout is
    // what is tested; it is short because nothing else can end that call.)
    gate.send_replace(false);
    let hasty = client.with_timeout(Duration::from_millis(20));
    let busy: Vec<_> = (0..2)
        .map(|_| tokio::spawn(client.request::<i64, _>("add", &[1, 1])))
        .collect();
    arrivals(&mut arrived, 6 + 2).await;
    let waited = hasty.request::<i64, _>("add", &[1, 1]).await;
    assert!(matches!(waited, Err(Error::Timeout)), "{waited:?}");
    gate.send_replace(true);
    for call in busy {
        assert_eq!(call.await.expect("task").expect("answered"), 2);
    }
}

#[tokio::test]
async fn a_connection_idle_past_the_idle_timeout_is_closed() {
    let raw = raw_server(|body, _| ok(sum(&body))).await;
    // The idle timeout under test, short so that the test is: the test then waits for
    // the connection to end (the server sees it close), not for a guessed time.
    let transport = http::Client::builder(format!("http://{}", raw.addr))
        .idle_timeout(Duration::from_millis(40))
        .build()
        .expect("valid");
    let client = Client::new(transport);
    assert_eq!(
        client
            .request::<i64, _>("add", &[1, 1])
            .await
            .expect("answered"),
        2
    );
    assert_eq!(
        client
            .request::<i64, _>("add", &[1, 2])
            .await
            .expect("answered"),
        3
    );
    assert_eq!(raw.connections.load(Ordering::SeqCst), 1, "kept alive");
    raw.closed(1).await;
    assert_eq!(
        client
            .request::<i64, _>("add", &[1, 3])
            .await
            .expect("answered"),
        4
    );
    assert_eq!(
        raw.connections.load(Ordering::SeqCst),
        2,
        "closed while idle"
    );
}

/// A server that answers one request per connection and closes it after, although its
/// answer said nothing of closing (`Connection: close` would have told the client), as a
/// server closes kept-alive connections once they have been idle for a while. A
/// connection counts as closed once the client has closed its end too: it has seen the
/// server's close.
async fn one_answer_per_connection_server() -> Raw {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let raw = Raw::new(listener.local_addr().expect("address"));
    let counter = Arc::clone(&raw.connections);
    let closed = Arc::clone(&raw.closed);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            let closed = Arc::clone(&closed);
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buffer = [0_u8; 4096];
                while !request_is_complete(&request) {
                    match stream.read(&mut buffer).await {
                        Ok(0) | Err(_) => return,
                        Ok(read) => request.extend_from_slice(&buffer[..read]),
                    }
                }
                let body = String::from_utf8_lossy(&request);
                let id = body
                    .split("\"id\":")
                    .nth(1)
                    .and_then(|rest| rest.split(['}', ',']).next())
                    .unwrap_or("null")
                    .to_owned();
                let answer = format!(r#"{{"jsonrpc":"2.0","result":"fresh","id":{id}}}"#);
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{answer}",
                    answer.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                // Closes its sending half, then reads until the client closes its own.
                let _ = stream.shutdown().await;
                let rest = tokio::time::timeout(PATIENCE, stream.read_to_end(&mut request));
                if rest.await.is_ok() {
                    closed.send_modify(|n| *n += 1);
                }
            });
        }
    });
    raw
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_alive_connection_the_server_closed_is_not_used_again() {
    let raw = one_answer_per_connection_server().await;
    let client = client(&raw);
    for n in 1..=10 {
        let answer: String = client.request("add", &()).await.expect("answered");
        assert_eq!(answer, "fresh");
        // Until the client has seen the server close it (a request sent just as the
        // server closes fails: it may have run).
        raw.closed(n).await;
    }
    assert_eq!(raw.connections.load(Ordering::SeqCst), 10);
}
