//! A mock of a document's server: every method answered without an implementation.
//!
//! [`Mock::answer`] checks the params against the method (shape, names, required ones,
//! each param's JSON type and `enum`), then answers, in this order:
//!
//! 1. the method's declared error, when one was asked for with [`Mock::fail`];
//! 2. the result of the first example pairing whose params equal the call's (by name,
//!    whether the call sent them by name or by position);
//! 3. a value generated to satisfy the result schema (`$ref`s, `allOf`, alternatives,
//!    required members, `pattern`s, `format`s, bounds: see the README), the same for the
//!    same seed and method, whatever the params and the order of calls.
//!
//! With the `mock-server` feature, [`Dispatcher`] serves a [`Mock`] on the runtime's
//! transports; the `rpcsmith mock` command serves one over HTTP, WebSocket and stdio. Only
//! the top of each param is checked here; constraint validation of whole values is the
//! generated server's job.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::diff::shape::{self, Shape};
use crate::document::{Document, ResolvedMethod};
use crate::openrpc::ParamStructure;

#[cfg(feature = "mock-server")]
mod dispatch;
mod pattern;
mod value;

#[cfg(feature = "mock-server")]
pub use dispatch::Dispatcher;

/// What a call is answered with.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Answer {
    /// A result.
    Result {
        /// The value.
        value: Value,
        /// Where it comes from.
        origin: Origin,
    },
    /// An error object.
    Error {
        /// The JSON-RPC code.
        code: i64,
        /// The message.
        message: String,
        /// The data, if any.
        data: Option<Value>,
    },
}

/// Where a result comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// The example pairing of this name.
    Example(String),
    /// Generated from the result schema.
    Generated,
    /// The method has no result (a notification called with an id): `null`.
    Notification,
}

/// A mock server's answers for one document.
#[derive(Debug)]
pub struct Mock {
    document: Document,
    seed: u64,
    failing: HashMap<String, i64>,
    warnings: Vec<String>,
}

impl Mock {
    /// A mock of `document`, generating values from `seed`.
    pub fn new(document: Document, seed: u64) -> Self {
        Mock {
            document,
            seed,
            failing: HashMap::new(),
            warnings: Vec::new(),
        }
    }

    /// The methods answered, by wire name, in document order.
    pub fn methods(&self) -> impl Iterator<Item = &str> {
        self.document.methods.iter().map(|m| m.name.as_str())
    }

    /// Makes `method` answer with its declared error `code` (its first declared error
    /// when `None`), with the message and data the document declares.
    ///
    /// # Errors
    ///
    /// A message when the method does not exist or declares no such error.
    pub fn fail(&mut self, method: &str, code: Option<i64>) -> Result<(), String> {
        let m = self
            .find(method)
            .ok_or_else(|| format!("no method `{method}` in the document"))?;
        let declared: Vec<i64> = m.errors.iter().map(|e| e.error.code).collect();
        let code = match code {
            Some(code) if declared.contains(&code) => code,
            None if !declared.is_empty() => declared[0],
            _ => {
                let codes: Vec<String> = declared.iter().map(i64::to_string).collect();
                let what = code.map_or("any error".to_owned(), |c| format!("error {c}"));
                return Err(format!(
                    "method `{method}` does not declare {what} (it declares: {})",
                    if codes.is_empty() {
                        "none".to_owned()
                    } else {
                        codes.join(", ")
                    }
                ));
            }
        };
        self.failing.insert(method.to_owned(), code);
        Ok(())
    }

    /// What generation had to ignore so far (patterns it could not read), once each.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Answers a call of `method` with `params` (`None`: no params member).
    pub fn answer(&mut self, method: &str, params: Option<&Value>) -> Answer {
        let Some(m) = self.find(method).cloned() else {
            return error(-32601, format!("method not found: `{method}`"));
        };
        let named = match self.check_params(&m, params) {
            Ok(named) => named,
            Err(message) => return error(-32602, format!("invalid params: {message}")),
        };
        if let Some(code) = self.failing.get(method) {
            let declared = m.errors.iter().find(|e| e.error.code == *code);
            if let Some(e) = declared {
                let (message, data) = (e.error.message.clone(), e.error.data.clone());
                return Answer::Error {
                    code: *code,
                    message,
                    data,
                };
            }
        }
        if let Some(answer) = example_answer(&m, &named) {
            return answer;
        }
        let Some(result) = &m.result else {
            let origin = Origin::Notification;
            return Answer::Result {
                value: Value::Null,
                origin,
            };
        };
        let value = self.generate(method, &result.schema);
        Answer::Result {
            value,
            origin: Origin::Generated,
        }
    }

    /// Params for a call of `method`, generated from its param schemas (every param),
    /// as the method takes them: an array when it takes them by position only, else an
    /// object by name. `None` when there is no such method.
    pub fn sample_params(&mut self, method: &str) -> Option<Value> {
        let m = self.find(method)?.clone();
        let mut generator = value::Generator {
            resolver: &mut self.document.resolver,
            rng: value::Rng::new(self.seed ^ fnv1a(method) ^ PARAMS_SALT),
            unreadable: Vec::new(),
        };
        let values: Vec<(String, Value)> = m
            .params
            .iter()
            .map(|p| (p.name.clone(), generator.value(&p.schema, 0)))
            .collect();
        Some(match m.param_structure {
            ParamStructure::ByPosition => {
                Value::Array(values.into_iter().map(|(_, v)| v).collect())
            }
            _ => Value::Object(values.into_iter().collect()),
        })
    }

    fn find(&self, method: &str) -> Option<&ResolvedMethod> {
        self.document.methods.iter().find(|m| m.name == method)
    }

    fn generate(&mut self, method: &str, schema: &crate::Location) -> Value {
        let mut generator = value::Generator {
            resolver: &mut self.document.resolver,
            rng: value::Rng::new(self.seed ^ fnv1a(method)),
            unreadable: Vec::new(),
        };
        let value = generator.value(schema, 0);
        for (at, pattern) in generator.unreadable {
            let (line, column) = self.document.resolver.position(&at);
            let file = self.document.resolver.display_path(at.file).display();
            let warning = format!(
                "{file}:{line}:{column}: at {}: pattern {pattern:?} is not a regular expression the mock reads; ignored",
                at.pointer
            );
            if !self.warnings.contains(&warning) {
                self.warnings.push(warning);
            }
        }
        value
    }

    /// The call's params by name, after checking them against the method.
    fn check_params(
        &mut self,
        m: &ResolvedMethod,
        params: Option<&Value>,
    ) -> Result<Map<String, Value>, String> {
        let mut named = Map::new();
        match params {
            None | Some(Value::Null) => {}
            Some(Value::Array(values)) => {
                if m.param_structure == ParamStructure::ByName {
                    return Err(format!("`{}` takes its params by name (an object)", m.name));
                }
                if values.len() > m.params.len() {
                    return Err(format!(
                        "`{}` takes at most {} params, {} given",
                        m.name,
                        m.params.len(),
                        values.len()
                    ));
                }
                for (param, value) in m.params.iter().zip(values) {
                    named.insert(param.name.clone(), value.clone());
                }
            }
            Some(Value::Object(members)) => {
                if m.param_structure == ParamStructure::ByPosition {
                    return Err(format!(
                        "`{}` takes its params by position (an array)",
                        m.name
                    ));
                }
                if let Some(unknown) = members
                    .keys()
                    .find(|k| !m.params.iter().any(|p| &p.name == *k))
                {
                    return Err(format!("unknown param `{unknown}`"));
                }
                named = members.clone();
            }
            Some(other) => {
                return Err(format!("params must be an array or an object, not {other}"));
            }
        }
        for param in &m.params {
            match named.get(&param.name) {
                None | Some(Value::Null) if param.required && !named.contains_key(&param.name) => {
                    return Err(format!("missing required param `{}`", param.name));
                }
                Some(value) => self.check_top(&param.name, &param.schema, value)?,
                None => {}
            }
        }
        Ok(named)
    }

    /// The param's JSON type and `enum`, at its top.
    fn check_top(
        &mut self,
        name: &str,
        schema: &crate::Location,
        value: &Value,
    ) -> Result<(), String> {
        let shape = Shape::read(&mut self.document.resolver, schema);
        if let Some(types) = &shape.types
            && shape.alternatives.is_none()
            && !shape::covers(types, shape::json_type(value))
        {
            let expected: Vec<&str> = types.iter().map(String::as_str).collect();
            return Err(format!(
                "param `{name}`: expected {}, found {value}",
                expected.join(" or ")
            ));
        }
        if let Some(values) = &shape.values
            && !values.contains(value)
        {
            return Err(format!(
                "param `{name}`: {value} is not one of the allowed values"
            ));
        }
        Ok(())
    }
}

/// Mixed into a method's seed for its params, so they are not its result's twins.
const PARAMS_SALT: u64 = 0x5eed_0f9a_7a00_0001;

fn error(code: i64, message: String) -> Answer {
    Answer::Error {
        code,
        message,
        data: None,
    }
}

/// The result of the first example pairing whose params are the call's. An example's
/// params are matched to the method's by name where every name is one of the method's,
/// else by position (documents name examples after their values: `two`, `four`).
fn example_answer(m: &ResolvedMethod, named: &Map<String, Value>) -> Option<Answer> {
    m.examples.iter().find_map(|pairing| {
        let by_name = pairing
            .params
            .iter()
            .all(|p| m.params.iter().any(|q| q.name == p.example.name));
        let expected: Map<String, Value> = pairing
            .params
            .iter()
            .zip(&m.params)
            .filter_map(|(p, declared)| {
                let name = if by_name {
                    &p.example.name
                } else {
                    &declared.name
                };
                Some((name.clone(), p.example.value.clone()?))
            })
            .collect();
        let value = pairing.result.as_ref()?.example.value.clone()?;
        (expected == *named).then(|| Answer::Result {
            value,
            origin: Origin::Example(pairing.name.clone()),
        })
    })
}

/// FNV-1a: a stable hash of a method name (the seed of its values).
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
