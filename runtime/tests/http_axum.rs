//! The HTTP service mounted inside an axum `Router`, behind tower-http's CORS layer and
//! a bearer-token tower layer whose verdict handlers read through the context; HTTP and
//! WebSocket on the same route.

use axum::Router;
use axum::routing::get;
use rpcsmith::client::Client;
use rpcsmith::http;
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Reply, Server};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::ws::{self, Settings};
use serde_json::value::RawValue;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tower_http::cors::CorsLayer;

/// Who the bearer layer let in: put in the request's extensions, read by handlers.
#[derive(Debug, Clone)]
struct User(&'static str);

/// A tower layer that lets a request in only with `Authorization: Bearer secret`.
#[derive(Clone)]
struct Bearer;

impl<S> tower::Layer<S> for Bearer {
    type Service = BearerService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        BearerService(inner)
    }
}

#[derive(Clone)]
struct BearerService<S>(S);

type Request = ::http::Request<axum::body::Body>;
type Response = axum::response::Response;

impl<S> tower::Service<Request> for BearerService<S>
where
    S: tower::Service<Request, Response = Response> + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        let authorized = request
            .headers()
            .get(::http::header::AUTHORIZATION)
            .is_some_and(|value| value == "Bearer secret");
        if !authorized {
            let mut refused = Response::new(axum::body::Body::empty());
            *refused.status_mut() = ::http::StatusCode::UNAUTHORIZED;
            return Box::pin(async move { Ok(refused) });
        }
        request.extensions_mut().insert(User("ada"));
        Box::pin(self.0.call(request))
    }
}

/// `whoami` answers the user the layer let in; `header` the request's `x-client`.
struct WhoAmI;

impl Dispatch for WhoAmI {
    fn call(&self, method: &str, _: Option<&RawValue>, cx: Context) -> Reply {
        match (method, cx.metadata().extensions.get::<User>()) {
            ("whoami", Some(user)) => Reply::ok(user.0),
            ("whoami", None) => Reply::err(ErrorObject::new(401, "nobody")),
            ("header", _) => Reply::ok(
                &cx.headers()
                    .and_then(|headers| headers.get("x-client"))
                    .and_then(|value| value.to_str().ok()),
            ),
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

async fn app() -> std::net::SocketAddr {
    let rpc =
        http::Service::new(Server::new(WhoAmI)).websocket(Peer::builder(), Settings::default());
    let origin = ::http::HeaderValue::from_static("https://app.example");
    let router = Router::new()
        .route("/health", get(|| async { "ok" }))
        .route_service("/rpc", rpc)
        .layer(Bearer)
        .layer(
            CorsLayer::new()
                .allow_origin(origin)
                .allow_headers([::http::header::AUTHORIZATION, ::http::header::CONTENT_TYPE])
                .allow_methods([::http::Method::POST]),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    address
}

fn rpc_client(address: std::net::SocketAddr, token: Option<&str>) -> Client {
    let mut builder = http::Client::builder(format!("http://{address}/rpc"));
    if let Some(token) = token {
        builder = builder.header("authorization", &format!("Bearer {token}"));
    }
    Client::new(builder.build().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_handler_reads_what_the_bearer_layer_decided() {
    let address = app().await;
    let user: String = rpc_client(address, Some("secret"))
        .request("whoami", &())
        .await
        .unwrap();
    assert_eq!(user, "ada");
    let transport = http::Client::builder(format!("http://{address}/rpc"))
        .header("authorization", "Bearer secret")
        .header("x-client", "test suite")
        .build()
        .unwrap();
    let header: Option<String> = Client::new(transport).request("header", &()).await.unwrap();
    assert_eq!(
        header.as_deref(),
        Some("test suite"),
        "a header through the context"
    );
    let refused = rpc_client(address, Some("wrong"))
        .request::<String, _>("whoami", &())
        .await;
    assert!(
        matches!(&refused, Err(rpcsmith::client::Error::Transport(e)) if e.to_string().contains("401")),
        "{refused:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cors_and_other_routes_live_beside_the_rpc_route() {
    use http_body_util::{BodyExt, Empty};
    use hyper_util::client::legacy::Client as Hyper;
    let address = app().await;
    let hyper =
        Hyper::builder(hyper_util::rt::TokioExecutor::new()).build_http::<Empty<bytes::Bytes>>();
    let preflight = ::http::Request::options(format!("http://{address}/rpc"))
        .header("origin", "https://app.example")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "authorization")
        .body(Empty::new())
        .unwrap();
    let answer = hyper.request(preflight).await.unwrap();
    assert!(answer.status().is_success(), "{}", answer.status());
    let allowed = answer.headers().get("access-control-allow-origin").unwrap();
    assert_eq!(allowed, "https://app.example");

    let health = ::http::Request::get(format!("http://{address}/health"))
        .header("authorization", "Bearer secret")
        .body(Empty::new())
        .unwrap();
    let body = hyper
        .request(health)
        .await
        .unwrap()
        .into_body()
        .collect()
        .await
        .unwrap();
    assert_eq!(&body.to_bytes()[..], b"ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_through_the_router_and_its_layers() {
    let address = app().await;
    let mut request = format!("ws://{address}/rpc").into_client_request().unwrap();
    request
        .headers_mut()
        .insert("authorization", "Bearer secret".parse().unwrap());
    let peer = ws::connect(request, Peer::builder(), Settings::default())
        .await
        .unwrap();
    let user: String = peer.client().request("whoami", &()).await.unwrap();
    assert_eq!(user, "ada");

    let unauthorized = format!("ws://{address}/rpc");
    assert!(
        ws::connect(unauthorized, Peer::builder(), Settings::default())
            .await
            .is_err()
    );
}
