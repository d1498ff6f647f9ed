//! What a call can fail with: [`Error<E>`], generic over the method's declared errors.

use super::transport_error::TransportError;
use crate::metrics::ClientOutcome;
use crate::protocol::{ErrorObject, Mismatch, Violation};
use std::convert::Infallible;
use std::fmt;

/// The errors a method declares, built from the error object a server answered with.
///
/// Generated code implements it for each method's `<Method>Error` enum, matching on the
/// error code (and decoding `data` where the document gives it a schema). A method that
/// declares no errors uses [`Infallible`], for which every error object is undeclared.
///
/// ```
/// use rpcsmith::client::DeclaredError;
/// use rpcsmith::protocol::ErrorObject;
///
/// /// The errors `divide` declares.
/// #[derive(Debug)]
/// enum DivideError {
///     /// Division by zero (code 1).
///     ByZero,
/// }
///
/// impl DeclaredError for DivideError {
///     fn from_object(error: ErrorObject) -> Result<Self, ErrorObject> {
///         match error.code {
///             1 => Ok(DivideError::ByZero),
///             _ => Err(error),
///         }
///     }
/// }
/// ```
pub trait DeclaredError: Sized {
    /// The declared error `error` stands for, or `error` itself, given back, when the
    /// method does not declare it (unknown code, or `data` that does not fit).
    ///
    /// # Errors
    ///
    /// Returns `error` unchanged when it is not one of the declared errors.
    fn from_object(error: ErrorObject) -> Result<Self, ErrorObject>;
}

impl DeclaredError for Infallible {
    fn from_object(error: ErrorObject) -> Result<Self, ErrorObject> {
        Err(error)
    }
}

/// Why a call failed. `E` is the method's declared error type ([`DeclaredError`]);
/// it defaults to [`Infallible`] for methods that declare none.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error<E = Infallible> {
    /// The server answered with an error the method declares.
    Declared(E),
    /// The server answered with a JSON-RPC error the method does not declare (a
    /// standard error such as `-32602 Invalid params`, or an unknown code).
    Undeclared(ErrorObject),
    /// The transport could not move the call or its answer. Over HTTP this includes a
    /// server that closes the connection before answering ([`ErrorKind::Io`]): the
    /// request may or may not have run, and the client stays usable (the next call
    /// opens a new connection).
    ///
    /// [`ErrorKind::Io`]: super::TransportErrorKind::Io
    Transport(TransportError),
    /// The params could not be serialised, or did not serialise to an array or an
    /// object as JSON-RPC requires. Nothing was sent.
    Encode(serde_json::Error),
    /// The params break a constraint of the method's schema (`minLength`, `pattern`,
    /// `maximum`, …): checked before sending by a client built with
    /// [`validate_params`](super::Builder::validate_params). Nothing was sent. Reads as
    /// the server's `-32602` would: ``invalid param `amount`: 5 is less than the minimum 10``.
    Invalid(Violation),
    /// The result did not fit the expected type. The [`Mismatch`] says where (a JSON
    /// pointer into the result) and why, in JSON terms; the error reads
    /// ``could not decode result at /items/3/id: expected an integer, found a string
    /// "abc"`` (or ``could not decode result: expected …`` when the whole result is at
    /// fault). Strings are quoted by a short prefix, never in full.
    Decode(Mismatch),
    /// The answer was not a JSON-RPC response; or, in a batch answer, some member could
    /// not be read and this call got no answer it could match (the unreadable member
    /// may have been it). The calls whose answers could be read get them. On a stream,
    /// an answer that cannot be read is matched to no call, except a large one (4 KiB
    /// or more) routed by its id before it is read whole: that call gets this error.
    InvalidResponse(String),
    /// The server answered the exchange but not this call (a batch answer missing
    /// this entry, or no body where a response was due).
    MissingResponse,
    /// No answer came within the call's timeout.
    Timeout,
    /// The connection closed before the answer came, and carries no more calls (a
    /// message stream: WebSocket, stdio, TCP, Unix socket). HTTP exchanges are
    /// independent, so a lost HTTP connection is a [`Transport`](Error::Transport) error
    /// instead.
    Closed,
}

impl Error<Infallible> {
    /// The same error as an `Error<E>`: an error that cannot hold a declared error
    /// fits any method's error type.
    pub fn widen<E>(self) -> Error<E> {
        match self {
            Error::Declared(never) => match never {},
            Error::Undeclared(error) => Error::Undeclared(error),
            Error::Transport(error) => Error::Transport(error),
            Error::Encode(error) => Error::Encode(error),
            Error::Invalid(violation) => Error::Invalid(violation),
            Error::Decode(error) => Error::Decode(error),
            Error::InvalidResponse(reason) => Error::InvalidResponse(reason),
            Error::MissingResponse => Error::MissingResponse,
            Error::Timeout => Error::Timeout,
            Error::Closed => Error::Closed,
        }
    }
}

impl<E: fmt::Display> fmt::Display for Error<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Declared(error) => write!(f, "{error}"),
            Error::Undeclared(error) => {
                write!(f, "server error {}: {}", error.code, error.message)
            }
            Error::Transport(error) => write!(f, "transport error: {error}"),
            Error::Encode(error) => write!(f, "could not encode params: {error}"),
            Error::Invalid(violation) => write!(f, "{violation}"),
            Error::Decode(error) => write!(f, "could not decode result{}", error.after_subject()),
            Error::InvalidResponse(reason) => write!(f, "invalid response: {reason}"),
            Error::MissingResponse => f.write_str("the server sent no response for this call"),
            Error::Timeout => f.write_str("timed out waiting for the response"),
            Error::Closed => f.write_str("connection closed"),
        }
    }
}

impl<E> std::error::Error for Error<E>
where
    E: std::error::Error + 'static,
{
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Declared(error) => Some(error),
            Error::Transport(error) => Some(error),
            Error::Encode(error) => Some(error),
            Error::Invalid(violation) => Some(violation),
            Error::Decode(error) => Some(error),
            _ => None,
        }
    }
}

/// Why a call failed, before it is typed: cheap to clone, so one failure can be given
/// to every call of an exchange.
#[derive(Debug, Clone)]
pub(crate) enum UntypedFailure {
    Error(ErrorObject),
    Transport(TransportError),
    Invalid(String),
    Missing,
    Timeout,
    Closed,
}

impl UntypedFailure {
    /// The typed error, with error objects matched against the declared errors.
    pub(crate) fn into_error<E: DeclaredError>(self) -> Error<E> {
        match self {
            UntypedFailure::Error(object) => match E::from_object(object) {
                Ok(declared) => Error::Declared(declared),
                Err(object) => Error::Undeclared(object),
            },
            UntypedFailure::Transport(error) => Error::Transport(error),
            UntypedFailure::Invalid(reason) => Error::InvalidResponse(reason),
            UntypedFailure::Missing => Error::MissingResponse,
            UntypedFailure::Timeout => Error::Timeout,
            UntypedFailure::Closed => Error::Closed,
        }
    }

    /// What the metrics say of it (`rpcsmith_client_errors_total`'s `kind` and `code`).
    pub(crate) fn outcome(&self) -> ClientOutcome {
        let (kind, code) = match self {
            UntypedFailure::Error(object) => ("server", Some(object.code)),
            UntypedFailure::Transport(_) => ("transport", None),
            UntypedFailure::Invalid(_) => ("invalid_response", None),
            UntypedFailure::Missing => ("missing_response", None),
            UntypedFailure::Timeout => ("timeout", None),
            UntypedFailure::Closed => ("closed", None),
        };
        ClientOutcome::Failed { kind, code }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[derive(Debug)]
    struct Declared;

    impl fmt::Display for Declared {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("declared")
        }
    }

    impl std::error::Error for Declared {}

    #[test]
    fn messages_name_the_failure() {
        let undeclared: Error = Error::Undeclared(ErrorObject::method_not_found());
        assert_eq!(
            undeclared.to_string(),
            "server error -32601: Method not found"
        );
        assert_eq!(
            Error::<Declared>::Declared(Declared).to_string(),
            "declared"
        );
        let transport: Error = Error::Transport(TransportError::closed());
        assert_eq!(transport.to_string(), "transport error: connection closed");
        assert!(transport.source().is_some());
        let timeout: Error = Error::Timeout;
        assert_eq!(timeout.to_string(), "timed out waiting for the response");
    }

    #[test]
    fn widen_keeps_the_failure() {
        let widened: Error<Declared> = Error::Undeclared(ErrorObject::internal_error()).widen();
        assert!(matches!(widened, Error::Undeclared(e) if e.code == -32603));
        assert!(matches!(Error::Closed.widen::<Declared>(), Error::Closed));
    }

    #[test]
    fn failures_become_declared_only_when_the_method_declares_them() {
        struct Code1;
        impl DeclaredError for Code1 {
            fn from_object(error: ErrorObject) -> Result<Self, ErrorObject> {
                if error.code == 1 {
                    Ok(Code1)
                } else {
                    Err(error)
                }
            }
        }
        let one = UntypedFailure::Error(ErrorObject::new(1, "one"));
        assert!(matches!(
            one.clone().into_error::<Code1>(),
            Error::Declared(Code1)
        ));
        assert!(matches!(
            one.into_error::<Infallible>(),
            Error::Undeclared(_)
        ));
        assert!(matches!(
            UntypedFailure::Missing.into_error::<Code1>(),
            Error::MissingResponse
        ));
    }
}
