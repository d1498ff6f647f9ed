//! The client's side of the server→client methods, behind the generated
//! [`McpListener`]: sampling answered with a canned message, elicitation accepted with
//! each field's default (and `name` filled in), roots, and the notifications counted.

use crate::mcp::types::{
    CreateMessageOutcome, CreateMessageResult, ElicitOutcome, ElicitResult, ElicitResultAction,
    ElicitValue, ListRootsResult, LoggingLevel, Meta, ModelPreferences, ProgressToken, RequestMeta,
    RequestedSchema, Role, Root, SamplingContent, SamplingContents,
    SamplingCreateMessageIncludeContext, SamplingMessage, TaskMetadata, TextContent,
    TextContentType, Tool, ToolChoice,
};
use crate::mcp::{
    ElicitationCreateError, McpListener, PingResult, SamplingCreateMessageError, types,
};
use rpcsmith::server::{Context, Failure};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::Notify;

/// The text every sampling request is answered with.
pub(crate) const SAMPLED: &str = "a canned answer from rpcsmith's MCP client";

/// What the server sent, shared with the tour that waits on it.
#[derive(Debug, Default)]
pub(crate) struct Heard {
    pub(crate) progress: AtomicUsize,
    pub(crate) logs: AtomicUsize,
    pub(crate) sampled: AtomicUsize,
    pub(crate) elicited: AtomicUsize,
    pub(crate) updated: Mutex<Vec<String>>,
    /// Woken on every notification.
    pub(crate) changed: Notify,
}

impl Heard {
    /// Waits until `done` holds; woken by every notification.
    pub(crate) async fn until(&self, done: impl Fn(&Heard) -> bool) {
        loop {
            let notified = self.changed.notified();
            if done(self) {
                return;
            }
            notified.await;
        }
    }

    pub(crate) fn updated(&self) -> Vec<String> {
        self.updated
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// The listener: answers the server's requests, counts its notifications.
#[derive(Debug, Clone, Default)]
pub(crate) struct Answers {
    pub(crate) heard: Arc<Heard>,
}

/// `field`'s default, as an answer: what SEP-1034 asks a client to fill in.
fn default_of(field: &types::PrimitiveSchema) -> Option<ElicitValue> {
    let schema = serde_json::to_value(field).ok()?;
    serde_json::from_value(schema.get("default")?.clone()).ok()
}

/// The answer to a form: every field's default, and `name` when the form asks it.
pub(crate) fn fill(form: &RequestedSchema) -> BTreeMap<String, ElicitValue> {
    let mut answer: BTreeMap<String, ElicitValue> = form
        .properties
        .iter()
        .filter_map(|(key, field)| Some((key.clone(), default_of(field)?)))
        .collect();
    if form.properties.contains_key("name") && !answer.contains_key("name") {
        answer.insert(
            "name".to_owned(),
            ElicitValue::String("Ada Lovelace".to_owned()),
        );
    }
    answer
}

impl McpListener for Answers {
    async fn ping(&self, _cx: Context, _meta: Option<RequestMeta>) -> Result<PingResult, Failure> {
        Ok(PingResult::default())
    }

    async fn notifications_progress(
        &self,
        _cx: Context,
        _token: ProgressToken,
        _progress: f64,
        _total: Option<f64>,
        _message: Option<String>,
        _meta: Option<Meta>,
    ) {
        self.heard.progress.fetch_add(1, Ordering::SeqCst);
        self.heard.changed.notify_waiters();
    }

    async fn notifications_message(
        &self,
        _cx: Context,
        _level: LoggingLevel,
        _logger: Option<String>,
        _data: Value,
        _meta: Option<Meta>,
    ) {
        self.heard.logs.fetch_add(1, Ordering::SeqCst);
        self.heard.changed.notify_waiters();
    }

    async fn notifications_resources_updated(
        &self,
        _cx: Context,
        uri: String,
        _meta: Option<Meta>,
    ) {
        self.heard
            .updated
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(uri);
        self.heard.changed.notify_waiters();
    }

    async fn sampling_create_message(
        &self,
        _cx: Context,
        _messages: Vec<SamplingMessage>,
        _model_preferences: Option<ModelPreferences>,
        _system_prompt: Option<String>,
        _include_context: Option<SamplingCreateMessageIncludeContext>,
        _temperature: Option<f64>,
        _max_tokens: i64,
        _stop_sequences: Option<Vec<String>>,
        _metadata: Option<Map<String, Value>>,
        _tools: Option<Vec<Tool>>,
        _tool_choice: Option<ToolChoice>,
        _task: Option<TaskMetadata>,
        _meta: Option<RequestMeta>,
    ) -> Result<CreateMessageOutcome, Failure<SamplingCreateMessageError>> {
        self.heard.sampled.fetch_add(1, Ordering::SeqCst);
        Ok(CreateMessageOutcome::CreateMessageResult(
            CreateMessageResult {
                role: Role::Assistant,
                content: SamplingContents::SamplingContent(SamplingContent::TextContent(
                    TextContent {
                        r#type: TextContentType::Text,
                        text: SAMPLED.to_owned(),
                        annotations: None,
                        meta: None,
                    },
                )),
                model: "rpcsmith-canned".to_owned(),
                stop_reason: Some("endTurn".to_owned()),
                meta: None,
            },
        ))
    }

    async fn elicitation_create(
        &self,
        _cx: Context,
        _mode: Option<types::ElicitationCreateMode>,
        _message: String,
        requested_schema: Option<RequestedSchema>,
        _elicitation_id: Option<String>,
        _url: Option<String>,
        _task: Option<TaskMetadata>,
        _meta: Option<RequestMeta>,
    ) -> Result<ElicitOutcome, Failure<ElicitationCreateError>> {
        self.heard.elicited.fetch_add(1, Ordering::SeqCst);
        // A URL elicitation has no form: this client declines to open pages.
        let Some(form) = requested_schema else {
            return Ok(ElicitOutcome::ElicitResult(ElicitResult {
                action: ElicitResultAction::Decline,
                content: None,
                meta: None,
            }));
        };
        Ok(ElicitOutcome::ElicitResult(ElicitResult {
            action: ElicitResultAction::Accept,
            content: Some(fill(&form)),
            meta: None,
        }))
    }

    async fn roots_list(
        &self,
        _cx: Context,
        _meta: Option<RequestMeta>,
    ) -> Result<ListRootsResult, Failure> {
        Ok(ListRootsResult {
            roots: vec![Root {
                uri: "file:///tmp".to_owned(),
                name: Some("tmp".to_owned()),
                meta: None,
            }],
            meta: None,
        })
    }
}
