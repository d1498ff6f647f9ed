//! `rpcsmith mock`, run as a process and called through the runtime's clients over
//! HTTP, WebSocket (the same port) and stdio: example answers, generated values (the
//! same for the same seed), declared errors on request, refused params, the call log.

use std::process::Stdio;

use rpcsmith::client::{Client, Error};
use rpcsmith::http;
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith::transport::ws;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStderr, Command};

const BIN: &str = env!("CARGO_BIN_EXE_rpcsmith");

fn petstore() -> Option<String> {
    let dir = rpcsmith_corpus::dir()?;
    let path = dir.join("open-rpc-examples/petstore-openrpc.json");
    Some(path.display().to_string())
}

/// The mock on a free port, its address, and its log (stderr) to read on.
async fn start(args: &[&str]) -> (Child, String, tokio::io::Lines<BufReader<ChildStderr>>) {
    let mut child = Command::new(BIN)
        .arg("mock")
        .args(args)
        .args(["--listen", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the binary runs");
    let mut log = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = log
        .next_line()
        .await
        .unwrap()
        .expect("the mock says where it serves");
    let address = first
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("no address in {first:?}"))
        .to_owned();
    assert!(first.starts_with("mock: serving 3 methods of "), "{first}");
    (child, address, log)
}

#[tokio::test]
async fn http_and_websocket_answer_examples_generated_values_and_declared_errors() {
    let Some(doc) = petstore() else { return };
    let (_child, address, mut log) =
        start(&[&doc, "--error", "list_pets=100", "--seed", "3"]).await;
    let client = Client::new(http::Client::new(&format!("http://{address}")).unwrap());

    // get_pet's example pairing: petId 7.
    let pet: Value = client.request("get_pet", &[7]).await.unwrap();
    assert_eq!(pet, json!({"id": 7, "name": "fluffy", "tag": "poodle"}));
    let line = log.next_line().await.unwrap().unwrap();
    assert_eq!(line, "mock: get_pet [7] -> example \"getPetExample\"");

    // Other params: a generated pet, the same again for the same seed.
    let generated: Value = client.request("get_pet", &[8]).await.unwrap();
    assert!(
        generated["id"].is_i64() && generated["name"].is_string(),
        "{generated}"
    );
    assert_eq!(
        client.request::<Value, _>("get_pet", &[9]).await.unwrap(),
        generated
    );
    assert_eq!(
        log.next_line().await.unwrap().unwrap(),
        "mock: get_pet [8] -> generated"
    );
    let _ = log.next_line().await;

    // The declared error asked for on the command line.
    match client.request::<Value, _>("list_pets", &[1]).await {
        Err(Error::Undeclared(e)) => assert_eq!((e.code, e.message.as_ref()), (100, "pets busy")),
        other => panic!("{other:?}"),
    }
    // Params that do not fit.
    match client.request::<Value, _>("get_pet", &["seven"]).await {
        Err(Error::Undeclared(e)) => assert_eq!(
            (e.code, e.message.as_ref()),
            (
                -32602,
                "invalid params: param `petId`: expected integer, found \"seven\""
            )
        ),
        other => panic!("{other:?}"),
    }

    // WebSocket on the same port, the same answers.
    let peer = ws::connect(
        &format!("ws://{address}"),
        Peer::builder(),
        ws::Settings::default(),
    )
    .await
    .unwrap();
    let over_ws: Value = peer.client().request("get_pet", &[8]).await.unwrap();
    assert_eq!(over_ws, generated);
}

#[tokio::test]
async fn stdio_serves_one_message_per_line_and_another_seed_gives_other_values() {
    let Some(doc) = petstore() else { return };
    let run = |seed: &str| {
        let mut command = Command::new(BIN);
        command
            .args(["mock", &doc, "--stdio", "--seed", seed])
            .stderr(Stdio::null());
        stream::spawn(Peer::builder(), Codec::Newline, command).unwrap()
    };
    let (peer, _child) = run("1");
    let pets: Value = peer.client().request("list_pets", &[1]).await.unwrap();
    assert_eq!(pets, json!([{"id": 7, "name": "fluffy", "tag": "poodle"}]));
    let one: Value = peer.client().request("get_pet", &[8]).await.unwrap();
    let (other_peer, _other) = run("2");
    let two: Value = other_peer.client().request("get_pet", &[8]).await.unwrap();
    assert_ne!(one, two, "seeds 1 and 2 gave the same pet");
}

#[tokio::test]
async fn an_error_the_method_does_not_declare_is_refused_at_start() {
    let Some(doc) = petstore() else { return };
    let out = Command::new(BIN)
        .args(["mock", &doc, "--error", "get_pet=7"])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --error get_pet=7: method `get_pet` does not declare error 7 (it declares: none)\n"
    );
}
