//! How a streaming client gives a call up and ends its session: a call whose exchange
//! is dropped before its answer (its future dropped, or timed out) is cancelled with
//! the notification [`ClientStreaming::cancellation`](super::ClientStreaming::cancellation)
//! names, posted in the session, and so is each call of a dropped batch;
//! [`Client::end_session`](super::Client::end_session) sends `DELETE`.

use super::{Client, Shared};
use crate::client::Delivery;
use crate::client::TransportError;
use ::http::{HeaderMap, Method, StatusCode};
use bytes::Bytes;
use serde_json::value::RawValue;
use std::sync::{Arc, Weak};

/// Cancels a call, or a batch's calls, when dropped armed: its exchange was given up
/// before its answer.
pub(super) struct GiveUp {
    client: Weak<Shared>,
    /// The notifications to post, one per call to cancel.
    notifications: Vec<Bytes>,
}

impl GiveUp {
    /// The guard of the exchange of `message`: armed when the client cancels calls,
    /// `message` holds requests (one, or a batch's; not responses posted back, not
    /// notifications) and a session is known (the call that starts one, MCP's
    /// `initialize`, is never cancelled).
    pub(super) fn new(client: &Client, message: &[u8], in_session: bool) -> Self {
        let notifications = client
            .shared
            .streams
            .as_ref()
            .and_then(|streams| streams.settings.cancellation.as_ref())
            .filter(|_| in_session)
            .map(|(method, param)| {
                let ids = request_ids(message);
                ids.iter()
                    .map(|id| notification(method, param, id))
                    .collect()
            })
            .unwrap_or_default();
        Self {
            client: Arc::downgrade(&client.shared),
            notifications,
        }
    }

    /// The exchange ended (answered or failed): nothing to cancel.
    pub(super) fn disarm(&mut self) {
        self.notifications.clear();
    }
}

impl Drop for GiveUp {
    fn drop(&mut self) {
        if self.notifications.is_empty() {
            return;
        }
        let notifications = std::mem::take(&mut self.notifications);
        let (Some(shared), Ok(runtime)) =
            (self.client.upgrade(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let client = Client { shared };
        runtime.spawn(async move {
            // One by one: a session of MCP 2025-06-18 or later takes no batch.
            for notification in notifications {
                if let Err(error) = client.exchange(notification, None).await {
                    tracing::debug!(%error, "a cancellation could not be posted");
                }
            }
        });
    }
}

/// The request a message holds, as far as cancelling it goes.
#[derive(serde::Deserialize)]
struct Request<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Option<&'a RawValue>,
}

impl<'a> Request<'a> {
    /// Its id (JSON text), when it is a request with one.
    fn id(self) -> Option<&'a RawValue> {
        self.method?;
        self.id.filter(|id| id.get() != "null")
    }
}

/// The ids (JSON text) of the requests `message` holds: a single request's, or those
/// of a batch's requests (not its notifications, nor responses).
fn request_ids(message: &[u8]) -> Vec<&RawValue> {
    match message.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => (serde_json::from_slice::<Request<'_>>(message).ok())
            .and_then(Request::id)
            .into_iter()
            .collect(),
        Some(b'[') => serde_json::from_slice::<Vec<Request<'_>>>(message)
            .map(|batch| batch.into_iter().filter_map(Request::id).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// `{"jsonrpc":"2.0","method":<method>,"params":{<param>:<id>}}`.
fn notification(method: &str, param: &str, id: &RawValue) -> Bytes {
    let mut params = serde_json::Map::new();
    let id: serde_json::Value = serde_json::from_str(id.get()).unwrap_or_default();
    params.insert(param.to_owned(), id);
    let message = serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params});
    Bytes::from(message.to_string())
}

impl Client {
    /// Posts `message` and reads the answer; under streaming, a call given up before
    /// its answer (this future dropped) is cancelled in the session.
    pub(super) async fn exchange(
        &self,
        message: Bytes,
        extra: Option<HeaderMap>,
    ) -> Result<Delivery, TransportError> {
        let in_session =
            (self.shared.streams.as_ref()).is_some_and(|streams| streams.session().is_some());
        let mut give_up = GiveUp::new(self, &message, in_session);
        let delivery = self.exchange_once(message, extra.as_ref()).await;
        give_up.disarm();
        delivery
    }

    /// Ends the client's session (under [`ClientBuilder::streaming`](super::ClientBuilder::streaming)):
    /// `DELETE` with its id, as MCP's Streamable HTTP has a client do when it leaves.
    /// The session is forgotten either way: a later call starts afresh. `Ok(false)`
    /// when there was no session, or the server had none by that id (`404`) or does
    /// not let clients end sessions (`405`).
    ///
    /// # Errors
    ///
    /// The [`TransportError`] of a `DELETE` that could not be sent, or was answered
    /// with another failure status.
    pub async fn end_session(&self) -> Result<bool, TransportError> {
        let Some(streams) = &self.shared.streams else {
            return Ok(false);
        };
        let Some(session) = streams.session() else {
            return Ok(false);
        };
        streams.forget_session();
        let header = streams.settings.header.clone();
        let (response, lease) = self
            .shared
            .pool
            .send(Bytes::new(), |message, http2| {
                let mut request = self.request(message, http2, None);
                *request.method_mut() = Method::DELETE;
                request
                    .headers_mut()
                    .insert(header.clone(), session.clone());
                request.headers_mut().remove(::http::header::CONTENT_TYPE);
                request
            })
            .await?;
        drop(lease);
        match response.status() {
            status if status.is_success() => Ok(true),
            StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED => Ok(false),
            status => Err(TransportError::from_http_status(status.as_u16())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_a_batchs_requests_are_cancelled_by_their_ids() {
        let ids = |message: &str| -> Vec<String> {
            let ids = request_ids(message.as_bytes());
            ids.iter().map(|id| id.get().to_owned()).collect()
        };
        assert_eq!(
            ids(r#"{"jsonrpc":"2.0","id":"a b","method":"x"}"#),
            [r#""a b""#]
        );
        assert_eq!(ids(r#" {"jsonrpc":"2.0","method":"x","id":7}"#), ["7"]);
        assert!(
            ids(r#"{"jsonrpc":"2.0","id":7,"result":1}"#).is_empty(),
            "a response"
        );
        assert!(
            ids(r#"{"jsonrpc":"2.0","method":"x"}"#).is_empty(),
            "a notification"
        );
        assert_eq!(
            ids(
                r#"[{"jsonrpc":"2.0","id":7,"method":"x"},{"jsonrpc":"2.0","method":"n"},
                {"jsonrpc":"2.0","id":"b","method":"y"},{"jsonrpc":"2.0","id":3,"result":0}]"#
            ),
            ["7", r#""b""#],
            "a batch: its requests, not its notification or response"
        );
        assert!(ids("[1, 2]").is_empty(), "not JSON-RPC");
        let raw = RawValue::from_string("7".to_owned()).unwrap();
        assert_eq!(
            notification("notifications/cancelled", "requestId", &raw),
            Bytes::from_static(
                br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#
            )
        );
    }
}
