//! A [`Mock`] as the runtime's [`Dispatch`]: served by any `rpcsmith` transport (the
//! `rpcsmith mock` command's HTTP, WebSocket and stdio; a test's in-memory connection).

use std::sync::{Arc, Mutex};

use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Reply};
use serde_json::Value;
use serde_json::value::RawValue;

use super::{Answer, Mock, Origin};

/// What is told of each call: one line, `method params -> how it was answered`.
type Log = Arc<dyn Fn(&str) + Send + Sync>;

/// Answers every call with the mock; shared by every connection.
#[derive(Clone)]
pub struct Dispatcher {
    mock: Arc<Mutex<Mock>>,
    log: Option<Log>,
}

impl Dispatcher {
    /// Serves `mock`, telling nothing.
    pub fn new(mock: Mock) -> Self {
        Dispatcher {
            mock: Arc::new(Mutex::new(mock)),
            log: None,
        }
    }

    /// Tells `log` of each call, as `get_pet [7] -> example "getPetExample"`.
    pub fn log(mut self, log: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.log = Some(Arc::new(log));
        self
    }
}

impl Dispatch for Dispatcher {
    fn call(&self, method: &str, params: Option<&RawValue>, _context: Context) -> Reply {
        let params: Option<Value> = match params.map(|p| serde_json::from_str(p.get())) {
            Some(Ok(value)) => Some(value),
            Some(Err(_)) => return Reply::err(ErrorObject::invalid_params("invalid params")),
            None => None,
        };
        let answer = self
            .mock
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .answer(method, params.as_ref());
        let (reply, how) = reply(answer);
        if let Some(log) = &self.log {
            let shown = params.map_or_else(|| "(none)".to_owned(), |p| p.to_string());
            log(&format!("{method} {shown} -> {how}"));
        }
        reply
    }
}

/// The reply, and how it was made (for the log).
fn reply(answer: Answer) -> (Reply, String) {
    match answer {
        Answer::Result { value, origin } => {
            let how = match origin {
                Origin::Example(name) => format!("example {name:?}"),
                Origin::Generated => "generated".to_owned(),
                Origin::Notification => "null (no result declared)".to_owned(),
            };
            (Reply::ok(&value), how)
        }
        Answer::Error {
            code,
            message,
            data,
        } => {
            let how = format!("error {code}: {message}");
            let error = match data {
                Some(data) => ErrorObject::with_data(code, message, &data),
                None => ErrorObject::new(code, message),
            };
            (Reply::err(error), how)
        }
    }
}
