//! The production brokers: Redis over TLS with an ACL user, and NATS with a user and
//! password or over TLS with a token. Two instances of the app behind a real nginx,
//! linked through a real `redis-server` or `nats-server` started by the test; the broker
//! is killed and restarted, and items flow again.
//!
//! Where a program is missing, the tests are marked ignored (see `behind_nginx.rs`).

mod support;

use rpcsmith::client::Error;
use serde_json::{Value, json};
use support::brokers::{Link, Nats, Redis};
use support::{Instance, Nginx, Subscriber};

const IDS: [&str; 2] = ["a", "b"];

/// A broker the test can stop and start again.
trait Restartable {
    fn link(&self) -> &Link;
    async fn kill(&mut self);
    async fn restart(&mut self);
    async fn pause(&self);
    async fn resume(&self);
}

impl Restartable for Redis {
    fn link(&self) -> &Link {
        Redis::link(self)
    }
    async fn kill(&mut self) {
        Redis::kill(self).await;
    }
    async fn restart(&mut self) {
        Redis::restart(self).await;
    }
    async fn pause(&self) {
        Redis::pause(self).await;
    }
    async fn resume(&self) {
        Redis::resume(self).await;
    }
}

impl Restartable for Nats {
    fn link(&self) -> &Link {
        Nats::link(self)
    }
    async fn kill(&mut self) {
        Nats::kill(self).await;
    }
    async fn restart(&mut self) {
        Nats::restart(self).await;
    }
    async fn pause(&self) {
        Nats::pause(self).await;
    }
    async fn resume(&self) {
        Nats::resume(self).await;
    }
}

/// Two instances linked through `broker` behind nginx, and a WebSocket subscriber of
/// `ticks` on each.
async fn two_linked(link: &Link) -> (Vec<Instance>, Nginx, Vec<Subscriber>) {
    let mut instances = Vec::new();
    for id in IDS {
        instances.push(Instance::start(id, Some(link)).await);
    }
    let nginx = Nginx::start(&instances.iter().collect::<Vec<_>>()).await;
    for instance in &instances {
        instance.until_linked(true).await;
    }
    let subscribers = nginx.one_websocket_each(&IDS).await;
    for subscriber in &subscribers {
        let id: Value = subscriber
            .client
            .request("subscribeTicks", &())
            .await
            .unwrap();
        assert!(id.is_string(), "a subscription id: {id}");
    }
    (instances, nginx, subscribers)
}

/// Items published on `from` reach every subscriber of both instances, in order.
async fn flow(subscribers: &mut [Subscriber], from: usize, texts: &[&str]) {
    let publisher = subscribers[from].client.clone();
    let origin = subscribers[from].instance.clone();
    for (n, text) in texts.iter().enumerate() {
        let local: Value = publisher.request("publish", &[text]).await.unwrap();
        assert_eq!(local, json!({"sent": 1}), "one connection on {origin}");
        let local: Value = publisher.request("tick", &[n]).await.unwrap();
        assert_eq!(local, json!({"sent": 1}), "one subscriber on {origin}");
    }
    for subscriber in subscribers.iter_mut() {
        for (n, text) in texts.iter().enumerate() {
            let pushed = subscriber.next("pushed").await;
            assert_eq!(pushed, json!([origin, text]), "on {}", subscriber.instance);
            let tick = subscriber.next("tick").await;
            assert_eq!(tick["result"], n, "on {}: {tick}", subscriber.instance);
        }
    }
}

/// Pushes cross through `broker`; with it down a publish fails visibly and local
/// delivery goes on; once it is back, every instance links again and pushes cross again;
/// the same once it has been silent.
async fn crosses_and_survives_a_restart(broker: &mut impl Restartable) {
    let (instances, _nginx, mut subscribers) = two_linked(broker.link()).await;
    let texts: Vec<String> = (0..10).map(|n| format!("m{n}")).collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    flow(&mut subscribers, 0, &texts).await;

    broker.kill().await;
    for instance in &instances {
        instance.until_linked(false).await;
    }
    let publisher = subscribers[0].client.clone();
    let refused = publisher
        .request::<Value, _>("publish", &["while down"])
        .await;
    let Err(Error::Undeclared(error)) = refused else {
        panic!("a publish with the broker down: {refused:?}");
    };
    assert_eq!(error.code, -32050, "{error:?}");
    assert!(
        error
            .message
            .starts_with("not published to the other instances: the broker is unavailable"),
        "{}",
        error.message
    );
    assert_eq!(error.data_as::<Value>(), Some(json!({"sent": 1})));
    assert_eq!(
        subscribers[0].next("pushed").await,
        json!(["a", "while down"]),
        "local delivery goes on"
    );

    broker.restart().await;
    for instance in &instances {
        instance.until_linked(true).await;
    }
    // Both ways: published on "b" now.
    flow(&mut subscribers, 1, &["after", "restart"]).await;

    // Gone silent (the process stopped, its connections open): every instance notices
    // by its pings, unlinks, and links again once the broker answers.
    broker.pause().await;
    for instance in &instances {
        instance.until_linked(false).await;
    }
    broker.resume().await;
    for instance in &instances {
        instance.until_linked(true).await;
    }
    flow(&mut subscribers, 0, &["after", "silence"]).await;
}

/// An instance given a wrong password is refused by `link`'s broker: its publish fails
/// saying so, and it never links.
async fn a_wrong_password_is_refused(link: &Link, what: &str) {
    let instance = Instance::start("x", Some(&link.with_password("wrong"))).await;
    let refused = instance
        .direct()
        .request::<Value, _>("publish", &["nobody hears this"])
        .await;
    let Err(Error::Undeclared(error)) = refused else {
        panic!("a publish with a wrong password: {refused:?}");
    };
    assert!(
        error
            .message
            .starts_with("not published to the other instances: the broker refused"),
        "{what}: {}",
        error.message
    );
    let linked: bool = instance.direct().request("linked", &()).await.unwrap();
    assert!(!linked, "{what}: linked with a wrong password");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(services),
    ignore = "nginx or redis-server is not installed (Debian: apt-get install nginx-light redis-server)"
)]
async fn redis_over_tls_with_an_acl_user_carries_pushes_and_survives_a_restart() {
    let mut redis = Redis::start_secure().await;
    crosses_and_survives_a_restart(&mut redis).await;
    a_wrong_password_is_refused(redis.link(), "Redis").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(all(services, nats_server)),
    ignore = "nginx or nats-server is not installed (Debian: apt-get install nginx-light nats-server)"
)]
async fn nats_with_a_user_and_password_carries_pushes_and_survives_a_restart() {
    let mut nats = Nats::start().await;
    crosses_and_survives_a_restart(&mut nats).await;
    a_wrong_password_is_refused(nats.link(), "NATS").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(all(services, nats_server)),
    ignore = "nginx or nats-server is not installed (Debian: apt-get install nginx-light nats-server)"
)]
async fn nats_over_tls_with_a_token_carries_pushes_and_survives_a_restart() {
    let mut nats = Nats::start_secure().await;
    crosses_and_survives_a_restart(&mut nats).await;
}
