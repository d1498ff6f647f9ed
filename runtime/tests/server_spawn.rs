//! The engine's futures are `Send`: a connection's calls can run on spawned tasks.

mod support;

use rpcsmith::server::{Metadata, Server};
use support::{TestMethods, json, request};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handling_can_be_spawned() {
    let server = Server::builder(TestMethods::default()).build();
    let connection = server.connection(Metadata::default());
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let connection = connection.clone();
            tokio::spawn(async move {
                let message = request("sleep", "[2]", i);
                connection.handle(message.as_bytes()).await
            })
        })
        .collect();
    for (i, task) in tasks.into_iter().enumerate() {
        let answer = json(&task.await.unwrap().unwrap());
        assert_eq!(answer["id"], i);
        assert_eq!(answer["result"], 2);
    }
    assert_eq!(connection.in_flight(), 0);
}
