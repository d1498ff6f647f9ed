//! WebSocket messages over the size limits, on either side: the connection is closed
//! with the close code that says why.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_over_the_limit_closes_the_connection() {
    let address = http_and_ws(
        ServerSide::default(),
        Peer::builder().max_message_size(1024),
    )
    .await;
    let bystander = ws::connect(url(address), Peer::builder(), Settings::default())
        .await
        .unwrap();
    let peer = ws::connect(url(address), Peer::builder(), Settings::default())
        .await
        .unwrap();
    let big = "x".repeat(4096);
    let outcome = peer
        .client()
        .request::<Vec<String>, _>("echo", &[&big])
        .await;
    // Closed, not a timeout: the closing connection failed the call.
    assert!(matches!(outcome, Err(Error::Closed)), "{outcome:?}");
    let sum: i64 = bystander.client().request("add", &[1, 2]).await.unwrap();
    assert_eq!(sum, 3, "other connections are served on");
}

/// What a raw client reads after sending `message`, up to the end of the connection:
/// the close frame's code and reason, if it got one.
async fn close_after(address: SocketAddr, message: Message) -> Option<(u16, String)> {
    let mut raw = raw_client(address).await;
    raw.send(message).await.unwrap();
    loop {
        match tokio::time::timeout(PATIENCE, raw.next()).await.unwrap() {
            Some(Ok(Message::Close(frame))) => {
                return frame.map(|f| (u16::from(f.code), f.reason.to_string()));
            }
            Some(Ok(_)) => {}
            Some(Err(_)) | None => return None,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_message_gets_the_close_code_that_says_why() {
    let address = http_and_ws(
        ServerSide::default(),
        Peer::builder().max_message_size(1024),
    )
    .await;
    let too_big = close_after(address, Message::text("x".repeat(4096))).await;
    assert_eq!(too_big, Some((1009, "message too big".to_owned())));
    let not_utf8 = Message::Frame(
        tokio_tungstenite::tungstenite::protocol::frame::Frame::message(
            vec![0xff, 0xfe],
            tokio_tungstenite::tungstenite::protocol::frame::coding::OpCode::Data(
                tokio_tungstenite::tungstenite::protocol::frame::coding::Data::Text,
            ),
            true,
        ),
    );
    let invalid = close_after(address, not_utf8).await;
    assert_eq!(invalid, Some((1007, "text is not UTF-8".to_owned())));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_over_the_client_limit_closes_the_connection() {
    let address = http_and_ws(ServerSide::default(), Peer::builder()).await;
    let peer = ws::connect(
        url(address),
        Peer::builder().max_message_size(1024),
        Settings::default(),
    )
    .await
    .unwrap();
    let small: Vec<String> = peer.client().request("echo", &["x"]).await.unwrap();
    assert_eq!(small, ["x"]);
    // The request fits the server's limit; its 4 KiB echo does not fit the client's.
    let big = "x".repeat(4096);
    let outcome = peer
        .client()
        .request::<Vec<String>, _>("echo", &[&big])
        .await;
    assert!(matches!(outcome, Err(Error::Closed)), "{outcome:?}");
    tokio::time::timeout(PATIENCE, peer.closed())
        .await
        .expect("the peer is closed");
}
