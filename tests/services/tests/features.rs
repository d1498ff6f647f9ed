//! The fixture's generated client and server against each other, over memory and HTTP:
//! every method, by name and by position, optional trailing params, a batch, a
//! notification, declared errors with typed data, `rpc.discover`, and `-32602` naming
//! the param that is missing, unknown or of the wrong type.

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rpcsmith::client::Error;
use rpcsmith::http;
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Failure, Server};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::{memory, stream, ws};
use rpcsmith_services::features::{
    DivideError, FeaturesClient, FeaturesDispatcher, FeaturesServer, types,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// The fixture's server: real arithmetic, and a channel the notifications go to.
struct Impl {
    logs: mpsc::UnboundedSender<(String, Option<i64>)>,
    last_type: Arc<Mutex<Option<String>>>,
}

impl FeaturesServer for Impl {
    async fn add(&self, _cx: Context, a: i64, b: i64) -> Result<i64, Failure> {
        a.checked_add(b)
            .ok_or_else(|| Failure::Object(ErrorObject::new(-32000, "overflow")))
    }

    async fn greet(
        &self,
        _cx: Context,
        name: String,
        greeting: Option<String>,
        punctuation: Option<String>,
    ) -> Result<String, Failure> {
        let greeting = greeting.as_deref().unwrap_or("Hello");
        let punctuation = punctuation.as_deref().unwrap_or(".");
        Ok(format!("{greeting}, {name}{punctuation}"))
    }

    async fn divide(
        &self,
        _cx: Context,
        numerator: i64,
        denominator: i64,
    ) -> Result<i64, Failure<DivideError>> {
        if denominator == 0 {
            return Err(DivideError::DivisionByZero(types::DivideError1Data { numerator }).into());
        }
        if numerator > 1_000_000 {
            Err(DivideError::TooLarge)?;
        }
        Ok(numerator / denominator)
    }

    async fn eth_get_balance(
        &self,
        cx: Context,
        address: String,
        block: Option<String>,
        unit: Option<String>,
    ) -> Result<types::Money, Failure> {
        // The amount says which params arrived, and how (by the length of the raw call).
        let amount = address.len() as i64 * 100
            + i64::from(block.is_some()) * 10
            + i64::from(unit.is_some());
        assert_eq!(cx.method(), "eth_getBalance");
        Ok(types::Money {
            amount,
            currency: types::Currency::Eur,
        })
    }

    async fn filecoin_chain_head(&self, _cx: Context) -> Result<i64, Failure> {
        Ok(42)
    }

    async fn log(&self, cx: Context, message: String, level: Option<i64>) {
        assert!(cx.is_notification());
        let _ = self.logs.send((message, level));
    }

    #[allow(deprecated)]
    async fn new2(&self, _cx: Context, r#type: String) -> Result<String, Failure> {
        *self.last_type.lock().unwrap() = Some(r#type.clone());
        Ok(r#type)
    }
}

struct Fixture {
    client: FeaturesClient,
    logs: mpsc::UnboundedReceiver<(String, Option<i64>)>,
    _stop: Option<tokio::sync::oneshot::Sender<()>>,
}

fn server() -> (Server, mpsc::UnboundedReceiver<(String, Option<i64>)>) {
    let (logs, received) = mpsc::unbounded_channel();
    let imp = Impl {
        logs,
        last_type: Arc::default(),
    };
    (Server::new(FeaturesDispatcher::new(imp)), received)
}

fn over_memory() -> Fixture {
    let (server, logs) = server();
    Fixture {
        client: FeaturesClient::new(memory::connect(server)),
        logs,
        _stop: None,
    }
}

async fn over_http() -> Fixture {
    let (server, logs) = server();
    let (client, stop) = support::connect(server, true).await;
    Fixture {
        client: FeaturesClient::new(client),
        logs,
        _stop: stop,
    }
}

/// Over WebSocket: the server on the HTTP port, the client a symmetric peer.
async fn over_ws() -> Fixture {
    let (server, logs) = server();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let service = http::Service::new(server).websocket(Peer::builder(), ws::Settings::default());
    tokio::spawn(http::serve(listener, service, async {
        let _ = stopped.await;
    }));
    let peer = ws::connect(url, Peer::builder(), ws::Settings::default())
        .await
        .unwrap();
    Fixture {
        client: FeaturesClient::new(peer.into_client()),
        logs,
        _stop: Some(stop),
    }
}

/// Over TCP with `Content-Length` framing, as language servers frame their messages.
async fn over_tcp() -> Fixture {
    let (server, logs) = server();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let codec = stream::Codec::ContentLength;
    tokio::spawn(stream::serve_tcp(
        listener,
        Peer::builder().serve(server),
        codec,
        async {
            let _ = stopped.await;
        },
    ));
    let peer = stream::connect_tcp(Peer::builder(), codec, address)
        .await
        .unwrap();
    Fixture {
        client: FeaturesClient::new(peer.into_client()),
        logs,
        _stop: Some(stop),
    }
}

async fn every_method(mut f: Fixture) {
    let c = &f.client;
    assert_eq!(c.add(2, 3).await.unwrap(), 5);
    assert_eq!(
        c.greet("Ada".into(), None, None).await.unwrap(),
        "Hello, Ada."
    );
    assert_eq!(
        c.greet("Ada".into(), Some("Hi".into()), Some("!".into()))
            .await
            .unwrap(),
        "Hi, Ada!"
    );
    assert_eq!(
        c.greet("Ada".into(), None, Some("?".into())).await.unwrap(),
        "Hello, Ada?"
    );
    assert_eq!(c.divide(9, 3).await.unwrap(), 3);
    match c.divide(7, 0).await {
        Err(Error::Declared(DivideError::DivisionByZero(data))) => assert_eq!(data.numerator, 7),
        other => panic!("expected the declared error, got {other:?}"),
    }
    assert!(matches!(
        c.divide(2_000_000, 1).await,
        Err(Error::Declared(DivideError::TooLarge))
    ));
    match c.add(i64::MAX, 1).await {
        Err(Error::Undeclared(e)) => assert_eq!((e.code, &*e.message), (-32000, "overflow")),
        other => panic!("expected an undeclared error, got {other:?}"),
    }
    let balance = c
        .eth_get_balance("0xab".into(), None, Some("wei".into()))
        .await
        .unwrap();
    assert_eq!(balance.amount, 401);
    assert_eq!(balance.currency, types::Currency::Eur);
    assert_eq!(
        c.eth_get_balance("0x".into(), None, None)
            .await
            .unwrap()
            .amount,
        200
    );
    assert_eq!(c.filecoin_chain_head().await.unwrap(), 42);
    #[allow(deprecated)]
    let echoed = c.new2("fn".into()).await.unwrap();
    assert_eq!(echoed, "fn");
    c.log("hello".into(), Some(3)).await.unwrap();
    let logged = tokio::time::timeout(Duration::from_secs(5), f.logs.recv())
        .await
        .unwrap();
    assert_eq!(logged, Some(("hello".to_owned(), Some(3))));
}

async fn batch(mut f: Fixture) {
    let mut batch = f.client.batch();
    let sum = batch.add(1, 2);
    let greeting = batch.greet("Bob".into(), Some("Hey".into()), None);
    let zero = batch.divide(1, 0);
    batch.log("in a batch".into(), None).unwrap();
    let head = batch.filecoin_chain_head();
    assert_eq!(batch.len(), 5);
    let mut replies = batch.send().await.unwrap();
    assert_eq!(replies.take(sum).unwrap(), 3);
    assert_eq!(replies.take(greeting).unwrap(), "Hey, Bob.");
    assert!(matches!(
        replies.take(zero),
        Err(Error::Declared(DivideError::DivisionByZero(_)))
    ));
    assert_eq!(replies.take(head).unwrap(), 42);
    let logged = tokio::time::timeout(Duration::from_secs(5), f.logs.recv())
        .await
        .unwrap();
    assert_eq!(logged, Some(("in a batch".to_owned(), None)));
}

/// Calls `method` with raw `params` through the untyped client; the error object.
async fn refused(c: &FeaturesClient, method: &str, params: Value) -> ErrorObject {
    match c.inner().request::<Value, _>(method, &params).await {
        Err(Error::Undeclared(e)) => e,
        other => panic!("{method} {params}: expected an error, got {other:?}"),
    }
}

async fn invalid_params(f: Fixture) {
    let c = &f.client;
    let cases = [
        ("add", json!([1]), "missing param `b`"),
        (
            "add",
            json!([1, 2, 3]),
            "too many params: the method takes 2, got more",
        ),
        (
            "add",
            json!([1, "2"]),
            "invalid param `b`: expected an integer, found a string \"2\"",
        ),
        (
            "add",
            json!({"a": 1, "b": 2}),
            "params must be an array (by position)",
        ),
        (
            "greet",
            json!(["Ada"]),
            "params must be an object (by name)",
        ),
        ("greet", json!({"greeting": "Hi"}), "missing param `name`"),
        (
            "greet",
            json!({"name": "Ada", "mood": "good"}),
            "unknown param `mood`",
        ),
        (
            "divide",
            json!({"numerator": 1}),
            "missing param `denominator`",
        ),
        (
            "Filecoin.ChainHead",
            json!([1]),
            "too many params: the method takes 0, got more",
        ),
    ];
    for (method, params, message) in cases {
        let e = refused(c, method, params.clone()).await;
        assert_eq!(
            (e.code, &*e.message),
            (-32602, message),
            "{method} {params}"
        );
    }
    let e = refused(c, "Filecoin.chainHead", json!([])).await;
    assert_eq!(e.code, -32601);
    // `either` takes both shapes.
    let by_position: i64 = c.inner().request("divide", &json!([8, 2])).await.unwrap();
    let by_name: i64 = c
        .inner()
        .request("divide", &json!({"denominator": 2, "numerator": 8}))
        .await
        .unwrap();
    assert_eq!((by_position, by_name), (4, 4));
}

async fn discover(f: Fixture) {
    let document: Value = f.client.inner().request("rpc.discover", &()).await.unwrap();
    assert_eq!(document["info"]["title"], "Features");
    assert_eq!(document["methods"].as_array().map(Vec::len), Some(7));
    // The other file's schema is bundled in, and the reference rewritten to it.
    let result = &document["methods"][3]["result"]["schema"];
    assert_eq!(result["$ref"], "#/components/schemas/Money");
    let money = &document["components"]["schemas"]["Money"];
    assert_eq!(
        money["properties"]["currency"]["$ref"],
        "#/components/schemas/Currency"
    );
    assert_eq!(
        document["components"]["schemas"]["Currency"]["enum"],
        json!(["EUR", "USD"])
    );
    assert!(!document.to_string().contains("shared.json"));
}

#[test]
fn params_go_on_the_wire_as_the_method_says() {
    use rpcsmith_services::features::{EthGetBalanceParams, GreetParams};
    let position = |block: Option<&str>, unit: Option<&str>| {
        let p = EthGetBalanceParams {
            address: "0x".into(),
            block: block.map(str::to_owned),
            unit: unit.map(str::to_owned),
        };
        serde_json::to_string(&p).unwrap()
    };
    assert_eq!(position(None, None), r#"["0x"]"#);
    assert_eq!(position(Some("latest"), None), r#"["0x","latest"]"#);
    assert_eq!(position(None, Some("wei")), r#"["0x",null,"wei"]"#);
    let greet = GreetParams {
        name: "Ada".into(),
        greeting: None,
        punctuation: Some("!".into()),
    };
    assert_eq!(
        serde_json::to_string(&greet).unwrap(),
        r#"{"name":"Ada","punctuation":"!"}"#
    );
}

#[tokio::test]
async fn every_method_over_memory() {
    every_method(over_memory()).await;
}

#[tokio::test]
async fn every_method_over_http() {
    every_method(over_http().await).await;
}

#[tokio::test]
async fn batch_over_memory() {
    batch(over_memory()).await;
}

#[tokio::test]
async fn batch_over_http() {
    batch(over_http().await).await;
}

#[tokio::test]
async fn invalid_params_over_memory() {
    invalid_params(over_memory()).await;
}

#[tokio::test]
async fn invalid_params_over_http() {
    invalid_params(over_http().await).await;
}

#[tokio::test]
async fn discover_over_memory() {
    discover(over_memory()).await;
}

#[tokio::test]
async fn discover_over_http() {
    discover(over_http().await).await;
}

#[tokio::test]
async fn every_method_over_ws() {
    every_method(over_ws().await).await;
}

#[tokio::test]
async fn every_method_over_tcp() {
    every_method(over_tcp().await).await;
}

#[tokio::test]
async fn batch_over_ws() {
    batch(over_ws().await).await;
}

#[tokio::test]
async fn batch_over_tcp() {
    batch(over_tcp().await).await;
}

#[tokio::test]
async fn invalid_params_over_ws() {
    invalid_params(over_ws().await).await;
}

#[tokio::test]
async fn invalid_params_over_tcp() {
    invalid_params(over_tcp().await).await;
}

#[tokio::test]
async fn discover_over_ws() {
    discover(over_ws().await).await;
}

#[tokio::test]
async fn discover_over_tcp() {
    discover(over_tcp().await).await;
}

/// The document marks `add` and `greet` `x-idempotent`: the generated client lists them,
/// for a `Retry`; and the generated dispatcher reads named params carrying a `_meta`
/// (trace context where there are no headers) as if it were not there.
#[tokio::test]
async fn idempotent_methods_and_meta() {
    use rpcsmith::client::{Client, Retry};
    assert_eq!(FeaturesClient::IDEMPOTENT, ["add", "greet"]);
    let (server, _logs) = server();
    let retry = Retry::idempotent(FeaturesClient::IDEMPOTENT.iter().copied());
    let client = Client::builder()
        .middleware(retry)
        .build(memory::Link::new(server));
    let features = FeaturesClient::new(client.clone());
    assert_eq!(features.add(2, 3).await.unwrap(), 5);
    let meta = json!({ "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" });
    let greeting: String = client
        .request("greet", &json!({ "_meta": meta, "name": "Ada" }))
        .await
        .unwrap();
    assert_eq!(greeting, "Hello, Ada.");
}
