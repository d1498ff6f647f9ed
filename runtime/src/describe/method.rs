//! One method as the service defines it: its params, result and declared errors, each
//! with the Rust type whose schema describes it.

use schemars::{JsonSchema, Schema, SchemaGenerator};

/// Writes the schema of one Rust type, registering the types it names.
pub(super) type SchemaOf = fn(&mut SchemaGenerator) -> Schema;

fn subschema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

fn inline<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    T::json_schema(generator)
}

/// A named value of a method: a param or the result.
#[derive(Clone)]
pub(super) struct Value {
    pub(super) name: String,
    pub(super) required: bool,
    pub(super) schema: SchemaOf,
}

/// Where a method's params come from.
#[derive(Clone)]
pub(super) enum Params {
    /// Listed one by one.
    Listed(Vec<Value>),
    /// The members of one struct's schema, by name.
    Spread { schema: SchemaOf, type_name: String },
}

/// An error the method declares: its code, message and the type of its `data`.
#[derive(Clone)]
pub(super) struct Declared {
    pub(super) code: i64,
    pub(super) message: String,
    pub(super) data: Option<SchemaOf>,
}

/// One method of a [`super::Document`]: a name, typed params, a typed result (none for a
/// notification) and the errors it may answer with.
///
/// ```
/// use rpcsmith::describe::Method;
///
/// let add = Method::new("add").param::<i64>("a").param::<i64>("b").result::<i64>("sum").by_position();
/// let log = Method::new("log").param::<String>("line"); // no result: a notification
/// # let _ = (add, log);
/// ```
#[derive(Clone)]
#[must_use]
pub struct Method {
    pub(super) name: String,
    pub(super) summary: Option<String>,
    pub(super) description: Option<String>,
    pub(super) deprecated: bool,
    pub(super) params: Params,
    pub(super) structure: Option<&'static str>,
    pub(super) result: Option<Value>,
    pub(super) errors: Vec<Declared>,
}

impl Method {
    /// A method called `name` on the wire, with no params and no result yet.
    pub fn new(name: impl Into<String>) -> Method {
        Method {
            name: name.into(),
            summary: None,
            description: None,
            deprecated: false,
            params: Params::Listed(Vec::new()),
            structure: None,
            result: None,
            errors: Vec::new(),
        }
    }

    /// A one-line summary.
    pub fn summary(mut self, summary: impl Into<String>) -> Method {
        self.summary = Some(summary.into());
        self
    }

    /// A longer description (CommonMark).
    pub fn description(mut self, description: impl Into<String>) -> Method {
        self.description = Some(description.into());
        self
    }

    /// Marks the method deprecated.
    pub fn deprecated(mut self) -> Method {
        self.deprecated = true;
        self
    }

    /// A required param of type `T`, after those already listed.
    pub fn param<T: JsonSchema>(self, name: impl Into<String>) -> Method {
        self.listed::<T>(name.into(), true)
    }

    /// A param that may be left out, holding a `T` when given (the handler takes an
    /// `Option<T>`). By position, it must come after the required ones.
    pub fn optional<T: JsonSchema>(self, name: impl Into<String>) -> Method {
        self.listed::<T>(name.into(), false)
    }

    fn listed<T: JsonSchema>(mut self, name: String, required: bool) -> Method {
        let value = Value {
            name,
            required,
            schema: subschema::<T>,
        };
        match &mut self.params {
            Params::Listed(list) => list.push(value),
            Params::Spread { .. } => self.params = Params::Listed(vec![value]),
        }
        self
    }

    /// The params are the members of the struct `P` (a params object decoded as one
    /// value, as a hand-written service often does): each becomes a param by name,
    /// required as `P` requires it. Replaces params listed before, and makes the
    /// params by name unless [`Method::by_position`] follows.
    pub fn params<P: JsonSchema>(mut self) -> Method {
        self.params = Params::Spread {
            schema: inline::<P>,
            type_name: P::schema_name().into_owned(),
        };
        self.structure = Some("by-name");
        self
    }

    /// The result, of type `T`, under `name` (a method without one is a notification).
    pub fn result<T: JsonSchema>(mut self, name: impl Into<String>) -> Method {
        self.result = Some(Value {
            name: name.into(),
            required: true,
            schema: subschema::<T>,
        });
        self
    }

    /// Declares an error the method answers with, without `data`.
    pub fn error(mut self, code: i64, message: impl Into<String>) -> Method {
        self.errors.push(Declared {
            code,
            message: message.into(),
            data: None,
        });
        self
    }

    /// Declares an error whose `data` is a `D` (written as a schema in the error's
    /// `data`, the convention of Starknet's documents that `rpcsmith-build` reads).
    pub fn error_with<D: JsonSchema>(mut self, code: i64, message: impl Into<String>) -> Method {
        self.errors.push(Declared {
            code,
            message: message.into(),
            data: Some(subschema::<D>),
        });
        self
    }

    /// Params by position only (`paramStructure: by-position`): a JSON array, in the
    /// order listed.
    pub fn by_position(mut self) -> Method {
        self.structure = Some("by-position");
        self
    }

    /// Params by name only (`paramStructure: by-name`): a JSON object.
    pub fn by_name(mut self) -> Method {
        self.structure = Some("by-name");
        self
    }
}
