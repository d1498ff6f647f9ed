//! rpcsmith's MCP client, generated from `schemas/mcp.json` like the example server:
//! the generated `McpClient` calls, and the generated `McpListener` (see [`answers`])
//! answers the server's sampling, elicitation and roots requests.
//!
//! ```text
//! mcp-client <url>                                   # Streamable HTTP
//! mcp-client --stdio <command> [args…]               # spawns the server, stdio
//! mcp-client --everything <url> | --everything --stdio <command> [args…]
//! mcp-client --client-metadata-url <https url> <url>    # OAuth's client id, where offered
//! ```
//!
//! Over HTTP it authorizes with OAuth when the server asks (`401`): the authorization
//! server's redirect is followed without a user ([`oauth::FollowRedirect`]), and a
//! pre-registered client is read from `MCP_CONFORMANCE_CONTEXT` (`client_id`,
//! `client_secret`) when the suite gives one.
//!
//! Without `--everything` it does what the official conformance suite's client
//! scenarios ask (`conformance client --command "mcp-client"`, which appends the URL and
//! names the scenario in `MCP_CONFORMANCE_SCENARIO`): initialise, list the tools, call
//! the ones it knows. With `--everything` it tours the official reference server
//! `@modelcontextprotocol/server-everything` (see [`tour`]), printing `ok <check>` per
//! check passed; it exits non-zero at the first failure.

mod answers;
mod tour;

rpcsmith::include_api!("mcp");

use answers::Answers;
use mcp::types::{
    Capability, ClientCapabilities, ElicitationCapability, Implementation, ListChanged,
    SamplingCapability,
};
use mcp::{McpClient, McpListenerDispatcher};
use rpcsmith::http::{self, ClientStreaming, oauth};
use rpcsmith::server::Server;
use rpcsmith::transport::peer::{Cancellation, Peer};
use rpcsmith::transport::stream::{self, Codec};
use serde_json::json;

const USAGE: &str = "usage: mcp-client [--everything] [--client-metadata-url <url>] (<url> | --stdio <command> [args…])";

/// The revision this client asks for.
pub(crate) const REVISION: &str = "2025-11-25";

/// A connection to a server: the generated client, and what keeps the transport alive.
pub(crate) struct Connection {
    pub(crate) client: McpClient,
    _peer: Option<(Peer, tokio::process::Child)>,
    /// Over Streamable HTTP: the transport, to end the session with.
    http: Option<http::Client>,
}

#[tokio::main]
async fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let everything = args.first().is_some_and(|a| a == "--everything");
    if everything {
        args.remove(0);
    }
    let mut metadata_url = None;
    if args.first().is_some_and(|a| a == "--client-metadata-url") && args.len() > 1 {
        metadata_url = Some(args.remove(1));
        args.remove(0);
    }
    let answers = Answers::default();
    let connection = match connect(&args, &answers, metadata_url) {
        Ok(connection) => connection,
        Err(e) => {
            eprintln!("mcp-client: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let outcome = if everything {
        tour::run(&connection.client, &answers.heard).await
    } else {
        scenario(&connection.client).await
    };
    if let Err(e) = outcome {
        eprintln!("mcp-client: {e}");
        std::process::exit(1);
    }
    if let Some(transport) = &connection.http {
        // MCP: a client that leaves ends its session with `DELETE`.
        match transport.end_session().await {
            Ok(ended) if everything => println!("ok session ended (DELETE): {ended}"),
            Ok(_) => {}
            Err(e) => {
                eprintln!("mcp-client: DELETE: {e}");
                std::process::exit(1);
            }
        }
    }
    // Not `return`: a stdio child's reader may still be blocked.
    std::process::exit(0);
}

/// Connects as `args` say, with `answers` serving the server's requests.
fn connect(
    args: &[String],
    answers: &Answers,
    metadata_url: Option<String>,
) -> Result<Connection, String> {
    let listener = || Server::new(McpListenerDispatcher::new(answers.clone()));
    match args {
        [flag, command, rest @ ..] if flag == "--stdio" => {
            let mut child = tokio::process::Command::new(command);
            child.args(rest);
            // MCP cancels with `notifications/cancelled`: a dropped call sends it.
            let builder = Peer::builder()
                .serve(listener())
                .cancellation(Cancellation::MCP);
            let (peer, child) = stream::spawn(builder, Codec::Newline, child)
                .map_err(|e| format!("cannot start {command}: {e}"))?;
            let client = McpClient::new(peer.client().clone());
            Ok(Connection {
                client,
                _peer: Some((peer, child)),
                http: None,
            })
        }
        [url] if !url.starts_with("--") => {
            let streaming = ClientStreaming::mcp().serve(listener()).open_stream(true);
            let transport = http::Client::builder(url.as_str())
                .streaming(streaming)
                .oauth(authorization(metadata_url)?)
                .build()
                .map_err(|e| format!("bad url {url}: {e}"))?;
            let client = McpClient::new(rpcsmith::client::Client::new(transport.clone()));
            Ok(Connection {
                client,
                _peer: None,
                http: Some(transport),
            })
        }
        _ => Err("no server given".to_owned()),
    }
}

/// OAuth: redirects followed without a user; the client pre-registered when
/// `MCP_CONFORMANCE_CONTEXT` names one, else identified by `metadata_url` where the
/// server supports client-id metadata documents, else registered.
fn authorization(metadata_url: Option<String>) -> Result<oauth::OAuth, String> {
    let authorizer = oauth::FollowRedirect::new().map_err(|e| e.to_string())?;
    let mut settings = oauth::OAuth::new(authorizer).client_name("rpcsmith-mcp-client");
    let context = std::env::var("MCP_CONFORMANCE_CONTEXT").unwrap_or_default();
    let context: serde_json::Value = serde_json::from_str(&context).unwrap_or_default();
    if let Some(id) = context["client_id"].as_str() {
        let secret = context["client_secret"].as_str().map(str::to_owned);
        settings = settings.client(id, secret);
    }
    if let Some(url) = metadata_url {
        settings = settings.client_metadata_url(url);
    }
    Ok(settings)
}

/// What this client can do: sample, ask its user (forms), list roots.
pub(crate) fn capabilities() -> ClientCapabilities {
    ClientCapabilities {
        experimental: None,
        roots: Some(ListChanged {
            list_changed: Some(false),
        }),
        sampling: Some(SamplingCapability {
            context: None,
            tools: None,
        }),
        elicitation: Some(ElicitationCapability {
            form: Some(Capability::new()),
            url: None,
        }),
        tasks: None,
    }
}

/// The handshake: `initialize`, then `notifications/initialized`; the server's name.
pub(crate) async fn initialize(client: &McpClient) -> Result<String, String> {
    let me = Implementation {
        name: "rpcsmith-mcp-client".to_owned(),
        title: None,
        version: env!("CARGO_PKG_VERSION").to_owned(),
        description: None,
        website_url: None,
        icons: None,
    };
    let answer = client
        .initialize(REVISION.to_owned(), capabilities(), me, None)
        .await
        .map_err(|e| format!("initialize: {e}"))?;
    client
        .notifications_initialized(None)
        .await
        .map_err(|e| format!("notifications/initialized: {e}"))?;
    Ok(format!(
        "{} (revision {})",
        answer.server_info.name, answer.protocol_version
    ))
}

/// The conformance suite's client scenarios: initialise, list the tools, call those
/// the scenarios offer (`add_numbers`, `test_client_elicitation_defaults`).
async fn scenario(client: &McpClient) -> Result<(), String> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let server = initialize(client).await?;
    println!("scenario {scenario:?}: connected to {server}");
    let tools = client
        .tools_list(None, None)
        .await
        .map_err(|e| format!("tools/list: {e}"))?;
    for tool in tools.tools {
        let arguments = match tool.name.as_str() {
            "add_numbers" => json!({"a": 2, "b": 3}),
            "test_client_elicitation_defaults" | "test_reconnection" | "test-tool" => json!({}),
            _ => continue,
        };
        let outcome = client
            .tools_call(
                tool.name.clone(),
                arguments.as_object().cloned(),
                None,
                None,
            )
            .await
            .map_err(|e| format!("tools/call {}: {e}", tool.name))?;
        println!(
            "tools/call {}: {}",
            tool.name,
            serde_json::to_string(&outcome).unwrap_or_default()
        );
    }
    Ok(())
}
