//! What a streaming service reads in a message before handling it, and in the answer
//! that starts a session: what a `POST` carries (calls, responses, a cancellation, a
//! message not even JSON), the revision a session negotiated, and event ids.

use super::Streaming;
use crate::protocol::{self, ErrorObject, Message, TwoWay};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;

/// What a `POST` carries, as far as sessions must know.
pub(super) enum Carries {
    Responses,
    /// The cancellation notification, naming this call (its id as JSON text).
    Cancel(Box<str>),
    /// A body refused whole (not JSON, an empty batch, a batch too long): its error.
    Unparsable(ErrorObject),
    Calls(Calls),
}

/// The calls a `POST` carries.
pub(super) struct Calls {
    /// Whether any of them is a request (not only notifications).
    pub(super) requests: bool,
    /// The id (JSON text) of the session-starting request among them.
    pub(super) initializes: Option<Box<str>>,
    /// The id (JSON text) of the one request, when it is one request alone.
    pub(super) single: Option<Box<str>>,
    pub(super) batch: bool,
}

impl Calls {
    /// A body refused whole, handled as one request (its answer is the error).
    pub(super) const UNPARSABLE: Calls = Calls {
        requests: true,
        initializes: None,
        single: None,
        batch: false,
    };
}

pub(super) fn carries(body: &[u8], max_batch_len: usize, settings: &Streaming) -> Carries {
    let cancel = settings.cancellation.as_ref();
    let intercept = cancel.map(|(method, _)| &**method);
    let (message, intercepted) = match TwoWay::parse(body, max_batch_len, intercept) {
        TwoWay::Responses => return Carries::Responses,
        TwoWay::Calls {
            message,
            intercepted,
        } => (message, intercepted),
    };
    if let (Some((_, param)), Some(params)) = (cancel, intercepted)
        && let Some(id) = requested_id(params, param)
    {
        return Carries::Cancel(id.get().into());
    }
    let (entries, batch) = match &message {
        Ok(Message::Single(entry)) => (std::slice::from_ref(entry), false),
        Ok(Message::Batch(entries)) => (entries.as_slice(), true),
        Err(error) => return Carries::Unparsable(error.clone()),
    };
    let initialize = settings.initialize.as_deref();
    let mut requests = false;
    let mut initializes = None;
    let mut single = None;
    for entry in entries {
        match entry {
            protocol::Entry::Request(request) => {
                requests = true;
                if initialize == Some(&*request.method) {
                    initializes = Some(request.id.as_json().into());
                }
                if !batch {
                    single = Some(request.id.as_json().into());
                }
            }
            protocol::Entry::Invalid(_) => requests = true,
            protocol::Entry::Notification(_) => {}
        }
    }
    Carries::Calls(Calls {
        requests,
        initializes,
        single,
        batch,
    })
}

/// The id a cancellation's `params` name in their by-name member `param`.
fn requested_id<'a>(params: &'a RawValue, param: &str) -> Option<&'a RawValue> {
    // By name only: an array names nothing.
    if !params.get().starts_with('{') {
        return None;
    }
    let fields: HashMap<Cow<'a, str>, &'a RawValue> = serde_json::from_str(params.get()).ok()?;
    fields.get(param).copied()
}

/// Whether `answer` answers the request `id` (JSON text) with a result, and if so the
/// revision its result's member `field` names.
pub(super) fn initialised(
    answer: &[u8],
    id: &str,
    field: Option<&str>,
) -> Option<Option<Box<str>>> {
    #[derive(serde::Deserialize)]
    struct Response<'a> {
        #[serde(borrow)]
        id: Option<&'a RawValue>,
        #[serde(borrow)]
        result: Option<&'a RawValue>,
    }
    // Not an untagged enum: serde buffers those, and borrowed raw values cannot
    // come from its buffer.
    let batch = answer.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
    let answers: Vec<Response<'_>> = if batch {
        serde_json::from_slice(answer).ok()?
    } else {
        vec![serde_json::from_slice(answer).ok()?]
    };
    let result = answers
        .into_iter()
        .find(|response| response.id.is_some_and(|own| own.get() == id))?
        .result?;
    let revision = field.and_then(|field| {
        let members: HashMap<Cow<'_, str>, &RawValue> = serde_json::from_str(result.get()).ok()?;
        let revision: String = serde_json::from_str(members.get(field)?.get()).ok()?;
        Some(revision.into_boxed_str())
    });
    Some(revision)
}

/// `<stream>-<sequence>`, both decimal digits only: no sign, no space, nothing else.
pub(super) fn parse_event_id(id: &[u8]) -> Option<(u64, u64)> {
    let digits = |part: &[u8]| {
        if part.is_empty() || part.len() > 20 || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    let dash = id.iter().position(|&byte| byte == b'-')?;
    Some((digits(&id[..dash])?, digits(&id[dash + 1..])?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_ids_are_two_runs_of_digits() {
        assert_eq!(parse_event_id(b"3-17"), Some((3, 17)));
        assert_eq!(parse_event_id(b"0-1"), Some((0, 1)));
        for malformed in [
            &b"17"[..],
            b"a-1",
            b"-1",
            b"+1-+1",
            b" 1-1 ",
            b"1-1 ",
            b"1--1",
            b"1-1-1",
            b"0x1-1",
            b"1-",
            b"99999999999999999999-1",
        ] {
            assert_eq!(parse_event_id(malformed), None, "{malformed:?}");
        }
    }

    #[test]
    fn requests_the_starting_method_and_a_cancellation_are_told_apart() {
        let settings = Streaming::mcp();
        let told = |body: &[u8]| match carries(body, 100, &settings) {
            Carries::Responses => "responses".to_owned(),
            Carries::Cancel(id) => format!("cancel {id}"),
            Carries::Unparsable(error) => format!("unparsable {}", error.code),
            Carries::Calls(Calls {
                initializes: Some(id),
                ..
            }) => format!("initialize {id}"),
            Carries::Calls(Calls {
                requests: true,
                single,
                batch,
                ..
            }) => format!("requests {single:?} {batch}"),
            Carries::Calls(_) => "notifications".to_owned(),
        };
        let cases: [(&[u8], &str); 8] = [
            (br#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#, "initialize 1"),
            (br#"{"jsonrpc":"2.0","method":"initialize"}"#, "notifications"),
            (br#"[{"jsonrpc":"2.0","id":1,"result":2}]"#, "responses"),
            (br#"{"jsonrpc":"2.0","id":"a","method":"x"}"#, r#"requests Some("\"a\"") false"#),
            (br#"[{"jsonrpc":"2.0","id":1,"method":"x"}]"#, "requests None true"),
            (
                br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}"#,
                r#"cancel "a""#,
            ),
            (b"{", "unparsable -32700"),
            (b"[]", "unparsable -32600"),
        ];
        for (body, expected) in cases {
            assert_eq!(told(body), expected, "{}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn a_start_succeeds_with_a_result_for_its_id() {
        let field = Some("protocolVersion");
        let ok = br#"{"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25"},"id":1}"#;
        assert_eq!(initialised(ok, "1", field), Some(Some("2025-11-25".into())));
        assert_eq!(initialised(ok, "2", field), None);
        let error = br#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"x"},"id":1}"#;
        assert_eq!(initialised(error, "1", field), None);
        let batch =
            br#"[{"jsonrpc":"2.0","result":{},"id":"s"},{"jsonrpc":"2.0","result":{},"id":1}]"#;
        assert_eq!(initialised(batch, "1", field), Some(None));
    }
}
