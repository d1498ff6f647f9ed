//! Per-call credentials, refreshed on an authentication failure: [`Credentials`] and the
//! middleware that applies them, [`Authorize`].

use std::error::Error as StdError;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};

use super::chain::{Exchange, Middleware, Next};
use crate::client::codec;
use crate::client::port::{Delivery, SendFuture};
use crate::client::transport_error::{TransportError, TransportErrorKind};

/// The future [`Credentials::refresh`] returns.
pub type RefreshFuture<'a> =
    Pin<Box<dyn Future<Output = Result<(), Box<dyn StdError + Send + Sync>>> + Send + 'a>>;

/// Where a call's credentials come from: headers for each exchange (a bearer token, an
/// API key), and a way to get new ones when the server says they no longer do.
///
/// ```
/// use std::sync::RwLock;
/// use http::HeaderValue;
/// use rpcsmith::client::{Credentials, Exchange, RefreshFuture};
///
/// /// A bearer token fetched again when it is refused.
/// struct Token(RwLock<HeaderValue>);
///
/// impl Credentials for Token {
///     fn apply(&self, exchange: &mut Exchange) {
///         let token = self.0.read().unwrap().clone();
///         exchange.headers_mut().insert(http::header::AUTHORIZATION, token);
///     }
///
///     fn refresh(&self) -> RefreshFuture<'_> {
///         Box::pin(async move {
///             let fresh = HeaderValue::from_static("Bearer fresh"); // from the token endpoint
///             *self.0.write().unwrap() = fresh;
///             Ok(())
///         })
///     }
/// }
/// ```
pub trait Credentials: Send + Sync + 'static {
    /// Adds the credentials to one exchange: its headers, as a rule
    /// ([`Exchange::headers_mut`]). Called for every exchange, and again for the one sent
    /// after a refresh: keep it cheap (read what [`refresh`](Self::refresh) stored).
    fn apply(&self, exchange: &mut Exchange);

    /// Gets new credentials, after the server refused the current ones. [`Authorize`]
    /// calls it once for any number of calls that failed together.
    ///
    /// # Errors
    ///
    /// Why no new credentials could be had; the call that asked fails with a
    /// [`TransportError`] of kind [`Credentials`](TransportErrorKind::Credentials).
    fn refresh(&self) -> RefreshFuture<'_>;
}

/// Applies [`Credentials`] to every exchange and, when the server refuses them, refreshes
/// them once and sends the exchange once more.
///
/// A refusal is an HTTP 401 with no JSON-RPC answer, or a JSON-RPC error answer with a
/// code given to [`code`](Self::code) (a declared "unauthorized" error). Calls that are
/// refused together trigger one refresh: the first to fail refreshes, the others wait
/// for it and then send again with the new credentials. A call refused again after
/// the refresh returns that refusal. As with [`Retry`](super::Retry), error answers are
/// seen where they come back from the exchange (HTTP, in-memory).
///
/// The exchange sent again is the same message: a call that was refused did not run.
#[derive(Debug)]
pub struct Authorize<C> {
    credentials: C,
    codes: Vec<i64>,
    /// How many refreshes have succeeded: a call that failed with the credentials of
    /// an older generation needs none of its own.
    generation: AtomicU64,
    refreshing: tokio::sync::Mutex<()>,
}

impl<C: Credentials> Authorize<C> {
    /// Applies `credentials`; refreshes them on HTTP 401.
    pub fn new(credentials: C) -> Self {
        Self {
            credentials,
            codes: Vec::new(),
            generation: AtomicU64::new(0),
            refreshing: tokio::sync::Mutex::new(()),
        }
    }

    /// Refreshes the credentials on a JSON-RPC error answer with `code` too.
    pub fn code(mut self, code: i64) -> Self {
        self.codes.push(code);
        self
    }

    /// The credentials.
    pub fn credentials(&self) -> &C {
        &self.credentials
    }

    fn is_refusal(&self, outcome: &Result<Delivery, TransportError>) -> bool {
        match outcome {
            Err(error) => error.http_status() == Some(401),
            Ok(Delivery::Answer(answer)) => {
                !self.codes.is_empty()
                    && codec::error_code(answer).is_some_and(|code| self.codes.contains(&code))
            }
            Ok(_) => false,
        }
    }

    /// Refreshes the credentials, unless a refresh succeeded since generation `seen`
    /// (another call's, while this one was failing).
    async fn refresh_after(&self, seen: u64) -> Result<(), TransportError> {
        let _only_one = self.refreshing.lock().await;
        if self.generation.load(Ordering::Acquire) != seen {
            return Ok(());
        }
        tracing::debug!("refreshing credentials");
        self.credentials.refresh().await.map_err(|error| {
            TransportError::with_source(
                TransportErrorKind::Credentials,
                "refreshing the credentials failed",
                error,
            )
        })?;
        self.generation.fetch_add(1, Ordering::Release);
        Ok(())
    }
}

impl<C: Credentials> Middleware for Authorize<C> {
    fn send<'a>(&'a self, exchange: Exchange, next: Next<'a>) -> SendFuture<'a> {
        Box::pin(async move {
            let seen = self.generation.load(Ordering::Acquire);
            let mut first = exchange.clone();
            self.credentials.apply(&mut first);
            let outcome = next.run(first).await;
            if !self.is_refusal(&outcome) {
                return outcome;
            }
            self.refresh_after(seen).await?;
            let mut again = exchange;
            self.credentials.apply(&mut again);
            next.run(again).await
        })
    }
}
