//! What the subscription tests over symmetric peers share: a generated server served on
//! a loopback port, over WebSocket or a newline-framed TCP byte stream, and a peer
//! connected to it.
#![allow(dead_code, unreachable_pub)]

use rpcsmith::http;
use rpcsmith::server::Server;
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith::transport::ws;
use tokio::net::TcpListener;

/// How the client reaches the server.
#[derive(Debug, Clone, Copy)]
pub enum Over {
    /// WebSocket, served by the HTTP service's upgrade.
    WebSocket,
    /// A TCP byte stream, newline-framed.
    Tcp,
}

/// Serves `server` on a free loopback port, for as long as the test runs, and connects a
/// peer to it.
pub async fn connected(server: Server, over: Over) -> Peer {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    match over {
        Over::WebSocket => {
            let service =
                http::Service::new(server).websocket(Peer::builder(), ws::Settings::default());
            tokio::spawn(http::serve(listener, service, std::future::pending()));
            let url = format!("ws://{address}/");
            ws::connect(url, Peer::builder(), ws::Settings::default())
                .await
                .unwrap()
        }
        Over::Tcp => {
            let builder = Peer::builder().serve(server);
            let serving =
                stream::serve_tcp(listener, builder, Codec::Newline, std::future::pending());
            tokio::spawn(serving);
            stream::connect_tcp(Peer::builder(), Codec::Newline, address)
                .await
                .unwrap()
        }
    }
}
