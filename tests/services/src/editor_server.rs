//! The `Editor` server that every transport test runs, in process and in the
//! `editor-stdio` child: its handlers push to their caller and call it back through the
//! generated [`EditorClientPush`], over [`peer::remote`].

use rpcsmith::client::Error;
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Failure, Limits, Server};
use rpcsmith::transport::peer::{self, Peer};

use crate::editor::{EditorDispatcher, EditorServer, types::EditOutcome};
use crate::editor_client::{EditorClientPush, WorkspaceApplyEditError, types};

/// Most calls running at once on one connection: the next is refused `-32009`.
pub const MAX_IN_FLIGHT: usize = 4;

/// Largest message read: a larger frame is refused `-32007`, and skipped.
pub const MAX_MESSAGE: usize = 64 * 1024;

/// The `Editor` implementation.
#[derive(Debug, Default)]
pub struct Editor;

/// The server: the generated dispatcher with the tests' limits.
pub fn server() -> Server {
    let mut limits = Limits::default();
    limits.max_in_flight = MAX_IN_FLIGHT;
    limits.max_request_size = MAX_MESSAGE;
    Server::builder(EditorDispatcher::new(Editor))
        .limits(limits)
        .build()
}

/// How each connection is served: [`server`], with `$/cancelRequest` on whatever the
/// framing.
pub fn builder() -> peer::Builder {
    Peer::builder().serve(server()).cancel(true)
}

/// The typed sender back to the caller of `cx`.
fn caller(cx: &Context) -> Result<EditorClientPush, Failure> {
    let client = peer::remote(cx).ok_or_else(|| ErrorObject::new(-32000, "no connection"))?;
    Ok(EditorClientPush::new(client))
}

fn failed(e: Error<impl std::fmt::Display>) -> Failure {
    ErrorObject::new(-32000, format!("calling back failed: {e}")).into()
}

impl EditorServer for Editor {
    async fn add(&self, _cx: Context, a: i64, b: i64) -> Result<i64, Failure> {
        a.checked_add(b)
            .ok_or_else(|| ErrorObject::invalid_params("overflow").into())
    }

    async fn log(&self, cx: Context, message: String) {
        if let Ok(push) = caller(&cx) {
            let info = types::MessageType::V3;
            let _ = push.window_log_message(info, message).await;
        }
    }

    async fn count(&self, cx: Context, to: u8) -> Result<u8, Failure> {
        let push = caller(&cx)?;
        for i in 1..=to {
            push.progress("count".into(), i.to_string())
                .await
                .map_err(failed)?;
        }
        Ok(to)
    }

    async fn edit(&self, cx: Context, text: String) -> Result<EditOutcome, Failure> {
        let edit = types::TextEdit { new_text: text };
        let answer = caller(&cx)?
            .workspace_apply_edit(Some("edit".into()), edit)
            .await;
        match answer {
            Ok(result) => Ok(EditOutcome {
                applied: result.applied,
                reason: None,
            }),
            Err(Error::Declared(WorkspaceApplyEditError::EditRefused(data))) => Ok(EditOutcome {
                applied: false,
                reason: Some(data.reason),
            }),
            Err(e) => Err(failed(e)),
        }
    }

    async fn wait(&self, cx: Context, label: String) -> Result<bool, Failure> {
        caller(&cx)?
            .progress(label.clone(), "started".into())
            .await
            .map_err(failed)?;
        // Holds the context, not a client: a handler holding its connection's client
        // would keep the connection open.
        let _aborted = Aborted { cx, label };
        std::future::pending().await
    }
}

/// Reports `$/progress` `aborted` to the caller when the handler holding it is dropped
/// unfinished (cancelled, or its connection gone).
struct Aborted {
    cx: Context,
    label: String,
}

impl Drop for Aborted {
    fn drop(&mut self) {
        let (Ok(runtime), Ok(push)) = (tokio::runtime::Handle::try_current(), caller(&self.cx))
        else {
            return;
        };
        let label = std::mem::take(&mut self.label);
        runtime.spawn(async move { push.progress(label, "aborted".into()).await });
    }
}
