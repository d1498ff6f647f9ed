//! The server engine, bytes in, bytes out: any message gets valid JSON that the
//! client's reader accepts, or nothing when it holds only notifications.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rpcsmith::protocol::{Entry, ErrorObject, Message, Responses};
use rpcsmith::server::{Context, Dispatch, Limits, Metadata, Reply, Server};
use serde_json::value::RawValue;
use std::sync::LazyLock;

/// Answers `echo` with its params, at once or after yielding once (`later`), and
/// `fail` with an error; anything else is not found.
struct Echo;

impl Dispatch for Echo {
    fn call(&self, method: &str, params: Option<&RawValue>, _cx: Context) -> Reply {
        let params = params.map(|p| p.to_owned());
        match method {
            "echo" => Reply::ok(&params),
            "later" => Reply::future(async move {
                tokio::task::yield_now().await;
                rpcsmith::server::encode(&params)
            }),
            "fail" => Reply::err(ErrorObject::invalid_params("no")),
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }
}

static SERVER: LazyLock<Server> = LazyLock::new(|| {
    let mut limits = Limits::default();
    limits.max_batch_len = 8;
    limits.max_response_size = 4096;
    Server::builder(Echo).limits(limits).build()
});

fuzz_target!(|data: &[u8]| {
    let answer = rpcsmith_fuzz::block_on(SERVER.handle(data, Metadata::default()));
    let only_notifications = match Message::parse(data) {
        Ok(Message::Single(entry)) => matches!(entry, Entry::Notification(_)),
        Ok(Message::Batch(entries)) if entries.len() <= 8 => {
            entries.iter().all(|e| matches!(e, Entry::Notification(_)))
        }
        _ => false,
    };
    match answer {
        None => assert!(only_notifications, "no answer to a call"),
        Some(bytes) => {
            assert!(!only_notifications, "an answer to notifications");
            // JSON by the grammar: an id such as `1e400` is echoed as sent, though it
            // is out of range for `serde_json::Value`.
            let _: &RawValue = serde_json::from_slice(&bytes).expect("the answer is JSON");
            Responses::parse(&bytes).expect("the client reads the answer");
        }
    }
});
