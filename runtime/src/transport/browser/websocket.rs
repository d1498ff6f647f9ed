//! JSON-RPC over the browser's `WebSocket`: a two-way message stream [`Transport`]
//! whose answers and pushed items arrive through the client's [`Inbox`].

use std::cell::RefCell;
use std::rc::Rc;

use bytes::Bytes;
use send_wrapper::SendWrapper;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{BinaryType, MessageEvent};

use super::js;
use crate::client::{Delivery, Inbox, SendFuture, Transport, TransportError, TransportErrorKind};
use crate::protocol::{Entry, ErrorObject, Message, TwoWay, code, write_error};

/// The largest message a [`WebSocket`] reads: 10 MiB. A larger one closes the
/// connection (its calls fail with `Closed`), as the native peer does.
const MAX_MESSAGE_SIZE: usize = 10 * 1024 * 1024;

/// The longest batch of calls the other side may send: every one is refused anyway.
const MAX_BATCH_LEN: usize = 1024;

/// A [`Transport`] over one browser `WebSocket`, opened by [`WebSocket::connect`].
///
/// Responses reach their calls by id; notifications carrying a subscription's items
/// reach the subscription ([`Transport::receives_pushes`]). The browser client serves
/// no methods: a request from the server is answered `-32601` (method not found), and
/// other notifications are dropped. When the connection closes, every pending call
/// fails with [`Error::Closed`](crate::client::Error::Closed) and every subscription
/// ends; there is no reconnection. Dropping the transport (the last clone of its
/// client) closes the connection.
pub struct WebSocket {
    shared: SendWrapper<Rc<Shared>>,
}

/// A JavaScript event handler, kept alive while the socket may call it.
type Handler = Closure<dyn FnMut(web_sys::Event)>;

struct Shared {
    socket: web_sys::WebSocket,
    inbox: RefCell<Option<Inbox>>,
    handlers: RefCell<Vec<Handler>>,
}

impl std::fmt::Debug for WebSocket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebSocket")
            .field("url", &self.shared.socket.url())
            .finish_non_exhaustive()
    }
}

impl WebSocket {
    /// Opens a WebSocket to `url` (`ws://` or `wss://`) and waits until it is open.
    ///
    /// # Errors
    ///
    /// [`TransportErrorKind::Config`] when the browser refuses the URL;
    /// [`TransportErrorKind::Connect`] when the connection fails or closes before it
    /// opens (the browser tells no more: the server's log says why).
    pub async fn connect(url: &str) -> Result<Self, TransportError> {
        let socket = web_sys::WebSocket::new(url).map_err(js::config)?;
        socket.set_binary_type(BinaryType::Arraybuffer);
        let opened = js_sys::Promise::new(&mut |resolve, reject| {
            socket.set_onopen(Some(&resolve));
            socket.set_onerror(Some(&reject));
            socket.set_onclose(Some(&reject));
        });
        let outcome = wasm_bindgen_futures::JsFuture::from(opened).await;
        socket.set_onopen(None);
        if outcome.is_err() {
            return Err(TransportError::new(
                TransportErrorKind::Connect,
                format!("the WebSocket to {url} did not open"),
            ));
        }
        let shared = Rc::new(Shared {
            socket,
            inbox: RefCell::new(None),
            handlers: RefCell::new(Vec::new()),
        });
        Shared::listen(&shared);
        Ok(Self {
            shared: SendWrapper::new(shared),
        })
    }
}

impl Shared {
    /// Routes every message received, and closes the inbox when the connection ends.
    fn listen(shared: &Rc<Self>) {
        let weak = Rc::downgrade(shared);
        let on_message = Handler::new(move |event: web_sys::Event| {
            if let (Some(shared), Ok(event)) = (weak.upgrade(), event.dyn_into::<MessageEvent>()) {
                shared.received(&event);
            }
        });
        let weak = Rc::downgrade(shared);
        let on_close = Handler::new(move |_: web_sys::Event| {
            if let Some(shared) = weak.upgrade() {
                shared.closed();
            }
        });
        let socket = &shared.socket;
        socket.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        socket.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        socket.set_onerror(Some(on_close.as_ref().unchecked_ref()));
        shared.handlers.borrow_mut().extend([on_message, on_close]);
    }

    /// One message from the server, text or binary.
    fn received(&self, event: &MessageEvent) {
        let data = event.data();
        let message = match data.as_string() {
            Some(text) => Bytes::from(text),
            None => Bytes::from(js_sys::Uint8Array::new(&data).to_vec()),
        };
        if message.len() > MAX_MESSAGE_SIZE {
            tracing::debug!(
                len = message.len(),
                "a message over the size limit: closing"
            );
            self.socket.close().ok();
            self.closed();
            return;
        }
        let inbox = self.inbox.borrow().clone();
        let Some(inbox) = inbox else { return };
        match TwoWay::parse(&message, MAX_BATCH_LEN, None) {
            TwoWay::Responses => inbox.deliver(message),
            TwoWay::Calls {
                message: Ok(calls), ..
            } => self.calls(&inbox, calls, &message),
            TwoWay::Calls {
                message: Err(_), ..
            } => {
                tracing::debug!("ignored a message that is neither a response nor a call");
            }
        }
    }

    /// Calls from the server: a subscription's items go to it; requests are refused.
    fn calls(&self, inbox: &Inbox, calls: Message<'_>, bytes: &Bytes) {
        let entries = match calls {
            Message::Single(entry) => vec![entry],
            Message::Batch(entries) => entries,
        };
        let mut answers = Vec::new();
        for entry in entries {
            match entry {
                Entry::Notification(n) => {
                    if !inbox.route_notification(&n.method, n.params, bytes) {
                        tracing::debug!(method = %n.method, "ignored a notification");
                    }
                }
                Entry::Request(request) => {
                    let refusal = ErrorObject::new(
                        code::METHOD_NOT_FOUND,
                        "the browser client serves no methods",
                    );
                    let mut out = Vec::with_capacity(96);
                    write_error(&mut out, &request.id, &refusal);
                    answers.push(out);
                }
                Entry::Invalid(_) => tracing::debug!("ignored an invalid call"),
            }
        }
        for answer in answers {
            if let Ok(text) = std::str::from_utf8(&answer) {
                self.socket.send_with_str(text).ok();
            }
        }
    }

    /// The connection ended: every pending call fails, every subscription ends.
    fn closed(&self) {
        if let Some(inbox) = self.inbox.borrow().as_ref() {
            inbox.close();
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.socket.set_onmessage(None);
        self.socket.set_onclose(None);
        self.socket.set_onerror(None);
        self.socket.close().ok();
    }
}

impl Transport for WebSocket {
    fn attach(&mut self, inbox: Inbox) {
        *self.shared.inbox.borrow_mut() = Some(inbox);
    }

    fn receives_pushes(&self) -> bool {
        true
    }

    fn send(&self, message: Bytes) -> SendFuture<'_> {
        let sent = match std::str::from_utf8(&message) {
            Ok(text) => self
                .shared
                .socket
                .send_with_str(text)
                .map_err(|_| TransportError::closed()),
            Err(_) => Err(TransportError::new(
                TransportErrorKind::Config,
                "a JSON-RPC message is UTF-8 text",
            )),
        };
        Box::pin(std::future::ready(sent.map(|()| Delivery::Routed)))
    }
}
