//! The move to schema-first, end to end: the original service runs on jsonrpsee with its
//! own types, answers `rpc.discover` with the document `rpcsmith::describe` writes from
//! them, and the client generated from that document calls it over HTTP: typed params,
//! typed results, the declared error with its typed `data`.

use std::time::Duration;

use jsonrpsee::server::{RpcModule, Server};
use jsonrpsee::types::ErrorObjectOwned;
use rpcsmith::client::{Client, Error};
use rpcsmith::http;
use rpcsmith_codefirst::codefirst::{CodefirstClient, UserGetError, types as generated};
use rpcsmith_codefirst::original::*;

/// What the robot reports after a command (the original service's logic).
fn run(command: Command, keys: Vec<Key>) -> Vec<Event> {
    let mut events = vec![Event::Started {
        at: keys.len() as u64,
    }];
    match command {
        Command::Move(to) => events.push(Event::Reached(to)),
        Command::Turn { degrees, .. } => events.push(Event::Stopped {
            reason: format!("turned {degrees}"),
            code: None,
        }),
        Command::Say(_) | Command::Halt => events.push(Event::Ping),
    }
    events
}

fn user(n: u32, name: &str) -> User {
    User {
        id: UserId(n.into()),
        display_name: name.to_owned(),
        email: None,
        scores: Default::default(),
        paid: u128::from(n) << 100,
        last_seen: (Point { x: 0, y: 0 }, 0),
        balance: -1,
        ratio: 0.5,
    }
}

async fn original_service() -> (String, jsonrpsee::server::ServerHandle) {
    let server = Server::builder()
        .build("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = server.local_addr().expect("local address");
    let mut module = RpcModule::new(());
    module
        .register_method("rpc.discover", |_, _, _| {
            document().to_json().expect("a document")
        })
        .expect("registered");
    module
        .register_method("robot_command", |params, _, _| {
            let (command, keys): (Command, Vec<Key>) = params.parse()?;
            Ok::<_, ErrorObjectOwned>(run(command, keys))
        })
        .expect("registered");
    module
        .register_method("user_get", |params, _, _| {
            // As jsonrpsee's `#[rpc]` macro reads params by position: a trailing optional
            // one may be left out (a tuple `parse()` would want both).
            let mut sequence = params.sequence();
            let id: UserId = sequence.next()?;
            let _with_scores: Option<bool> = sequence.optional_next()?;
            if id.0 == 0 {
                let refusal = Refusal {
                    user: id,
                    reason: "root".into(),
                };
                return Err(ErrorObjectOwned::owned(-32001, "Refused", Some(refusal)));
            }
            Ok(None::<User>)
        })
        .expect("registered");
    module
        .register_method("user_search", |params, _, _| {
            let search: Search = params.parse()?;
            let found: Vec<User> = (0..search.limit.unwrap_or(1))
                .map(|n| user(n, &search.query))
                .collect();
            Ok::<_, ErrorObjectOwned>(found)
        })
        .expect("registered");
    (format!("http://{addr}"), server.start(module))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_generated_client_calls_the_original_service() {
    let (url, handle) = original_service().await;
    let inner = Client::builder()
        .timeout(Duration::from_secs(5))
        .build(http::Client::new(&url).expect("valid URL"));
    let client = CodefirstClient::new(inner.clone());

    // The service describes itself with the document the client was generated from.
    let discovered: serde_json::Value = inner.request("rpc.discover", &()).await.expect("answered");
    let committed: serde_json::Value =
        serde_json::from_str(include_str!("../openrpc.json")).expect("the document");
    assert_eq!(discovered, committed);

    let command = generated::Command::Turn(generated::CommandTurn {
        degrees: -90,
        wait_ms: 5,
    });
    let keys = vec![generated::Key::Both(generated::Both {
        number: 1,
        name: "a".into(),
    })];
    let events = client.robot_command(command, keys).await.expect("answered");
    let expected = run(
        Command::Turn {
            degrees: -90,
            wait_ms: 5,
        },
        vec![Key::Both {
            number: 1,
            name: "a".into(),
        }],
    );
    assert_eq!(
        serde_json::to_string(&events).unwrap(),
        serde_json::to_string(&expected).unwrap()
    );
    let reached = client
        .robot_command(
            generated::Command::Move(generated::Point { x: 1, y: 2 }),
            vec![],
        )
        .await
        .expect("answered");
    assert_eq!(
        reached[1],
        generated::Event::Reached(generated::Point { x: 1, y: 2 })
    );

    match client.user_get(0, Some(true)).await {
        Err(Error::Declared(UserGetError::Refused(refusal))) => {
            assert_eq!(
                refusal,
                generated::Refusal {
                    user: 0,
                    reason: "root".into()
                }
            );
        }
        other => panic!("the declared error, typed: {other:?}"),
    }
    assert_eq!(client.user_get(7, None).await.expect("answered"), None);
    // A params struct spread into named params: sent as the object the service decodes.
    let users = client
        .user_search("ada".into(), Some(2))
        .await
        .expect("answered");
    assert_eq!(
        serde_json::to_string(&users).unwrap(),
        serde_json::to_string(&[user(0, "ada"), user(1, "ada")]).unwrap()
    );
    handle.stop().expect("stops");
}
