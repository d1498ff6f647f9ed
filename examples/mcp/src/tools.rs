//! The tools, behind the generated [`McpServer`] trait: `add`, `echo` and `slow`.

use crate::cancel::Running;
use crate::mcp::types::{
    CallToolResult, Implementation, InitializeResult, InputSchema, InputSchemaType,
    ListToolsResult, Meta, ProgressToken, ServerCapabilities, TextContent, TextContentType, Tool,
    ToolsCapability,
};
use crate::mcp::{McpPush, McpServer, PingResult, ToolsCallError, ToolsListError, types};
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Failure};
use rpcsmith::transport::peer;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// The protocol revisions this server speaks, newest first.
const REVISIONS: &[&str] = &["2025-06-18", "2025-03-26"];

/// Most steps a `slow` call may ask for.
const MAX_STEPS: u64 = 1000;

/// How long each step of `slow` takes.
const STEP: Duration = Duration::from_millis(100);

/// The example's tools server, and its `slow` calls that can be cancelled over HTTP.
#[derive(Debug, Default)]
pub(crate) struct Tools {
    running: Running,
}

impl McpServer for Tools {
    async fn initialize(
        &self,
        _cx: Context,
        protocol_version: String,
        _capabilities: types::ClientCapabilities,
        client_info: Implementation,
    ) -> Result<InitializeResult, Failure> {
        eprintln!(
            "mcp-example: initialize from {} {}",
            client_info.name, client_info.version
        );
        // The client's revision if this server speaks it, else its own newest.
        let revision = REVISIONS
            .iter()
            .find(|r| **r == protocol_version)
            .unwrap_or(&REVISIONS[0]);
        Ok(InitializeResult {
            protocol_version: (*revision).to_owned(),
            capabilities: ServerCapabilities {
                tools: Some(ToolsCapability {
                    list_changed: Some(false),
                }),
                experimental: None,
            },
            server_info: Implementation {
                name: "rpcsmith-mcp-example".to_owned(),
                title: Some("rpcsmith's MCP example".to_owned()),
                version: env!("CARGO_PKG_VERSION").to_owned(),
            },
            instructions: Some(
                "Tools: add two numbers, echo a text, or run a slow job.".to_owned(),
            ),
        })
    }

    async fn notifications_initialized(&self, _cx: Context, _meta: Option<Meta>) {
        eprintln!("mcp-example: initialized");
    }

    async fn ping(&self, _cx: Context, _meta: Option<Meta>) -> Result<PingResult, Failure> {
        Ok(PingResult::new())
    }

    async fn tools_list(
        &self,
        _cx: Context,
        cursor: Option<String>,
        _meta: Option<Meta>,
    ) -> Result<ListToolsResult, Failure<ToolsListError>> {
        // One page: this server never gives a cursor, so any cursor is unknown.
        if cursor.is_some() {
            return Err(ErrorObject::invalid_params("unknown cursor").into());
        }
        Ok(ListToolsResult {
            tools: catalogue(),
            next_cursor: None,
        })
    }

    async fn tools_call(
        &self,
        cx: Context,
        name: String,
        arguments: Option<Map<String, Value>>,
        meta: Option<Meta>,
    ) -> Result<CallToolResult, Failure<ToolsCallError>> {
        let arguments = arguments.unwrap_or_default();
        match name.as_str() {
            "add" => add(&arguments),
            "echo" => Ok(text(string(&arguments, "text")?.to_owned())),
            "slow" => {
                let token = meta.and_then(|m| m.progress_token);
                let registration = self.running.register(&cx);
                let cancelled = async {
                    match registration {
                        Some(mut registration) => (&mut registration.cancelled).await.ok(),
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    outcome = slow(&cx, &arguments, token) => outcome,
                    Some(()) = cancelled => Err(ErrorObject::cancelled().into()),
                }
            }
            _ => Err(ErrorObject::invalid_params(format!("unknown tool: {name}")).into()),
        }
    }

    /// Over HTTP only: on stdio, the peer's `Cancellation::MCP` acts on
    /// `notifications/cancelled` itself (it drops the named call) and does not hand it
    /// to the dispatcher. See [`crate::cancel`].
    async fn notifications_cancelled(
        &self,
        cx: Context,
        request_id: types::RequestId,
        _reason: Option<String>,
    ) {
        let id = match request_id {
            types::RequestId::Integer(n) => n.to_string(),
            types::RequestId::String(s) => Value::from(s).to_string(),
        };
        self.running.cancel(&cx, id);
    }
}

/// The tools `tools/list` gives.
fn catalogue() -> Vec<Tool> {
    let tool = |name: &str, description: &str, properties: Value, required: &[&str]| Tool {
        name: name.to_owned(),
        title: None,
        description: Some(description.to_owned()),
        input_schema: InputSchema {
            r#type: InputSchemaType::Object,
            properties: properties.as_object().cloned(),
            required: Some(required.iter().map(|r| (*r).to_owned()).collect()),
        },
    };
    vec![
        tool(
            "add",
            "Adds two numbers.",
            json!({"a": {"type": "number"}, "b": {"type": "number"}}),
            &["a", "b"],
        ),
        tool(
            "echo",
            "Returns its text.",
            json!({"text": {"type": "string"}}),
            &["text"],
        ),
        tool(
            "slow",
            "Works `steps` steps of 100 ms (default 10), reporting progress after each; stops when cancelled.",
            json!({"steps": {"type": "integer", "minimum": 1, "maximum": MAX_STEPS}}),
            &[],
        ),
    ]
}

fn text(text: String) -> CallToolResult {
    CallToolResult {
        content: vec![TextContent {
            r#type: TextContentType::Text,
            text,
        }],
        is_error: None,
    }
}

fn bad_argument(name: &str, expected: &str) -> Failure<ToolsCallError> {
    ErrorObject::invalid_params(format!("argument `{name}`: expected {expected}")).into()
}

fn string<'a>(
    arguments: &'a Map<String, Value>,
    name: &str,
) -> Result<&'a str, Failure<ToolsCallError>> {
    arguments
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| bad_argument(name, "a string"))
}

fn number(arguments: &Map<String, Value>, name: &str) -> Result<f64, Failure<ToolsCallError>> {
    arguments
        .get(name)
        .and_then(Value::as_f64)
        .ok_or_else(|| bad_argument(name, "a number"))
}

/// `add`: a sum that is not a finite number is the tool's failure, not the protocol's.
fn add(arguments: &Map<String, Value>) -> Result<CallToolResult, Failure<ToolsCallError>> {
    let sum = number(arguments, "a")? + number(arguments, "b")?;
    if !sum.is_finite() {
        let mut failed = text("the sum is not a finite number".to_owned());
        failed.is_error = Some(true);
        return Ok(failed);
    }
    Ok(text(sum.to_string()))
}

/// `slow`: `steps` steps, each reported to the caller as `notifications/progress` when
/// the call carried a progress token. Cancelled, its future is dropped mid-step: the
/// guard reports how far it came.
async fn slow(
    cx: &Context,
    arguments: &Map<String, Value>,
    token: Option<ProgressToken>,
) -> Result<CallToolResult, Failure<ToolsCallError>> {
    let steps = match arguments.get("steps") {
        None => 10,
        Some(steps) => steps
            .as_u64()
            .filter(|n| (1..=MAX_STEPS).contains(n))
            .ok_or_else(|| bad_argument("steps", "an integer from 1 to 1000"))?,
    };
    let push = peer::remote(cx).map(McpPush::new);
    let mut guard = Unfinished { done: 0, steps };
    for step in 1..=steps {
        // A step of work; the example's slowness is what it demonstrates.
        tokio::time::sleep(STEP).await;
        guard.done = step;
        if let (Some(push), Some(token)) = (&push, &token) {
            let message = format!("step {step} of {steps}");
            let sent = push
                .notifications_progress(
                    token.clone(),
                    step.into(),
                    Some(steps.into()),
                    Some(message),
                )
                .await;
            if sent.is_err() {
                return Err(ErrorObject::new(-32603, "the client is gone").into());
            }
        }
    }
    guard.steps = 0;
    Ok(text(format!("done {steps} steps")))
}

/// Reports a `slow` call dropped before its end (cancelled, or its connection gone).
struct Unfinished {
    done: u64,
    /// 0 once finished.
    steps: u64,
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        if self.steps != 0 {
            eprintln!(
                "mcp-example: slow cancelled after {} of {} steps",
                self.done, self.steps
            );
        }
    }
}
