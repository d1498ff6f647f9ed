//! Signed requests on loopback: a server behind `VerifySignature` on a real socket, a
//! client signing with `Sign` (HMAC-SHA256 and Ed25519), and hand-made requests that
//! are each refused with `-32017`, HTTP 401 and the message saying why, without the
//! handler running.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rpcsmith::client::{Client, Sign};
use rpcsmith::http::{self, VerifySignature};
use rpcsmith::protocol::code;
use rpcsmith::protocol::sign::{Key, Verifier, VerifyingKey};
use rpcsmith::server::{Context, Dispatch, Reply, Server};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tower_layer::Layer;

const SECRET: &[u8] = b"a shared secret of at least 32 bytes!";
const WINDOW: u64 = 60;

/// Answers `add` with the sum of its two params; counts the calls it ran.
struct Adder(Arc<AtomicUsize>);

impl Dispatch for Adder {
    fn call(&self, _: &str, params: Option<&RawValue>, _: Context) -> Reply {
        self.0.fetch_add(1, Ordering::SeqCst);
        let [a, b]: [i64; 2] = serde_json::from_str(params.map_or("[0,0]", RawValue::get)).unwrap();
        Reply::ok(&(a + b))
    }
}

/// A server checking signatures with `key` on a loopback port: its address and how
/// many calls its handler ran.
async fn start(key: VerifyingKey) -> (std::net::SocketAddr, Arc<AtomicUsize>) {
    let ran = Arc::new(AtomicUsize::new(0));
    let server = Server::builder(Adder(Arc::clone(&ran))).build();
    let verifier = Verifier::new(key).window(Duration::from_secs(WINDOW));
    let service = VerifySignature::new(verifier).layer(http::Service::new(server));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(http::serve(listener, service, std::future::pending()));
    (address, ran)
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Sends one HTTP/1.1 request by hand and reads the status and the JSON body.
async fn post(
    address: std::net::SocketAddr,
    headers: &::http::HeaderMap,
    body: &str,
) -> (u16, Value) {
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let mut request = format!(
        "POST / HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {}\r\n", value.to_str().unwrap()));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    let status = answer[9..12].parse().unwrap();
    let (_, json) = answer.split_once("\r\n\r\n").unwrap();
    (status, serde_json::from_str(json).unwrap_or(Value::Null))
}

/// Asserts a refusal: 401, `-32017`, `message`, `id: null`.
fn assert_refused((status, answer): (u16, Value), message: &str) {
    assert_eq!(status, 401, "{answer}");
    assert_eq!(answer["error"]["code"], code::SIGNATURE_REFUSED);
    assert_eq!(answer["error"]["message"], message);
    assert_eq!(answer["id"], Value::Null);
}

const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"add","params":[2,3]}"#;

#[tokio::test]
async fn the_signing_client_is_answered_with_hmac_and_ed25519() {
    let (address, ran) = start(VerifyingKey::hmac(SECRET)).await;
    let url = format!("http://{address}");
    let client = Client::builder()
        .middleware(Sign::new(Key::hmac(SECRET)))
        .build(http::Client::new(&url).unwrap());
    for _ in 0..3 {
        // Each call gets a nonce of its own: none is refused as a replay.
        let sum: i64 = client.request("add", &[2, 3]).await.unwrap();
        assert_eq!(sum, 5);
    }
    assert_eq!(ran.load(Ordering::SeqCst), 3);

    let private = Key::generate_ed25519().unwrap();
    let key = Key::ed25519_pkcs8(&private).unwrap();
    let public = VerifyingKey::ed25519(key.public_key().unwrap()).unwrap();
    let (address, ran) = start(public).await;
    let client = Client::builder()
        .middleware(Sign::new(key))
        .build(http::Client::new(&format!("http://{address}")).unwrap());
    let sum: i64 = client.request("add", &[40, 2]).await.unwrap();
    assert_eq!(sum, 42);
    assert_eq!(ran.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_good_hand_signed_request_passes_once() {
    let (address, ran) = start(VerifyingKey::hmac(SECRET)).await;
    let headers = Key::hmac(SECRET).sign(CALL.as_bytes()).unwrap();
    let (status, answer) = post(address, &headers, CALL).await;
    assert_eq!((status, &answer["result"]), (200, &Value::from(5)));
    assert_refused(post(address, &headers, CALL).await, "nonce already seen");
    assert_eq!(ran.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn bad_requests_are_refused_with_their_reason() {
    let (address, ran) = start(VerifyingKey::hmac(SECRET)).await;
    let key = Key::hmac(SECRET);
    let nonce = |n: u8| format!("{n:032x}");

    let tampered = key.sign_with(CALL.as_bytes(), now(), &nonce(1));
    let changed = CALL.replace("[2,3]", "[2,4]");
    assert_refused(
        post(address, &tampered, &changed).await,
        "signature does not match",
    );

    let old = key.sign_with(CALL.as_bytes(), now() - 10 * WINDOW, &nonce(2));
    assert_refused(
        post(address, &old, CALL).await,
        "signature timestamp is too old",
    );

    let future = key.sign_with(CALL.as_bytes(), now() + 10 * WINDOW, &nonce(3));
    assert_refused(
        post(address, &future, CALL).await,
        "signature timestamp is in the future",
    );

    let wrong = Key::hmac(b"another secret, not the server's")
        .sign(CALL.as_bytes())
        .unwrap();
    assert_refused(
        post(address, &wrong, CALL).await,
        "signature does not match",
    );

    let ed25519 = Key::ed25519_pkcs8(&Key::generate_ed25519().unwrap()).unwrap();
    let other_kind = ed25519.sign(CALL.as_bytes()).unwrap();
    assert_refused(
        post(address, &other_kind, CALL).await,
        "signature does not match",
    );

    assert_refused(
        post(address, &::http::HeaderMap::new(), CALL).await,
        "request is not signed",
    );
    let mut partial = key.sign(CALL.as_bytes()).unwrap();
    partial.remove(rpcsmith::protocol::sign::SIGNATURE_HEADER);
    assert_refused(post(address, &partial, CALL).await, "request is not signed");

    let mut malformed = key.sign(CALL.as_bytes()).unwrap();
    malformed.insert(
        rpcsmith::protocol::sign::TIMESTAMP_HEADER,
        "soon".parse().unwrap(),
    );
    assert_refused(
        post(address, &malformed, CALL).await,
        "malformed signature headers",
    );

    // A refused nonce was not remembered: the same nonce, signed rightly, passes once.
    let good = key.sign_with(CALL.as_bytes(), now(), &nonce(1));
    assert_eq!(post(address, &good, CALL).await.0, 200);
    assert_refused(post(address, &good, CALL).await, "nonce already seen");
    assert_eq!(ran.load(Ordering::SeqCst), 1);
}
