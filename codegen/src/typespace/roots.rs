//! What a document reaches: `components`, then each method's params, result and errors
//! (as the front half resolved them); and the method examples, matched to the types of
//! their params and result.

use serde_json::Value;

use super::model::{Ty, Validation};
use super::{Converter, Example};
use crate::document::ResolvedMethod;
use crate::resolve::{FileId, Location};

/// The type of one method param.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParamType {
    /// The param's name.
    pub(crate) name: String,
    /// Its type (not wrapped in `Option` when optional: see `required`).
    pub(crate) ty: Ty,
    /// Whether the param must be given.
    pub(crate) required: bool,
    /// The validation keywords of its schema.
    pub(crate) validation: Validation,
}

/// The types of one method.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MethodTypes {
    /// The method's name on the wire.
    pub(crate) name: String,
    /// Params, in order.
    pub(crate) params: Vec<ParamType>,
    /// The result type; `None` for a notification.
    pub(crate) result: Option<Ty>,
    /// The validation keywords of the result's schema.
    pub(crate) result_validation: Validation,
    /// Declared errors: code and the type of `data` (`None` when not described).
    pub(crate) errors: Vec<(i64, Option<Ty>)>,
}

/// Converts every schema the document reaches; returns the methods' types.
pub(super) fn convert_document(
    cx: &mut Converter<'_>,
    root: FileId,
    methods: &[ResolvedMethod],
) -> Vec<MethodTypes> {
    let components = Location::root(root).key("components");
    for key in keys(cx, &components.key("schemas")) {
        cx.convert(&components.key("schemas").key(&key));
    }
    for key in keys(cx, &components.key("contentDescriptors")) {
        let cd = components.key("contentDescriptors").key(&key);
        if let Some(cd) = cx.deref(&cd) {
            cx.convert(&cd.key("schema"));
        }
    }
    for key in keys(cx, &components.key("errors")) {
        if let Some(at) = cx.deref(&components.key("errors").key(&key)) {
            error_type(cx, &at);
        }
    }
    methods.iter().map(|m| method(cx, m)).collect()
}

fn keys(cx: &Converter<'_>, at: &Location) -> Vec<String> {
    match cx.resolver.get(at) {
        Some(Value::Object(o)) => o.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

fn method(cx: &mut Converter<'_>, m: &ResolvedMethod) -> MethodTypes {
    let params = m
        .params
        .iter()
        .map(|p| ParamType {
            name: p.name.clone(),
            ty: cx.convert(&p.schema),
            required: p.required,
            validation: cx.validation(&p.schema),
        })
        .collect();
    let result = m.result.as_ref().map(|r| cx.convert(&r.schema));
    let result_validation = m
        .result
        .as_ref()
        .map(|r| cx.validation(&r.schema))
        .unwrap_or_default();
    let errors = m
        .errors
        .iter()
        .filter_map(|e| error_type(cx, &e.location))
        .collect();
    let types = MethodTypes {
        name: m.name.clone(),
        params,
        result,
        result_validation,
        errors,
    };
    method_examples(cx, m, &types);
    types
}

fn error_type(cx: &mut Converter<'_>, at: &Location) -> Option<(i64, Option<Ty>)> {
    let code = cx.resolver.get(&at.key("code")).and_then(Value::as_i64)?;
    let data = match cx.resolver.get(&at.key("data")) {
        Some(Value::Object(o)) if o.keys().any(|k| SCHEMA_WORDS.contains(&k.as_str())) => {
            Some(cx.convert(&at.key("data")))
        }
        Some(Value::String(word)) if word == "number" => Some(cx.number()),
        Some(Value::String(word)) => type_word(word),
        _ => None,
    };
    Some((code, data))
}

/// Keywords that show an error's `data` is written as a schema (OpenRPC says `data` is
/// a value, but documents such as Starknet's describe it with a schema).
const SCHEMA_WORDS: &[&str] = &[
    "type",
    "$ref",
    "properties",
    "oneOf",
    "anyOf",
    "allOf",
    "enum",
    "items",
    "const",
];

/// `data: "string"`: a JSON type named by a word (Starknet's shorthand).
fn type_word(word: &str) -> Option<Ty> {
    Some(match word {
        "string" => Ty::String,
        "integer" => Ty::Int(super::Int::I64),

        "boolean" => Ty::Bool,
        "object" => Ty::Object,
        "array" => Ty::Vec(Box::new(Ty::Value)),
        _ => return None,
    })
}

/// Records each example pairing's param values (matched by name, else by position) and
/// result value with their types.
fn method_examples(cx: &mut Converter<'_>, m: &ResolvedMethod, types: &MethodTypes) {
    for pairing in &m.examples {
        for (j, example) in pairing.params.iter().enumerate() {
            let by_name = types.params.iter().find(|p| p.name == example.example.name);
            if let Some(param) = by_name.or_else(|| types.params.get(j)) {
                record(cx, &example.location.key("value"), param.ty.clone());
            }
        }
        if let (Some(example), Some(ty)) = (&pairing.result, &types.result) {
            record(cx, &example.location.key("value"), ty.clone());
        }
    }
}

fn record(cx: &mut Converter<'_>, at: &Location, ty: Ty) {
    if let Some(value) = cx.resolver.get(at).cloned() {
        let origin = cx.origin(at);
        cx.examples.push(Example { ty, value, origin });
    }
}
