//! Middleware, the per-call context, and the reserved `rpc.*` names.

mod support;

use std::sync::Arc;
use std::sync::Mutex;

use rpcsmith::protocol::{ErrorObject, code};
use rpcsmith::server::{BoxFuture, Call, CallResult, Metadata, Middleware, Next, Server};
use support::{TestMethods, User, error_code, json, request};

/// Records what it sees, before and after the rest of the chain.
struct Recorder {
    name: &'static str,
    log: Arc<Mutex<Vec<String>>>,
}

impl Middleware for Recorder {
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, CallResult> {
        Box::pin(async move {
            let id = call
                .context
                .id()
                .map_or("-".to_owned(), |id| id.as_json().to_owned());
            self.log
                .lock()
                .unwrap()
                .push(format!("{} > {} {id}", self.name, call.method));
            let result = next.run(call).await;
            let outcome = if result.is_ok() { "ok" } else { "err" };
            self.log
                .lock()
                .unwrap()
                .push(format!("{} < {outcome}", self.name));
            result
        })
    }
}

/// Refuses calls without a bearer token; puts the user in the call's extensions.
struct Auth;

impl Middleware for Auth {
    fn call<'a>(&'a self, mut call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, CallResult> {
        let token = call
            .context
            .headers()
            .and_then(|h| h.get("authorization"))
            .cloned();
        match token.as_ref().map(|t| t.as_bytes()) {
            Some(b"Bearer ada") => {
                call.context.extensions_mut().insert(User("ada"));
                next.run(call)
            }
            _ => Box::pin(async { Err(ErrorObject::new(-32001, "Unauthorized")) }),
        }
    }
}

#[tokio::test]
async fn middleware_sees_every_call_in_order() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let server = Server::builder(TestMethods::default())
        .middleware(Recorder {
            name: "outer",
            log: log.clone(),
        })
        .middleware(Recorder {
            name: "inner",
            log: log.clone(),
        })
        .build();
    let batch = format!(
        r#"[{},{{"jsonrpc":"2.0","method":"add","params":[1,2]}},{},1,{}]"#,
        request("add", "[1,2]", 1),
        request("nope", "[]", 2),
        request("rpc.discover", "[]", 3),
    );
    let answer = json(
        &server
            .handle(batch.as_bytes(), Metadata::default())
            .await
            .unwrap(),
    );
    assert_eq!(answer.as_array().map(Vec::len), Some(4));
    let log = log.lock().unwrap().clone();
    assert_eq!(
        log,
        [
            "outer > add 1",
            "inner > add 1",
            "inner < ok",
            "outer < ok",
            "outer > add -",
            "inner > add -",
            "inner < ok",
            "outer < ok",
            "outer > nope 2",
            "inner > nope 2",
            "inner < err",
            "outer < err",
            "outer > rpc.discover 3",
            "inner > rpc.discover 3",
            "inner < err",
            "outer < err",
        ]
    );
}

#[tokio::test]
async fn auth_middleware_reads_headers_and_passes_typed_data() {
    let server = Server::builder(TestMethods::default())
        .middleware(Auth)
        .build();
    let call = request("context", "[]", 9);

    let answer = server
        .handle(call.as_bytes(), Metadata::default())
        .await
        .unwrap();
    assert_eq!(error_code(&answer), -32001);

    let mut meta = Metadata::default();
    let mut headers = http::HeaderMap::new();
    headers.insert(
        "authorization",
        http::HeaderValue::from_static("Bearer ada"),
    );
    meta.headers = Some(headers);
    meta.peer = Some("10.0.0.1:4000".parse().unwrap());
    meta.extensions.insert(User("from-transport"));
    let answer = json(&server.handle(call.as_bytes(), meta).await.unwrap());
    assert_eq!(
        answer["result"],
        serde_json::json!({
            "method": "context",
            "id": "9",
            "peer": "10.0.0.1:4000",
            "user": "ada",
            "transport": "from-transport",
        })
    );
}

#[tokio::test]
async fn middleware_panics_are_caught() {
    struct Boom;
    impl Middleware for Boom {
        fn call<'a>(&'a self, _call: Call<'a>, _next: Next<'a>) -> BoxFuture<'a, CallResult> {
            panic!("secret middleware panic")
        }
    }
    let server = Server::builder(TestMethods::default())
        .middleware(Boom)
        .build();
    let answer = server
        .handle(request("add", "[1,2]", 1).as_bytes(), Metadata::default())
        .await;
    let answer = answer.unwrap();
    assert_eq!(error_code(&answer), code::INTERNAL_ERROR);
    assert!(!String::from_utf8_lossy(&answer).contains("secret"));
}

#[tokio::test]
async fn rpc_names_are_reserved() {
    let doc = r#"{"openrpc":"1.3.2","info":{"title":"t","version":"1"},"methods":[]}"#;
    let with_doc = Server::builder(TestMethods {
        document: Some(doc),
        ..Default::default()
    })
    .build();
    let answer = with_doc
        .handle(
            request("rpc.discover", "[]", 1).as_bytes(),
            Metadata::default(),
        )
        .await;
    assert_eq!(json(&answer.unwrap())["result"], json(doc.as_bytes()));
    let no_params = br#"{"jsonrpc":"2.0","method":"rpc.discover","id":2}"#;
    assert_eq!(
        json(
            &with_doc
                .handle(no_params, Metadata::default())
                .await
                .unwrap()
        )["result"]["openrpc"],
        "1.3.2"
    );

    let methods = TestMethods::default();
    let without = Server::builder(methods).build();
    for method in ["rpc.discover", "rpc.add", "rpc."] {
        let answer = without
            .handle(request(method, "[1,2]", 1).as_bytes(), Metadata::default())
            .await;
        assert_eq!(
            error_code(&answer.unwrap()),
            code::METHOD_NOT_FOUND,
            "{method}"
        );
    }
    // An invalid document is treated as absent.
    let broken = Server::builder(TestMethods {
        document: Some("{"),
        ..Default::default()
    })
    .build();
    let answer = broken
        .handle(
            request("rpc.discover", "[]", 1).as_bytes(),
            Metadata::default(),
        )
        .await;
    assert_eq!(error_code(&answer.unwrap()), code::METHOD_NOT_FOUND);
}

#[tokio::test]
async fn dispatcher_never_sees_rpc_names() {
    let methods = Arc::new(TestMethods::default());
    let server = Server::new(methods.clone());
    for method in ["rpc.discover", "rpc.add", "add"] {
        server
            .handle(request(method, "[1,2]", 1).as_bytes(), Metadata::default())
            .await;
    }
    assert_eq!(*methods.seen.lock().unwrap(), ["add"]);
}
