//! A mock of a document's server: every method answered without an implementation.
//!
//! [`Mock::answer`] checks the params against the method (shape, names, required ones,
//! then each param's value against its whole schema, with the constraint checks the
//! generated servers run, in the `check` module), then answers, in this order:
//!
//! 1. the method's declared error, when one was asked for with [`Mock::fail`];
//! 2. the result of the first example pairing whose params equal the call's (by name,
//!    whether the call sent them by name or by position);
//! 3. a value generated to satisfy the result schema (`$ref`s, `allOf`, alternatives,
//!    required members, `pattern`s, `format`s, bounds: see the guide's validation chapter), the same for the
//!    same seed and method, whatever the params and the order of calls.
//!
//! [`Dispatcher`] serves a [`Mock`] on the runtime's
//! transports; the `rpcsmith mock` command serves one over HTTP, WebSocket and stdio.

use std::collections::HashMap;

use serde_json::{Map, Value};

use rpcsmith_build::document::{Document, ResolvedMethod};
use rpcsmith_build::openrpc::ParamStructure;

mod check;
mod dispatch;
mod pattern;
mod rng;
mod value;

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
    patterns: check::Patterns,
}

impl Mock {
    /// A mock of `document`, generating values from `seed`.
    pub fn new(document: Document, seed: u64) -> Self {
        Mock {
            document,
            seed,
            failing: HashMap::new(),
            warnings: Vec::new(),
            patterns: check::Patterns::default(),
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
            Err(Refusal::Shape(message)) => {
                return error(-32602, format!("invalid params: {message}"));
            }
            Err(Refusal::Value(violation)) => return refusal(&violation),
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
            rng: rng::Rng::new(self.seed ^ fnv1a(method) ^ PARAMS_SALT),
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

    fn generate(&mut self, method: &str, schema: &rpcsmith_build::Location) -> Value {
        let mut generator = value::Generator {
            resolver: &mut self.document.resolver,
            rng: rng::Rng::new(self.seed ^ fnv1a(method)),
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
    ) -> Result<Map<String, Value>, Refusal> {
        let mut named = Map::new();
        match params {
            None | Some(Value::Null) => {}
            Some(Value::Array(values)) => {
                if m.param_structure == ParamStructure::ByName {
                    return Err(Refusal::Shape(format!(
                        "`{}` takes its params by name (an object)",
                        m.name
                    )));
                }
                if values.len() > m.params.len() {
                    return Err(Refusal::Shape(format!(
                        "`{}` takes at most {} params, {} given",
                        m.name,
                        m.params.len(),
                        values.len()
                    )));
                }
                for (param, value) in m.params.iter().zip(values) {
                    named.insert(param.name.clone(), value.clone());
                }
            }
            Some(Value::Object(members)) => {
                if m.param_structure == ParamStructure::ByPosition {
                    return Err(Refusal::Shape(format!(
                        "`{}` takes its params by position (an array)",
                        m.name
                    )));
                }
                if let Some(unknown) = members
                    .keys()
                    .find(|k| !m.params.iter().any(|p| &p.name == *k))
                {
                    return Err(Refusal::Shape(format!("unknown param `{unknown}`")));
                }
                named = members.clone();
            }
            Some(other) => {
                return Err(Refusal::Shape(format!(
                    "params must be an array or an object, not {other}"
                )));
            }
        }
        for param in &m.params {
            match named.get(&param.name) {
                None | Some(Value::Null) if param.required && !named.contains_key(&param.name) => {
                    let message = format!("missing required param `{}`", param.name);
                    return Err(Refusal::Shape(message));
                }
                Some(value) => {
                    let mut checker = check::Checker {
                        resolver: &mut self.document.resolver,
                        patterns: &mut self.patterns,
                    };
                    let name = param.name.clone();
                    checker
                        .check(&param.schema, value, 0)
                        .map_err(|v| Refusal::Value(v.param(name)))?;
                }
                None => {}
            }
        }
        Ok(named)
    }

    /// Whether `value` satisfies the schema at `at` (as params are checked).
    ///
    /// # Errors
    ///
    /// The first violation found, with the JSON pointer of the value at fault.
    pub fn check_value(
        &mut self,
        at: &rpcsmith_build::Location,
        value: &Value,
    ) -> Result<(), rpcsmith::protocol::Violation> {
        let mut checker = check::Checker {
            resolver: &mut self.document.resolver,
            patterns: &mut self.patterns,
        };
        checker.check(at, value, 0)
    }
}

/// Why params are refused.
enum Refusal {
    /// Their shape: not an array or object as the method takes, unknown or missing.
    Shape(String),
    /// A param's value breaks its schema.
    Value(rpcsmith::protocol::Violation),
}

/// The `-32602` of a param's value that breaks its schema: ``invalid params: param
/// `to` at /id: …``, with `data` naming the param, the path and the keyword.
fn refusal(violation: &rpcsmith::protocol::Violation) -> Answer {
    let at = match violation.pointer() {
        p if p.is_empty() => String::new(),
        p => format!(" at {p}"),
    };
    let name = violation.param_name().unwrap_or("?");
    let data = violation
        .to_error_object()
        .data
        .and_then(|raw| serde_json::from_str(raw.get()).ok());
    Answer::Error {
        code: -32602,
        message: format!("invalid params: param `{name}`{at}: {}", violation.detail()),
        data,
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
