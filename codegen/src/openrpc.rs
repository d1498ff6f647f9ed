//! The typed model of an OpenRPC document (specification 1.0 to 1.4), as serde reads it.
//!
//! Everything is typed except JSON Schemas, which stay [`serde_json::Value`]s for the
//! type space to read (with their locations, through the [`Resolver`](crate::Resolver)).
//! Objects that may be given by reference are [`RefOr`]. Every object keeps the members
//! it does not know in `extensions`: the `x-…` specification extensions, plus any
//! unknown member (which the validator reports as a warning).
//!
//! The model is lenient where the specification's requirements do not matter to the
//! generator (a missing `info.title` reads as `""`); the validator reports those, and
//! decides what is an error.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Members a model object does not know: `x-…` extensions and unknown keys, in order.
pub type Extensions = IndexMap<String, Value>;

/// The root object of an OpenRPC document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenRpc {
    /// The OpenRPC specification version the document follows (`1.2.6`).
    pub openrpc: String,
    /// Metadata about the API.
    #[serde(default)]
    pub info: Info,
    /// Servers the API is offered on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub servers: Vec<Server>,
    /// The methods, in document order.
    #[serde(default)]
    pub methods: Vec<RefOr<Method>>,
    /// Reusable objects referred to from elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub components: Option<Components>,
    /// Further documentation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_docs: Option<ExternalDocs>,
    /// The `$schema` the document declares (the meta-schema's URI).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Extensions and unknown members.
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Metadata about the API.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Info {
    /// The API's title.
    #[serde(default)]
    pub title: String,
    /// A longer description (Markdown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A URL to the terms of service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terms_of_service: Option<String>,
    /// The API's version (not the specification's).
    #[serde(default)]
    pub version: String,
    /// Whom to contact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact: Option<Contact>,
    /// The API's licence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<License>,
    /// Extensions and unknown members.
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Contact information.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Contact {
    /// Person or organisation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// E-mail address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Web page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Extensions and unknown members.
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Licence information.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct License {
    /// The licence's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A URL to the licence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Extensions and unknown members.
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// A server the API is offered on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Server {
    /// The URL, possibly with `{variables}`.
    #[serde(default)]
    pub url: String,
    /// A name for the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A short summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// A longer description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Substitutions for the URL's `{variables}`.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub variables: IndexMap<String, ServerVariable>,
    /// Extensions and unknown members.
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// A variable of a server URL.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerVariable {
    /// The value used when none is given.
    #[serde(default)]
    pub default: String,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    #[serde(rename = "enum", default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
    /// Extensions and unknown members.
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// One JSON-RPC method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Method {
    /// The wire name (`eth_getBalance`); unique in the document.
    pub name: String,
    /// A short summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// A longer description (Markdown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Servers for this method only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub servers: Vec<Server>,
    /// Tags, for grouping.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<RefOr<Tag>>,
    /// How params are sent: as an array, an object, or either.
    #[serde(default)]
    pub param_structure: ParamStructure,
    /// The params, in order.
    pub params: Vec<RefOr<ContentDescriptor>>,
    /// The result; `None` makes the method a notification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<RefOr<ContentDescriptor>>,
    /// The application errors the method may return.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<RefOr<ErrorObject>>,
    /// Links to other methods.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<RefOr<Link>>,
    /// Example calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<RefOr<ExamplePairing>>,
    /// Whether the method is deprecated.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deprecated: bool,
    /// Further documentation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_docs: Option<ExternalDocs>,
    /// Extensions (`x-subscription` …) and unknown members.
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// How a method's params are sent (`paramStructure`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ParamStructure {
    /// As a JSON array, in order.
    ByPosition,
    /// As a JSON object keyed by param name.
    ByName,
    /// Either way (the default).
    #[default]
    Either,
}

/// A param or a result: a name and a schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContentDescriptor {
    /// The name (the key when params are sent by name).
    pub name: String,
    /// A short summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// A longer description (Markdown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the param must be given (default false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    /// Whether it is deprecated.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deprecated: bool,
    /// The JSON Schema of the value.
    pub schema: Value,
    /// Extensions and unknown members.
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// An application error a method may return.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The JSON-RPC error code.
    pub code: i64,
    /// The error message.
    pub message: String,
    /// Additional information (a value, not a schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Unknown members (the specification allows none).
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// A tag.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tag {
    /// The tag's name.
    #[serde(default)]
    pub name: String,
    /// A longer description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Further documentation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_docs: Option<ExternalDocs>,
    /// Extensions and unknown members.
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// A link from a method's result to another method.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// The link's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A short summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// A longer description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The linked method's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Params for the linked method (runtime expressions allowed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
    /// The server to call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<Server>,
    /// Extensions and unknown members.
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// An example value.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Example {
    /// The example's name.
    #[serde(default)]
    pub name: String,
    /// A short summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// A longer description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The value itself (absent only in documents that break the specification).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// Extensions and unknown members.
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// An example call: params and the result they give.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExamplePairing {
    /// The example's name.
    #[serde(default)]
    pub name: String,
    /// A longer description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The example params, in order.
    #[serde(default)]
    pub params: Vec<RefOr<Example>>,
    /// The example result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<RefOr<Example>>,
    /// Unknown members.
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Reusable objects.
///
/// The specification allows no reference object here, but real documents write one
/// (older Starknet releases: `"BLOCK_NOT_FOUND": {"$ref": "./api/…#/components/errors/…"}`):
/// each member is read as written, and the loader follows such a reference with a warning.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Components {
    /// JSON Schemas by name.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub schemas: IndexMap<String, Value>,
    /// Links by name.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub links: IndexMap<String, RefOr<Link>>,
    /// Errors by name.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub errors: IndexMap<String, RefOr<ErrorObject>>,
    /// Examples by name.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub examples: IndexMap<String, RefOr<Example>>,
    /// Example pairings by name.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub example_pairings: IndexMap<String, RefOr<ExamplePairing>>,
    /// Content descriptors by name.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub content_descriptors: IndexMap<String, RefOr<ContentDescriptor>>,
    /// Tags by name.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub tags: IndexMap<String, RefOr<Tag>>,
    /// Extensions and unknown members.
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// Further documentation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExternalDocs {
    /// Where it is.
    #[serde(default)]
    pub url: String,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Extensions and unknown members.
    #[serde(flatten)]
    pub extensions: Extensions,
}

/// A reference object: `{"$ref": "…"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    /// The reference (a URI reference: `#/components/…` or `file.json#/…`).
    #[serde(rename = "$ref")]
    pub reference: String,
}

/// An object given inline or by reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RefOr<T> {
    /// A `{"$ref": …}` (members beside `$ref` are ignored).
    Ref(Reference),
    /// The object itself.
    Item(T),
}

impl<T> RefOr<T> {
    /// The inline object, if it is not a reference.
    pub fn item(&self) -> Option<&T> {
        match self {
            RefOr::Item(t) => Some(t),
            RefOr::Ref(_) => None,
        }
    }

    /// The reference string, if it is one.
    pub fn reference(&self) -> Option<&str> {
        match self {
            RefOr::Ref(r) => Some(&r.reference),
            RefOr::Item(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_a_method_with_refs_defaults_and_extensions() {
        let m: Method = serde_json::from_value(json!({
            "name": "get", "params": [{"$ref": "#/components/contentDescriptors/Id"},
            {"name": "n", "schema": {"type": "integer"}, "required": true}],
            "errors": [{"code": 1, "message": "m"}], "x-unsafe": true
        }))
        .unwrap();
        assert_eq!(m.param_structure, ParamStructure::Either);
        assert_eq!(
            m.params[0].reference(),
            Some("#/components/contentDescriptors/Id")
        );
        let p = m.params[1].item().unwrap();
        assert!(p.required && !p.deprecated);
        assert!(m.result.is_none());
        assert_eq!(m.extensions["x-unsafe"], true);
        assert_eq!(m.errors[0].item().unwrap().code, 1);
    }

    #[test]
    fn param_structure_names() {
        let p: ParamStructure = serde_json::from_value(json!("by-position")).unwrap();
        assert_eq!(p, ParamStructure::ByPosition);
        assert!(serde_json::from_value::<ParamStructure>(json!("positional")).is_err());
    }
}
