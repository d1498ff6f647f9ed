//! The diff's rules, one small pair of documents each: what is found, who it breaks, and
//! the pointers of both places. The table these follow is in `src/diff/mod.rs`.

use rpcsmith_cli::diff::{self, Options, Report};
use serde_json::{Value, json};

/// A document of `methods`, with `schemas` as its components.
fn document(methods: Value, schemas: Value) -> Value {
    json!({
        "openrpc": "1.3.2",
        "info": {"title": "Rules", "version": "1"},
        "methods": methods,
        "components": {"schemas": schemas}
    })
}

/// A method `m` taking `params`, answering `result` (a schema; `None`: a notification).
fn method(params: Value, result: Option<Value>) -> Value {
    let mut m = json!({"name": "m", "params": params});
    if let Some(schema) = result {
        m["result"] = json!({"name": "r", "schema": schema});
    }
    m
}

fn param(name: &str, required: bool, schema: Value) -> Value {
    json!({"name": name, "required": required, "schema": schema})
}

fn run(old: &Value, new: &Value, options: &Options) -> Report {
    let dir = tempfile::tempdir().unwrap();
    let (o, n) = (dir.path().join("old.json"), dir.path().join("new.json"));
    std::fs::write(&o, serde_json::to_string_pretty(old).unwrap()).unwrap();
    std::fs::write(&n, serde_json::to_string_pretty(new).unwrap()).unwrap();
    diff::diff(&o, &n, options).unwrap_or_else(|e| panic!("{e}"))
}

/// Each finding as `label: message | old pointer | new pointer`.
fn findings(old: Value, new: Value) -> Vec<String> {
    lines(&run(&old, &new, &Options::new()))
}

fn lines(report: &Report) -> Vec<String> {
    report
        .findings
        .iter()
        .map(|f| {
            let label = f.breaks.label();
            format!(
                "{label}: {} | {} | {}",
                f.message, f.old.pointer, f.new.pointer
            )
        })
        .collect()
}

/// The findings for a param schema `old` → `new` (one required param `p`).
fn param_schema(old: Value, new: Value) -> Vec<String> {
    let doc = |s| {
        document(
            json!([method(json!([param("p", true, s)]), None)]),
            json!({}),
        )
    };
    findings(doc(old), doc(new))
}

/// The findings for a result schema `old` → `new`.
fn result_schema(old: Value, new: Value) -> Vec<String> {
    let doc = |s| document(json!([method(json!([]), Some(s))]), json!({}));
    findings(doc(old), doc(new))
}

#[test]
fn identical_documents_have_no_difference_and_annotations_are_not_on_the_wire() {
    let old = document(
        json!([method(
            json!([param("p", true, json!({"type": "string"}))]),
            Some(json!({"$ref": "#/components/schemas/S"}))
        )]),
        json!({"S": {"type": "integer", "title": "S"}}),
    );
    let mut new = old.clone();
    new["methods"][0]["summary"] = json!("now documented");
    new["components"]["schemas"]["S"]["description"] = json!("a number");
    let report = run(&old, &new, &Options::new());
    assert_eq!(report.findings, []);
    assert!(!report.is_breaking());
    assert_eq!(
        report.to_string(),
        "0 differences: 0 break clients, 0 break servers, 0 compatible"
    );
}

#[test]
fn methods_removed_added_and_notifications() {
    let old = document(
        json!([method(json!([]), None), {"name": "gone", "params": [], "result": {"name": "r", "schema": {}}}]),
        json!({}),
    );
    let new = document(
        json!([method(json!([]), Some(json!({}))), {"name": "fresh", "params": []}]),
        json!({}),
    );
    assert_eq!(
        findings(old.clone(), new.clone()),
        [
            "breaks servers: notification `m` became a request (it now has a result) | /methods/0 | /methods/0/result",
            "breaks clients: method `gone` removed | /methods/1 | /methods",
            "breaks servers: method `fresh` added | /methods | /methods/1",
        ]
    );
    assert_eq!(
        findings(new, old),
        [
            "breaks clients: request `m` became a notification (it no longer has a result) | /methods/0/result | /methods/0",
            "breaks clients: method `fresh` removed | /methods/1 | /methods",
            "breaks servers: method `gone` added | /methods | /methods/1",
        ]
    );
}

#[test]
fn params_removed_added_required_optional() {
    let s = json!({"type": "string"});
    let old = document(
        json!([method(
            json!([
                param("a", true, s.clone()),
                param("b", false, s.clone()),
                param("c", true, s.clone())
            ]),
            None
        )]),
        json!({}),
    );
    let new = document(
        json!([method(
            json!([
                param("a", false, s.clone()),
                param("b", true, s.clone()),
                param("c", true, s.clone()),
                param("d", true, s.clone()),
                param("e", false, s)
            ]),
            None
        )]),
        json!({}),
    );
    assert_eq!(
        findings(old.clone(), new.clone()),
        [
            "breaks servers: param `a` now optional | /methods/0/params/0 | /methods/0/params/0",
            "breaks clients: param `b` now required | /methods/0/params/1 | /methods/0/params/1",
            "breaks clients and servers: required param `d` added | /methods/0/params | /methods/0/params/3",
            "breaks servers: optional param `e` added | /methods/0/params | /methods/0/params/4",
        ]
    );
    assert_eq!(
        findings(new, old),
        [
            "breaks clients: param `a` now required | /methods/0/params/0 | /methods/0/params/0",
            "breaks servers: param `b` now optional | /methods/0/params/1 | /methods/0/params/1",
            "breaks clients and servers: required param `d` removed | /methods/0/params/3 | /methods/0/params",
            "breaks clients: optional param `e` removed | /methods/0/params/4 | /methods/0/params",
        ]
    );
}

#[test]
fn order_and_renames_matter_only_where_they_are_on_the_wire() {
    let s = json!({"type": "string"});
    let with = |structure: &str, names: [&str; 2]| {
        let mut m = method(
            json!([
                param(names[0], true, s.clone()),
                param(names[1], true, s.clone())
            ]),
            None,
        );
        m["paramStructure"] = json!(structure);
        document(json!([m]), json!({}))
    };
    assert_eq!(
        findings(
            with("by-position", ["a", "b"]),
            with("by-position", ["b", "a"])
        ),
        [
            "breaks clients and servers: params sent by position moved: `a` 1 → 2, `b` 2 → 1 | /methods/0/params | /methods/0/params"
        ]
    );
    assert_eq!(
        findings(with("by-name", ["a", "b"]), with("by-name", ["b", "a"])),
        Vec::<String>::new()
    );
    assert_eq!(
        findings(with("by-name", ["a", "b"]), with("by-name", ["a", "c"])),
        [
            "breaks clients and servers: param `b` renamed `c` (sent by name) | /methods/0/params/1 | /methods/0/params/1"
        ]
    );
    assert_eq!(
        findings(
            with("by-position", ["a", "b"]),
            with("by-position", ["a", "c"])
        ),
        [
            "compatible: param `b` renamed `c` (sent by position only: the name is not on the wire) | /methods/0/params/1 | /methods/0/params/1"
        ]
    );
}

#[test]
fn param_structure_narrowed_widened_swapped() {
    let with = |structure: Option<&str>| {
        let mut m = method(json!([]), None);
        if let Some(s) = structure {
            m["paramStructure"] = json!(s);
        }
        document(json!([m]), json!({}))
    };
    assert_eq!(
        findings(with(None), with(Some("by-name"))),
        [
            "breaks clients: paramStructure either → by-name | /methods/0 | /methods/0/paramStructure"
        ]
    );
    assert_eq!(
        findings(with(Some("by-position")), with(Some("either"))),
        [
            "breaks servers: paramStructure by-position → either | /methods/0/paramStructure | /methods/0/paramStructure"
        ]
    );
    assert_eq!(
        findings(with(Some("by-position")), with(Some("by-name"))),
        [
            "breaks clients and servers: paramStructure by-position → by-name | /methods/0/paramStructure | /methods/0/paramStructure"
        ]
    );
}

#[test]
fn types_break_by_the_way_the_value_travels() {
    let (string, integer, number) = (
        json!({"type": "string"}),
        json!({"type": "integer"}),
        json!({"type": "number"}),
    );
    assert_eq!(
        param_schema(string.clone(), integer.clone()),
        [
            "breaks clients and servers: type string → integer | /methods/0/params/0/schema/type | /methods/0/params/0/schema/type"
        ]
    );
    // integer → number: more values pass. A param: new clients may send 1.5 to old
    // servers. A result: new servers may answer 1.5 to old clients.
    assert_eq!(
        param_schema(integer.clone(), number.clone()),
        [
            "breaks servers: type integer → number | /methods/0/params/0/schema/type | /methods/0/params/0/schema/type"
        ]
    );
    assert_eq!(
        result_schema(integer.clone(), number.clone()),
        [
            "breaks clients: type integer → number | /methods/0/result/schema/type | /methods/0/result/schema/type"
        ]
    );
    assert_eq!(
        result_schema(number, integer),
        [
            "breaks servers: type number → integer | /methods/0/result/schema/type | /methods/0/result/schema/type"
        ]
    );
    assert_eq!(
        param_schema(json!({"type": ["string", "null"]}), string),
        [
            "breaks clients: type [null, string] → string | /methods/0/params/0/schema/type | /methods/0/params/0/schema/type"
        ]
    );
}

#[test]
fn enum_values_and_bounds() {
    let e = |values: Value| json!({"type": "string", "enum": values});
    assert_eq!(
        param_schema(e(json!(["a", "b"])), e(json!(["b", "c"]))),
        [
            "breaks clients: values removed: \"a\" | /methods/0/params/0/schema/enum | /methods/0/params/0/schema/enum",
            "breaks servers: values added: \"c\" | /methods/0/params/0/schema/enum | /methods/0/params/0/schema/enum",
        ]
    );
    assert_eq!(
        result_schema(e(json!(["a"])), e(json!(["a", "b"]))),
        [
            "breaks clients: values added: \"b\" | /methods/0/result/schema/enum | /methods/0/result/schema/enum"
        ]
    );
    assert_eq!(
        param_schema(
            json!({"type": "integer", "minimum": 0, "maximum": 10}),
            json!({"type": "integer", "minimum": 1, "maximum": 20, "multipleOf": 2})
        ),
        [
            "breaks clients: minimum 0 → 1 | /methods/0/params/0/schema/minimum | /methods/0/params/0/schema/minimum",
            "breaks servers: maximum 10 → 20 | /methods/0/params/0/schema/maximum | /methods/0/params/0/schema/maximum",
            "breaks clients: multipleOf (none) → 2 | /methods/0/params/0/schema | /methods/0/params/0/schema/multipleOf",
        ]
    );
    assert_eq!(
        result_schema(
            json!({"type": "string", "maxLength": 8, "pattern": "^a"}),
            json!({"type": "string", "pattern": "^b"})
        ),
        [
            "breaks clients: maxLength 8 → (none) | /methods/0/result/schema/maxLength | /methods/0/result/schema",
            "breaks clients and servers: pattern `^a` → `^b` | /methods/0/result/schema/pattern | /methods/0/result/schema/pattern",
        ]
    );
}

#[test]
fn object_members() {
    let old = json!({"type": "object", "properties": {"a": {}, "b": {}, "c": {}, "d": {}}, "required": ["a", "c"]});
    let new = json!({"type": "object", "properties": {"a": {}, "b": {}, "e": {}, "f": {}}, "required": ["b", "f"]});
    assert_eq!(
        result_schema(old, new),
        [
            "breaks clients: member `a` no longer required | /methods/0/result/schema/properties/a | /methods/0/result/schema/properties/a",
            "breaks servers: member `b` now required | /methods/0/result/schema/properties/b | /methods/0/result/schema/properties/b",
            "breaks clients: required member `c` removed | /methods/0/result/schema/properties/c | /methods/0/result/schema/properties",
            "compatible: optional member `d` removed | /methods/0/result/schema/properties/d | /methods/0/result/schema/properties",
            "compatible: new optional member `e` | /methods/0/result/schema/properties | /methods/0/result/schema/properties/e",
            "breaks servers: new required member `f` | /methods/0/result/schema/properties | /methods/0/result/schema/properties/f",
        ]
    );
    let closed = json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false});
    let open = json!({"type": "object", "properties": {"a": {}, "b": {"type": "string"}}});
    assert_eq!(
        param_schema(closed, open),
        [
            "breaks servers: new optional member `b` where other members were refused | /methods/0/params/0/schema/properties | /methods/0/params/0/schema/properties/b",
            "breaks servers: other members: refused → any | /methods/0/params/0/schema/additionalProperties | /methods/0/params/0/schema",
        ]
    );
}

#[test]
fn alternatives_matched_by_reference_name_or_type() {
    let schemas = json!({"A": {"type": "string"}, "B": {"type": "object", "properties": {"x": {"type": "integer"}}}});
    let doc = |result: Value| document(json!([method(json!([]), Some(result))]), schemas.clone());
    let one = json!({"$ref": "#/components/schemas/A"});
    let either =
        json!({"oneOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}]});
    assert_eq!(
        findings(doc(one.clone()), doc(either.clone())),
        [
            "breaks clients: alternatives added: `B` | /methods/0/result/schema | /methods/0/result/schema/oneOf/1"
        ]
    );
    assert_eq!(
        findings(doc(either), doc(one)),
        [
            "breaks servers: alternatives removed: `B` | /methods/0/result/schema/oneOf/1 | /methods/0/result/schema"
        ]
    );
    // Untitled alternatives are matched by type, and the matched pair compared.
    let untitled_old = json!({"type": "array", "items": {"type": "string"}});
    let untitled_new =
        json!({"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "object"}]});
    assert_eq!(
        findings(doc(untitled_old), doc(untitled_new)),
        [
            "breaks clients: alternatives added: (untitled object) | /methods/0/result/schema | /methods/0/result/schema/anyOf/1",
            "breaks clients and servers: type string → integer | /methods/0/result/schema/items/type | /methods/0/result/schema/anyOf/0/items/type",
        ]
    );
}

#[test]
fn errors_travel_like_results() {
    let with = |errors: Value| {
        let mut m = method(json!([]), Some(json!({})));
        m["errors"] = errors;
        document(json!([m]), json!({}))
    };
    let old = with(json!([{"code": 1, "message": "one"}, {"code": 2, "message": "two"}]));
    let new = with(json!([{"code": 2, "message": "deux"}, {"code": 3, "message": "three"}]));
    assert_eq!(
        findings(old, new),
        [
            "breaks servers: error 1 (\"one\") no longer declared | /methods/0/errors/0 | /methods/0/errors",
            "compatible: error 2 message \"two\" → \"deux\" | /methods/0/errors/1/message | /methods/0/errors/0/message",
            "breaks clients: error 3 (\"three\") newly declared | /methods/0/errors | /methods/0/errors/1",
        ]
    );
}

#[test]
fn server_to_client_methods_swap_who_breaks() {
    let old = document(
        json!([method(
            json!([param("p", true, json!({"type": "integer"}))]),
            None
        )]),
        json!({}),
    );
    let new = document(
        json!([method(
            json!([param("p", true, json!({"type": "number"}))]),
            None
        )]),
        json!({}),
    );
    let swapped = run(&old, &new, &Options::new().server_to_client("m"));
    assert_eq!(
        lines(&swapped),
        [
            "breaks clients: type integer → number | /methods/0/params/0/schema/type | /methods/0/params/0/schema/type"
        ]
    );
    assert_eq!(
        lines(&run(&old, &new, &Options::new())),
        [
            "breaks servers: type integer → number | /methods/0/params/0/schema/type | /methods/0/params/0/schema/type"
        ]
    );
}

#[test]
fn recursive_schemas_end_and_a_shared_schema_is_reported_once_with_every_use() {
    let tree = |t: &str| json!({"Tree": {"type": "object", "properties": {"v": {"type": t}, "kids": {"type": "array", "items": {"$ref": "#/components/schemas/Tree"}}}}});
    let methods = json!([
        {"name": "get", "params": [], "result": {"name": "r", "schema": {"$ref": "#/components/schemas/Tree"}}},
        {"name": "list", "params": [], "result": {"name": "r", "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Tree"}}}}
    ]);
    let report = run(
        &document(methods.clone(), tree("integer")),
        &document(methods, tree("string")),
        &Options::new(),
    );
    assert_eq!(report.findings.len(), 1);
    let f = &report.findings[0];
    assert_eq!(f.uses, ["get result.v", "list result[].v"]);
    assert_eq!(f.old.pointer, "/components/schemas/Tree/properties/v/type");
    assert_eq!(
        f.to_string(),
        "breaks clients and servers: `Tree`.v: type integer → string (in get result.v, list result[].v)\n  old: old.json:38:13: at /components/schemas/Tree/properties/v/type\n  new: new.json:38:13: at /components/schemas/Tree/properties/v/type"
    );
}
