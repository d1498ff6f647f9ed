//! The `rpc.*` names as providers: the defaults (`rpc.discover`, `rpc.methods`, the pull
//! streams' names), a provider added, one switched off, one replaced; unknown `rpc.*`
//! names stay `-32601` and never reach the dispatcher; middleware and a router's merged
//! names and document reach the providers.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rpcsmith::protocol::{ErrorObject, code};
use rpcsmith::server::{
    BoxFuture, Call, CallResult, Catalog, Context, Dispatch, Metadata, Middleware, Mount, Next,
    Reply, Router, Server, SystemMethod,
};
use serde_json::json;
use serde_json::value::RawValue;
use support::{TestMethods, error_code, json, request};

const DOC: &str = r#"{"openrpc":"1.3.2","info":{"title":"t","version":"1"},"methods":[{"name":"add","params":[]},{"name":"sleep","params":[]}]}"#;

async fn ask(server: &Server, method: &str) -> serde_json::Value {
    let answer = server
        .handle(request(method, "[]", 1).as_bytes(), Metadata::default())
        .await
        .unwrap();
    json(&answer)
}

#[tokio::test]
async fn rpc_methods_lists_the_document_s_methods_by_default() {
    let methods = Arc::new(TestMethods {
        document: Some(DOC),
        ..Default::default()
    });
    let server = Server::new(methods.clone());
    assert_eq!(
        ask(&server, "rpc.methods").await["result"],
        json!(["add", "sleep"])
    );
    assert_eq!(
        ask(&server, "rpc.discover").await["result"]["info"]["title"],
        "t"
    );
    for unknown in ["rpc.version", "rpc.", "rpc.methods.x"] {
        assert_eq!(
            error_code(&serde_json::to_vec(&ask(&server, unknown).await).unwrap()),
            code::METHOD_NOT_FOUND,
            "{unknown}"
        );
    }
    assert!(methods.seen.lock().unwrap().is_empty());
}

/// `rpc.version`, counting its calls; sees the catalog.
struct Version(Arc<AtomicUsize>);

impl SystemMethod for Version {
    fn call(&self, params: Option<&RawValue>, cx: Context, catalog: &Catalog) -> Reply {
        self.0.fetch_add(1, Ordering::Relaxed);
        let known = catalog.methods().map_or(0, <[String]>::len);
        Reply::ok(&json!({
            "version": "1.2.3",
            "method": cx.method(),
            "params": params.map(RawValue::get),
            "methods": known,
        }))
    }
}

#[tokio::test]
async fn providers_are_added_switched_off_and_replaced() {
    let calls = Arc::new(AtomicUsize::new(0));
    let server = Server::builder(TestMethods {
        document: Some(DOC),
        ..Default::default()
    })
    .system("rpc.version", Version(calls.clone()))
    .without_system("rpc.discover")
    .system("rpc.methods", Version(calls.clone()))
    // Not reserved: left out (logged), and `add` still reaches the dispatcher.
    .system("add", Version(calls.clone()))
    .build();
    let version = ask(&server, "rpc.version").await;
    assert_eq!(
        version["result"],
        json!({"version": "1.2.3", "method": "rpc.version", "params": "[]", "methods": 2})
    );
    assert_eq!(
        ask(&server, "rpc.methods").await["result"]["version"],
        "1.2.3"
    );
    assert_eq!(ask(&server, "rpc.discover").await["error"]["code"], -32601);
    assert_eq!(
        server
            .handle(request("add", "[1,2]", 1).as_bytes(), Metadata::default())
            .await
            .map(|answer| json(&answer)["result"].clone()),
        Some(json!(3))
    );
    assert_eq!(calls.load(Ordering::Relaxed), 2);
}

/// Refuses every call it sees.
struct Refuse;

impl Middleware for Refuse {
    fn call<'a>(&'a self, _: Call<'a>, _: Next<'a>) -> BoxFuture<'a, CallResult> {
        Box::pin(async { Err(ErrorObject::new(-32001, "Unauthorized")) })
    }
}

/// Answers `ping`, declaring it.
struct Ping;

impl Dispatch for Ping {
    fn call(&self, method: &str, _: Option<&RawValue>, cx: Context) -> Reply {
        match method {
            "ping" => Reply::ok(&cx.method()),
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }

    fn methods(&self) -> Option<Vec<&str>> {
        Some(vec!["ping"])
    }
}

#[tokio::test]
async fn a_router_routes_by_prefix_and_its_mount_middleware_is_its_own() {
    let router = Router::builder()
        .mount(Mount::new("open", Ping))
        .mount(
            Mount::new("closed", Ping)
                .prefix("admin_")
                .middleware(Refuse),
        )
        .mount(Mount::new(
            "doc",
            TestMethods {
                document: Some(DOC),
                ..Default::default()
            },
        ))
        .build()
        .unwrap();
    let server = Server::new(router);
    // The dispatcher is called with its own name; the context keeps the wire name.
    assert_eq!(ask(&server, "ping").await["result"], "ping");
    assert_eq!(ask(&server, "admin_ping").await["error"]["code"], -32001);
    assert_eq!(ask(&server, "admin_add").await["error"]["code"], -32601);
    assert_eq!(
        ask(&server, "rpc.methods").await["result"],
        json!(["ping", "admin_ping", "add", "sleep"])
    );
    // Only one mount has a document: the merged one has its methods.
    let merged = ask(&server, "rpc.discover").await["result"].clone();
    assert_eq!(merged["info"], json!({"title": "t", "version": "1"}));
    assert_eq!(merged["methods"][1]["name"], "sleep");
}

#[test]
fn a_mount_that_declares_nothing_is_refused() {
    let refused = Router::builder()
        .mount(Mount::new("blind", TestMethods::default()))
        .build()
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "mount `blind` declares no methods: its dispatcher has neither `Dispatch::methods` nor a document"
    );
    let twice = Router::builder()
        .mount(Mount::new("p", Ping))
        .mount(Mount::new("p", Ping).prefix("x_"))
        .build()
        .unwrap_err();
    assert_eq!(twice.to_string(), "two mounts are named `p`");
}

/// The pull streams' names are rows of the same table: answered by default (an unknown
/// stream is `-32602`, not `-32601`), each switched off by name; the kotlinx-rpc names,
/// outside `rpc.`, then reach the dispatcher.
#[tokio::test]
async fn pull_stream_names_are_providers_switched_off_by_name() {
    const FLOW_NEXT: &str = "kotlinx.rpc.jsonrpc.internal.nextFlowValue";
    const FLOW_CANCEL: &str = "kotlinx.rpc.jsonrpc.internal.cancelFlow";
    let pull = |method: &str| {
        let params = if method.starts_with("rpc.") {
            r#"{"stream":"0x1"}"#
        } else {
            r#"["0x1"]"#
        };
        request(method, params, 1)
    };
    let methods = Arc::new(TestMethods::default());
    let server = Server::new(methods.clone());
    for method in ["rpc.stream.next", FLOW_NEXT] {
        let answer = server
            .handle(pull(method).as_bytes(), Metadata::default())
            .await
            .unwrap();
        assert_eq!(error_code(&answer), code::INVALID_PARAMS, "{method}");
    }
    for method in ["rpc.stream.cancel", FLOW_CANCEL] {
        let answer = server
            .handle(pull(method).as_bytes(), Metadata::default())
            .await
            .unwrap();
        assert_eq!(json(&answer)["result"], json!(false), "{method}");
    }
    assert!(methods.seen.lock().unwrap().is_empty());

    let methods = Arc::new(TestMethods::default());
    let server = Server::builder(methods.clone())
        .without_system("rpc.stream.next")
        .without_system(FLOW_NEXT)
        .build();
    let answer = server
        .handle(pull("rpc.stream.next").as_bytes(), Metadata::default())
        .await
        .unwrap();
    assert_eq!(error_code(&answer), code::METHOD_NOT_FOUND);
    server
        .handle(pull(FLOW_NEXT).as_bytes(), Metadata::default())
        .await;
    let answer = server
        .handle(pull("rpc.stream.cancel").as_bytes(), Metadata::default())
        .await
        .unwrap();
    assert_eq!(json(&answer)["result"], json!(false), "still answered");
    assert_eq!(*methods.seen.lock().unwrap(), [FLOW_NEXT]);
}
