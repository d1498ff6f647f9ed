//! The instance's MCP mode, `scaleout-instance --mcp ID`: MCP's Streamable HTTP
//! (`Streaming::mcp()`), each session id starting with `ID.` so that nginx can send a
//! session's requests to this instance by the id alone. Methods:
//!
//! | method | answer |
//! |---|---|
//! | `initialize` | the MCP handshake: the revision asked for, tools capability; starts a session |
//! | `notifications/initialized` | nothing |
//! | `instance` | `{"instance": ID, "session": <the call's session id>}` |
//! | `pushMe` | `true`, then the notification `pushed [ID]` on the session's `GET` stream (sent from a task of its own, outside the `POST`) |

use rpcsmith::http::{self, SessionId, Streaming};
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Reply, Server};
use serde_json::json;
use serde_json::value::RawValue;

struct McpInstance {
    id: String,
}

impl Dispatch for McpInstance {
    fn call(&self, method: &str, params: Option<&RawValue>, cx: Context) -> Reply {
        match method {
            "initialize" => {
                let asked = params
                    .and_then(|p| serde_json::from_str::<serde_json::Value>(p.get()).ok())
                    .and_then(|p| p["protocolVersion"].as_str().map(str::to_owned))
                    .unwrap_or_else(|| "2025-11-25".to_owned());
                Reply::ok(&json!({
                    "protocolVersion": asked,
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "scaleout-instance", "version": "0"},
                }))
            }
            "notifications/initialized" => Reply::ok(&()),
            "instance" => {
                let session = cx.metadata().extensions.get::<SessionId>();
                Reply::ok(&json!({"instance": self.id, "session": session.map(|s| &s.0)}))
            }
            "pushMe" => {
                let Some(session) = rpcsmith::transport::remote(&cx) else {
                    return Reply::err(ErrorObject::new(-32603, "no session"));
                };
                let id = self.id.clone();
                // Outside the `POST`'s handling: what it sends goes to the `GET` stream.
                tokio::spawn(async move { session.notify("pushed", &[id]).await });
                Reply::ok(&true)
            }
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

/// Serves MCP as instance `id` on `listener` until killed.
pub(crate) async fn serve(id: String, listener: tokio::net::TcpListener) {
    let streaming = Streaming::mcp().session_prefix(&format!("{id}."));
    let service = http::Service::new(Server::new(McpInstance { id })).streaming(streaming);
    http::serve(listener, service, std::future::pending()).await;
}
