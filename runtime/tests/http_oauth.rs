//! The HTTP client's OAuth (`oauth` feature) against a protected server and its
//! authorization server on loopback: the whole flow on a `401`, what each step sends
//! (PKCE S256 checked by the server, `resource`, registration), and a `401` for a
//! revoked token answered by refreshing, not by authorizing again.

use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use rpcsmith::http::{self, oauth};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What the servers saw, in order.
#[derive(Default)]
struct Seen {
    steps: Vec<String>,
    challenge: String,
    revoked: Vec<String>,
}

type Shared = Arc<Mutex<Seen>>;

fn pairs(text: &str) -> HashMap<String, String> {
    form_urlencoded::parse(text.as_bytes())
        .into_owned()
        .collect()
}

fn json_response(status: StatusCode, body: Value) -> Response {
    (
        status,
        [("content-type", "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// The authorization server's endpoints; its first token lives `lifetime` seconds.
fn authorization_server(base: &str, seen: &Shared, lifetime: u64) -> axum::Router {
    use axum::routing::{get, post};
    let metadata = json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": format!("{base}/register"),
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
    });
    let (authorize, token, register) = (seen.clone(), seen.clone(), seen.clone());
    axum::Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            get(move || async move { json_response(StatusCode::OK, metadata) }),
        )
        .route(
            "/register",
            post(move |body: Bytes| async move {
                let asked: Value = serde_json::from_slice(&body).unwrap();
                let method = asked["token_endpoint_auth_method"].as_str().unwrap_or("-");
                register.lock().unwrap().steps.push(format!("register {method}"));
                json_response(StatusCode::CREATED, json!({"client_id": "c1"}))
            }),
        )
        .route(
            "/authorize",
            get(move |uri: Uri| async move {
                let query = pairs(uri.query().unwrap_or_default());
                let mut seen = authorize.lock().unwrap();
                seen.steps.push(format!(
                    "authorize {} {} {}",
                    query["client_id"], query["code_challenge_method"], query["resource"]
                ));
                seen.challenge = query["code_challenge"].clone();
                let to = format!("{}?code=k1&state={}", query["redirect_uri"], query["state"]);
                (StatusCode::FOUND, [("location", to)]).into_response()
            }),
        )
        .route(
            "/token",
            post(move |body: Bytes| async move {
                let form = pairs(std::str::from_utf8(&body).unwrap());
                let mut seen = token.lock().unwrap();
                let grant = form["grant_type"].as_str();
                if grant == "authorization_code" {
                    let digest = s256(&form["code_verifier"]);
                    let verified = digest == seen.challenge;
                    seen.steps.push(format!("token code {} verified={verified}", form["code"]));
                    return json_response(
                        StatusCode::OK,
                        json!({"access_token": "t1", "token_type": "Bearer", "refresh_token": "r1", "expires_in": lifetime}),
                    );
                }
                seen.steps.push(format!("token {grant} {}", form["refresh_token"]));
                json_response(StatusCode::OK, json!({"access_token": "t2", "token_type": "bearer"}))
            }),
        )
}

/// PKCE S256 as a server checks it (RFC 7636 §4.6): base64url(SHA-256(verifier)).
fn s256(verifier: &str) -> String {
    use base64::Engine as _;
    let digest = ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest.as_ref())
}

/// The protected MCP endpoint: `401` without a token or with a revoked one; `t1` is
/// revoked once it has been used once.
fn protected(base: &str, seen: &Shared) -> axum::Router {
    let challenge =
        format!("Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\"");
    let resource = json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]});
    let seen = seen.clone();
    axum::Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            axum::routing::get(move || async move { json_response(StatusCode::OK, resource) }),
        )
        .route(
            "/mcp",
            axum::routing::post(move |headers: HeaderMap, body: Bytes| async move {
                let call: Value = serde_json::from_slice(&body).unwrap();
                let token = (headers.get("authorization").and_then(|v| v.to_str().ok()))
                    .and_then(|v| v.strip_prefix("Bearer "))
                    .map(str::to_owned);
                let mut seen = seen.lock().unwrap();
                match token {
                    Some(token) if !seen.revoked.contains(&token) => {
                        seen.steps.push(format!("call with {token}"));
                        seen.revoked.push("t1".to_owned());
                        json_response(
                            StatusCode::OK,
                            json!({"jsonrpc": "2.0", "id": call["id"], "result": "ok"}),
                        )
                    }
                    _ => {
                        seen.steps.push("401".to_owned());
                        let mut refused = json_response(
                            StatusCode::UNAUTHORIZED,
                            json!({"error": "invalid_token"}),
                        );
                        refused
                            .headers_mut()
                            .insert("www-authenticate", challenge.parse().unwrap());
                        refused
                    }
                }
            }),
        )
}

/// Two calls through a client of the servers whose first token lives `lifetime`
/// seconds: what the servers saw.
async fn two_calls(lifetime: u64) -> Vec<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Shared::default();
    let app = authorization_server(&base, &seen, lifetime).merge(protected(&base, &seen));
    tokio::spawn(async move { axum::serve(listener, app).await });
    let settings = oauth::OAuth::new(oauth::FollowRedirect::new().unwrap())
        .redirect_uri("http://127.0.0.1:9/callback");
    let transport = http::Client::builder(format!("{base}/mcp"))
        .oauth(settings)
        .build()
        .unwrap();
    let client = rpcsmith::client::Client::new(transport);
    for _ in 0..2 {
        let answer: Value = client.request("a", &json!([])).await.expect("authorized");
        assert_eq!(answer, "ok");
    }
    let steps = std::mem::take(&mut seen.lock().unwrap().steps);
    let resource = format!("{base}/mcp");
    steps
        .into_iter()
        .map(|step| step.replace(&resource, "<resource>"))
        .collect()
}

#[tokio::test]
async fn a_401_is_authorized_and_a_revoked_token_refreshed() {
    assert_eq!(
        two_calls(3600).await,
        [
            "401",
            "register none",
            "authorize c1 S256 <resource>",
            "token code k1 verified=true",
            "call with t1",
            // t1 is revoked now: refreshed, not authorized again.
            "401",
            "token refresh_token r1",
            "call with t2",
        ]
    );
}

#[tokio::test]
async fn a_token_about_to_expire_is_refreshed_before_it_is_sent() {
    // 30 s is within the minute before expiry in which a token is refreshed first.
    assert_eq!(
        two_calls(30).await,
        [
            "401",
            "register none",
            "authorize c1 S256 <resource>",
            "token code k1 verified=true",
            "call with t1",
            "token refresh_token r1",
            "call with t2",
        ]
    );
}
