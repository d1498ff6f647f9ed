//! Writing answers that single calls and batches both write: a call's response within
//! the size limit, and an error for a whole message.

use crate::protocol::{ErrorObject, Id, write_error};

use super::dispatch::CallResult;

/// One error response with `id: null`.
pub(crate) fn error_message(error: &ErrorObject) -> Vec<u8> {
    let mut out = Vec::with_capacity(96);
    write_error(&mut out, &Id::NULL, error);
    out
}

/// Writes a call's response, replacing a result larger than `max_size` by an error.
pub(crate) fn write_response(out: &mut Vec<u8>, id: &Id<'_>, result: &CallResult, max_size: usize) {
    match result {
        Ok(encoded) if encoded.len() > max_size => {
            write_error(out, id, &ErrorObject::response_too_large());
        }
        Ok(encoded) => encoded.write_response(out, id),
        Err(error) => write_error(out, id, error),
    }
}
