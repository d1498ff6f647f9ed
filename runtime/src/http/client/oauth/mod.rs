//! OAuth 2.1 for the HTTP client, as MCP's authorization (revision 2025-11-25, with
//! 2025-03-26's discovery as a fallback) has a client do it: a request answered `401`
//! starts an authorization, a `403` with `error="insufficient_scope"` a step-up, and
//! the request is sent again with the new `Authorization: Bearer` token.
//!
//! | step | what the client does |
//! |---|---|
//! | challenge | reads `WWW-Authenticate: Bearer` (`resource_metadata`, `scope`, `error`) |
//! | resource | RFC 9728 metadata: the challenge's URL, else path-based then root well-known |
//! | server | RFC 8414 / OpenID discovery: path-inserted 8414, path-inserted OpenID, path-appended OpenID |
//! | client | pre-registered ([`OAuth::client`]), else a client-id metadata document when the server supports them ([`OAuth::client_metadata_url`]), else RFC 7591 registration |
//! | scope | the challenge's, else every `scopes_supported` of the resource, else none |
//! | code | PKCE S256 and `resource` (RFC 8707); the user's step is the [`Authorizer`]'s |
//! | token | `client_secret_basic`, `client_secret_post` or `none`, as registration and the server say |
//! | later | refresh on expiry or `401`; at most three authorizations per request |
//!
//! The PKCE verifier and `state` come from the operating system's CSPRNG (`getrandom`).
//!
//! Why not the `oauth2` crate: it builds the authorization URL and the token request,
//! a small part of this; discovery, registration, challenges and step-up are MCP's and
//! would be written here anyway, and it wants an HTTP client of its own (reqwest, or an
//! adapter to write) where this module reuses the transport's hyper connector.

mod discovery;
mod fetch;
mod flow;

use super::Client;
use crate::client::{Delivery, TransportError};
use ::http::StatusCode;
use ::http::header::{HeaderMap, HeaderValue};
use bytes::Bytes;
use discovery::{Challenge, ResourceMetadata, ServerMetadata};
pub(crate) use fetch::Fetcher;
use fetch::failure;
use flow::{Issued, Registered};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use url::Url;

/// At most this many authorizations for one request (a first one and two step-ups).
const MAX_AUTHORIZATIONS: u8 = 3;

/// The user's step of an authorization: taking them to the authorization server's page
/// and bringing back where it redirected.
///
/// A desktop client opens `request` in a browser and listens on its redirect URI; a
/// test, or an authorization server that approves without a user, can use
/// [`FollowRedirect`].
pub trait Authorizer: Send + Sync + 'static {
    /// Takes the user to `request` (the authorization endpoint with every parameter)
    /// and returns the URL the server redirected to (`<redirect_uri>?code=…&state=…`).
    ///
    /// # Errors
    ///
    /// The user's refusal, or a failure to reach the server: the request then fails
    /// with that error.
    fn authorize<'a>(
        &'a self,
        request: &'a str,
    ) -> Pin<Box<dyn Future<Output = Result<String, TransportError>> + Send + 'a>>;
}

/// An [`Authorizer`] that requests the authorization URL itself and returns the
/// `Location` of the redirect it is answered with: for authorization servers that
/// approve without a user (tests, the MCP conformance suite, a pre-approved client).
#[derive(Clone)]
pub struct FollowRedirect {
    fetcher: Fetcher,
}

impl FollowRedirect {
    /// An authorizer with its own connections.
    ///
    /// # Errors
    ///
    /// Under `tls`, when the system's root certificates cannot be loaded.
    pub fn new() -> Result<Self, TransportError> {
        Ok(Self {
            fetcher: Fetcher::plain()?,
        })
    }
}

impl std::fmt::Debug for FollowRedirect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FollowRedirect").finish_non_exhaustive()
    }
}

impl Authorizer for FollowRedirect {
    fn authorize<'a>(
        &'a self,
        request: &'a str,
    ) -> Pin<Box<dyn Future<Output = Result<String, TransportError>> + Send + 'a>> {
        Box::pin(async move {
            let fetched = self.fetcher.get(request).await?;
            let location = (fetched.status.is_redirection())
                .then_some(fetched.location)
                .flatten()
                .ok_or_else(|| {
                    failure(format!(
                        "OAuth: the authorization endpoint answered {} without a redirect",
                        fetched.status
                    ))
                })?;
            let base = Url::parse(request).map_err(|_| failure("OAuth: bad request URL"))?;
            let location = base
                .join(&location)
                .map_err(|_| failure(format!("OAuth: bad redirect {location:?}")))?;
            Ok(location.into())
        })
    }
}

/// How an HTTP [`Client`](super::Client) authorizes itself with OAuth; given to
/// [`ClientBuilder::oauth`](super::ClientBuilder::oauth).
///
/// ```
/// use rpcsmith::http::{self, oauth};
///
/// let oauth = oauth::OAuth::new(oauth::FollowRedirect::new()?)
///     .client_name("my-agent")
///     .redirect_uri("http://127.0.0.1:8976/callback");
/// let transport = http::Client::builder("http://127.0.0.1:3000/mcp").oauth(oauth).build()?;
/// # drop(transport);
/// # Ok::<(), rpcsmith::client::TransportError>(())
/// ```
#[derive(Clone)]
pub struct OAuth {
    authorizer: Arc<dyn Authorizer>,
    client: Option<Registered>,
    metadata_url: Option<String>,
    name: String,
    redirect_uri: String,
}

impl OAuth {
    /// Authorizes with `authorizer` for the user's step; registers dynamically (named
    /// `rpcsmith`, redirected to `http://localhost/callback`) unless told otherwise.
    pub fn new(authorizer: impl Authorizer) -> Self {
        Self {
            authorizer: Arc::new(authorizer),
            client: None,
            metadata_url: None,
            name: "rpcsmith".to_owned(),
            redirect_uri: "http://localhost/callback".to_owned(),
        }
    }

    /// A client registered beforehand with the authorization server: its id, and its
    /// secret for a confidential client. Used first, instead of any registration.
    pub fn client(mut self, id: impl Into<String>, secret: Option<String>) -> Self {
        self.client = Some(Registered {
            id: id.into(),
            secret,
            method: None,
        });
        self
    }

    /// The HTTPS URL of this client's metadata document: its client id with servers that
    /// support client-id metadata documents (`client_id_metadata_document_supported`),
    /// instead of registering.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.metadata_url = Some(url.into());
        self
    }

    /// The name registration gives (`client_name`).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Where the authorization server redirects to with the code.
    pub fn redirect_uri(mut self, uri: impl Into<String>) -> Self {
        self.redirect_uri = uri.into();
        self
    }
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("name", &self.name)
            .field("redirect_uri", &self.redirect_uri)
            .finish_non_exhaustive()
    }
}

/// A client's OAuth state: its settings, the server it found, its registration, its
/// token.
pub(crate) struct State {
    settings: OAuth,
    fetcher: Fetcher,
    /// The MCP server's URL.
    server: Url,
    held: Mutex<Held>,
    /// One authorization at a time; a request that waited finds the new token.
    flow: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct Held {
    /// Bumped on every new token: a request that was refused with an older one retries.
    generation: u64,
    header: Option<HeaderValue>,
    token: Option<(Issued, Option<Instant>)>,
    found: Option<Found>,
    client: Option<Registered>,
}

/// What discovery found.
#[derive(Clone)]
struct Found {
    metadata: ServerMetadata,
    resource: String,
    scopes_supported: Option<Vec<String>>,
}

impl State {
    pub(crate) fn new(
        settings: OAuth,
        fetcher: Fetcher,
        server: &str,
    ) -> Result<Self, TransportError> {
        let server =
            Url::parse(server).map_err(|_| failure(format!("OAuth: {server:?} is not a URL")))?;
        let client = settings.client.clone();
        Ok(Self {
            settings,
            fetcher,
            server,
            held: Mutex::new(Held {
                client,
                ..Held::default()
            }),
            flow: tokio::sync::Mutex::new(()),
        })
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The `Authorization` header every request carries, once there is a token.
    pub(crate) fn header(&self) -> Option<HeaderValue> {
        self.held().header.clone()
    }

    fn generation(&self) -> u64 {
        self.held().generation
    }

    fn keep(&self, issued: Issued) -> Result<(), TransportError> {
        let header = HeaderValue::try_from(format!("Bearer {}", issued.access))
            .map_err(|_| failure("OAuth: the access token is not a header value"))?;
        let expiry = (issued.expires_in).map(|s| Instant::now() + Duration::from_secs(s));
        let mut held = self.held();
        held.generation += 1;
        held.header = Some(header);
        held.token = Some((issued, expiry));
        Ok(())
    }

    /// Whether the token held already has every scope `challenge` asks for.
    fn holds(&self, challenge: &Challenge) -> bool {
        let held = self.held();
        let granted = held.token.as_ref().map(|(issued, _)| &issued.scopes);
        let asked = challenge.scope.as_deref().unwrap_or_default();
        granted.is_some_and(|granted| {
            asked
                .split_whitespace()
                .all(|s| granted.iter().any(|g| g == s))
        })
    }

    /// Where to authorize, from `challenge` or the well-known URLs.
    async fn discover(&self, challenge: &Challenge) -> Result<Found, TransportError> {
        let urls = match &challenge.resource_metadata {
            Some(url) => vec![url.clone()],
            None => discovery::resource_metadata_urls(&self.server),
        };
        let resource: Option<ResourceMetadata> =
            discovery::first_document(&self.fetcher, &urls).await?;
        let server_url = self
            .server
            .as_str()
            .split('#')
            .next()
            .unwrap_or_default()
            .to_owned();
        let Some(resource) = resource else {
            // MCP 2025-03-26: the server's origin is its authorization server.
            let origin = discovery::origin(&self.server);
            let issuer = Url::parse(&origin).map_err(|_| failure("OAuth: bad origin"))?;
            let urls = discovery::server_metadata_urls(&issuer);
            let metadata = discovery::first_document(&self.fetcher, &urls).await?;
            return Ok(Found {
                metadata: metadata.unwrap_or_else(|| discovery::fallback_endpoints(&origin)),
                resource: server_url,
                scopes_supported: None,
            });
        };
        let resource_id = match resource.resource {
            Some(id) if covers(&id, &server_url) => id,
            Some(id) => {
                return Err(failure(format!(
                    "OAuth: the resource metadata names {id}, not this server ({server_url})"
                )));
            }
            None => server_url,
        };
        let issuer = (resource.authorization_servers.first())
            .ok_or_else(|| failure("OAuth: the resource metadata names no authorization server"))?;
        let issuer_url =
            Url::parse(issuer).map_err(|_| failure(format!("OAuth: bad issuer {issuer:?}")))?;
        let urls = discovery::server_metadata_urls(&issuer_url);
        let metadata: ServerMetadata = discovery::first_document(&self.fetcher, &urls)
            .await?
            .ok_or_else(|| {
                failure(format!(
                    "OAuth: no metadata for the authorization server {issuer}"
                ))
            })?;
        if (metadata.issuer.as_deref())
            .is_some_and(|i| i.trim_end_matches('/') != issuer.trim_end_matches('/'))
        {
            return Err(failure(format!(
                "OAuth: the metadata of {issuer} names another issuer"
            )));
        }
        Ok(Found {
            metadata,
            resource: resource_id,
            scopes_supported: resource.scopes_supported,
        })
    }

    /// The client's identity with `found`'s server: pre-registered, metadata document,
    /// or registered now (and kept).
    async fn client(&self, found: &Found) -> Result<Registered, TransportError> {
        if let Some(client) = self.held().client.clone() {
            return Ok(client);
        }
        let client = match &self.settings.metadata_url {
            Some(url) if found.metadata.client_id_metadata_document_supported => Registered {
                id: url.clone(),
                secret: None,
                method: Some("none".to_owned()),
            },
            _ => {
                let (name, redirect) = (&self.settings.name, &self.settings.redirect_uri);
                flow::register(&self.fetcher, &found.metadata, name, redirect).await?
            }
        };
        self.held().client = Some(client.clone());
        Ok(client)
    }

    /// A whole authorization for `challenge` (a step-up when `step_up`).
    async fn authorize(&self, challenge: &Challenge, step_up: bool) -> Result<(), TransportError> {
        let found = self.discover(challenge).await?;
        let methods = found.metadata.code_challenge_methods_supported.as_deref();
        if methods.is_some_and(|m| !m.iter().any(|m| m == "S256")) {
            return Err(failure(
                "OAuth: the authorization server does not support PKCE S256",
            ));
        }
        let client = self.client(&found).await?;
        let scope = self.scope(challenge, &found, step_up);
        let (verifier, code_challenge) = flow::pkce()?;
        let state = flow::random(16)?;
        let redirect_uri = &self.settings.redirect_uri;
        let request = flow::AuthorizationRequest {
            client_id: &client.id,
            redirect_uri,
            state: &state,
            challenge: &code_challenge,
            resource: &found.resource,
            scope: scope.as_deref(),
        };
        let url = request.url(&found.metadata.authorization_endpoint)?;
        let callback = self.settings.authorizer.authorize(&url).await?;
        let code = flow::code(&callback, &state)?;
        let form = vec![
            ("grant_type", "authorization_code"),
            ("code", &*code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", &verifier),
            ("resource", &found.resource),
        ];
        let issued = flow::token(
            &self.fetcher,
            &found.metadata,
            &client,
            form,
            scope.as_deref(),
        )
        .await?;
        self.held().found = Some(found);
        self.keep(issued)
    }

    /// The scope to ask for: the challenge's (with what is held, on a step-up), else
    /// every scope the resource supports, else none.
    fn scope(&self, challenge: &Challenge, found: &Found, step_up: bool) -> Option<String> {
        let mut scopes: Vec<String> = match (&challenge.scope, &found.scopes_supported) {
            (Some(scope), _) => scope.split_whitespace().map(str::to_owned).collect(),
            (None, Some(supported)) => supported.clone(),
            (None, None) => Vec::new(),
        };
        if step_up && let Some((issued, _)) = &self.held().token {
            for scope in &issued.scopes {
                if !scopes.contains(scope) {
                    scopes.push(scope.clone());
                }
            }
        }
        (!scopes.is_empty()).then(|| scopes.join(" "))
    }

    /// Refreshes the token, when there is a refresh token: whether a new token came.
    async fn refresh(&self) -> Result<bool, TransportError> {
        let (found, client, refresh, scopes) = {
            let held = self.held();
            let (Some(found), Some(client), Some((issued, _))) =
                (&held.found, &held.client, &held.token)
            else {
                return Ok(false);
            };
            let Some(refresh) = issued.refresh.clone() else {
                return Ok(false);
            };
            (
                found.clone(),
                client.clone(),
                refresh,
                issued.scopes.join(" "),
            )
        };
        let form = vec![
            ("grant_type", "refresh_token"),
            ("refresh_token", &*refresh),
            ("resource", &found.resource),
        ];
        match flow::token(&self.fetcher, &found.metadata, &client, form, Some(&scopes)).await {
            Ok(mut issued) => {
                // A server that does not rotate refresh tokens keeps the old one valid.
                issued.refresh = issued.refresh.or(Some(refresh));
                self.keep(issued)?;
                Ok(true)
            }
            Err(error) => {
                tracing::debug!(%error, "OAuth: refreshing failed; authorizing anew");
                self.held().token = None;
                Ok(false)
            }
        }
    }

    /// Whether the token held is past its expiry (with a minute's margin).
    fn expired(&self) -> bool {
        let held = self.held();
        let expiry = held.token.as_ref().and_then(|(_, expiry)| *expiry);
        expiry.is_some_and(|expiry| Instant::now() + Duration::from_secs(60) >= expiry)
    }
}

/// Whether the protected resource `id` is the server at `url`, or a path above it on
/// the same origin (`http://h/` covers `http://h/mcp`, not `http://h:80000/…` nor
/// `http://h/mcpx`).
fn covers(id: &str, url: &str) -> bool {
    let id = id.trim_end_matches('/');
    url == id
        || url
            .strip_prefix(id)
            .is_some_and(|rest| rest.starts_with(['/', '?']))
}

/// Posts `message` under OAuth: a token refreshed before it expires; a `401` answered
/// by refreshing or authorizing, a `403 insufficient_scope` by a step-up, and the
/// message sent again.
pub(super) async fn exchange(
    client: &Client,
    state: &State,
    message: Bytes,
    extra: Option<&HeaderMap>,
) -> Result<Delivery, TransportError> {
    if state.expired() {
        let _flow = state.flow.lock().await;
        if state.expired() {
            state.refresh().await?;
        }
    }
    let (mut authorizations, mut refreshed, mut rounds) = (0u8, false, 0u8);
    loop {
        let generation = state.generation();
        let (status, challenge) = match client.attempt(message.clone(), extra, true).await? {
            super::Outcome::Delivered(delivery) => return Ok(delivery),
            super::Outcome::Challenged { status, challenge } => {
                (status, Challenge::parse(&challenge))
            }
        };
        let step_up = status == StatusCode::FORBIDDEN;
        rounds += 1;
        if (step_up && challenge.error.as_deref() != Some("insufficient_scope")) || rounds > 8 {
            return Err(TransportError::from_http_status(status.as_u16()));
        }
        let _flow = state.flow.lock().await;
        if state.generation() != generation {
            continue; // another request brought a token meanwhile
        }
        if !step_up && !refreshed {
            refreshed = true;
            if state.refresh().await? {
                continue;
            }
        }
        if step_up && state.holds(&challenge) {
            return Err(failure(format!(
                "OAuth: the server refuses ({status}) a token that has every scope it asks for"
            )));
        }
        if authorizations == MAX_AUTHORIZATIONS {
            return Err(failure(format!(
                "OAuth: still refused ({status}) after {MAX_AUTHORIZATIONS} authorizations"
            )));
        }
        authorizations += 1;
        state.authorize(&challenge, step_up).await?;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_resource_covers_its_url_and_the_paths_below_it_only() {
        use super::covers;
        assert!(covers("http://h/mcp", "http://h/mcp"));
        assert!(covers("http://h/", "http://h/mcp"));
        assert!(covers("http://h", "http://h/mcp"));
        assert!(!covers("http://h/mcp", "http://h/mcpx"));
        assert!(!covers("http://h:3000", "http://h:30001/mcp"));
        assert!(!covers("https://evil.example.com/mcp", "http://h/mcp"));
    }
}
