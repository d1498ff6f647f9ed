//! Finding the authorization server: the `Bearer` challenge of a `401`/`403`
//! (RFC 6750 §3), the protected resource's metadata (RFC 9728: the challenge's
//! `resource_metadata`, else the path-based then the root well-known URL), and the
//! authorization server's metadata (RFC 8414 and OpenID Connect discovery, in the order
//! MCP 2025-11-25 gives). A server without protected-resource metadata is taken as
//! MCP 2025-03-26 had it: the authorization server at the MCP server's origin, and,
//! without metadata there either, its `/authorize`, `/token` and `/register`.

use super::fetch::{Fetcher, failure};
use crate::client::TransportError;
use serde::Deserialize;
use url::Url;

/// What a `WWW-Authenticate: Bearer …` challenge says.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Challenge {
    pub(crate) resource_metadata: Option<String>,
    pub(crate) scope: Option<String>,
    pub(crate) error: Option<String>,
}

impl Challenge {
    /// Reads the `Bearer` challenge of a `WWW-Authenticate` value: its auth-params,
    /// tokens or quoted strings (with `\` escapes). Other schemes are skipped.
    pub(crate) fn parse(value: &str) -> Self {
        let mut challenge = Self::default();
        let Some(start) = find_scheme(value, "bearer") else {
            return challenge;
        };
        let mut rest = value[start + "bearer".len()..].trim_start();
        while let Some((name, value, after)) = param(rest) {
            match name.to_ascii_lowercase().as_str() {
                "resource_metadata" => challenge.resource_metadata = Some(value),
                "scope" => challenge.scope = Some(value),
                "error" => challenge.error = Some(value),
                _ => {}
            }
            rest = after.trim_start().trim_start_matches(',').trim_start();
        }
        challenge
    }
}

/// Where the scheme `name` starts in `value` (case-insensitive, as a whole word).
fn find_scheme(value: &str, name: &str) -> Option<usize> {
    let lower = value.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find(name) {
        let at = from + at;
        let before = lower[..at].trim_end();
        let after = lower[at + name.len()..].chars().next();
        if (before.is_empty() || before.ends_with(','))
            && after.is_none_or(|c| c == ' ' || c == ',')
        {
            return Some(at);
        }
        from = at + name.len();
    }
    None
}

/// One `name=value` or `name="quoted"` at the start of `text`: name, value, the rest.
fn param(text: &str) -> Option<(&str, String, &str)> {
    let (name, rest) = text.split_once('=')?;
    let name = name.trim();
    if name.is_empty() || name.contains([' ', ',']) {
        return None;
    }
    let rest = rest.trim_start();
    if let Some(quoted) = rest.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((at, c)) = chars.next() {
            match c {
                '\\' => value.extend(chars.next().map(|(_, c)| c)),
                '"' => return Some((name, value, &quoted[at + 1..])),
                c => value.push(c),
            }
        }
        return None;
    }
    let end = rest.find([',', ' ']).unwrap_or(rest.len());
    Some((name, rest[..end].to_owned(), &rest[end..]))
}

/// The protected resource's metadata (RFC 9728 §2), what of it is used.
#[derive(Debug, Deserialize)]
pub(crate) struct ResourceMetadata {
    pub(crate) resource: Option<String>,
    #[serde(default)]
    pub(crate) authorization_servers: Vec<String>,
    pub(crate) scopes_supported: Option<Vec<String>>,
}

/// An authorization server's metadata (RFC 8414 §2), what of it is used.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ServerMetadata {
    pub(crate) issuer: Option<String>,
    pub(crate) authorization_endpoint: String,
    pub(crate) token_endpoint: String,
    pub(crate) registration_endpoint: Option<String>,
    pub(crate) code_challenge_methods_supported: Option<Vec<String>>,
    pub(crate) token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) client_id_metadata_document_supported: bool,
}

/// The well-known URLs of `server`'s protected-resource metadata, in the order they are
/// tried: path-based (`/.well-known/oauth-protected-resource/<path>`), then the root.
pub(crate) fn resource_metadata_urls(server: &Url) -> Vec<String> {
    let origin = origin(server);
    let path = server.path().trim_end_matches('/');
    let root = format!("{origin}/.well-known/oauth-protected-resource");
    if path.is_empty() {
        vec![root]
    } else {
        vec![format!("{root}{path}"), root]
    }
}

/// The metadata URLs of the authorization server `issuer`, in the order MCP gives:
/// RFC 8414's with the path inserted, OpenID's with the path inserted, OpenID's with
/// the path appended; without a path, RFC 8414's then OpenID's.
pub(crate) fn server_metadata_urls(issuer: &Url) -> Vec<String> {
    let origin = origin(issuer);
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        return vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ];
    }
    vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
        format!("{origin}{path}/.well-known/openid-configuration"),
    ]
}

/// `scheme://host[:port]` of `url`.
pub(crate) fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// The first of `urls` that answers `200` with a JSON document of type `T`; `None`
/// when none does (each answering `4xx` or something else).
///
/// # Errors
///
/// A server that cannot be reached.
pub(crate) async fn first_document<T: for<'de> Deserialize<'de>>(
    fetcher: &Fetcher,
    urls: &[String],
) -> Result<Option<T>, TransportError> {
    for url in urls {
        let fetched = fetcher.get(url).await?;
        if !fetched.status.is_success() {
            continue;
        }
        match serde_json::from_slice(&fetched.body) {
            Ok(document) => return Ok(Some(document)),
            Err(error) => {
                return Err(failure(format!(
                    "OAuth: the metadata at {url} is invalid: {error}"
                )));
            }
        }
    }
    Ok(None)
}

/// MCP 2025-03-26's endpoints of an authorization server that has no metadata:
/// `/authorize`, `/token` and `/register` at `origin`.
pub(crate) fn fallback_endpoints(origin: &str) -> ServerMetadata {
    ServerMetadata {
        issuer: None,
        authorization_endpoint: format!("{origin}/authorize"),
        token_endpoint: format!("{origin}/token"),
        registration_endpoint: Some(format!("{origin}/register")),
        code_challenge_methods_supported: None,
        token_endpoint_auth_methods_supported: None,
        client_id_metadata_document_supported: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_are_read_as_rfc_6750_writes_them() {
        let read = Challenge::parse(
            r#"Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="http://h/.well-known/oauth-protected-resource/mcp""#,
        );
        assert_eq!(read.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(read.scope.as_deref(), Some("mcp:basic mcp:write"));
        assert_eq!(
            read.resource_metadata.as_deref(),
            Some("http://h/.well-known/oauth-protected-resource/mcp")
        );
        // Another scheme first, tokens unquoted, an escaped quote.
        let read = Challenge::parse(r#"Basic realm="x", bearer error=invalid_token,scope="a\"b""#);
        assert_eq!(read.error.as_deref(), Some("invalid_token"));
        assert_eq!(read.scope.as_deref(), Some("a\"b"));
        assert_eq!(
            Challenge::parse("Basic realm=\"bearer\""),
            Challenge::default()
        );
        assert_eq!(Challenge::parse("Bearer"), Challenge::default());
        // Several challenges joined: the Bearer one's params end where the next begins.
        let read = Challenge::parse(r#"Bearer scope="a", Basic error="b""#);
        assert_eq!((read.scope.as_deref(), read.error), (Some("a"), None));
    }

    #[test]
    fn well_known_urls_follow_rfc_9728_and_8414_in_mcps_order() {
        let server = Url::parse("http://localhost:3000/mcp").unwrap();
        assert_eq!(
            resource_metadata_urls(&server),
            [
                "http://localhost:3000/.well-known/oauth-protected-resource/mcp",
                "http://localhost:3000/.well-known/oauth-protected-resource",
            ]
        );
        let issuer = Url::parse("https://auth.example.com/tenant1").unwrap();
        assert_eq!(
            server_metadata_urls(&issuer),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        let issuer = Url::parse("https://auth.example.com/").unwrap();
        assert_eq!(
            server_metadata_urls(&issuer),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }
}
