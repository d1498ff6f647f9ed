//! What a handler of a generated server trait fails with ([`Failure`]), and how its
//! result becomes the call's answer.

use std::convert::Infallible;
use std::fmt;

use serde::Serialize;

use crate::protocol::ErrorObject;

use super::dispatch::CallResult;
use super::encoded::encode;

/// What a generated server trait's handler fails with: one of the method's declared
/// errors, or any error object.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Failure<E = Infallible> {
    /// A declared error, answered with its declared code, message and data.
    Declared(E),
    /// Any other error, answered as it is.
    Object(ErrorObject),
}

impl<E> From<ErrorObject> for Failure<E> {
    fn from(error: ErrorObject) -> Self {
        Failure::Object(error)
    }
}

impl<E: fmt::Display> fmt::Display for Failure<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Declared(e) => e.fmt(f),
            Failure::Object(e) => e.fmt(f),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for Failure<E> {}

/// Turns a handler's result into the call's answer, as generated dispatchers do
/// (through [`crate::__private`]).
///
/// # Errors
///
/// The declared error as its error object, the error object as it is, or `-32603` when
/// the result fails to serialize.
pub fn answer<R, E>(result: Result<R, Failure<E>>) -> CallResult
where
    R: Serialize,
    E: Into<ErrorObject>,
{
    match result {
        Ok(value) => encode(&value),
        Err(Failure::Declared(e)) => Err(e.into()),
        Err(Failure::Object(e)) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handler_failures_become_error_objects() {
        let declared: CallResult =
            answer::<u8, ErrorObject>(Err(Failure::Declared(ErrorObject::new(5, "five"))));
        assert_eq!(declared.unwrap_err().code, 5);
        let other = answer::<u8, Infallible>(Err(ErrorObject::new(7, "seven").into()));
        assert_eq!(other.unwrap_err().code, 7);
        assert_eq!(answer::<u8, Infallible>(Ok(3)).unwrap().json(), "3");
    }
}
