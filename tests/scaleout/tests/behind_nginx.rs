//! Several instances of a server behind a real nginx, and push across them through a
//! real Redis: every process a child process on loopback, started by the test.
//!
//! Where nginx or redis-server is missing, the build script leaves `cfg(services)`
//! unset and these tests are marked ignored (cargo's summary counts them, with the
//! reason); under `RPCSMITH_REQUIRE_SERVICES=1` (as `.ci/run` sets after installing
//! them) the build fails instead.

mod support;

use std::collections::HashSet;

use rpcsmith::client::Error;
use serde_json::{Value, json};
use support::brokers::Redis;
use support::{Instance, Nginx, Subscriber};

const IDS: [&str; 3] = ["a", "b", "c"];

/// Three instances (linked to `redis` if given) behind nginx.
async fn three_behind_nginx(redis: Option<&Redis>) -> (Vec<Instance>, Nginx) {
    let redis = redis.map(Redis::link);
    let mut instances = Vec::new();
    for id in IDS {
        instances.push(Instance::start(id, redis).await);
    }
    let nginx = Nginx::start(&instances.iter().collect::<Vec<_>>()).await;
    for instance in &instances {
        instance.until_linked(true).await;
    }
    (instances, nginx)
}

/// Connections through nginx, one on each instance, each subscribed to `ticks`.
async fn subscribers(nginx: &Nginx) -> Vec<Subscriber> {
    let subscribers = nginx.one_websocket_each(&IDS).await;
    for subscriber in &subscribers {
        let id: Value = subscriber
            .client
            .request("subscribeTicks", &())
            .await
            .unwrap();
        assert!(id.is_string(), "a subscription id: {id}");
    }
    subscribers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(services),
    ignore = "nginx or redis-server is not installed (Debian: apt-get install nginx-light redis-server)"
)]
async fn three_instances_answer_http_and_websocket_calls_through_nginx() {
    let (_instances, nginx) = three_behind_nginx(None).await;

    // Plain HTTP: one client, one keep-alive connection to nginx, which gives each
    // request to the next instance.
    let client = nginx.http();
    let mut answered = Vec::new();
    for _ in 0..6 {
        let id: String = client.request("instance", &()).await.unwrap();
        answered.push(id);
    }
    let distinct: HashSet<&str> = answered.iter().map(String::as_str).collect();
    assert_eq!(
        distinct,
        HashSet::from(IDS),
        "every instance answered: {answered:?}"
    );
    // Errors pass through the proxy as they are.
    let unknown = client
        .request::<Value, _>("nothing", &())
        .await
        .unwrap_err();
    assert!(
        matches!(&unknown, Error::Undeclared(error) if error.code == -32601),
        "{unknown:?}"
    );

    // WebSocket: each connection stays on its instance, and the connections spread.
    let subscribers = nginx.one_websocket_each(&IDS).await;
    for subscriber in &subscribers {
        for _ in 0..3 {
            let id: String = subscriber.client.request("instance", &()).await.unwrap();
            assert_eq!(id, subscriber.instance, "a WebSocket stays on one instance");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(services),
    ignore = "nginx or redis-server is not installed (Debian: apt-get install nginx-light redis-server)"
)]
async fn a_publish_on_one_instance_reaches_subscribers_on_every_instance_in_order() {
    let redis = Redis::start().await;
    let (_instances, nginx) = three_behind_nginx(Some(&redis)).await;
    let mut subscribers = subscribers(&nginx).await;

    // Published through the connection served by instance "a", one after the other.
    let publisher = subscribers[0].client.clone();
    for n in 0..20_u64 {
        let local: Value = publisher
            .request("publish", &[format!("m{n}")])
            .await
            .unwrap();
        assert_eq!(local, json!({"sent": 1}), "one connection on \"a\"");
        let local: Value = publisher.request("tick", &[n]).await.unwrap();
        assert_eq!(local, json!({"sent": 1}), "one subscriber on \"a\"");
    }
    for subscriber in &mut subscribers {
        for n in 0..20_u64 {
            let pushed = subscriber.next("pushed").await;
            assert_eq!(
                pushed,
                json!(["a", format!("m{n}")]),
                "on {}",
                subscriber.instance
            );
            let tick = subscriber.next("tick").await;
            assert_eq!(tick["result"], n, "on {}: {tick}", subscriber.instance);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(services),
    ignore = "nginx or redis-server is not installed (Debian: apt-get install nginx-light redis-server)"
)]
async fn with_redis_down_a_publish_fails_visibly_and_local_delivery_goes_on() {
    let mut redis = Redis::start().await;
    let (instances, nginx) = three_behind_nginx(Some(&redis)).await;
    let mut subscribers = subscribers(&nginx).await;

    redis.kill().await;
    for instance in &instances {
        instance.until_linked(false).await;
    }
    let publisher = subscribers[0].client.clone();
    for (method, params) in [("publish", json!(["while down"])), ("tick", json!([7]))] {
        let refused = publisher.request::<Value, _>(method, &params).await;
        let Err(Error::Undeclared(error)) = refused else {
            panic!("{method} with Redis down: {refused:?}");
        };
        assert_eq!(error.code, -32050, "{error:?}");
        assert!(
            error
                .message
                .starts_with("not published to the other instances: the broker is unavailable"),
            "{}",
            error.message
        );
        assert_eq!(
            error.data_as::<Value>(),
            Some(json!({"sent": 1})),
            "{method}"
        );
    }
    // The local subscriber got both.
    let local = &mut subscribers[0];
    assert_eq!(local.next("pushed").await, json!(["a", "while down"]));
    assert_eq!(local.next("tick").await["result"], 7);

    // Redis is back: every instance links again, and publishes cross again. What was
    // published meanwhile never reached the other instances (pub/sub keeps nothing).
    redis.restart().await;
    for instance in &instances {
        instance.until_linked(true).await;
    }
    let local: Value = publisher.request("publish", &["after"]).await.unwrap();
    assert_eq!(local, json!({"sent": 1}));
    let local: Value = publisher.request("tick", &[8]).await.unwrap();
    assert_eq!(local, json!({"sent": 1}));
    assert_eq!(subscribers[0].next("pushed").await, json!(["a", "after"]));
    for subscriber in &mut subscribers[1..] {
        assert_eq!(subscriber.next("pushed").await, json!(["a", "after"]));
        assert_eq!(subscriber.next("tick").await["result"], 8);
    }
}
