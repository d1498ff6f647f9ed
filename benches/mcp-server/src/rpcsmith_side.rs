//! rpcsmith's MCP server of `add`: the dispatcher generated from `schemas/mcp.json`,
//! over Streamable HTTP (`Streaming::mcp()`) or stdio, as `examples/mcp` serves.

use std::future::Future;
use std::net::SocketAddr;

use rpcsmith::http::{self, Streaming};
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Failure, Server};
use rpcsmith::transport::peer::{Cancellation, Peer};
use rpcsmith::transport::stream::{self, Codec};
use serde_json::{Map, Value};

rpcsmith::include_api!("mcp");

use mcp::types::{
    CallToolOutcome, CallToolResult, ContentBlock, Implementation, InitializeResult, ListChanged,
    ListToolsResult, RequestMeta, ServerCapabilities, TextContent, TextContentType, Tool,
};
use mcp::{McpDispatcher, McpServer, PingResult, ToolsCallError, ToolsCallResult, ToolsListError};

/// The revisions this server speaks, newest first.
const REVISIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The server: one tool.
struct Adder {
    tools: Vec<Tool>,
}

impl Adder {
    fn new() -> Self {
        let tool = serde_json::json!({
            "name": "add",
            "description": "Adds two numbers.",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]},
        });
        let tool = serde_json::from_value(tool).expect("the tool fits the generated `Tool`");
        Adder { tools: vec![tool] }
    }
}

fn integer(arguments: &Map<String, Value>, name: &str) -> Result<i64, Failure<ToolsCallError>> {
    arguments.get(name).and_then(Value::as_i64).ok_or_else(|| {
        ErrorObject::invalid_params(format!("argument `{name}`: expected an integer")).into()
    })
}

impl McpServer for Adder {
    async fn initialize(
        &self,
        _cx: Context,
        protocol_version: String,
        _capabilities: mcp::types::ClientCapabilities,
        _client_info: Implementation,
        _meta: Option<RequestMeta>,
    ) -> Result<InitializeResult, Failure> {
        let revision = REVISIONS
            .iter()
            .find(|r| **r == protocol_version)
            .unwrap_or(&REVISIONS[0]);
        Ok(InitializeResult {
            protocol_version: (*revision).to_owned(),
            capabilities: ServerCapabilities {
                experimental: None,
                logging: None,
                completions: None,
                prompts: None,
                resources: None,
                tools: Some(ListChanged {
                    list_changed: Some(false),
                }),
                tasks: None,
            },
            server_info: Implementation {
                name: "rpcsmith-bench-mcp".to_owned(),
                title: None,
                version: env!("CARGO_PKG_VERSION").to_owned(),
                description: None,
                website_url: None,
                icons: None,
            },
            instructions: None,
            meta: None,
        })
    }

    async fn ping(&self, _cx: Context, _meta: Option<RequestMeta>) -> Result<PingResult, Failure> {
        Ok(PingResult::default())
    }

    async fn tools_list(
        &self,
        _cx: Context,
        _cursor: Option<String>,
        _meta: Option<RequestMeta>,
    ) -> Result<ListToolsResult, Failure<ToolsListError>> {
        Ok(ListToolsResult {
            tools: self.tools.clone(),
            next_cursor: None,
            meta: None,
        })
    }

    async fn tools_call(
        &self,
        _cx: Context,
        name: String,
        arguments: Option<Map<String, Value>>,
        _task: Option<mcp::types::TaskMetadata>,
        _meta: Option<RequestMeta>,
    ) -> Result<ToolsCallResult, Failure<ToolsCallError>> {
        if name != "add" {
            return Err(ErrorObject::invalid_params(format!("unknown tool: {name}")).into());
        }
        let arguments = arguments.unwrap_or_default();
        let sum = integer(&arguments, "a")?.wrapping_add(integer(&arguments, "b")?);
        Ok(CallToolOutcome::CallToolResult(CallToolResult {
            content: vec![ContentBlock::TextContent(TextContent {
                r#type: TextContentType::Text,
                text: sum.to_string(),
                annotations: None,
                meta: None,
            })],
            structured_content: None,
            is_error: None,
            meta: None,
        }))
    }
}

fn server() -> Server {
    Server::new(McpDispatcher::new(Adder::new()))
}

/// Serves Streamable HTTP on `address` until `stop`.
pub(crate) async fn http(
    address: SocketAddr,
    stop: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(address).await?;
    crate::announce("rpcsmith", listener.local_addr()?);
    let service = http::Service::new(server()).streaming(Streaming::mcp());
    http::serve(listener, service, stop).await;
    Ok(())
}

/// Serves one client on stdin and stdout until it closes them.
pub(crate) async fn stdio() -> std::io::Result<()> {
    let builder = Peer::builder()
        .serve(server())
        .cancellation(Cancellation::MCP);
    stream::stdio(builder, Codec::Newline).closed().await;
    Ok(())
}
