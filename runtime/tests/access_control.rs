//! Access control over HTTP with real headers: an authentication middleware turns
//! `Authorization: Bearer …` into the caller's scopes, and a rule maps each method to
//! the scope it needs.

mod support;

use rpcsmith::client::{Client, Error};
use rpcsmith::http::{self, Service};
use rpcsmith::protocol::{ErrorObject, code};
use rpcsmith::server::access::{Access, RequiredScopes, Scopes};
use rpcsmith::server::{BoxFuture, Call, CallResult, Middleware, Next, Server};
use support::TestMethods;
use tokio::net::TcpListener;

/// Known tokens and the scopes they grant; a real service verifies a signed token.
struct Bearer;

impl Middleware for Bearer {
    fn call<'a>(&'a self, mut call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, CallResult> {
        let token = call
            .context
            .headers()
            .and_then(|headers| headers.get(::http::header::AUTHORIZATION))
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "));
        let scopes = match token {
            Some("reader-token") => Scopes::parse("math:read"),
            Some("writer-token") => Scopes::parse("math:read math:write"),
            Some(_) => {
                return Box::pin(async { Err(ErrorObject::new(-32001, "Unknown token")) });
            }
            None => Scopes::default(),
        };
        call.context.extensions_mut().insert(scopes);
        next.run(call)
    }
}

const DOCUMENT: &str = r#"{"openrpc":"1.3.2","info":{"title":"math","version":"1"},"methods":[]}"#;

async fn start() -> String {
    let methods = TestMethods {
        document: Some(DOCUMENT),
        ..TestMethods::default()
    };
    let server = Server::builder(methods)
        .middleware(Bearer)
        .middleware(Access::new(
            RequiredScopes::new()
                .open("rpc.discover")
                .method("echo", "math:read")
                .method("add", "math:write"),
        ))
        .build();
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(http::serve(
        listener,
        Service::new(server),
        std::future::pending(),
    ));
    format!("http://{address}/")
}

fn client(url: &str, token: Option<&str>) -> Client {
    let mut builder = http::Client::builder(url);
    if let Some(token) = token {
        builder = builder.header("authorization", &format!("Bearer {token}"));
    }
    Client::new(builder.build().expect("a client"))
}

async fn add(client: &Client) -> Result<i64, Error> {
    client.request::<i64, _>("add", &(20, 22)).await
}

fn denied(result: Result<i64, Error>) -> ErrorObject {
    match result {
        Err(Error::Undeclared(error)) => error,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn a_call_without_its_scope_is_refused_and_with_it_admitted() {
    let url = start().await;
    let reader = client(&url, Some("reader-token"));
    let error = denied(add(&reader).await);
    assert_eq!(error.code, code::ACCESS_DENIED);
    assert_eq!(error.message, "add requires scope math:write");
    assert_eq!(
        error.data.as_deref().map(|data| data.get()),
        Some(r#"{"method":"add","scope":"math:write"}"#)
    );
    // The reader may call what needs `math:read`.
    let echoed = reader
        .request::<Vec<u8>, _>("echo", &[7_u8])
        .await
        .expect("admitted");
    assert_eq!(echoed, [7]);

    let writer = client(&url, Some("writer-token"));
    assert_eq!(add(&writer).await.expect("admitted"), 42);
}

#[tokio::test]
async fn no_credentials_reach_open_methods_only() {
    let url = start().await;
    let anonymous = client(&url, None);
    assert_eq!(denied(add(&anonymous).await).code, code::ACCESS_DENIED);
    // `rpc.discover` is open...
    let document = anonymous
        .request::<serde_json::Value, _>("rpc.discover", &())
        .await
        .expect("admitted");
    assert_eq!(document["info"]["title"], "math");
    // ...a method the rule does not name is not.
    let error = denied(anonymous.request::<i64, _>("sleep", &(1,)).await);
    assert_eq!(error.message, "sleep is not open to any caller");
}
