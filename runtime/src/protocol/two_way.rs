//! A message received on a two-way connection, where the other side's responses
//! arrive among its calls: read once, and told apart as it is read, so that the
//! engine it is for need not read it again.

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::fields::{self, Member, Top};
use super::response::Members;
use super::{DecodeError, Entry, ErrorObject, Message, Response, refusal};

/// What a message received on a two-way connection is.
///
/// ```
/// use rpcsmith::protocol::TwoWay;
///
/// let response = br#"{"jsonrpc":"2.0","result":3,"id":1}"#;
/// assert!(matches!(TwoWay::parse(response, 1024, None), TwoWay::Responses));
/// let call = br#"{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}"#;
/// assert!(matches!(TwoWay::parse(call, 1024, None), TwoWay::Calls { message: Ok(_), .. }));
/// ```
#[derive(Debug)]
pub enum TwoWay<'a> {
    /// One response, or a non-empty batch of nothing else (objects with `result` or
    /// `error` and no `method`): for the client engine.
    Responses,
    /// Calls for the server engine, or the error it answers for the message.
    Calls {
        /// The calls, read as [`Message::parse_limited`] reads them.
        message: Result<Message<'a>, ErrorObject>,
        /// For a single message naming the method the transport intercepts (well
        /// formed or not), its params: the transport decides what to do with them.
        intercepted: Option<&'a RawValue>,
    },
}

/// A message received on a two-way connection, its responses kept as read: the peer
/// hands them to its client without reading the message again.
pub(crate) enum Sorted<'a> {
    /// What [`TwoWay::Responses`] stands for, each member read as
    /// [`Responses::parse_members`](super::Responses) reads it.
    Responses(
        #[cfg_attr(
            not(feature = "stream"),
            expect(
                dead_code,
                reason = "read by the peer (feature stream), the one reader"
            )
        )]
        Result<Members<'a>, DecodeError>,
    ),
    /// Anything else, as in [`TwoWay::Calls`].
    Calls {
        message: Result<Message<'a>, ErrorObject>,
        intercepted: Option<&'a RawValue>,
    },
}

/// One member, before it is known whether the message is calls or responses.
enum Part<'a> {
    /// A response's fields.
    Response(Member<'a>),
    Entry {
        entry: Entry<'a>,
        /// Its method, when it names one (well formed or not), and its params.
        named: Option<(Cow<'a, str>, Option<&'a RawValue>)>,
    },
}

impl<'a> Part<'a> {
    /// `member`, its method and params named too when `naming` (a method is
    /// intercepted).
    #[inline(always)]
    fn from_member(member: Member<'a>, naming: bool) -> Self {
        let named = match &member {
            Member::Object(f)
                if !f.duplicate
                    && f.method.is_none()
                    && (f.result.is_some() || f.error.is_some()) =>
            {
                return Part::Response(member);
            }
            Member::Object(f) if naming => match &f.method {
                Some(fields::Str(Some(method))) => Some((method.clone(), f.params)),
                _ => None,
            },
            Member::Object(_) | Member::Other => None,
        };
        Part::Entry {
            entry: Entry::from_member(member),
            named,
        }
    }

    fn into_entry(self) -> Entry<'a> {
        match self {
            Part::Entry { entry, .. } => entry,
            Part::Response(_) => Entry::Invalid(ErrorObject::invalid_request()),
        }
    }

    /// A batch member of a message of responses alone, read as a response.
    fn into_response(self) -> Result<Response<'a>, DecodeError> {
        match self {
            Part::Response(member) => Response::from_member(member),
            Part::Entry { .. } => Err(DecodeError::not_a_response("not a response object")),
        }
    }
}

impl<'a> TwoWay<'a> {
    /// Reads `bytes` once, refusing batches longer than `max_batch_len` as
    /// [`Message::parse_limited`] does; for calls, the result is what it returns.
    /// `intercept` names a method the transport answers itself (the LSP's
    /// `$/cancelRequest`), whose params a single message of that name then carries in
    /// [`TwoWay::Calls::intercepted`].
    pub fn parse(bytes: &'a [u8], max_batch_len: usize, intercept: Option<&str>) -> Self {
        match Self::sort(bytes, max_batch_len, intercept) {
            Sorted::Responses(_) => TwoWay::Responses,
            Sorted::Calls {
                message,
                intercepted,
            } => TwoWay::Calls {
                message,
                intercepted,
            },
        }
    }

    /// Like [`parse`](Self::parse), with the responses as read (a client's answers are
    /// then not read a second time: for a large result that was a second pass over it).
    pub(crate) fn sort(
        bytes: &'a [u8],
        max_batch_len: usize,
        intercept: Option<&str>,
    ) -> Sorted<'a> {
        match std::str::from_utf8(bytes) {
            Ok(text) => Self::sort_text(text, max_batch_len, intercept),
            Err(_) => Sorted::Calls {
                message: Err(ErrorObject::parse_error()),
                intercepted: None,
            },
        }
    }

    /// [`sort`](Self::sort) of text checked as UTF-8 already (a WebSocket text message):
    /// its bytes are not checked again.
    pub(crate) fn sort_text(
        text: &'a str,
        max_batch_len: usize,
        intercept: Option<&str>,
    ) -> Sorted<'a> {
        let calls = |message| Sorted::Calls {
            message,
            intercepted: None,
        };
        let naming = intercept.is_some();
        let part = move |member| Part::from_member(member, naming);
        match fields::parse_text(text, max_batch_len, part) {
            Ok(Top::Single(Part::Response(member))) => {
                Sorted::Responses(Response::from_member(member).map(Members::Single))
            }
            Ok(Top::Single(Part::Entry { entry, named })) => Sorted::Calls {
                message: Ok(Message::Single(entry)),
                intercepted: named
                    .filter(|(method, _)| Some(&**method) == intercept)
                    .and_then(|(_, params)| params),
            },
            Ok(Top::Batch(parts)) if parts.iter().all(|part| matches!(part, Part::Response(_))) => {
                let members = parts.into_iter().map(Part::into_response).collect();
                Sorted::Responses(Ok(Members::Batch(members)))
            }
            Ok(Top::Batch(parts)) => calls(Ok(Message::Batch(
                parts.into_iter().map(Part::into_entry).collect(),
            ))),
            Err(error) => calls(Err(refusal(error))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(message: &str) -> &'static str {
        match TwoWay::parse(message.as_bytes(), 1024, Some("$/cancelRequest")) {
            TwoWay::Responses => "responses",
            TwoWay::Calls {
                intercepted: Some(_),
                ..
            } => "cancel",
            TwoWay::Calls {
                message: Err(_), ..
            } => "error",
            TwoWay::Calls { .. } => "calls",
        }
    }

    #[test]
    fn kinds() {
        let table: &[(&str, &str)] = &[
            (r#"{"jsonrpc":"2.0","result":null,"id":1}"#, "responses"),
            (
                r#"{"jsonrpc":"2.0","error":{"code":1,"message":"m"},"id":null}"#,
                "responses",
            ),
            (r#"{"result":1,"id":1}"#, "responses"),
            (r#"[{"result":1,"id":1},{"error":{},"id":2}]"#, "responses"),
            (r#"[{"result":1,"id":1},{"method":"m"}]"#, "calls"),
            (r#"[{"result":1,"id":1},2]"#, "calls"),
            (r#"{"jsonrpc":"2.0","method":"m","id":1}"#, "calls"),
            (r#"{"jsonrpc":"2.0","method":"m"}"#, "calls"),
            (r#"{"result":1,"method":"m"}"#, "calls"),
            (r#"{"method":1,"result":2}"#, "calls"),
            (r#"{"result":1,"result":2,"id":1}"#, "calls"),
            (r#"{"id":1}"#, "calls"),
            ("42", "calls"),
            ("[]", "error"),
            ("{", "error"),
            (r#"{"result":1,"id":1} x"#, "error"),
            (
                r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"a"}}"#,
                "cancel",
            ),
            (
                r#"{"params":{"id":7},"method":"$/cancelRequest"}"#,
                "cancel",
            ),
            (
                r#"[{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}]"#,
                "calls",
            ),
        ];
        for (message, want) in table {
            assert_eq!(kind(message), *want, "{message}");
        }
    }

    #[test]
    fn calls_read_as_the_engine_reads_them() {
        let batch = br#"[{"jsonrpc":"2.0","method":"a","id":1},{"result":1,"id":2},3]"#;
        let TwoWay::Calls {
            message: Ok(Message::Batch(entries)),
            ..
        } = TwoWay::parse(batch, 1024, None)
        else {
            panic!("calls");
        };
        assert!(matches!(&entries[0], Entry::Request(r) if r.method == "a"));
        assert!(matches!(&entries[1], Entry::Invalid(e) if e.code == -32600));
        assert!(matches!(&entries[2], Entry::Invalid(e) if e.code == -32600));
        let TwoWay::Calls { message, .. } = TwoWay::parse(b"[1,2,3]", 2, None) else {
            panic!("calls");
        };
        assert_eq!(message.map(|_| ()).unwrap_err().code, -32010);
    }

    /// The responses `sort` keeps are what the client would read from the message on
    /// its own (so that it need not read it again): member by member, errors and all.
    #[test]
    fn responses_sorted_are_read_as_the_client_reads_them() {
        let messages = [
            r#"{"jsonrpc":"2.0","result":{"big":[1,2,3]},"id":1}"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"m"},"id":7}"#,
            r#"{"jsonrpc":"2.0","error":{"code":"x"},"id":7}"#,
            r#"{"result":1,"id":1}"#,
            r#"{"jsonrpc":"2.0","result":1}"#,
            r#"[{"jsonrpc":"2.0","result":1,"id":1},{"error":{},"id":2},{"jsonrpc":"2.0","result":[],"id":3}]"#,
        ];
        for message in messages {
            let Sorted::Responses(sorted) = TwoWay::sort(message.as_bytes(), 1024, None) else {
                panic!("responses: {message}");
            };
            let alone = super::super::Responses::parse_members(message.as_bytes());
            assert_eq!(format!("{sorted:?}"), format!("{alone:?}"), "{message}");
        }
    }
}
