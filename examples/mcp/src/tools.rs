//! The tools: the example's own (`add`, `echo`, `slow`) and the conformance suite's
//! (`test_*`: every kind of content, logging, progress, an error, and sampling and
//! elicitation round trips to the client).

use crate::fixtures::{WAV, embedded, image, text, text_contents};
use crate::mcp::types::{
    AudioContent, AudioContentType, CallToolOutcome, CallToolResult, ContentBlock,
    CreateMessageOutcome, ElicitOutcome, LoggingLevel, ProgressToken, RequestedSchema, Role,
    SamplingContent, SamplingContents, SamplingMessage, Tool,
};
use crate::mcp::{McpPush, ToolsCallError};
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Failure};
use rpcsmith::transport::peer;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// Most steps a `slow` call may ask for.
const MAX_STEPS: u64 = 1000;

/// How long each step of `slow` takes.
const STEP: Duration = Duration::from_millis(100);

type Outcome = Result<CallToolResult, Failure<ToolsCallError>>;

/// The tools `tools/list` gives, as their JSON.
fn catalogue_json() -> Value {
    let none = json!({"type": "object", "properties": {}});
    let tool = |name: &str, description: &str, schema: &Value| json!({"name": name, "description": description, "inputSchema": schema});
    let string_arg = |arg: &str, description: &str| json!({"type": "object", "properties": {arg: {"type": "string", "description": description}}, "required": [arg]});
    json!([
        tool("add", "Adds two numbers.", &json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]})),
        tool("echo", "Returns its text.", &string_arg("text", "The text to return.")),
        tool("slow", "Works `steps` steps of 100 ms (default 10), reporting progress after each; stops when cancelled.",
            &json!({"type": "object", "properties": {"steps": {"type": "integer", "minimum": 1, "maximum": MAX_STEPS}}})),
        tool("test_simple_text", "Returns a text.", &none),
        tool("test_image_content", "Returns an image.", &none),
        tool("test_audio_content", "Returns a sound.", &none),
        tool("test_embedded_resource", "Returns an embedded resource.", &none),
        tool("test_multiple_content_types", "Returns a text, an image and a resource.", &none),
        tool("test_tool_with_logging", "Logs three messages while it runs.", &none),
        tool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100.", &none),
        tool("test_error_handling", "Fails, as a tool does: `isError` and why.", &none),
        tool("test_sampling", "Asks the client's model (sampling/createMessage).", &string_arg("prompt", "The prompt to send to the model.")),
        tool("test_elicitation", "Asks the client's user (elicitation/create).", &string_arg("message", "The message to show the user.")),
        tool("test_elicitation_sep1034_defaults", "Asks the user a form whose fields have defaults.", &none),
        tool("test_elicitation_sep1330_enums", "Asks the user a form with every kind of choice.", &none),
        {"name": "json_schema_2020_12_tool", "description": "A tool whose input schema uses JSON Schema 2020-12 ($schema, $defs, additionalProperties).",
         "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
            "$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
            "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
            "additionalProperties": false}},
    ])
}

/// The tools `tools/list` gives.
pub(crate) fn catalogue() -> Vec<Tool> {
    serde_json::from_value(catalogue_json()).expect("the catalogue fits the generated `Tool`")
}

pub(crate) fn result(content: Vec<ContentBlock>) -> CallToolResult {
    CallToolResult {
        content,
        structured_content: None,
        is_error: None,
        meta: None,
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

/// The push of `cx`'s connection: how a tool tells or asks its caller.
fn push(cx: &Context) -> Result<McpPush, Failure<ToolsCallError>> {
    peer::remote(cx)
        .map(McpPush::new)
        .ok_or_else(|| ErrorObject::new(-32603, "the client is gone").into())
}

fn gone<E>(_: E) -> Failure<ToolsCallError> {
    ErrorObject::new(-32603, "the client is gone").into()
}

/// Runs the tool `name`, except `slow` (see [`slow`]); `None` for an unknown tool.
pub(crate) async fn call(
    cx: &Context,
    name: &str,
    arguments: &Map<String, Value>,
    token: Option<ProgressToken>,
) -> Option<Outcome> {
    let outcome = match name {
        "add" => add(arguments),
        "echo" => string(arguments, "text").map(|t| result(vec![text(t)])),
        "test_simple_text" => Ok(result(vec![text(
            "This is a simple text response for testing.",
        )])),
        "test_image_content" => Ok(result(vec![image()])),
        "test_audio_content" => Ok(result(vec![ContentBlock::AudioContent(AudioContent {
            r#type: AudioContentType::Audio,
            data: WAV.to_owned(),
            mime_type: "audio/wav".to_owned(),
            annotations: None,
            meta: None,
        })])),
        "test_embedded_resource" => Ok(result(vec![embedded(text_contents(
            "test://embedded-resource",
            "text/plain",
            "This is an embedded resource content.".to_owned(),
        ))])),
        "test_multiple_content_types" => Ok(result(vec![
            text("Multiple content types test:"),
            image(),
            embedded(text_contents(
                "test://mixed-content-resource",
                "application/json",
                json!({"test": "data", "value": 123}).to_string(),
            )),
        ])),
        "test_tool_with_logging" => logging(cx).await,
        "test_tool_with_progress" => progress(cx, token).await,
        "test_error_handling" => {
            let mut failed = result(vec![text(
                "This tool intentionally returns an error for testing",
            )]);
            failed.is_error = Some(true);
            Ok(failed)
        }
        "test_sampling" => match string(arguments, "prompt") {
            Ok(prompt) => sampling(cx, prompt.to_owned()).await,
            Err(e) => Err(e),
        },
        "test_elicitation" => {
            let message = match string(arguments, "message") {
                Ok(message) => message.to_owned(),
                Err(e) => return Some(Err(e)),
            };
            let form = json!({"type": "object", "properties": {"response": {"type": "string", "description": "The user's response"}}, "required": ["response"]});
            elicitation(cx, message, form, "User response").await
        }
        "test_elicitation_sep1034_defaults" => {
            let message = "Please review and update the form fields with defaults".to_owned();
            elicitation(cx, message, defaults_form(), "Elicitation completed").await
        }
        "test_elicitation_sep1330_enums" => {
            let message = "Please select options from the enum fields".to_owned();
            elicitation(cx, message, enums_form(), "Elicitation completed").await
        }
        "json_schema_2020_12_tool" => Ok(result(vec![text(format!(
            "JSON Schema 2020-12 tool called with: {}",
            Value::Object(arguments.clone())
        ))])),
        _ => return None,
    };
    Some(outcome)
}

/// `add`: a sum that is not a finite number is the tool's failure, not the protocol's.
fn add(arguments: &Map<String, Value>) -> Outcome {
    let sum = number(arguments, "a")? + number(arguments, "b")?;
    if !sum.is_finite() {
        let mut failed = result(vec![text("the sum is not a finite number")]);
        failed.is_error = Some(true);
        return Ok(failed);
    }
    Ok(result(vec![text(sum.to_string())]))
}

async fn logging(cx: &Context) -> Outcome {
    let push = push(cx)?;
    for message in [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ] {
        push.notifications_message(LoggingLevel::Info, None, message.into(), None)
            .await
            .map_err(gone)?;
    }
    Ok(result(vec![text(
        "Tool with logging executed successfully",
    )]))
}

async fn progress(cx: &Context, token: Option<ProgressToken>) -> Outcome {
    let push = push(cx)?;
    let shown = match &token {
        Some(ProgressToken::String(s)) => s.clone(),
        Some(ProgressToken::Integer(n)) => n.to_string(),
        None => "no progress token".to_owned(),
    };
    if let Some(token) = token {
        for step in [0u32, 50, 100] {
            let message = format!("Completed step {step} of 100");
            push.notifications_progress(
                token.clone(),
                step.into(),
                Some(100.into()),
                Some(message),
                None,
            )
            .await
            .map_err(gone)?;
        }
    }
    Ok(result(vec![text(shown)]))
}

async fn sampling(cx: &Context, prompt: String) -> Outcome {
    let message = SamplingMessage {
        role: Role::User,
        content: SamplingContents::SamplingContent(SamplingContent::TextContent(
            crate::mcp::types::TextContent {
                r#type: crate::mcp::types::TextContentType::Text,
                text: prompt,
                annotations: None,
                meta: None,
            },
        )),
        meta: None,
    };
    let push = push(cx)?;
    let answer = push
        .sampling_create_message(
            vec![message],
            None,
            None,
            None,
            None,
            100,
            None,
            None,
            None,
            None,
            None,
            None,
        )
        .await;
    let said = match answer {
        Ok(CreateMessageOutcome::CreateMessageResult(sampled)) => match sampled.content {
            SamplingContents::SamplingContent(SamplingContent::TextContent(t)) => {
                format!("LLM response: {}", t.text)
            }
            other => format!(
                "LLM response: {}",
                serde_json::to_string(&other).unwrap_or_default()
            ),
        },
        Ok(CreateMessageOutcome::CreateTaskResult(task)) => {
            format!("sampling runs as task {}", task.task.task_id)
        }
        Err(e) => format!("Sampling not supported or error: {e}"),
    };
    Ok(result(vec![text(said)]))
}

async fn elicitation(cx: &Context, message: String, form: Value, label: &str) -> Outcome {
    let form: RequestedSchema =
        serde_json::from_value(form).expect("the form fits the generated `RequestedSchema`");
    let push = push(cx)?;
    let answer = push
        .elicitation_create(None, message, Some(form), None, None, None, None)
        .await;
    let said = match answer {
        Ok(ElicitOutcome::ElicitResult(answer)) => format!(
            "{label}: action={}, content={}",
            serde_json::to_value(answer.action)
                .unwrap_or_default()
                .as_str()
                .unwrap_or_default(),
            serde_json::to_string(&answer.content.unwrap_or_default()).unwrap_or_default()
        ),
        Ok(ElicitOutcome::CreateTaskResult(task)) => {
            format!("elicitation runs as task {}", task.task.task_id)
        }
        Err(e) => format!("Elicitation not supported or error: {e}"),
    };
    Ok(result(vec![text(said)]))
}

/// SEP-1034: a form whose fields of every primitive type have defaults.
fn defaults_form() -> Value {
    json!({"type": "object", "required": [], "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "description": "Verification status", "default": true}
    }})
}

/// SEP-1330: a form with the five kinds of choice.
fn enums_form() -> Value {
    let titled = json!([{"const": "value1", "title": "First Option"}, {"const": "value2", "title": "Second Option"}, {"const": "value3", "title": "Third Option"}]);
    json!({"type": "object", "required": [], "properties": {
        "untitledSingle": {"type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "description": "Select one option with titles", "oneOf": titled},
        "legacyEnum": {"type": "string", "description": "Select one option (legacy)", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3, "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3, "items": {"anyOf": titled}}
    }})
}

/// `slow`: `steps` steps, each reported to the caller as `notifications/progress` when
/// the call carried a progress token. Cancelled, its future is dropped mid-step: the
/// guard reports how far it came.
pub(crate) async fn slow(
    cx: &Context,
    arguments: &Map<String, Value>,
    token: Option<ProgressToken>,
) -> Outcome {
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
            push.notifications_progress(
                token.clone(),
                // At most MAX_STEPS: exact as an f64.
                step as f64,
                Some(steps as f64),
                Some(message),
                None,
            )
            .await
            .map_err(gone)?;
        }
    }
    guard.steps = 0;
    Ok(result(vec![text(format!("done {steps} steps"))]))
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

/// Wraps a tool's result as the outcome of a call that is not a task.
pub(crate) fn outcome(result: CallToolResult) -> CallToolOutcome {
    CallToolOutcome::CallToolResult(result)
}
