//! The validator's structural verdicts, held against the official OpenRPC meta-schemas.
//!
//! The test carries a small draft-07 validator (only the keywords the three meta-schemas
//! use) and runs both on every corpus document, every broken fixture and a table of
//! small documents: a document has structural findings exactly when the meta-schema
//! rejects it. Two known differences are left out: `"openrpc": "1.0.0-rc0"` is in the 1.3
//! meta-schema's enum, and rpcsmith does not read it; the 1.4 meta-schema omits
//! `"type": "object"` for the info and link objects, so it accepts `"info": "text"`,
//! which rpcsmith cannot read.

use std::path::{Path, PathBuf};

use super::check_structure;
use crate::Resolver;
use rpcsmith_corpus as corpus;
use serde_json::{Value, json};

/// Which meta-schema file a `$ref` lands in.
#[derive(Clone, Copy)]
enum Doc {
    OpenRpc,
    Tools,
}

struct Meta {
    openrpc: Value,
    tools: Value,
}

impl Meta {
    fn load(dir: &Path, openrpc_version: &str) -> Meta {
        let name = if openrpc_version.starts_with("1.4.") {
            "openrpc-1.4-schema.json"
        } else {
            "open-rpc-meta-schema-1.14.9.json"
        };
        let read = |f: &str| -> Value {
            serde_json::from_str(&std::fs::read_to_string(dir.join("meta-schema").join(f)).unwrap())
                .unwrap()
        };
        Meta {
            openrpc: read(name),
            tools: read("json-schema-tools-meta-schema-1.8.0.json"),
        }
    }

    /// The instance pointers where the document breaks the meta-schema.
    fn errors(&self, instance: &Value) -> Vec<String> {
        let mut errors = Vec::new();
        self.check(&self.openrpc, Doc::OpenRpc, instance, "", &mut errors);
        errors
    }

    fn valid(&self, schema: &Value, doc: Doc, instance: &Value) -> bool {
        let mut errors = Vec::new();
        self.check(schema, doc, instance, "", &mut errors);
        errors.is_empty()
    }

    fn resolve(&self, reference: &str, doc: Doc) -> (&Value, Doc) {
        let (base, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let (root, doc) = match base {
            "" => match doc {
                Doc::OpenRpc => (&self.openrpc, Doc::OpenRpc),
                Doc::Tools => (&self.tools, Doc::Tools),
            },
            "https://meta.json-schema.tools" | "https://meta.json-schema.tools/" => {
                (&self.tools, Doc::Tools)
            }
            other => panic!("unexpected $ref base {other}"),
        };
        (
            root.pointer(fragment)
                .unwrap_or_else(|| panic!("bad $ref {reference}")),
            doc,
        )
    }

    fn check(&self, schema: &Value, doc: Doc, v: &Value, at: &str, errors: &mut Vec<String>) {
        let Some(s) = schema.as_object() else {
            if schema == &Value::Bool(false) {
                errors.push(at.to_string());
            }
            return;
        };
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let (target, doc) = self.resolve(r, doc);
            return self.check(target, doc, v, at, errors);
        }
        if let Some(t) = s.get("type") {
            let ok = match t {
                Value::Array(ts) => ts.iter().any(|t| has_type(v, t.as_str().unwrap())),
                t => has_type(v, t.as_str().unwrap()),
            };
            if !ok {
                errors.push(at.to_string());
                return;
            }
        }
        self.check_combinators(s, doc, v, at, errors);
        check_scalars(s, v, at, errors);
        if let Some(o) = v.as_object() {
            self.check_object(s, doc, o, at, errors);
        }
        if let Some(items) = v.as_array() {
            self.check_array(s, doc, items, at, errors);
        }
    }

    fn check_combinators(
        &self,
        s: &serde_json::Map<String, Value>,
        doc: Doc,
        v: &Value,
        at: &str,
        errors: &mut Vec<String>,
    ) {
        if let Some(all) = s.get("oneOf").and_then(Value::as_array) {
            let n = all.iter().filter(|b| self.valid(b, doc, v)).count();
            if n != 1 {
                errors.push(at.to_string());
            }
        }
        if let Some(any) = s.get("anyOf").and_then(Value::as_array)
            && !any.iter().any(|b| self.valid(b, doc, v))
        {
            errors.push(at.to_string());
        }
    }

    fn check_object(
        &self,
        s: &serde_json::Map<String, Value>,
        doc: Doc,
        o: &serde_json::Map<String, Value>,
        at: &str,
        errors: &mut Vec<String>,
    ) {
        for r in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !o.contains_key(r.as_str().unwrap()) {
                errors.push(at.to_string());
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        let patterns = s.get("patternProperties").and_then(Value::as_object);
        for (k, member) in o {
            let here = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
            let mut matched = false;
            if let Some(p) = props.and_then(|p| p.get(k)) {
                matched = true;
                self.check(p, doc, member, &here, errors);
            }
            for (pattern, p) in patterns.into_iter().flatten() {
                if pattern_matches(pattern, k) {
                    matched = true;
                    self.check(p, doc, member, &here, errors);
                }
            }
            if !matched && let Some(extra) = s.get("additionalProperties") {
                self.check(extra, doc, member, &here, errors);
            }
        }
    }

    fn check_array(
        &self,
        s: &serde_json::Map<String, Value>,
        doc: Doc,
        items: &[Value],
        at: &str,
        errors: &mut Vec<String>,
    ) {
        if let Some(min) = s.get("minItems").and_then(Value::as_u64)
            && (items.len() as u64) < min
        {
            errors.push(at.to_string());
        }
        if s.get("uniqueItems") == Some(&Value::Bool(true))
            && items
                .iter()
                .enumerate()
                .any(|(i, x)| items[..i].contains(x))
        {
            errors.push(at.to_string());
        }
        match s.get("items") {
            Some(Value::Array(tuple)) => {
                for (i, (item, schema)) in items.iter().zip(tuple).enumerate() {
                    self.check(schema, doc, item, &format!("{at}/{i}"), errors);
                }
                if let Some(extra) = s.get("additionalItems") {
                    for (i, item) in items.iter().enumerate().skip(tuple.len()) {
                        self.check(extra, doc, item, &format!("{at}/{i}"), errors);
                    }
                }
            }
            Some(schema) => {
                for (i, item) in items.iter().enumerate() {
                    self.check(schema, doc, item, &format!("{at}/{i}"), errors);
                }
            }
            None => {}
        }
    }
}

fn check_scalars(
    s: &serde_json::Map<String, Value>,
    v: &Value,
    at: &str,
    errors: &mut Vec<String>,
) {
    if let Some(e) = s.get("enum").and_then(Value::as_array)
        && !e.contains(v)
    {
        errors.push(at.to_string());
    }
    if let (Some(min), Some(text)) = (s.get("minLength").and_then(Value::as_u64), v.as_str())
        && (text.chars().count() as u64) < min
    {
        errors.push(at.to_string());
    }
    if let (Some(p), Some(text)) = (s.get("pattern").and_then(Value::as_str), v.as_str())
        && !pattern_matches(p, text)
    {
        errors.push(at.to_string());
    }
    if let (Some(min), Some(n)) = (s.get("minimum").and_then(Value::as_f64), v.as_f64())
        && n < min
    {
        errors.push(at.to_string());
    }
    if let (Some(min), Some(n)) = (
        s.get("exclusiveMinimum").and_then(Value::as_f64),
        v.as_f64(),
    ) && n <= min
    {
        errors.push(at.to_string());
    }
}

fn has_type(v: &Value, t: &str) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|n| n.fract() == 0.0),
        other => panic!("unexpected type {other}"),
    }
}

/// The three patterns the meta-schemas use, by hand (no regex engine in the tests).
fn pattern_matches(pattern: &str, s: &str) -> bool {
    match pattern {
        "^x-" => s.starts_with("x-"),
        "[0-z]+" => s.chars().any(|c| ('0'..='z').contains(&c)),
        "^1\\.4\\.\\d+$" => s
            .strip_prefix("1.4.")
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())),
        other => panic!("unexpected pattern {other}"),
    }
}

/// (meta-schema error pointers, rpcsmith structural finding pointers) for one file.
fn verdicts(corpus_dir: &Path, file: &Path) -> (Vec<String>, Vec<String>) {
    let mut resolver = Resolver::new(vec![]);
    let root = resolver.load(file).unwrap();
    let value = resolver.get(&crate::Location::root(root)).unwrap().clone();
    let version = value["openrpc"].as_str().unwrap_or("");
    let meta = Meta::load(corpus_dir, version).errors(&value);
    let ours = check_structure(&resolver, root)
        .into_iter()
        .filter(|f| f.rule.is_structural())
        .map(|f| f.diagnostic.pointer)
        .collect();
    (meta, ours)
}

#[test]
fn corpus_verdicts_agree_with_the_meta_schemas() {
    let Some(dir) = corpus::dir() else { return };
    let mut invalid = Vec::new();
    for (id, path) in corpus::DOCUMENTS {
        let (meta, ours) = verdicts(&dir, &dir.join(path));
        assert_eq!(
            meta.is_empty(),
            ours.is_empty(),
            "{id}: meta {meta:?}, ours {ours:?}"
        );
        if !meta.is_empty() {
            invalid.push(*id);
            assert_eq!(meta, ours, "{id}: same places");
        }
    }
    // MANIFEST, "Meta-schema validation": 31 of 32 valid; D18 has 6 error objects with
    // `description`.
    assert_eq!(invalid, ["D18"]);
    let (_, ours) = verdicts(&dir, &dir.join("starknet-specs/wallet-api/wallet_rpc.json"));
    let expected: Vec<String> = [
        "USER_REFUSED_OP",
        "DEPLOYMENT_DATA_NOT_AVAILABLE",
        "CHAIN_ID_NOT_SUPPORTED",
        "NOT_REGISTERED",
        "INSUFFICIENT_PRIVATE_BALANCE",
        "PRIVACY_LEAK",
    ]
    .iter()
    .map(|e| format!("/components/errors/{e}/description"))
    .collect();
    assert_eq!(ours, expected);
}

#[test]
fn fixture_verdicts_agree_with_the_meta_schemas() {
    let Some(dir) = corpus::dir() else { return };
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/broken");
    let mut invalid = Vec::new();
    for entry in std::fs::read_dir(&fixtures).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !path.is_file() || name == "bad_json.json" {
            continue;
        }
        let (meta, ours) = verdicts(&dir, &path);
        assert_eq!(
            meta.is_empty(),
            ours.is_empty(),
            "{name}: meta {meta:?}, ours {ours:?}"
        );
        if !meta.is_empty() {
            invalid.push(name);
        }
    }
    invalid.sort();
    assert_eq!(
        invalid,
        [
            "not_an_object.json",
            "params.json",
            "structure.json",
            "unknown_type.json",
            "unsupported_version.json"
        ]
    );
}

/// Small documents: (what, document, whether the meta-schema accepts it).
fn table() -> Vec<(&'static str, Value, bool)> {
    let doc = |methods: Value| json!({"openrpc": "1.2.6", "info": {"title": "t", "version": "1"}, "methods": methods});
    let with_schema =
        |schema: Value| doc(json!([{"name": "m", "params": [{"name": "p", "schema": schema}]}]));
    vec![
        ("minimal", doc(json!([])), true),
        (
            "extension",
            json!({"openrpc": "1.4.3", "info": {"title": "t", "version": "1"}, "methods": [], "x-a": 1}),
            true,
        ),
        ("no info", json!({"openrpc": "1.2.6", "methods": []}), false),
        (
            "info not an object",
            json!({"openrpc": "1.2.6", "info": "i", "methods": []}),
            false,
        ),
        (
            "version 1.4.x",
            json!({"openrpc": "1.4.x", "info": {"title": "t", "version": "1"}, "methods": []}),
            false,
        ),
        ("method without params", doc(json!([{"name": "m"}])), false),
        (
            "ref with sibling",
            doc(json!([{"name": "m", "params": [{"$ref": "#/x", "description": "d"}]}])),
            false,
        ),
        (
            "notification",
            doc(json!([{"name": "m", "params": [], "x-notify": true}])),
            true,
        ),
        (
            "tag without name",
            doc(json!([{"name": "m", "params": [], "tags": [{"name": ""}]}])),
            false,
        ),
        (
            "example extra member",
            doc(
                json!([{"name": "m", "params": [], "examples": [{"name": "e", "params": [{"name": "a", "value": 1, "extra": 1}]}]}]),
            ),
            true,
        ),
        (
            "fractional error code",
            doc(json!([{"name": "m", "params": [], "errors": [{"code": 1.5, "message": "x"}]}])),
            false,
        ),
        (
            "server without url",
            json!({"openrpc": "1.2.6", "info": {"title": "t", "version": "1"}, "methods": [], "servers": [{"name": "s"}]}),
            false,
        ),
        ("schema true", with_schema(json!(true)), true),
        ("schema number", with_schema(json!(3)), false),
        (
            "required true",
            with_schema(json!({"required": true})),
            false,
        ),
        (
            "required twice",
            with_schema(json!({"required": ["a", "a"]})),
            false,
        ),
        ("empty enum", with_schema(json!({"enum": []})), false),
        ("empty type array", with_schema(json!({"type": []})), false),
        (
            "type array",
            with_schema(json!({"type": ["string", "null"]})),
            true,
        ),
        (
            "negative minLength",
            with_schema(json!({"minLength": -1})),
            false,
        ),
        (
            "integral float maxItems",
            with_schema(json!({"maxItems": 2.0})),
            true,
        ),
        ("multipleOf 0", with_schema(json!({"multipleOf": 0})), false),
        (
            "tuple with a number",
            with_schema(json!({"items": [{}, 3]})),
            false,
        ),
        (
            "property not a schema",
            with_schema(json!({"properties": {"a": "b"}})),
            false,
        ),
        ("empty allOf", with_schema(json!({"allOf": []})), false),
        (
            "dependencies",
            with_schema(json!({"dependencies": {"a": ["b"], "c": {"type": "object"}}})),
            true,
        ),
        (
            "unknown keyword",
            with_schema(json!({"nullable": true, "x-rust": "u8"})),
            true,
        ),
        (
            "ref with siblings in a schema",
            with_schema(json!({"$ref": "#/x", "description": "d"})),
            true,
        ),
    ]
}

#[test]
fn table_verdicts_agree_with_the_meta_schemas() {
    let Some(dir) = corpus::dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    for (what, document, accepted) in table() {
        let file = tmp.path().join("doc.json");
        std::fs::write(&file, document.to_string()).unwrap();
        let (meta, ours) = verdicts(&dir, &file);
        assert_eq!(
            meta.is_empty(),
            accepted,
            "{what}: the meta-schema says {meta:?}"
        );
        assert_eq!(ours.is_empty(), accepted, "{what}: rpcsmith says {ours:?}");
    }
}
