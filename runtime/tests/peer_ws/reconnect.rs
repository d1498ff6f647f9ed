//! A WebSocket client that reconnects: across a server restart, reporting its connection
//! state, giving up after its retries, and closing without a policy.

use super::*;

/// A WebSocket server on `address` whose connections end when the returned sender is
/// dropped.
async fn droppable_server(address: SocketAddr) -> tokio::sync::oneshot::Sender<()> {
    let listener = tokio::net::TcpListener::bind(address).await.unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        let mut peers = Vec::new();
        let accept = async {
            loop {
                let (socket, _) = listener.accept().await.unwrap();
                let stream = tokio_tungstenite::accept_async(socket).await.unwrap();
                let builder = Peer::builder().serve(Server::new(ServerSide::default()));
                peers.push(builder.websocket(stream, Settings::default()));
            }
        };
        tokio::select! { _ = stopped => {}, () = accept => {} }
    });
    stop
}

/// An address on 127.0.0.1 where nothing listens (yet).
async fn free_address() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnecting_client_survives_a_server_restart() {
    // Real delays between attempts, short: each wait below is for an answer.
    let policies = [
        Reconnect::Fixed(Duration::from_millis(20)),
        Reconnect::Exponential {
            initial: Duration::from_millis(5),
            max: Duration::from_millis(40),
        },
    ];
    for policy in policies {
        survives_a_restart(policy).await;
    }
}

async fn survives_a_restart(policy: Reconnect) {
    let address = free_address().await;
    let builder = Peer::builder().timeout(PATIENCE);
    let client =
        Reconnecting::connect(url(address), builder, Settings::default(), policy.clone()).unwrap();
    // The server is not up yet: a call with a short timeout times out (it is not
    // refused), and one with a long timeout waits for the first connection. (The short
    // one's real timeout is what is tested: no server can answer it.)
    let short = client.with_timeout(Duration::from_millis(100));
    let refused = short.request::<i64, _>("add", &[1, 1]).await;
    assert!(
        matches!(refused, Err(Error::Timeout)),
        "{policy:?}: {refused:?}"
    );
    let early = tokio::spawn(client.request::<i64, _>("add", &[1, 1]));
    let stop = droppable_server(address).await;
    assert_eq!(early.await.unwrap().unwrap(), 2, "{policy:?}");

    let hung = tokio::spawn(client.request::<(), _>("hang", &()));
    assert!(eventually(|| client.pending() == 1).await);
    drop(stop);
    let lost = hung.await.unwrap();
    assert!(
        matches!(lost, Err(Error::Closed)),
        "{policy:?}: a lost call fails: {lost:?}"
    );
    assert!(
        !client.is_closed(),
        "{policy:?}: the client itself lives on"
    );

    // While the server is down, calls wait up to their timeout.
    let waiting = short.request::<i64, _>("add", &[1, 1]).await;
    assert!(
        matches!(waiting, Err(Error::Timeout)),
        "{policy:?}: {waiting:?}"
    );
    let waiting = tokio::spawn(client.request::<i64, _>("add", &[2, 3]));
    let _restarted = droppable_server(address).await;
    assert_eq!(
        waiting.await.unwrap().unwrap(),
        5,
        "{policy:?}: served after reconnecting"
    );
}

/// Waits up to [`PATIENCE`] for `states` to reach a state that `wanted` accepts.
async fn reach(
    states: &mut tokio::sync::watch::Receiver<ConnectionState>,
    wanted: impl FnMut(&ConnectionState) -> bool,
) {
    let reached = matches!(
        tokio::time::timeout(PATIENCE, states.wait_for(wanted)).await,
        Ok(Ok(_))
    );
    assert!(reached, "still {:?}", *states.borrow());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnecting_client_reports_its_connection_state() {
    let address = free_address().await;
    // Real delays between attempts, short: each wait below is for a state.
    let policy = Reconnect::Fixed(Duration::from_millis(20));
    let (client, mut states) =
        Reconnecting::connect_watched(url(address), Peer::builder(), Settings::default(), policy)
            .unwrap();
    // No server yet: the attempt fails and the client waits before the next.
    let waiting = ConnectionState::Waiting {
        delay: Duration::from_millis(20),
    };
    reach(&mut states, |state| *state == waiting).await;
    let stop = droppable_server(address).await;
    reach(&mut states, |state| *state == ConnectionState::Connected).await;
    let sum: i64 = client.request("add", &[2, 3]).await.unwrap();
    assert_eq!(sum, 5);
    // Lost, then found again.
    drop(stop);
    reach(&mut states, |state| *state != ConnectionState::Connected).await;
    let _restarted = droppable_server(address).await;
    reach(&mut states, |state| *state == ConnectionState::Connected).await;
    // Every clone of the client dropped: closed for good.
    drop(client);
    reach(&mut states, |state| *state == ConnectionState::Closed).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_gives_up_after_its_maximum_of_retries() {
    let address = free_address().await;
    let stop = droppable_server(address).await;
    // Real delays between attempts, short: the test waits for the client to close.
    let policy = Reconnect::Fixed(Duration::from_millis(5))
        .jitter(0.5)
        .max_retries(3);
    let (client, mut states) =
        Reconnecting::connect_watched(url(address), Peer::builder(), Settings::default(), policy)
            .unwrap();
    let sum: i64 = client.request("add", &[2, 3]).await.unwrap();
    assert_eq!(sum, 5);
    // The server goes away for good: three retries fail, and the client closes.
    drop(stop);
    reach(&mut states, |state| *state == ConnectionState::Closed).await;
    assert!(client.is_closed());
    assert!(matches!(
        client.request::<i64, _>("add", &[1, 1]).await,
        Err(Error::Closed)
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_reconnection_a_lost_connection_closes_the_client() {
    let address = free_address().await;
    let stop = droppable_server(address).await;
    let client = Reconnecting::connect(
        url(address),
        Peer::builder(),
        Settings::default(),
        Reconnect::Never,
    )
    .unwrap();
    let sum: i64 = client.request("add", &[2, 3]).await.unwrap();
    assert_eq!(sum, 5);
    drop(stop);
    assert!(eventually(|| client.is_closed()).await);
    assert!(matches!(
        client.request::<i64, _>("add", &[1, 1]).await,
        Err(Error::Closed)
    ));
}
