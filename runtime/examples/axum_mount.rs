//! JSON-RPC mounted in an axum application: `cargo run -p rpcsmith --example axum_mount`.
//!
//! The rpcsmith HTTP `Service` is one route of an axum `Router`, beside a plain
//! `/health` route, behind tower-http's CORS layer and a bearer-token check written as
//! axum middleware (a tower layer). The check puts the caller's name in the request's
//! extensions; the JSON-RPC handler reads it, and a header, through its `Context`.
//! The same route accepts WebSocket connections. Exits 0 when every answer is the one
//! expected.

use axum::Router;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rpcsmith::client::{Client, Error};
use rpcsmith::http;
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Reply, Server};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::ws;
use serde_json::value::RawValue;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tower_http::cors::CorsLayer;

/// Who the bearer check let in, as a request extension.
#[derive(Clone)]
struct User(String);

/// The bearer-token check: `Authorization: Bearer <token>` with a known token, or 401.
async fn bearer(mut request: Request, next: Next) -> Response {
    let token = request
        .headers()
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    let user = match token {
        Some("s3cret") => "ada",
        _ => return ::http::StatusCode::UNAUTHORIZED.into_response(),
    };
    request.extensions_mut().insert(User(user.to_owned()));
    next.run(request).await
}

/// `whoami` answers the user the layer let in and the caller's `x-client` header.
struct Accounts;

impl Dispatch for Accounts {
    fn call(&self, method: &str, _params: Option<&RawValue>, cx: Context) -> Reply {
        match method {
            "whoami" => {
                let user = cx.metadata().extensions.get::<User>().map(|u| u.0.clone());
                let client = cx
                    .headers()
                    .and_then(|headers| headers.get("x-client"))
                    .and_then(|value| value.to_str().ok());
                Reply::ok(&(user, client))
            }
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rpc = http::Service::new(Server::new(Accounts))
        .websocket(Peer::builder(), ws::Settings::default());
    let app = Router::new()
        .route("/health", get(|| async { "ok" }))
        .route_service("/rpc", rpc)
        .layer(middleware::from_fn(bearer))
        .layer(CorsLayer::permissive());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    tokio::spawn(async move { axum::serve(listener, app).await });
    println!("serving JSON-RPC on http://{address}/rpc inside an axum Router");

    let transport = http::Client::builder(format!("http://{address}/rpc"))
        .header("authorization", "Bearer s3cret")
        .header("x-client", "axum_mount example")
        .build()?;
    let seen: (Option<String>, Option<String>) =
        Client::new(transport).request("whoami", &()).await?;
    println!(
        "over HTTP, the handler saw user {:?} and x-client {:?}",
        seen.0, seen.1
    );
    check(
        seen == (Some("ada".into()), Some("axum_mount example".into())),
        "whoami over HTTP",
    )?;

    let anonymous = Client::new(http::Client::new(&format!("http://{address}/rpc"))?);
    match anonymous
        .request::<(Option<String>, Option<String>), _>("whoami", &())
        .await
    {
        Err(Error::Transport(error)) => println!("without a token: {error}"),
        other => return Err(format!("expected 401, got {other:?}").into()),
    }

    let mut request = format!("ws://{address}/rpc").into_client_request()?;
    let headers = request.headers_mut();
    headers.insert("authorization", "Bearer s3cret".parse()?);
    headers.insert("x-client", "over WebSocket".parse()?);
    let peer = ws::connect(request, Peer::builder(), ws::Settings::default()).await?;
    let seen: (Option<String>, Option<String>) = peer.client().request("whoami", &()).await?;
    println!(
        "over WebSocket, the handler saw user {:?} and x-client {:?}",
        seen.0, seen.1
    );
    check(
        seen == (Some("ada".into()), Some("over WebSocket".into())),
        "whoami over WebSocket",
    )?;
    Ok(())
}

fn check(ok: bool, what: &str) -> Result<(), Box<dyn std::error::Error>> {
    if ok {
        Ok(())
    } else {
        Err(format!("wrong answer: {what}").into())
    }
}
