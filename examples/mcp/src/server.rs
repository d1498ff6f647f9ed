//! The example's server, behind the generated [`McpServer`] trait: the handshake with
//! version negotiation, tools, resources with subscriptions, prompts, logging and
//! completion. Methods it leaves out (tasks) answer `-32601` (a `partial` build).

use crate::mcp::types::{
    self, Capability, CompleteResult, CompleteResultCompletion, CompletionArgument,
    CompletionContext, CompletionReference, EmptyResult, Implementation, InitializeResult,
    ListChanged, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, LoggingLevel, RequestMeta, ResourcesCapability, ServerCapabilities,
};
use crate::mcp::{
    CompletionCompleteError, LoggingSetLevelError, McpPush, McpServer, PingResult, PromptsGetError,
    PromptsListError, ResourcesListError, ResourcesReadError, ResourcesSubscribeError,
    ResourcesTemplatesListError, ResourcesUnsubscribeError, ToolsCallError, ToolsCallResult,
    ToolsListError,
};
use crate::{fixtures, tools};
use rpcsmith::http::SessionId;
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Failure};
use rpcsmith::transport::peer;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

/// The protocol revisions this server speaks, newest first.
pub(crate) const REVISIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// MCP's code for a resource that does not exist.
const RESOURCE_NOT_FOUND: i64 = -32002;

/// The example's server: the resources each session subscribed to.
#[derive(Debug, Default)]
pub(crate) struct Example {
    subscriptions: Arc<Mutex<HashSet<Subscription>>>,
}

/// A subscription: its session (if any) and the resource's URI.
type Subscription = (Option<String>, String);

fn session(cx: &Context) -> Option<String> {
    cx.metadata()
        .extensions
        .get::<SessionId>()
        .map(|session| session.0.clone())
}

/// The revision to answer a client that asked for `asked`: it, if this server speaks
/// it, else this server's newest.
pub(crate) fn negotiate(asked: &str) -> &'static str {
    REVISIONS
        .iter()
        .find(|r| **r == asked)
        .unwrap_or(&REVISIONS[0])
}

fn capabilities() -> ServerCapabilities {
    let listed = || {
        Some(ListChanged {
            list_changed: Some(false),
        })
    };
    ServerCapabilities {
        experimental: None,
        logging: Some(Capability::new()),
        completions: Some(Capability::new()),
        prompts: listed(),
        resources: Some(ResourcesCapability {
            subscribe: Some(true),
            list_changed: Some(false),
        }),
        tools: listed(),
        tasks: None,
    }
}

/// One page: this server never gives a cursor, so any cursor is unknown.
fn one_page<E>(cursor: Option<String>) -> Result<(), Failure<E>> {
    match cursor {
        Some(_) => Err(ErrorObject::invalid_params("unknown cursor").into()),
        None => Ok(()),
    }
}

impl McpServer for Example {
    async fn initialize(
        &self,
        _cx: Context,
        protocol_version: String,
        _capabilities: types::ClientCapabilities,
        client_info: Implementation,
        _meta: Option<RequestMeta>,
    ) -> Result<InitializeResult, Failure> {
        eprintln!(
            "mcp-example: initialize from {} {} asking {protocol_version}",
            client_info.name, client_info.version
        );
        Ok(InitializeResult {
            protocol_version: negotiate(&protocol_version).to_owned(),
            capabilities: capabilities(),
            server_info: Implementation {
                name: "rpcsmith-mcp-example".to_owned(),
                title: Some("rpcsmith's MCP example".to_owned()),
                version: env!("CARGO_PKG_VERSION").to_owned(),
                description: None,
                website_url: None,
                icons: None,
            },
            instructions: Some(
                "Tools (add, echo, slow, and the conformance suite's test_*), resources under test://, and prompts."
                    .to_owned(),
            ),
            meta: None,
        })
    }

    async fn notifications_initialized(&self, _cx: Context, _meta: Option<types::Meta>) {
        eprintln!("mcp-example: initialized");
    }

    async fn ping(&self, _cx: Context, _meta: Option<RequestMeta>) -> Result<PingResult, Failure> {
        Ok(EmptyResult::default())
    }

    async fn tools_list(
        &self,
        _cx: Context,
        cursor: Option<String>,
        _meta: Option<RequestMeta>,
    ) -> Result<ListToolsResult, Failure<ToolsListError>> {
        one_page(cursor)?;
        Ok(ListToolsResult {
            tools: tools::catalogue(),
            next_cursor: None,
            meta: None,
        })
    }

    async fn tools_call(
        &self,
        cx: Context,
        name: String,
        arguments: Option<Map<String, Value>>,
        _task: Option<types::TaskMetadata>,
        meta: Option<RequestMeta>,
    ) -> Result<ToolsCallResult, Failure<ToolsCallError>> {
        let arguments = arguments.unwrap_or_default();
        let token = meta.and_then(|m| m.progress_token);
        if name == "slow" {
            // Cancelled, this future is dropped by the transport (stdio's peer, or
            // Streamable HTTP): nothing here waits for it.
            return tools::slow(&cx, &arguments, token)
                .await
                .map(tools::outcome);
        }
        match tools::call(&cx, &name, &arguments, token).await {
            Some(outcome) => outcome.map(tools::outcome),
            None => Err(ErrorObject::invalid_params(format!("unknown tool: {name}")).into()),
        }
    }

    /// Never called: both transports act on `notifications/cancelled` themselves
    /// (stdio's peer under `Cancellation::MCP`, Streamable HTTP under
    /// `Streaming::mcp`): they drop the named call's handler, and do not answer it.
    async fn notifications_cancelled(
        &self,
        _cx: Context,
        _request_id: Option<types::RequestId>,
        _reason: Option<String>,
        _meta: Option<types::Meta>,
    ) {
    }

    async fn resources_list(
        &self,
        _cx: Context,
        cursor: Option<String>,
        _meta: Option<RequestMeta>,
    ) -> Result<ListResourcesResult, Failure<ResourcesListError>> {
        one_page(cursor)?;
        Ok(ListResourcesResult {
            resources: fixtures::resources(),
            next_cursor: None,
            meta: None,
        })
    }

    async fn resources_templates_list(
        &self,
        _cx: Context,
        cursor: Option<String>,
        _meta: Option<RequestMeta>,
    ) -> Result<ListResourceTemplatesResult, Failure<ResourcesTemplatesListError>> {
        one_page(cursor)?;
        Ok(ListResourceTemplatesResult {
            resource_templates: fixtures::templates(),
            next_cursor: None,
            meta: None,
        })
    }

    async fn resources_read(
        &self,
        _cx: Context,
        uri: String,
        _meta: Option<RequestMeta>,
    ) -> Result<types::ReadResourceResult, Failure<ResourcesReadError>> {
        fixtures::read(&uri).ok_or_else(|| not_found(&uri))
    }

    async fn resources_subscribe(
        &self,
        cx: Context,
        uri: String,
        _meta: Option<RequestMeta>,
    ) -> Result<EmptyResult, Failure<ResourcesSubscribeError>> {
        if fixtures::read(&uri).is_none() {
            return Err(not_found(&uri));
        }
        self.lock().insert((session(&cx), uri.clone()));
        // Tell the new subscriber once that it changed, as a watched resource does.
        if let Some(push) = peer::remote(&cx).map(McpPush::new) {
            tokio::spawn(async move {
                let _ = push.notifications_resources_updated(uri, None).await;
            });
        }
        Ok(EmptyResult::default())
    }

    async fn resources_unsubscribe(
        &self,
        cx: Context,
        uri: String,
        _meta: Option<RequestMeta>,
    ) -> Result<EmptyResult, Failure<ResourcesUnsubscribeError>> {
        self.lock().remove(&(session(&cx), uri));
        Ok(EmptyResult::default())
    }

    async fn prompts_list(
        &self,
        _cx: Context,
        cursor: Option<String>,
        _meta: Option<RequestMeta>,
    ) -> Result<ListPromptsResult, Failure<PromptsListError>> {
        one_page(cursor)?;
        Ok(ListPromptsResult {
            prompts: fixtures::prompts(),
            next_cursor: None,
            meta: None,
        })
    }

    async fn prompts_get(
        &self,
        _cx: Context,
        name: String,
        arguments: Option<BTreeMap<String, String>>,
        _meta: Option<RequestMeta>,
    ) -> Result<types::GetPromptResult, Failure<PromptsGetError>> {
        fixtures::get_prompt(&name, &arguments.unwrap_or_default())
            .map_err(|why| ErrorObject::invalid_params(why).into())
    }

    async fn logging_set_level(
        &self,
        _cx: Context,
        level: LoggingLevel,
        _meta: Option<RequestMeta>,
    ) -> Result<EmptyResult, Failure<LoggingSetLevelError>> {
        let shown = serde_json::to_value(level).unwrap_or_default();
        eprintln!("mcp-example: log level set to {shown}");
        Ok(EmptyResult::default())
    }

    async fn completion_complete(
        &self,
        _cx: Context,
        r#ref: CompletionReference,
        argument: CompletionArgument,
        _context: Option<CompletionContext>,
        _meta: Option<RequestMeta>,
    ) -> Result<CompleteResult, Failure<CompletionCompleteError>> {
        Ok(CompleteResult {
            completion: CompleteResultCompletion {
                values: completions(&r#ref, &argument),
                total: None,
                has_more: Some(false),
            },
            meta: None,
        })
    }
}

/// The values of the prompts' arguments and the template's `id` that start with what
/// was typed.
fn completions(reference: &CompletionReference, argument: &CompletionArgument) -> Vec<String> {
    let known: &[&str] = match (reference, argument.name.as_str()) {
        (CompletionReference::RefPrompt { .. }, "arg1" | "arg2") => &["alpha", "beta", "gamma"],
        (CompletionReference::RefResource { .. }, "id") => &["1", "2", "3", "123"],
        _ => &[],
    };
    known
        .iter()
        .filter(|v| v.starts_with(&argument.value))
        .map(|v| (*v).to_owned())
        .collect()
}

fn not_found<E>(uri: &str) -> Failure<E> {
    ErrorObject::with_data(
        RESOURCE_NOT_FOUND,
        "Resource not found",
        &json!({ "uri": uri }),
    )
    .into()
}

impl Example {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<Subscription>> {
        self.subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_revision_asked_for_is_answered_when_spoken_else_the_newest() {
        for asked in ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] {
            assert_eq!(negotiate(asked), asked);
        }
        assert_eq!(negotiate("2024-10-07"), "2025-11-25");
        assert_eq!(negotiate("not a date"), "2025-11-25");
    }

    #[test]
    fn the_catalogue_fits_the_generated_types_and_keeps_unnamed_keywords() {
        let names: Vec<String> = tools::catalogue().into_iter().map(|t| t.name).collect();
        assert!(
            names.starts_with(&["add".into(), "echo".into(), "slow".into()]),
            "{names:?}"
        );
        assert!(names.contains(&"json_schema_2020_12_tool".to_owned()));
        // The 2020-12 schema keeps what `ObjectSchema` does not name ($defs, ...).
        let tool = tools::catalogue().pop().unwrap();
        let schema = serde_json::to_value(tool.input_schema).unwrap();
        assert_eq!(schema["$defs"]["address"]["type"], "object");
        assert_eq!(schema["additionalProperties"], false);
    }
}
