//! The server side of the WebSocket handshake: the HTTP [`Service`]'s upgrade to
//! WebSocket ([`Service::websocket`]).

use super::Settings;
use crate::http::server::Socket;
use crate::http::{ReadMetadata, Service, Upgrade};
use crate::transport::peer::{Builder, Peer};
use ::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use ::http::{Method, Request, Response, StatusCode};
use bytes::Bytes;
use http_body_util::Full;
use hyper::upgrade::{OnUpgrade, Upgraded};
use hyper_util::rt::TokioIo;
use std::io::Cursor;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, Chain, Join};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::Role;

impl Service {
    /// Accepts WebSocket connections on the same path (`GET` with `Upgrade: websocket`):
    /// each is a [`Peer`](crate::transport::peer::Peer) made by `peer` and served by
    /// this service's server, its calls seeing the upgrade request's headers, peer
    /// address and extensions in their metadata. Give `peer` a
    /// [`Hub`](crate::transport::peer::Hub) to push to every connection. The HTTP
    /// connection must allow upgrades ([`serve`](crate::http::serve) does; so does axum).
    pub fn websocket(self, peer: Builder, settings: Settings) -> Self {
        let peer = peer.serve(self.server().clone());
        self.upgrade(WebSocket { peer, settings })
    }
}

/// The upgrade of an HTTP request to a WebSocket served by a peer.
#[derive(Debug)]
struct WebSocket {
    peer: Builder,
    settings: Settings,
}

impl Upgrade for WebSocket {
    fn name(&self) -> &'static str {
        "websocket"
    }

    fn asks(&self, method: &Method, headers: &HeaderMap) -> bool {
        method == Method::GET && has_token(headers, header::UPGRADE, "websocket")
    }

    fn switch(&self, request: Request<()>, metadata: ReadMetadata) -> Response<Full<Bytes>> {
        upgrade(request, self.peer.clone(), self.settings.clone(), metadata)
    }
}

fn has_token(headers: &HeaderMap, name: header::HeaderName, token: &str) -> bool {
    headers
        .get_all(name)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|part| part.trim().eq_ignore_ascii_case(token))
}

/// `headers` in allocations of their own. hyper's header names and values are slices of
/// the buffer it read the request into: kept for the connection's lifetime in its
/// metadata, they would keep that whole buffer (8 KiB or more) allocated for as long.
fn owned(headers: &HeaderMap) -> HeaderMap {
    let mut owned = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        let name =
            HeaderName::from_bytes(name.as_str().as_bytes()).unwrap_or_else(|_| name.clone());
        let mut copy = HeaderValue::from_bytes(value.as_bytes()).unwrap_or_else(|_| value.clone());
        copy.set_sensitive(value.is_sensitive());
        owned.append(name, copy);
    }
    owned
}

/// Answers a WebSocket upgrade request and, once hyper hands the connection over, runs
/// a peer on it made by `builder` with the request's `metadata`.
fn upgrade(
    mut request: Request<()>,
    builder: Builder,
    settings: Settings,
    metadata: ReadMetadata,
) -> Response<Full<Bytes>> {
    let headers = request.headers();
    let version_ok = headers
        .get(header::SEC_WEBSOCKET_VERSION)
        .is_some_and(|version| version == "13");
    let Some(key) = headers
        .get(header::SEC_WEBSOCKET_KEY)
        .filter(|_| version_ok)
    else {
        let mut answer = Response::new(Full::new(Bytes::from_static(
            b"WebSocket version 13 and a key are required",
        )));
        *answer.status_mut() = StatusCode::BAD_REQUEST;
        answer.headers_mut().insert(
            header::SEC_WEBSOCKET_VERSION,
            HeaderValue::from_static("13"),
        );
        return answer;
    };
    let accept = derive_accept_key(key.as_bytes());
    let on_upgrade = hyper::upgrade::on(&mut request);
    // Under `serve`, the connection ends when the server shuts down, and keeps its slot
    // among the server's connections while it lives.
    let socket = request.extensions_mut().remove::<Socket>();
    let (mut parts, _) = request.into_parts();
    parts.headers = owned(&parts.headers);
    let builder = builder.metadata(metadata(parts));
    // The connection's task lives as long as the connection, and a task's allocation is
    // the size of its future's largest state: the opening (hyper's hand-over, the
    // builder, the stream being wrapped) is boxed, so that it is given back once the
    // peer runs, and the task keeps only what waiting for the end needs (about 2 KiB
    // less per idle connection; issue 28).
    let opening = Box::pin(open(on_upgrade, builder, settings));
    tokio::spawn(async move {
        if let Some(peer) = opening.await {
            serve_until_closed(peer, socket).await;
        }
    });
    let mut answer = Response::new(Full::new(Bytes::new()));
    *answer.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let headers = answer.headers_mut();
    headers.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    headers.insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
    if let Ok(accept) = HeaderValue::from_str(&accept) {
        headers.insert(header::SEC_WEBSOCKET_ACCEPT, accept);
    }
    answer
}

/// A plain TCP connection taken back from hyper after the handshake.
enum Tcp {
    /// Nothing of the WebSocket was read yet (the usual case: a client waits for the
    /// `101` before it sends).
    Whole(TcpStream),
    /// What hyper had read past the handshake, read first.
    Ahead(Join<Chain<Cursor<Bytes>, OwnedReadHalf>, OwnedWriteHalf>),
}

/// The TCP connection under `upgraded`, when it is one (under
/// [`serve`](crate::http::serve) without TLS, and under axum): the peer then
/// reads and writes the socket itself rather than through hyper's boxed, rewinding
/// wrapper, which costs a few dynamic calls per message each way.
fn upgraded_tcp(upgraded: Upgraded) -> Result<Tcp, Upgraded> {
    let parts = upgraded.downcast::<TokioIo<TcpStream>>()?;
    let tcp = parts.io.into_inner();
    if parts.read_buf.is_empty() {
        return Ok(Tcp::Whole(tcp));
    }
    let (read, write) = tcp.into_split();
    let ahead = Cursor::new(parts.read_buf).chain(read);
    Ok(Tcp::Ahead(tokio::io::join(ahead, write)))
}

/// Waits for hyper to hand the connection over, then starts a peer made by `builder`
/// on it; `None` when the upgrade failed.
async fn open(on_upgrade: OnUpgrade, builder: Builder, settings: Settings) -> Option<Peer> {
    let upgraded = match on_upgrade.await {
        Ok(upgraded) => upgraded,
        Err(error) => {
            tracing::debug!(%error, "WebSocket upgrade failed");
            return None;
        }
    };
    Some(match upgraded_tcp(upgraded) {
        Ok(Tcp::Whole(tcp)) => start(tcp, builder, settings).await,
        Ok(Tcp::Ahead(tcp)) => start(tcp, builder, settings).await,
        Err(other) => start(TokioIo::new(other), builder, settings).await,
    })
}

/// Starts a peer made by `builder` on `io`.
async fn start<S>(io: S, builder: Builder, settings: Settings) -> Peer
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let config = super::config(&builder);
    let io = super::buffered(&settings, io, &config, true);
    let stream = WebSocketStream::from_raw_socket(io, Role::Server, Some(config)).await;
    builder
        .accepted_on(crate::metrics::Transport::Ws)
        .websocket_buffered(stream, settings, true)
}

/// Serves `peer` until it closes, or until the server it came on (under
/// [`serve`](crate::http::serve), `socket`) shuts down.
async fn serve_until_closed(peer: Peer, socket: Option<Socket>) {
    match socket {
        Some(mut socket) => tokio::select! {
            () = peer.closed() => {}
            () = socket.stopping.wait() => {}
        },
        None => peer.closed().await,
    }
    // The server's connection ends with the server, whatever clients of it handlers
    // still hold: it is closed with a close frame. The socket's slot is freed as the
    // task ends.
    peer.close();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_headers_keep_every_value_and_no_shared_buffer() {
        let buffer = bytes::Bytes::from_static(b"x-token: secret\r\nx-tag: a\r\nx-tag: b\r\n");
        let mut headers = HeaderMap::new();
        let mut token = HeaderValue::from_maybe_shared(buffer.slice(9..15)).unwrap();
        token.set_sensitive(true);
        headers.insert(HeaderName::from_static("x-token"), token);
        headers.append(
            "x-tag",
            HeaderValue::from_maybe_shared(buffer.slice(24..25)).unwrap(),
        );
        headers.append(
            "x-tag",
            HeaderValue::from_maybe_shared(buffer.slice(34..35)).unwrap(),
        );
        headers.insert(header::UPGRADE, HeaderValue::from_static("websocket"));

        let owned = owned(&headers);
        assert_eq!(owned, headers);
        assert!(owned["x-token"].is_sensitive());
        let tags: Vec<_> = owned.get_all("x-tag").iter().collect();
        assert_eq!(tags, ["a", "b"]);
        let inside = buffer.as_ptr_range();
        for value in owned.values() {
            assert!(
                !inside.contains(&value.as_bytes().as_ptr()),
                "{value:?} is still a slice of the request's buffer"
            );
        }
    }
}
