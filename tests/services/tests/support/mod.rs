//! What the end-to-end tests share: a generated server reached over memory or HTTP.

use rpcsmith::client::Client;
use rpcsmith::http;
use rpcsmith::server::Server;
use rpcsmith::transport::memory;
use tokio::sync::oneshot;

/// A client of `server`, over memory or over HTTP on a loopback port; with HTTP, the
/// sender whose drop stops the server.
pub(crate) async fn connect(
    server: Server,
    over_http: bool,
) -> (Client, Option<oneshot::Sender<()>>) {
    if !over_http {
        return (memory::connect(server), None);
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(http::serve(listener, http::Service::new(server), async {
        let _ = stopped.await;
    }));
    (Client::new(http::Client::new(&url).unwrap()), Some(stop))
}
