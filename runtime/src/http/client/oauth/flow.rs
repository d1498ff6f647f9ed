//! One authorization: the client's registration (pre-registered, a client-id metadata
//! document, or dynamic registration, RFC 7591), the authorization request with PKCE
//! S256 (RFC 7636) and the `resource` indicator (RFC 8707), the code exchanged for a
//! token with the authentication method the server supports, and refreshing it.

use super::discovery::ServerMetadata;
use super::fetch::{Fetcher, failure};
use crate::client::TransportError;
use ::http::HeaderValue;
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use bytes::Bytes;
use serde::Deserialize;
use url::Url;

/// How the client is known to the authorization server.
#[derive(Debug, Clone)]
pub(crate) struct Registered {
    pub(crate) id: String,
    pub(crate) secret: Option<String>,
    /// The token endpoint authentication method registration gave, if any.
    pub(crate) method: Option<String>,
}

/// A token the server issued.
#[derive(Debug, Clone)]
pub(crate) struct Issued {
    pub(crate) access: String,
    pub(crate) refresh: Option<String>,
    pub(crate) expires_in: Option<u64>,
    /// What the server granted (its `scope`), else what was asked.
    pub(crate) scopes: Vec<String>,
}

/// `n` bytes from the operating system's CSPRNG, base64url without padding.
pub(crate) fn random(n: usize) -> Result<String, TransportError> {
    let mut bytes = vec![0; n];
    getrandom::fill(&mut bytes)
        .map_err(|error| failure(format!("OAuth: no randomness: {error}")))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// A PKCE verifier (32 random bytes, 43 characters) and its S256 challenge.
pub(crate) fn pkce() -> Result<(String, String), TransportError> {
    let verifier = random(32)?;
    let digest = ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes());
    Ok((verifier, URL_SAFE_NO_PAD.encode(digest.as_ref())))
}

/// Registers with `metadata`'s registration endpoint (RFC 7591), asking for the
/// token endpoint authentication method [`preferred_method`] picks.
pub(crate) async fn register(
    fetcher: &Fetcher,
    metadata: &ServerMetadata,
    name: &str,
    redirect_uri: &str,
) -> Result<Registered, TransportError> {
    let Some(endpoint) = &metadata.registration_endpoint else {
        return Err(failure(
            "OAuth: the authorization server offers no dynamic registration: give the client's id (OAuth::client)",
        ));
    };
    let mut request = serde_json::json!({
        "client_name": name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    });
    if let Some(method) = preferred_method(metadata) {
        request["token_endpoint_auth_method"] = method.into();
    }
    let body = Bytes::from(request.to_string());
    let fetched = fetcher
        .post(endpoint, "application/json", body, None)
        .await?;
    if !fetched.status.is_success() {
        return Err(failure(format!(
            "OAuth: registration at {endpoint} was refused ({})",
            fetched.status
        )));
    }
    #[derive(Deserialize)]
    struct Answer {
        client_id: String,
        client_secret: Option<String>,
        token_endpoint_auth_method: Option<String>,
    }
    let answer: Answer = serde_json::from_slice(&fetched.body)
        .map_err(|error| failure(format!("OAuth: registration answer invalid: {error}")))?;
    Ok(Registered {
        id: answer.client_id,
        secret: answer.client_secret,
        method: answer.token_endpoint_auth_method,
    })
}

/// The method to ask for at registration: `none` (a public client) when offered, else
/// `client_secret_basic`, else `client_secret_post`; RFC 8414's default
/// (`client_secret_basic`) when the server lists none.
fn preferred_method(metadata: &ServerMetadata) -> Option<&'static str> {
    let Some(supported) = &metadata.token_endpoint_auth_methods_supported else {
        return Some("client_secret_basic");
    };
    ["none", "client_secret_basic", "client_secret_post"]
        .into_iter()
        .find(|method| supported.iter().any(|s| s == method))
}

/// How the token endpoint is authenticated to: the registered method when the server
/// supports it; with a secret, `client_secret_basic` then `client_secret_post`; else
/// `none`.
fn method<'a>(client: &'a Registered, metadata: &ServerMetadata) -> &'a str {
    let supported = metadata.token_endpoint_auth_methods_supported.as_deref();
    let offers = |method: &str| supported.is_none_or(|s| s.iter().any(|m| m == method));
    if let Some(method) = &client.method
        && offers(method)
    {
        return method;
    }
    match &client.secret {
        Some(_) if offers("client_secret_basic") => "client_secret_basic",
        Some(_) if offers("client_secret_post") => "client_secret_post",
        _ => "none",
    }
}

/// The authorization request's URL: `response_type=code`, the client, the redirect,
/// `state`, the PKCE challenge, the `resource` and the scope (omitted when `None`).
pub(crate) struct AuthorizationRequest<'a> {
    pub(crate) client_id: &'a str,
    pub(crate) redirect_uri: &'a str,
    pub(crate) state: &'a str,
    pub(crate) challenge: &'a str,
    pub(crate) resource: &'a str,
    pub(crate) scope: Option<&'a str>,
}

impl AuthorizationRequest<'_> {
    pub(crate) fn url(&self, endpoint: &str) -> Result<String, TransportError> {
        let mut url = Url::parse(endpoint)
            .map_err(|_| failure(format!("OAuth: {endpoint:?} is not a URL")))?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", self.client_id)
                .append_pair("redirect_uri", self.redirect_uri)
                .append_pair("state", self.state)
                .append_pair("code_challenge", self.challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("resource", self.resource);
            if let Some(scope) = self.scope {
                query.append_pair("scope", scope);
            }
        }
        Ok(url.into())
    }
}

/// The code the redirect to `callback` carries, once its `state` is `state`.
pub(crate) fn code(callback: &str, state: &str) -> Result<String, TransportError> {
    let url = Url::parse(callback)
        .map_err(|_| failure(format!("OAuth: the redirect {callback:?} is not a URL")))?;
    let get = |name: &str| {
        url.query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    };
    if let Some(error) = get("error") {
        let description = get("error_description").unwrap_or_default();
        return Err(failure(format!(
            "OAuth: authorization refused: {error} {description}"
        )));
    }
    if get("state").as_deref() != Some(state) {
        return Err(failure("OAuth: the redirect's state is not the request's"));
    }
    get("code").ok_or_else(|| failure("OAuth: the redirect carries no code"))
}

/// Posts the token request `form` (a grant), authenticated as `client` is to
/// `metadata`'s token endpoint; what the server issued.
pub(crate) async fn token(
    fetcher: &Fetcher,
    metadata: &ServerMetadata,
    client: &Registered,
    mut form: Vec<(&str, &str)>,
    asked: Option<&str>,
) -> Result<Issued, TransportError> {
    let method = method(client, metadata);
    let mut authorization = None;
    let secret = client.secret.as_deref().unwrap_or_default();
    match method {
        "client_secret_basic" => {
            let encode =
                |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
            let pair = format!("{}:{}", encode(&client.id), encode(secret));
            let value = format!("Basic {}", STANDARD.encode(pair));
            authorization = HeaderValue::try_from(value).ok();
        }
        "client_secret_post" => {
            form.extend([("client_id", &*client.id), ("client_secret", secret)])
        }
        _ => form.push(("client_id", &client.id)),
    }
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let endpoint = &metadata.token_endpoint;
    let content = "application/x-www-form-urlencoded";
    let fetched = (fetcher.post(endpoint, content, Bytes::from(body), authorization)).await?;
    if !fetched.status.is_success() {
        let text = String::from_utf8_lossy(&fetched.body);
        return Err(failure(format!(
            "OAuth: the token endpoint {endpoint} refused ({}): {text}",
            fetched.status
        )));
    }
    issued(&fetched.body, asked)
}

fn issued(body: &[u8], asked: Option<&str>) -> Result<Issued, TransportError> {
    #[derive(Deserialize)]
    struct Answer {
        access_token: String,
        token_type: String,
        expires_in: Option<u64>,
        refresh_token: Option<String>,
        scope: Option<String>,
    }
    let answer: Answer = serde_json::from_slice(body)
        .map_err(|error| failure(format!("OAuth: token answer invalid: {error}")))?;
    if !answer.token_type.eq_ignore_ascii_case("bearer") {
        return Err(failure(format!(
            "OAuth: token type {:?} is not Bearer",
            answer.token_type
        )));
    }
    let scopes = answer.scope.as_deref().or(asked).unwrap_or_default();
    Ok(Issued {
        access: answer.access_token,
        refresh: answer.refresh_token,
        expires_in: answer.expires_in,
        scopes: scopes.split_whitespace().map(str::to_owned).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(methods: Option<&[&str]>) -> ServerMetadata {
        ServerMetadata {
            issuer: None,
            authorization_endpoint: "http://a/authorize".into(),
            token_endpoint: "http://a/token".into(),
            registration_endpoint: None,
            code_challenge_methods_supported: None,
            token_endpoint_auth_methods_supported: methods
                .map(|m| m.iter().map(|m| (*m).to_owned()).collect()),
            client_id_metadata_document_supported: false,
        }
    }

    #[test]
    fn pkce_is_rfc_7636_s256() {
        // RFC 7636 appendix B's verifier and challenge.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let digest = ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes());
        assert_eq!(
            URL_SAFE_NO_PAD.encode(digest.as_ref()),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        let (verifier, challenge) = pkce().unwrap();
        assert_eq!((verifier.len(), challenge.len()), (43, 43));
        assert_ne!(pkce().unwrap().0, verifier, "fresh randomness each time");
    }

    #[test]
    fn the_token_endpoint_method_follows_registration_then_the_server() {
        let client = |secret: Option<&str>, method: Option<&str>| Registered {
            id: "c".into(),
            secret: secret.map(Into::into),
            method: method.map(Into::into),
        };
        let basic = metadata(Some(&["client_secret_basic"]));
        let post = metadata(Some(&["client_secret_post"]));
        let none = metadata(Some(&["none"]));
        assert_eq!(
            method(&client(Some("s"), None), &basic),
            "client_secret_basic"
        );
        assert_eq!(
            method(&client(Some("s"), None), &post),
            "client_secret_post"
        );
        assert_eq!(method(&client(Some("s"), None), &none), "none");
        assert_eq!(method(&client(None, Some("none")), &none), "none");
        let both = metadata(Some(&["client_secret_basic", "client_secret_post"]));
        assert_eq!(
            method(&client(Some("s"), Some("client_secret_post")), &both),
            "client_secret_post"
        );
        assert_eq!(preferred_method(&both), Some("client_secret_basic"));
        assert_eq!(
            preferred_method(&metadata(None)),
            Some("client_secret_basic")
        );
    }

    #[test]
    fn the_redirect_must_carry_the_requests_state() {
        let state = "s1";
        assert_eq!(
            code("http://localhost/cb?code=abc&state=s1", state).unwrap(),
            "abc"
        );
        assert!(code("http://localhost/cb?code=abc&state=s2", state).is_err());
        assert!(code("http://localhost/cb?code=abc", state).is_err());
        let refused = code("http://localhost/cb?error=access_denied&state=s1", state);
        assert!(refused.unwrap_err().to_string().contains("access_denied"));
    }
}
