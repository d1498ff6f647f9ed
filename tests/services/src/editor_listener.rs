//! The client's side of `editor-client.json` that the transport and proxy tests run: it
//! reports what the `Editor` server sends ([`Event`]) on a channel, and applies edits.

use rpcsmith::server::{Context, Failure, Server};
use tokio::sync::mpsc;

use crate::editor_client::{
    EditorClientListener, EditorClientListenerDispatcher, WorkspaceApplyEditError, types,
};

/// What the client's listener received from the server.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// `window/logMessage`.
    Log(String),
    /// `$/progress`: token, value.
    Progress(String, String),
}

/// `Event::Progress(token, value)`.
pub fn progress(token: &str, value: &str) -> Event {
    Event::Progress(token.to_owned(), value.to_owned())
}

/// The listener's server, and the channel its events arrive on.
pub fn server() -> (Server, mpsc::UnboundedReceiver<Event>) {
    let (events, received) = mpsc::unbounded_channel();
    let dispatcher = EditorClientListenerDispatcher::new(Listener(events));
    (Server::new(dispatcher), received)
}

/// Reports notifications, applies edits (refusing an empty one with the declared error).
struct Listener(mpsc::UnboundedSender<Event>);

impl EditorClientListener for Listener {
    async fn window_log_message(&self, _cx: Context, r#type: types::MessageType, message: String) {
        assert_eq!(r#type, types::MessageType::V3);
        let _ = self.0.send(Event::Log(message));
    }

    async fn progress(&self, _cx: Context, token: String, value: String) {
        let _ = self.0.send(Event::Progress(token, value));
    }

    async fn workspace_apply_edit(
        &self,
        _cx: Context,
        label: Option<String>,
        edit: types::TextEdit,
    ) -> Result<types::ApplyEditResult, Failure<WorkspaceApplyEditError>> {
        assert_eq!(label.as_deref(), Some("edit"));
        if edit.new_text.is_empty() {
            let reason = "empty edit".to_owned();
            let data = types::WorkspaceApplyEditError1Data { reason };
            return Err(WorkspaceApplyEditError::EditRefused(data).into());
        }
        Ok(types::ApplyEditResult {
            applied: true,
            length: Some(edit.new_text.len() as i64),
        })
    }
}
