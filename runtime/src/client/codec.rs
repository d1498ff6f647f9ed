//! The client's side of the wire model: reading answers, through
//! [`protocol`](crate::protocol) (calls are written by
//! [`write_typed_call`](crate::protocol::write_typed_call)).

use crate::protocol::{DecodeError, ErrorObject, IdKind, Members, Response, Responses};
use bytes::Bytes;
use serde_json::value::RawValue;

/// The id of a response, as far as the client cares: it only issues `u64` ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResponseId {
    Number(u64),
    Null,
    Other,
}

/// Parses an answer (one response, or an array of them) and hands each response it can
/// read to `each`, its result borrowed from `bytes`. A batch's members are read one by
/// one: `Ok(Some(why))` says why the first of its unreadable members could not be read
/// (the others were handed over all the same), `Ok(None)` that every member was read.
///
/// # Errors
///
/// Why the bytes are not a JSON-RPC answer at all; nothing was handed to `each` then.
pub(crate) fn parse_answer<'a>(
    bytes: &'a [u8],
    each: impl FnMut(ResponseId, Result<&'a RawValue, ErrorObject>),
) -> Result<Option<String>, String> {
    visit_answer(Responses::parse_members(bytes), each)
}

/// Like [`parse_answer`], for an answer read already (by the peer, telling responses
/// from calls).
///
/// # Errors
///
/// As [`parse_answer`].
pub(crate) fn visit_answer<'a>(
    read: Result<Members<'a>, DecodeError>,
    mut each: impl FnMut(ResponseId, Result<&'a RawValue, ErrorObject>),
) -> Result<Option<String>, String> {
    let mut unreadable = None;
    match read.map_err(|error| error.to_string())? {
        Members::Single(response) => visit(response, &mut each),
        Members::Batch(members) => {
            for member in members {
                match member {
                    Ok(response) => visit(response, &mut each),
                    Err(error) => {
                        unreadable.get_or_insert_with(|| error.to_string());
                    }
                }
            }
        }
    }
    Ok(unreadable)
}

fn visit<'a>(
    response: Response<'a>,
    each: &mut impl FnMut(ResponseId, Result<&'a RawValue, ErrorObject>),
) {
    let id = match response.id.kind() {
        IdKind::Null => ResponseId::Null,
        IdKind::Number => response
            .id
            .as_u64()
            .map_or(ResponseId::Other, ResponseId::Number),
        _ => ResponseId::Other,
    };
    each(id, response.payload);
}

/// `part` as a slice of `whole` when it lies inside it (no copy), else a copy.
pub(crate) fn slice_of(whole: &Bytes, part: &[u8]) -> Bytes {
    let start = whole.as_ptr() as usize;
    let part_start = part.as_ptr() as usize;
    let inside = part_start >= start
        && part_start
            .checked_add(part.len())
            .is_some_and(|end| end <= start + whole.len());
    if inside {
        whole.slice_ref(part)
    } else {
        Bytes::copy_from_slice(part)
    }
}

/// The code of the error `answer` is, when it is one response and an error (what
/// middleware reads to decide on a retry or a credential refresh); `None` for a result,
/// a batch, or bytes that are not an answer.
pub(crate) fn error_code(answer: &[u8]) -> Option<i64> {
    match Responses::parse_members(answer).ok()? {
        Members::Single(response) => response.payload.err().map(|error| error.code),
        Members::Batch(_) => None,
    }
}
