//! A client that outlives its connections: when one ends, pending calls fail with
//! `Closed`, and a new connection is opened after the [`Reconnect`] policy's delay; calls
//! made meanwhile wait for it (up to their timeout).

use super::driver::Driver;
use super::inbound::Inbound;
use super::link::Stop;
use super::queue::{Budget, Outbox};
use super::wire::{Wire, cancel_message};
use super::{Builder, NoMethods, Remote};
use crate::client::{Client, Inbox};
use crate::client::{Delivery, SendFuture, Transport, TransportError};
use crate::server::Server;
use bytes::Bytes;
use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// When to open a new connection after one is lost.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Reconnect {
    /// Never: the first lost connection closes the client, as without reconnection.
    Never,
    /// After the same delay every time.
    Fixed(Duration),
    /// After `initial`, then twice as long each failed attempt, at most `max`.
    Exponential {
        /// The first delay.
        initial: Duration,
        /// The longest delay.
        max: Duration,
    },
}

impl Reconnect {
    /// The delay before attempt `attempt` (0 for the first retry); `None` to give up.
    fn delay(&self, attempt: u32) -> Option<Duration> {
        match self {
            Reconnect::Never => None,
            Reconnect::Fixed(delay) => Some(*delay),
            Reconnect::Exponential { initial, max } => {
                let factor = 2_u32.saturating_pow(attempt.min(31));
                Some(initial.saturating_mul(factor).min(*max))
            }
        }
    }
}

/// The transport of a reconnecting client: the current connection's queue, if any.
struct Switch {
    current: watch::Receiver<Option<Outbox>>,
    cancel: bool,
}

impl Transport for Switch {
    fn send(&self, message: Bytes) -> SendFuture<'_> {
        Box::pin(async move {
            let mut current = self.current.clone();
            let mut message = message;
            loop {
                let outbox = current.borrow_and_update().clone();
                if let Some(outbox) = outbox {
                    match outbox.send(message).await {
                        Ok(()) => return Ok(Delivery::Routed),
                        Err(returned) => message = returned,
                    }
                }
                // Wait for the next connection; the client's timeout bounds the wait.
                if current.changed().await.is_err() {
                    return Err(TransportError::closed());
                }
            }
        })
    }

    fn cancel(&self, id: u64) {
        let outbox = self.current.borrow().clone();
        if let (true, Some(outbox)) = (self.cancel, outbox) {
            let _ = outbox.try_send(cancel_message(id));
        }
    }
}

/// A client whose connections `connect` opens, again after each is lost, per `policy`.
/// The first connection is opened in the background: calls wait for it.
pub(crate) fn reconnecting<C, F, W>(mut builder: Builder, policy: Reconnect, connect: C) -> Client
where
    C: Fn() -> F + Send + Sync + 'static,
    F: Future<Output = io::Result<W>> + Send + 'static,
    W: Wire,
{
    let cancel = builder.cancel.unwrap_or(false);
    let (publish, current) = watch::channel(None);
    let client = Client::builder()
        .timeout(builder.timeout)
        .build(Switch { current, cancel });
    let inbox = client.inbox();
    builder
        .metadata
        .extensions
        .insert(Remote(client.downgrade()));
    let supervisor = Supervisor {
        builder,
        policy,
        inbox,
        publish,
        cancel,
    };
    tokio::spawn(supervisor.run(connect));
    client
}

struct Supervisor {
    builder: Builder,
    policy: Reconnect,
    inbox: Inbox,
    publish: watch::Sender<Option<Outbox>>,
    cancel: bool,
}

impl Supervisor {
    /// Connects, serves the connection until it ends, waits, and again, until the
    /// policy gives up or the client is dropped.
    async fn run<C, F, W>(self, connect: C)
    where
        C: Fn() -> F,
        F: Future<Output = io::Result<W>>,
        W: Wire,
    {
        let server = self
            .builder
            .server
            .clone()
            .unwrap_or_else(|| Server::new(NoMethods));
        let mut attempt = 0;
        loop {
            let connected = tokio::select! {
                () = self.publish.closed() => return,
                connected = connect() => connected,
            };
            match connected {
                Ok(wire) => {
                    attempt = 0;
                    if self.run_connection(&server, wire).await == Ended::ClientGone {
                        return;
                    }
                }
                Err(error) => tracing::debug!(%error, "reconnecting failed"),
            }
            let Some(delay) = self.policy.delay(attempt) else {
                break;
            };
            attempt = attempt.saturating_add(1);
            tokio::select! {
                () = self.publish.closed() => return,
                () = tokio::time::sleep(delay) => {}
            }
        }
        self.inbox.close();
    }

    /// Runs one connection until it ends, or until the client is gone (then closes it).
    async fn run_connection(&self, server: &Server, wire: impl Wire) -> Ended {
        let budget = Arc::new(Budget::new(self.builder.byte_budget));
        let (outbox, queue) = Outbox::new(self.builder.queue, Arc::clone(&budget));
        let stop = Arc::new(Stop::default());
        let inbound = Inbound::new(
            self.inbox.clone(),
            server.connection(self.builder.metadata.clone()),
            outbox.clone(),
            self.cancel,
            server.limits(),
            (self.builder.queue, self.builder.byte_budget),
        );
        let driver = Driver::new(
            wire,
            (queue, budget),
            inbound,
            (Arc::clone(&stop), self.builder.stall_timeout),
            false,
        );
        let mut driver = std::pin::pin!(driver);
        self.publish.send_replace(Some(outbox));
        let ended = tokio::select! {
            () = self.publish.closed() => Ended::ClientGone,
            () = driver.as_mut() => Ended::Lost,
        };
        self.publish.send_replace(None);
        if ended == Ended::ClientGone {
            // Let out what is queued, and close the stream.
            stop.trigger();
            driver.await;
        }
        ended
    }
}

/// How a connection of a reconnecting client ended.
#[derive(Debug, PartialEq, Eq)]
enum Ended {
    /// It was lost: connect again.
    Lost,
    /// Every clone of the client is dropped: stop.
    ClientGone,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays() {
        let ms = Duration::from_millis;
        assert_eq!(Reconnect::Never.delay(0), None);
        assert_eq!(Reconnect::Fixed(ms(7)).delay(9), Some(ms(7)));
        let policy = Reconnect::Exponential {
            initial: ms(10),
            max: ms(50),
        };
        let delays: Vec<_> = (0..5).map(|attempt| policy.delay(attempt)).collect();
        assert_eq!(delays, [10, 20, 40, 50, 50].map(|n| Some(ms(n))));
        assert_eq!(policy.delay(u32::MAX), Some(ms(50)));
    }
}
