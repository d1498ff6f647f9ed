//! Large answers, which the client routes by their id alone and reads in the call's
//! task: every shape a server may write them in reaches its call whole, and one that
//! is not a response fails its call at once, over a real WebSocket on loopback. The
//! results are the corpus's documents (real JSON nobody here wrote), served by a
//! jsonrpsee server (over WebSocket and HTTP) and by a server that writes the answers
//! byte for byte.

use std::time::Duration;

use futures_util::{SinkExt as _, StreamExt as _};
use jsonrpsee::server::{RpcModule, Server as Jsonrpsee};
use rpcsmith::client::{Client, Error};
use rpcsmith::http;
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::ws::{self, Settings};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;

/// The corpus's documents larger than the answers read by hand (4 KiB), as text.
fn corpus_documents() -> Vec<(&'static str, String)> {
    let Some(corpus) = rpcsmith_corpus::dir() else {
        return Vec::new();
    };
    rpcsmith_corpus::DOCUMENTS
        .iter()
        .map(|(id, path)| {
            let text = std::fs::read_to_string(corpus.join(path)).expect("a corpus document");
            (*id, text.trim().to_owned())
        })
        .filter(|(_, text)| text.len() > 8 * 1024)
        .collect()
}

async fn connect(url: String) -> (Peer, Client) {
    let peer = ws::connect(url, Peer::builder(), Settings::default())
        .await
        .expect("connected");
    let client = peer.client().with_timeout(Duration::from_secs(20));
    (peer, client)
}

#[tokio::test]
async fn every_corpus_document_comes_whole_from_a_jsonrpsee_server() {
    let documents = corpus_documents();
    let mut module = RpcModule::new(documents.clone());
    module
        .register_method("document", |params, documents, _| {
            let [index]: [usize; 1] = params.parse().expect("an index");
            serde_json::from_str::<Value>(&documents[index].1).expect("JSON")
        })
        .expect("registered");
    let server = Jsonrpsee::builder()
        .build("127.0.0.1:0")
        .await
        .expect("bound");
    let address = server.local_addr().expect("an address");
    let handle = server.start(module);
    let (_peer, over_ws) = connect(format!("ws://{address}/")).await;
    let over_http = Client::builder()
        .timeout(Duration::from_secs(20))
        .build(http::Client::new(&format!("http://{address}/")).expect("a URL"));
    for client in [over_ws, over_http] {
        for (index, (id, text)) in documents.iter().enumerate() {
            let got: Value = client.request("document", &[index]).await.expect(id);
            assert_eq!(got, serde_json::from_str::<Value>(text).unwrap(), "{id}");
        }
    }
    assert!(documents.len() >= 15, "{} documents", documents.len());
    handle.stop().expect("stopped");
}

/// The answer the scripted server writes for `shape`, with `result` and `id`.
fn answer(shape: &str, result: &str, id: u64) -> String {
    match shape {
        "id first" => format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#),
        "id last" => format!("{{\"jsonrpc\":\"2.0\",\"result\":{result} ,\r\n \"id\": {id} }}\n"),
        "version last" => format!(r#"{{"id":{id},"result":{result},"jsonrpc":"2.0"}}"#),
        "a member after" => {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result},"server":"x"}}"#)
        }
        "a member between" => {
            format!(r#"{{"jsonrpc":"2.0","result":{result},"server":[1,{{}}],"id":{id}}}"#)
        }
        "an error too" => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{result},"error":{{"code":1,"message":"m"}}}}"#
        ),
        "no version" => format!(r#"{{"id":{id},"result":{result}}}"#),
        "a broken result" => {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{}}}"#,
                result.replace(':', ";")
            )
        }
        other => panic!("no shape {other}"),
    }
}

/// A WebSocket server that answers each call (params: `[shape, index, binary]`) with
/// the corpus document `index` in the shape named, as a text or a binary message.
async fn scripted_server(documents: Vec<(&'static str, String)>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bound");
    let address = listener.local_addr().expect("an address");
    tokio::spawn(async move {
        let (socket, _) = listener.accept().await.expect("accepted");
        let mut socket = tokio_tungstenite::accept_async(socket)
            .await
            .expect("upgraded");
        while let Some(Ok(Message::Text(call))) = socket.next().await {
            let call: Value = serde_json::from_str(&call).expect("a call");
            let id = call["id"].as_u64().expect("an id");
            let shape = call["params"][0].as_str().expect("a shape");
            let index = call["params"][1].as_u64().expect("an index") as usize;
            let text = answer(shape, &documents[index].1, id);
            let message = if call["params"][2] == true {
                Message::binary(text.into_bytes())
            } else {
                Message::text(text)
            };
            socket.send(message).await.expect("sent");
        }
    });
    format!("ws://{address}/")
}

#[tokio::test]
async fn every_shape_of_a_large_answer_reaches_its_call() {
    let documents = corpus_documents();
    if documents.is_empty() {
        return;
    }
    let (_peer, client) = connect(scripted_server(documents.clone()).await).await;
    let whole = [
        "id first",
        "id last",
        "version last",
        "a member after",
        "a member between",
    ];
    for binary in [false, true] {
        for (index, (id, text)) in documents.iter().enumerate() {
            let expected: Value = serde_json::from_str(text).unwrap();
            for shape in whole {
                let got: Value = client
                    .request("document", &(shape, index, binary))
                    .await
                    .unwrap_or_else(|e| panic!("{id}, {shape}, binary {binary}: {e}"));
                assert!(got == expected, "{id}, {shape}, binary {binary}");
            }
        }
    }
    // Not responses: each fails its call at once (the connection goes on).
    for shape in ["an error too", "no version"] {
        let refused = client
            .request::<Value, _>("document", &(shape, 0, false))
            .await;
        assert!(
            matches!(&refused, Err(Error::InvalidResponse(why)) if why.contains("invalid response")),
            "{shape}: {refused:?}"
        );
    }
    let broken = client
        .request::<Value, _>("document", &("a broken result", 0, false))
        .await;
    assert!(
        matches!(&broken, Err(Error::Decode(m)) if m.reason().starts_with("not valid JSON")),
        "{broken:?}"
    );
    let still: Value = client
        .request("document", &("id first", 0, false))
        .await
        .expect("the connection goes on");
    assert_eq!(
        still,
        serde_json::from_str::<Value>(&documents[0].1).unwrap()
    );
}
