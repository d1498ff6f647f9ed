//! A tour of the official reference server `@modelcontextprotocol/server-everything`
//! with the generated client: tools (with progress, sampling and elicitation answered
//! by this client), resources with a subscription, prompts, ping, and a cancelled call.
//! Each check passed prints `ok <check>`; the first failure ends the tour.

use crate::answers::{Heard, SAMPLED};
use crate::mcp::McpClient;
use crate::mcp::types::{CallToolOutcome, ContentBlock, ProgressToken, RequestMeta};
use serde_json::{Value, json};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// How long a notification the tour waits for may take (the server's subscription
/// updates come every 5 s).
const PATIENCE: Duration = Duration::from_secs(20);

fn ok(check: &str, detail: impl std::fmt::Display) {
    println!("ok {check}: {detail}");
}

/// The text of a call's result, its content blocks' texts joined.
async fn call(
    client: &McpClient,
    name: &str,
    arguments: Value,
    meta: Option<RequestMeta>,
) -> Result<String, String> {
    let outcome = client
        .tools_call(name.to_owned(), arguments.as_object().cloned(), None, meta)
        .await
        .map_err(|e| format!("tools/call {name}: {e}"))?;
    let CallToolOutcome::CallToolResult(result) = outcome else {
        return Err(format!("tools/call {name}: answered with a task"));
    };
    if result.is_error == Some(true) {
        return Err(format!(
            "tools/call {name}: the tool failed: {:?}",
            result.content
        ));
    }
    let texts: Vec<String> = result
        .content
        .into_iter()
        .filter_map(|block| match block {
            ContentBlock::TextContent(t) => Some(t.text),
            _ => None,
        })
        .collect();
    Ok(texts.join("\n"))
}

fn expect(check: &str, holds: bool, detail: impl std::fmt::Display) -> Result<(), String> {
    if holds {
        ok(check, detail);
        Ok(())
    } else {
        Err(format!("{check}: {detail}"))
    }
}

async fn within(check: &str, heard: &Heard, done: impl Fn(&Heard) -> bool) -> Result<(), String> {
    tokio::time::timeout(PATIENCE, heard.until(done))
        .await
        .map_err(|_| format!("{check}: nothing within {PATIENCE:?}"))
}

fn progress(token: &str) -> Option<RequestMeta> {
    Some(RequestMeta {
        progress_token: Some(ProgressToken::String(token.to_owned())),
        extra: Default::default(),
    })
}

/// The whole tour.
pub(crate) async fn run(client: &McpClient, heard: &Heard) -> Result<(), String> {
    let server = crate::initialize(client).await?;
    ok("initialize", server);
    client.ping(None).await.map_err(|e| format!("ping: {e}"))?;
    ok("ping", "answered");
    tools(client, heard).await?;
    resources(client, heard).await?;
    prompts(client).await?;
    cancellation(client, heard).await?;
    ok("done", "every check passed");
    Ok(())
}

async fn tools(client: &McpClient, heard: &Heard) -> Result<(), String> {
    let listed = client
        .tools_list(None, None)
        .await
        .map_err(|e| format!("tools/list: {e}"))?;
    let names: Vec<&str> = listed.tools.iter().map(|t| t.name.as_str()).collect();
    let wanted = [
        "echo",
        "get-sum",
        "trigger-long-running-operation",
        "trigger-sampling-request",
        "trigger-elicitation-request",
    ];
    expect(
        "tools/list",
        wanted.iter().all(|w| names.contains(w)),
        format!("{} tools: {names:?}", names.len()),
    )?;
    let echoed = call(client, "echo", json!({"message": "héllo"}), None).await?;
    expect("tools/call echo", echoed == "Echo: héllo", &echoed)?;
    let sum = call(client, "get-sum", json!({"a": 2, "b": 3}), None).await?;
    expect("tools/call get-sum", sum.contains("is 5"), &sum)?;
    let before = heard.progress.load(Ordering::SeqCst);
    let done = call(
        client,
        "trigger-long-running-operation",
        json!({"duration": 1, "steps": 3}),
        progress("tour-1"),
    )
    .await?;
    within("progress", heard, |h| {
        h.progress.load(Ordering::SeqCst) >= before + 3
    })
    .await?;
    ok(
        "progress notifications",
        format!(
            "{} before {done:?}",
            heard.progress.load(Ordering::SeqCst) - before
        ),
    );
    let sampled = call(
        client,
        "trigger-sampling-request",
        json!({"prompt": "Say something", "maxTokens": 20}),
        None,
    )
    .await?;
    expect(
        "sampling answered by the client",
        sampled.contains(SAMPLED) && heard.sampled.load(Ordering::SeqCst) == 1,
        sampled.lines().next().unwrap_or_default(),
    )?;
    let elicited = call(client, "trigger-elicitation-request", json!({}), None).await?;
    expect(
        "elicitation answered by the client",
        elicited.contains("Ada Lovelace"),
        elicited.lines().next().unwrap_or_default(),
    )?;
    Ok(())
}

async fn resources(client: &McpClient, heard: &Heard) -> Result<(), String> {
    let listed = client
        .resources_list(None, None)
        .await
        .map_err(|e| format!("resources/list: {e}"))?;
    let first = listed
        .resources
        .first()
        .ok_or("resources/list: none")?
        .uri
        .clone();
    ok(
        "resources/list",
        format!("{} resources", listed.resources.len()),
    );
    let read = client
        .resources_read(first.clone(), None)
        .await
        .map_err(|e| format!("resources/read {first}: {e}"))?;
    expect("resources/read", !read.contents.is_empty(), &first)?;
    let templates = client
        .resources_templates_list(None, None)
        .await
        .map_err(|e| format!("resources/templates/list: {e}"))?;
    ok(
        "resources/templates/list",
        format!("{} templates", templates.resource_templates.len()),
    );
    client
        .resources_subscribe(first.clone(), None)
        .await
        .map_err(|e| format!("resources/subscribe: {e}"))?;
    // The server sends updates of subscribed resources every 5 s once toggled on.
    call(client, "toggle-subscriber-updates", json!({}), None).await?;
    within("notifications/resources/updated", heard, |h| {
        h.updated().contains(&first)
    })
    .await?;
    ok("subscription: notifications/resources/updated", &first);
    client
        .resources_unsubscribe(first.clone(), None)
        .await
        .map_err(|e| format!("resources/unsubscribe: {e}"))?;
    call(client, "toggle-subscriber-updates", json!({}), None).await?;
    ok("resources/unsubscribe", &first);
    Ok(())
}

async fn prompts(client: &McpClient) -> Result<(), String> {
    let listed = client
        .prompts_list(None, None)
        .await
        .map_err(|e| format!("prompts/list: {e}"))?;
    let names: Vec<&str> = listed.prompts.iter().map(|p| p.name.as_str()).collect();
    expect(
        "prompts/list",
        names.contains(&"simple-prompt"),
        format!("{names:?}"),
    )?;
    let prompt = client
        .prompts_get("simple-prompt".to_owned(), None, None)
        .await
        .map_err(|e| format!("prompts/get: {e}"))?;
    expect(
        "prompts/get",
        !prompt.messages.is_empty(),
        format!("{} messages", prompt.messages.len()),
    )
}

/// A 30 s operation given up after its first progress report: the call ends at once,
/// and the connection goes on.
async fn cancellation(client: &McpClient, heard: &Heard) -> Result<(), String> {
    let before = heard.progress.load(Ordering::SeqCst);
    let long = call(
        client,
        "trigger-long-running-operation",
        json!({"duration": 30, "steps": 30}),
        progress("tour-cancel"),
    );
    let first = within("progress before cancel", heard, |h| {
        h.progress.load(Ordering::SeqCst) > before
    });
    tokio::select! {
        answered = long => return Err(format!("the long operation answered before it was given up: {answered:?}")),
        reported = first => reported?,
    }
    ok(
        "cancelled call dropped after progress",
        "the call's future was dropped",
    );
    let sum = call(client, "get-sum", json!({"a": 1, "b": 2}), None).await?;
    expect("tools/call after cancel", sum.contains("is 3"), &sum)
}
