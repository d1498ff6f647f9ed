//! The document: `info`, the methods, and the shared types they reach, assembled with
//! one schemars generator so that each type is named once.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

use super::method::{self, Method, Params, SchemaOf};

/// The OpenRPC version the document declares.
const OPENRPC: &str = "1.3.2";

/// An OpenRPC document under construction: `info`, the methods, and the types they
/// name (see the [module](super) for an example).
#[derive(Clone)]
#[must_use]
pub struct Document {
    title: String,
    version: String,
    description: Option<String>,
    methods: Vec<Method>,
    shared: Vec<SchemaOf>,
}

/// Why a [`Document`] cannot be written: a method list OpenRPC (or JSON-RPC) forbids.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DocumentError {
    /// Two methods have this name.
    DuplicateMethod(String),
    /// The name starts with `rpc.`, which JSON-RPC reserves.
    ReservedName(String),
    /// The method lists two params with this name.
    DuplicateParam {
        /// The method.
        method: String,
        /// The param.
        param: String,
    },
    /// By position, an optional param comes before this required one: a caller could
    /// not leave the optional one out.
    RequiredAfterOptional {
        /// The method.
        method: String,
        /// The required param.
        param: String,
    },
    /// [`Method::params`] was given a type whose schema is not an object with
    /// `properties` (an enum, a map, a struct with a flattened enum).
    NotAStruct {
        /// The method.
        method: String,
        /// The type's schema name.
        type_name: String,
    },
}

impl fmt::Display for DocumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateMethod(m) => write!(f, "two methods are called `{m}`"),
            Self::ReservedName(m) => {
                write!(f, "method `{m}`: names starting with `rpc.` are reserved")
            }
            Self::DuplicateParam { method, param } => {
                write!(f, "method `{method}` has two params called `{param}`")
            }
            Self::RequiredAfterOptional { method, param } => write!(
                f,
                "method `{method}`: required param `{param}` comes after an optional one, \
                 which by position cannot be left out; list it earlier"
            ),
            Self::NotAStruct { method, type_name } => write!(
                f,
                "method `{method}`: the params of `{type_name}` cannot be spread into named \
                 params (its schema is not an object with properties); list them with `param`"
            ),
        }
    }
}

impl std::error::Error for DocumentError {}

impl Document {
    /// A document whose `info` has this title and version, with no methods yet.
    pub fn new(title: impl Into<String>, version: impl Into<String>) -> Document {
        Document {
            title: title.into(),
            version: version.into(),
            description: None,
            methods: Vec::new(),
            shared: Vec::new(),
        }
    }

    /// `info.description` (CommonMark).
    pub fn description(mut self, description: impl Into<String>) -> Document {
        self.description = Some(description.into());
        self
    }

    /// Adds a method.
    pub fn method(mut self, method: Method) -> Document {
        self.methods.push(method);
        self
    }

    /// Adds the methods and shared types of `other` (the description of another part of
    /// the service: a module merged into the server, as jsonrpsee merges `RpcModule`s).
    /// Its `info` is not used; a method name both have fails [`Document::to_json`].
    pub fn merge(mut self, other: Document) -> Document {
        self.methods.extend(other.methods);
        self.shared.extend(other.shared);
        self
    }

    /// Adds `T` to `components/schemas` even if no method names it (a type of the
    /// service's notifications to clients, say).
    pub fn schema<T: JsonSchema>(mut self) -> Document {
        self.shared.push(|g| g.subschema_for::<T>());
        self
    }

    /// The document as JSON.
    ///
    /// # Errors
    ///
    /// A [`DocumentError`] when two methods share a name, a name is reserved, a method
    /// lists a param twice or a required param after an optional one by position, or
    /// [`Method::params`] names a type that is not a struct.
    pub fn to_json(&self) -> Result<Value, DocumentError> {
        let mut generator = SchemaSettings::draft07()
            .with(|s| {
                s.definitions_path = "/components/schemas".into();
                s.meta_schema = None;
                // An untagged variant's name, as a title: the generator names it so.
                s.untagged_enum_variant_titles = true;
            })
            .into_generator();
        let mut names = BTreeSet::new();
        let mut methods = Vec::with_capacity(self.methods.len());
        for m in &self.methods {
            if m.name.starts_with("rpc.") {
                return Err(DocumentError::ReservedName(m.name.clone()));
            }
            if !names.insert(m.name.as_str()) {
                return Err(DocumentError::DuplicateMethod(m.name.clone()));
            }
            methods.push(method_json(m, &mut generator)?);
        }
        for shared in &self.shared {
            shared(&mut generator);
        }
        let mut info = Map::new();
        info.insert("title".into(), self.title.clone().into());
        info.insert("version".into(), self.version.clone().into());
        if let Some(description) = &self.description {
            info.insert("description".into(), description.clone().into());
        }
        // Sorted by name, as a reader looks them up.
        let schemas: BTreeMap<String, Value> =
            generator.take_definitions(true).into_iter().collect();
        let mut document = json!({"openrpc": OPENRPC, "info": info, "methods": methods});
        if !schemas.is_empty() {
            document["components"] = json!({ "schemas": schemas });
        }
        Ok(document)
    }
}

/// One method's object: names, params, result, errors, in OpenRPC's order.
fn method_json(m: &Method, generator: &mut SchemaGenerator) -> Result<Value, DocumentError> {
    let mut out = Map::new();
    out.insert("name".into(), m.name.clone().into());
    if let Some(summary) = &m.summary {
        out.insert("summary".into(), summary.clone().into());
    }
    if let Some(description) = &m.description {
        out.insert("description".into(), description.clone().into());
    }
    let params = params(m, generator)?;
    check_params(m, &params)?;
    let params = params.iter().map(|p| descriptor(p, generator, true));
    out.insert("params".into(), params.collect());
    if let Some(result) = &m.result {
        out.insert(
            "result".into(),
            descriptor(&Described::Typed(result.clone()), generator, false),
        );
    }
    if !m.errors.is_empty() {
        let errors = m.errors.iter().map(|e| {
            let mut error = json!({"code": e.code, "message": e.message});
            if let Some(data) = e.data {
                error["data"] = written(data, generator);
            }
            error
        });
        out.insert("errors".into(), errors.collect());
    }
    if let Some(structure) = m.structure {
        out.insert("paramStructure".into(), structure.into());
    }
    if m.deprecated {
        out.insert("deprecated".into(), true.into());
    }
    Ok(Value::Object(out))
}

/// A param or result, written as a content descriptor.
enum Described {
    Typed(method::Value),
    Written {
        name: String,
        required: bool,
        schema: Value,
    },
}

fn descriptor(value: &Described, generator: &mut SchemaGenerator, param: bool) -> Value {
    let (name, required, schema) = match value {
        Described::Typed(v) => (&v.name, v.required, written(v.schema, generator)),
        Described::Written {
            name,
            required,
            schema,
        } => (name, *required, schema.clone()),
    };
    let mut out = json!({"name": name});
    // OpenRPC's `required` defaults to false: a param says it either way.
    if param {
        out["required"] = required.into();
    }
    out["schema"] = schema;
    out
}

/// The schema a function writes, with the generator's transforms applied (as schemars
/// applies them to the definitions it keeps).
fn written(schema: SchemaOf, generator: &mut SchemaGenerator) -> Value {
    let mut schema = schema(generator);
    for transform in generator.transforms_mut() {
        transform.transform(&mut schema);
    }
    schema.to_value()
}

fn params(m: &Method, generator: &mut SchemaGenerator) -> Result<Vec<Described>, DocumentError> {
    match &m.params {
        Params::Listed(list) => Ok(list.iter().cloned().map(Described::Typed).collect()),
        Params::Spread { schema, type_name } => {
            let schema: Schema = schema(generator);
            let not_a_struct = || DocumentError::NotAStruct {
                method: m.name.clone(),
                type_name: type_name.clone(),
            };
            let object = schema.as_object().ok_or_else(not_a_struct)?;
            let properties = object.get("properties").and_then(Value::as_object);
            // Members beyond those listed (a flattened map) have no param to go in.
            let closed = object
                .get("additionalProperties")
                .is_none_or(|more| more == &Value::Bool(false));
            let spreadable = closed
                && ["allOf", "anyOf", "oneOf", "$ref"]
                    .iter()
                    .all(|k| !object.contains_key(*k));
            let properties = properties.filter(|_| spreadable).ok_or_else(not_a_struct)?;
            let required: BTreeSet<&str> = object
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            Ok(properties
                .iter()
                .map(|(name, schema)| {
                    let mut schema = Schema::try_from(schema.clone()).unwrap_or_default();
                    for transform in generator.transforms_mut() {
                        transform.transform(&mut schema);
                    }
                    Described::Written {
                        name: name.clone(),
                        required: required.contains(name.as_str()),
                        schema: schema.to_value(),
                    }
                })
                .collect())
        }
    }
}

fn check_params(m: &Method, params: &[Described]) -> Result<(), DocumentError> {
    let mut seen = BTreeSet::new();
    let mut optional_seen = false;
    for p in params {
        let (name, required) = match p {
            Described::Typed(v) => (&v.name, v.required),
            Described::Written { name, required, .. } => (name, *required),
        };
        if !seen.insert(name.as_str()) {
            return Err(DocumentError::DuplicateParam {
                method: m.name.clone(),
                param: name.clone(),
            });
        }
        if required && optional_seen && m.structure != Some("by-name") {
            return Err(DocumentError::RequiredAfterOptional {
                method: m.name.clone(),
                param: name.clone(),
            });
        }
        optional_seen |= !required;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Pair {
        left: u8,
        right: Option<String>,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    enum Choice {
        A,
        B,
    }

    fn error_of(document: Document) -> String {
        document.to_json().unwrap_err().to_string()
    }

    #[test]
    fn what_openrpc_forbids_is_refused_by_name() {
        let twice = Document::new("T", "1")
            .method(Method::new("a"))
            .method(Method::new("a"));
        assert_eq!(error_of(twice), "two methods are called `a`");
        let reserved = Document::new("T", "1").method(Method::new("rpc.discover"));
        assert_eq!(
            error_of(reserved),
            "method `rpc.discover`: names starting with `rpc.` are reserved"
        );
        let param = Method::new("m").param::<u8>("x").param::<u8>("x");
        assert_eq!(
            error_of(Document::new("T", "1").method(param)),
            "method `m` has two params called `x`"
        );
        let order = Method::new("m").optional::<u8>("a").param::<u8>("b");
        assert!(error_of(Document::new("T", "1").method(order)).contains("required param `b`"));
        let spread = Method::new("m").params::<Choice>();
        assert!(
            error_of(Document::new("T", "1").method(spread)).contains("`Choice` cannot be spread")
        );
    }

    #[test]
    fn merged_parts_make_one_document() {
        let users = Document::new("Users", "1").method(Method::new("user_get").param::<Pair>("p"));
        let admin = Document::new("Admin", "9").method(Method::new("admin_reset"));
        let document = users.clone().merge(admin).to_json().unwrap();
        assert_eq!(document["info"]["title"], "Users");
        assert_eq!(document["methods"][1]["name"], "admin_reset");
        let twice = users.clone().merge(users);
        assert_eq!(error_of(twice), "two methods are called `user_get`");
    }

    #[test]
    fn by_name_an_optional_param_may_come_first() {
        let method = Method::new("m")
            .optional::<u8>("a")
            .param::<u8>("b")
            .by_name();
        let document = Document::new("T", "1").method(method).to_json().unwrap();
        assert_eq!(document["methods"][0]["params"][0]["required"], false);
        assert_eq!(document["methods"][0]["paramStructure"], "by-name");
    }

    #[test]
    fn a_params_struct_spreads_into_named_params() {
        let method = Method::new("m").params::<Pair>();
        let document = Document::new("T", "1").method(method).to_json().unwrap();
        let params = &document["methods"][0]["params"];
        assert_eq!(params[0]["name"], "left");
        assert_eq!(params[0]["required"], true);
        assert_eq!(params[1]["name"], "right");
        assert_eq!(params[1]["required"], false);
        assert_eq!(
            params[1]["schema"]["type"],
            serde_json::json!(["string", "null"])
        );
        assert!(document.get("components").is_none());
    }

    #[test]
    fn shared_types_are_components_and_errors_carry_data_schemas() {
        let method = Method::new("m")
            .param::<Pair>("pair")
            .error_with::<Choice>(-1, "Bad")
            .deprecated();
        let document = Document::new("T", "1")
            .method(method)
            .schema::<Vec<Pair>>()
            .to_json()
            .unwrap();
        let m = &document["methods"][0];
        assert_eq!(
            m["params"][0]["schema"]["$ref"],
            "#/components/schemas/Pair"
        );
        assert_eq!(
            m["errors"][0]["data"]["$ref"],
            "#/components/schemas/Choice"
        );
        assert_eq!(m["deprecated"], true);
        assert!(m.get("result").is_none(), "a notification");
        let names: Vec<&String> = document["components"]["schemas"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(names, ["Choice", "Pair"]);
        assert_eq!(document["openrpc"], OPENRPC);
    }
}
