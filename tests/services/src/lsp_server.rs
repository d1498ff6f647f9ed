//! The `Lsp` server that `vscode-jsonrpc` talks to (in the `lsp-stdio` child): documents
//! changed by ordered `textDocument/didChange` notifications, a request that asks the
//! client back, one that waits to be cancelled.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Failure, Server};
use rpcsmith::transport::peer::{self, Cancellation, Order, Peer};

use crate::lsp::types::{
    Action, Change, DocumentState, InitializeResult, InitializeResultCapabilities,
    VersionedDocument,
};
use crate::lsp::{LspDispatcher, LspPush, LspServer};

/// LSP's `MessageType.Info`.
const INFO: u8 = 3;

/// How each connection is served: in arrival order ([`Order::All`], as a language
/// server must apply `didChange` before answering what comes after it), cancelled by
/// `$/cancelRequest` ([`Cancellation::LSP`], answered `-32800`).
pub fn builder() -> peer::Builder {
    Peer::builder()
        .serve(Server::new(LspDispatcher::new(Lsp::default())))
        .order(Order::All)
        .cancellation(Cancellation::LSP)
}

/// The documents, by URI.
#[derive(Debug, Default)]
pub struct Lsp {
    documents: Arc<Mutex<HashMap<String, DocumentState>>>,
}

fn caller(cx: &Context) -> Result<LspPush, Failure> {
    let client = peer::remote(cx).ok_or_else(|| ErrorObject::new(-32000, "no connection"))?;
    Ok(LspPush::new(client))
}

/// Reports on stderr a `mini/wait` dropped before its end (cancelled).
struct Dropped(String);

impl Drop for Dropped {
    fn drop(&mut self) {
        eprintln!("lsp-stdio: wait {} dropped", self.0);
    }
}

impl LspServer for Lsp {
    async fn initialize(
        &self,
        _cx: Context,
        _process_id: Option<i64>,
        _capabilities: serde_json::Map<String, serde_json::Value>,
    ) -> Result<InitializeResult, Failure> {
        let capabilities = InitializeResultCapabilities {
            text_document_sync: 2,
        };
        Ok(InitializeResult { capabilities })
    }

    async fn text_document_did_change(
        &self,
        _cx: Context,
        text_document: VersionedDocument,
        content_changes: Vec<Change>,
    ) {
        // Some changes wait before they take effect (as a parse would): run side by
        // side, later ones would overtake them.
        for _ in 0..text_document.version.rem_euclid(4) {
            tokio::task::yield_now().await;
        }
        let mut documents = self
            .documents
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let document = documents
            .entry(text_document.uri)
            .or_insert_with(|| DocumentState {
                version: 0,
                text: String::new(),
                out_of_order: 0,
            });
        if text_document.version != document.version + 1 {
            document.out_of_order += 1;
        }
        document.version = text_document.version;
        for change in content_changes {
            document.text.push_str(&change.text);
        }
    }

    async fn mini_document_text(
        &self,
        _cx: Context,
        uri: String,
    ) -> Result<DocumentState, Failure> {
        let documents = self
            .documents
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        documents
            .get(&uri)
            .cloned()
            .ok_or_else(|| ErrorObject::invalid_params(format!("unknown document {uri}")).into())
    }

    async fn mini_confirm(
        &self,
        cx: Context,
        question: String,
        choices: Vec<String>,
    ) -> Result<Option<String>, Failure> {
        let actions = choices.into_iter().map(|title| Action { title }).collect();
        let chosen = caller(&cx)?
            .window_show_message_request(INFO, question, Some(actions))
            .await
            .map_err(|e| ErrorObject::new(-32000, format!("asking the client failed: {e}")))?;
        Ok(chosen.map(|action| action.title))
    }

    async fn mini_wait(&self, cx: Context, label: String) -> Result<bool, Failure> {
        let guard = Dropped(label.clone());
        caller(&cx)?
            .window_log_message(INFO, format!("waiting {label}"))
            .await
            .map_err(|e| ErrorObject::new(-32000, format!("logging failed: {e}")))?;
        std::future::pending::<()>().await;
        drop(guard);
        Ok(true)
    }
}
