//! The client in a web browser (feature `browser`, target `wasm32-unknown-unknown`):
//! HTTP through the browser's `fetch` ([`Fetch`]) and WebSocket through its
//! `WebSocket` ([`WebSocket`]).
//!
//! The same [`Client`](crate::client::Client) and generated clients as natively, over
//! these transports: calls, batches, notifications, timeouts, middleware, pushed
//! subscriptions over WebSocket and pulled ones over HTTP. Timers are the page's
//! `setTimeout` and background work runs on its event loop
//! (`wasm_bindgen_futures::spawn_local`); no Tokio runtime is needed.
//!
//! ```ignore
//! use rpcsmith::client::Client;
//! use rpcsmith::transport::browser::Fetch;
//!
//! let client = PetstoreClient::new(Client::new(Fetch::new("http://127.0.0.1:8080/")));
//! let pet = client.get_pet(1).await?;
//! ```
//!
//! See the guide's chapter on transports, section "In a browser".

mod fetch;
mod js;
mod websocket;

pub use fetch::{DEFAULT_MAX_RESPONSE_SIZE, Fetch};
pub use websocket::WebSocket;
