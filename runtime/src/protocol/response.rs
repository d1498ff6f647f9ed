//! Responses: parsing them (what a client does) and serializing them.

use std::fmt;

use serde::ser::{Serialize, SerializeStruct, Serializer};
use serde_json::value::RawValue;

use super::fields::{self, Fields, Member, ParseError, Top};
use super::{ErrorObject, Id};

/// A response: the id of the request it answers, and its result or its error.
#[derive(Debug, Clone)]
pub struct Response<'a> {
    /// The id of the request answered; `null` when the server could not read it.
    pub id: Id<'a>,
    /// The result (raw JSON, borrowed from the message) or the error.
    pub payload: Result<&'a RawValue, ErrorObject>,
}

/// A whole incoming response message: one response, or a batch of them.
///
/// ```
/// use rpcsmith::protocol::Responses;
///
/// let msg = br#"[{"jsonrpc":"2.0","result":7,"id":1},
///               {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"2"}]"#;
/// let Responses::Batch(all) = Responses::parse(msg).unwrap() else { panic!("a batch") };
/// assert_eq!(all[0].id.as_u64(), Some(1));
/// assert_eq!(all[0].payload.as_ref().unwrap().get(), "7");
/// assert_eq!(all[1].payload.as_ref().unwrap_err().code, -32601);
/// ```
#[derive(Debug, Clone)]
pub enum Responses<'a> {
    /// A single response object.
    Single(Response<'a>),
    /// An array of responses, in the order the server sent them.
    Batch(Vec<Response<'a>>),
}

/// Why a response message could not be read.
#[derive(Debug)]
pub struct DecodeError {
    reason: Reason,
}

#[derive(Debug)]
enum Reason {
    Syntax,
    NotAResponse(&'static str),
    Error(serde_json::Error),
}

impl<'a> Response<'a> {
    /// Parses one response object.
    ///
    /// # Errors
    ///
    /// [`DecodeError`] when `bytes` is not valid JSON or not a valid response object.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        match Responses::parse(bytes)? {
            Responses::Single(response) => Ok(response),
            Responses::Batch(_) => Err(DecodeError::not_a_response(
                "expected one response, got an array",
            )),
        }
    }

    pub(crate) fn from_member(member: Member<'a>) -> Result<Self, DecodeError> {
        match member {
            Member::Object(fields) => Self::from_fields(fields),
            Member::Other => Err(DecodeError::not_a_response("not a JSON object")),
        }
    }

    fn from_fields(f: Fields<'a>) -> Result<Self, DecodeError> {
        let bad = DecodeError::not_a_response;
        if f.duplicate {
            return Err(bad("a member appears twice"));
        }
        if !fields::is_version_2(&f.jsonrpc) {
            return Err(bad("\"jsonrpc\" is not \"2.0\""));
        }
        let id = f.id.ok_or_else(|| bad("no \"id\""))?;
        let id =
            Id::from_json(id).ok_or_else(|| bad("\"id\" is not a number, a string or null"))?;
        let payload = match (f.result, f.error) {
            (Some(result), None) => Ok(result),
            (None, Some(error)) => {
                Err(serde_json::from_str(error.get()).map_err(DecodeError::error)?)
            }
            _ => {
                return Err(bad(
                    "a response needs exactly one of \"result\" and \"error\"",
                ));
            }
        };
        Ok(Response { id, payload })
    }
}

/// A response message read member by member: one unreadable member of a batch does not
/// spoil the others, so a client can still give each call it can match its answer.
#[derive(Debug)]
pub(crate) enum Members<'a> {
    Single(Response<'a>),
    Batch(Vec<Result<Response<'a>, DecodeError>>),
}

impl<'a> Responses<'a> {
    /// Parses a response message: one response object, or a non-empty array of them.
    ///
    /// # Errors
    ///
    /// [`DecodeError`] when `bytes` is not valid JSON, is an empty array, or holds anything
    /// that is not a valid response object.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        match Self::parse_members(bytes)? {
            Members::Single(response) => Ok(Responses::Single(response)),
            Members::Batch(members) => members
                .into_iter()
                .collect::<Result<_, _>>()
                .map(Responses::Batch),
        }
    }

    /// Parses a response message, a batch's members each on its own.
    ///
    /// # Errors
    ///
    /// [`DecodeError`] when `bytes` is not valid JSON, is an empty array, or is one value
    /// that is not a valid response object.
    pub(crate) fn parse_members(bytes: &'a [u8]) -> Result<Members<'a>, DecodeError> {
        match fields::parse(bytes, usize::MAX, Response::from_member) {
            Ok(Top::Single(response)) => response.map(Members::Single),
            Ok(Top::Batch(responses)) => Ok(Members::Batch(responses)),
            Err(ParseError::EmptyBatch) => Err(DecodeError::not_a_response("an empty array")),
            Err(ParseError::Syntax | ParseError::BatchTooLarge) => Err(DecodeError {
                reason: Reason::Syntax,
            }),
        }
    }
}

impl DecodeError {
    pub(crate) fn not_a_response(why: &'static str) -> Self {
        DecodeError {
            reason: Reason::NotAResponse(why),
        }
    }

    fn error(e: serde_json::Error) -> Self {
        DecodeError {
            reason: Reason::Error(e),
        }
    }

    /// Whether the message was not valid JSON at all (as opposed to valid JSON of the wrong shape).
    pub fn is_syntax(&self) -> bool {
        matches!(self.reason, Reason::Syntax)
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.reason {
            Reason::Syntax => f.write_str("invalid JSON in response"),
            Reason::NotAResponse(why) => write!(f, "invalid response: {why}"),
            Reason::Error(e) => write!(f, "invalid error object in response: {e}"),
        }
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.reason {
            Reason::Error(e) => Some(e),
            _ => None,
        }
    }
}

impl Serialize for Response<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Response", 3)?;
        s.serialize_field("jsonrpc", "2.0")?;
        match &self.payload {
            Ok(result) => s.serialize_field("result", result)?,
            Err(error) => s.serialize_field("error", error)?,
        }
        s.serialize_field("id", &self.id)?;
        s.end()
    }
}
