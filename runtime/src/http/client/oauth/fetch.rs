//! The few HTTP exchanges OAuth needs besides the MCP server's own: metadata `GET`s,
//! the registration and token `POST`s, and the authorization request an
//! [`Authorizer`](super::Authorizer) may follow. They go to other origins than the
//! client's one server, so they use hyper-util's pooled client (any origin) on the
//! same connector, with a small bound on every body read.

use super::super::pool::Connector;
use crate::client::{TransportError, TransportErrorKind};
use crate::http::body;
use ::http::header::{self, HeaderValue};
use ::http::{Method, Request, StatusCode};
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::Client as Pooled;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

/// The largest metadata document, registration or token answer read: 1 MiB.
const MAX_BODY: usize = 1024 * 1024;

/// An HTTP client for OAuth's exchanges. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Fetcher {
    client: Pooled<Connector, Full<Bytes>>,
}

/// A response read whole.
pub(crate) struct Fetched {
    pub(crate) status: StatusCode,
    pub(crate) location: Option<String>,
    pub(crate) body: Bytes,
}

impl Fetcher {
    /// A fetcher on `connector`.
    pub(crate) fn new(connector: Connector) -> Self {
        Self {
            client: Pooled::builder(TokioExecutor::new()).build(connector),
        }
    }

    /// A fetcher on a default connector (TCP; TLS with the system's roots under `tls`).
    pub(crate) fn plain() -> Result<Self, TransportError> {
        let mut http = HttpConnector::new();
        http.set_nodelay(true);
        #[cfg(feature = "tls")]
        let connector = {
            http.enforce_http(false);
            hyper_rustls::HttpsConnectorBuilder::new()
                .with_tls_config(crate::transport::tls::default_client_config()?)
                .https_or_http()
                .enable_http1()
                .wrap_connector(http)
        };
        #[cfg(not(feature = "tls"))]
        let connector = http;
        Ok(Self::new(connector))
    }

    /// `GET url`, accepting JSON.
    pub(crate) async fn get(&self, url: &str) -> Result<Fetched, TransportError> {
        self.send(Method::GET, url, None, None).await
    }

    /// `POST url` with `body` of `content_type`, and an `Authorization` header if given.
    pub(crate) async fn post(
        &self,
        url: &str,
        content_type: &'static str,
        body: Bytes,
        authorization: Option<HeaderValue>,
    ) -> Result<Fetched, TransportError> {
        (self.send(Method::POST, url, Some((content_type, body)), authorization)).await
    }

    async fn send(
        &self,
        method: Method,
        url: &str,
        body: Option<(&'static str, Bytes)>,
        authorization: Option<HeaderValue>,
    ) -> Result<Fetched, TransportError> {
        let uri: ::http::Uri = url
            .parse()
            .map_err(|_| failure(format!("OAuth: {url:?} is not a URL")))?;
        let mut request = Request::builder()
            .method(method)
            .uri(uri)
            .header(header::ACCEPT, "application/json");
        if let Some(authorization) = authorization {
            request = request.header(header::AUTHORIZATION, authorization);
        }
        let content = match body {
            Some((content_type, body)) => {
                request = request.header(header::CONTENT_TYPE, content_type);
                body
            }
            None => Bytes::new(),
        };
        let request = request
            .body(Full::new(content))
            .map_err(|error| failure(format!("OAuth: no request to {url}: {error}")))?;
        let response = self.client.request(request).await.map_err(|error| {
            TransportError::with_source(
                TransportErrorKind::Connect,
                format!("OAuth: {url} could not be reached"),
                error,
            )
        })?;
        let status = response.status();
        let location = (response.headers().get(header::LOCATION))
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let body = body::read(response.into_body(), MAX_BODY)
            .await
            .map_err(|_| {
                failure(format!(
                    "OAuth: the answer of {url} is unreadable or over 1 MiB"
                ))
            })?;
        Ok(Fetched {
            status,
            location,
            body,
        })
    }
}

/// An OAuth failure: the call cannot be authorised.
pub(crate) fn failure(message: impl Into<String>) -> TransportError {
    TransportError::new(TransportErrorKind::Credentials, message)
}
