//! What a document reaches: `components`, then each method's params, result and errors;
//! and the method examples, matched to the types of their params and result.

use serde_json::Value;

use super::model::Ty;
use super::{Converter, Example};
use crate::resolve::{FileId, Location};

/// The type of one method param.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamType {
    /// The param's name.
    pub name: String,
    /// Its type (not wrapped in `Option` when optional: see `required`).
    pub ty: Ty,
    /// Whether the param must be given.
    pub required: bool,
}

/// The types of one method.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodTypes {
    /// The method's name on the wire.
    pub name: String,
    /// Params, in order.
    pub params: Vec<ParamType>,
    /// The result type; `None` for a notification.
    pub result: Option<Ty>,
    /// Declared errors: code and the type of `data` (`None` when not described).
    pub errors: Vec<(i64, Option<Ty>)>,
}

/// Converts every schema the document reaches; returns the methods' types.
pub(super) fn convert_document(cx: &mut Converter<'_>, root: FileId) -> Vec<MethodTypes> {
    let doc = Location::root(root);
    let components = doc.key("components");
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
        error_type(cx, &components.key("errors").key(&key));
    }
    let count = cx
        .resolver
        .get(&doc.key("methods"))
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    (0..count)
        .filter_map(|i| {
            let at = cx.deref(&doc.key("methods").index(i))?;
            Some(method(cx, &at))
        })
        .collect()
}

fn keys(cx: &Converter<'_>, at: &Location) -> Vec<String> {
    match cx.resolver.get(at) {
        Some(Value::Object(o)) => o.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

fn len(cx: &Converter<'_>, at: &Location) -> usize {
    cx.resolver
        .get(at)
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

fn method(cx: &mut Converter<'_>, at: &Location) -> MethodTypes {
    let name = string(cx, &at.key("name"));
    let mut params = Vec::new();
    for i in 0..len(cx, &at.key("params")) {
        let Some(cd) = cx.deref(&at.key("params").index(i)) else {
            continue;
        };
        let ty = cx.convert(&cd.key("schema"));
        let required = cx.resolver.get(&cd.key("required")) == Some(&Value::Bool(true));
        params.push(ParamType {
            name: string(cx, &cd.key("name")),
            ty,
            required,
        });
    }
    let result = match cx.resolver.get(&at.key("result")) {
        Some(_) => cx
            .deref(&at.key("result"))
            .map(|cd| cx.convert(&cd.key("schema"))),
        None => None,
    };
    let mut errors = Vec::new();
    for i in 0..len(cx, &at.key("errors")) {
        if let Some(e) = error_type(cx, &at.key("errors").index(i)) {
            errors.push(e);
        }
    }
    let types = MethodTypes {
        name,
        params,
        result,
        errors,
    };
    method_examples(cx, at, &types);
    types
}

fn string(cx: &Converter<'_>, at: &Location) -> String {
    cx.resolver
        .get(at)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn error_type(cx: &mut Converter<'_>, at: &Location) -> Option<(i64, Option<Ty>)> {
    let at = cx.deref(at)?;
    let code = cx.resolver.get(&at.key("code")).and_then(Value::as_i64)?;
    let data = match cx.resolver.get(&at.key("data")) {
        Some(Value::Object(o)) if o.keys().any(|k| SCHEMA_WORDS.contains(&k.as_str())) => {
            Some(cx.convert(&at.key("data")))
        }
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
        "number" => Ty::Float,
        "boolean" => Ty::Bool,
        "object" => Ty::Object,
        "array" => Ty::Vec(Box::new(Ty::Value)),
        _ => return None,
    })
}

/// Records each example pairing's param values and result value with their types.
fn method_examples(cx: &mut Converter<'_>, at: &Location, types: &MethodTypes) {
    for i in 0..len(cx, &at.key("examples")) {
        let Some(pairing) = cx.deref(&at.key("examples").index(i)) else {
            continue;
        };
        for j in 0..len(cx, &pairing.key("params")) {
            let Some(example) = cx.deref(&pairing.key("params").index(j)) else {
                continue;
            };
            let name = string(cx, &example.key("name"));
            let by_name = types.params.iter().find(|p| p.name == name);
            let Some(param) = by_name.or_else(|| types.params.get(j)) else {
                continue;
            };
            record(cx, &example.key("value"), param.ty.clone());
        }
        let Some(ty) = &types.result else { continue };
        if cx.resolver.get(&pairing.key("result")).is_none() {
            continue;
        }
        if let Some(example) = cx.deref(&pairing.key("result")) {
            record(cx, &example.key("value"), ty.clone());
        }
    }
}

fn record(cx: &mut Converter<'_>, at: &Location, ty: Ty) {
    if let Some(value) = cx.resolver.get(at).cloned() {
        let origin = cx.origin(at);
        cx.examples.push(Example { ty, value, origin });
    }
}
