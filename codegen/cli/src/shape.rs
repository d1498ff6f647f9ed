//! A schema as the diff compares it and the mock answers from it: what it lets through
//! on the wire, read once from the document (`$ref`s followed, `allOf` members merged),
//! with where each keyword is.

use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;
use serde_json::{Map, Value};

use rpcsmith_build::{Location, Resolver};

/// How many `$ref` links and `allOf` levels are followed before the rest is ignored (a
/// guard against cycles of both; real documents nest a few).
const MAX_DEPTH: usize = 64;

/// Lower bounds: a larger value lets fewer values through.
pub(crate) const LOWER_BOUNDS: [&str; 5] = [
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
];
/// Upper bounds: a smaller value lets fewer values through.
pub(crate) const UPPER_BOUNDS: [&str; 5] = [
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
];
/// Keywords compared as text: adding one narrows, removing one widens; a `pattern`
/// changed is compared as a language (`diff::regular`), a `format` changed is both.
pub(crate) const TEXT_KEYWORDS: [&str; 2] = ["pattern", "format"];

/// What `additionalProperties` allows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Additional {
    /// Absent or `true`: anything.
    Any,
    /// `false`: nothing.
    Forbidden,
    /// A schema, here.
    Schema(Location),
}

/// One schema, read for comparison.
#[derive(Debug, Clone)]
pub(crate) struct Shape {
    /// Where the schema was reached (maybe a `$ref`).
    pub(crate) site: Location,
    /// Where the schema is, after `$ref`s.
    pub(crate) at: Location,
    /// A name to match alternatives by: the last token of the `$ref` it was reached
    /// through, else its `title`.
    pub(crate) key: Option<String>,
    /// The JSON types allowed; `None` for any.
    pub(crate) types: Option<BTreeSet<String>>,
    /// The values allowed (`enum`, or `const` as one value); `None` for any.
    pub(crate) values: Option<Vec<Value>>,
    /// Values refused by `not` (`{"not": {"enum": […]}}` or `const`).
    pub(crate) excluded: Vec<Value>,
    /// `oneOf`/`anyOf` members, as written (maybe `$ref`s).
    pub(crate) alternatives: Option<Vec<Location>>,
    /// Object members, in document order.
    pub(crate) properties: IndexMap<String, Location>,
    /// Required member names.
    pub(crate) required: BTreeSet<String>,
    /// Other members.
    pub(crate) additional: Additional,
    /// The schema of array items.
    pub(crate) items: Option<Location>,
    /// The schemas of the first items, in order (`items` as an array: a tuple).
    pub(crate) tuple: Option<Vec<Location>>,
    /// Numeric bounds by keyword.
    pub(crate) bounds: BTreeMap<&'static str, f64>,
    /// `pattern`, `format`, as text.
    pub(crate) texts: BTreeMap<&'static str, String>,
    /// `multipleOf`.
    pub(crate) multiple_of: Option<f64>,
    /// The schema under `not`.
    pub(crate) not: Option<Location>,
    /// `if`, `then`, `else`, where written.
    pub(crate) conditional: [Option<Location>; 3],
    /// `patternProperties`: each pattern and its schema.
    pub(crate) pattern_properties: IndexMap<String, Location>,
    /// `uniqueItems: true` (the mock's checks; the diff does not compare it).
    pub(crate) unique_items: bool,
    /// Where each keyword read is (the first one, when merged from `allOf`).
    pub(crate) keywords: BTreeMap<&'static str, Location>,
}

impl Shape {
    /// Reads the schema at `at` (following `$ref`s). A `$ref` that cannot be followed
    /// (the loader reported it already) reads as a schema allowing anything.
    pub(crate) fn read(resolver: &mut Resolver, at: &Location) -> Shape {
        let key = reference_name(resolver, at).or_else(|| title(resolver, at));
        let mut shape = read_merged(resolver, at, 0);
        shape.key = key;
        shape.site = at.clone();
        shape
    }

    /// Where `keyword` is, or the schema itself when it has none.
    pub(crate) fn place(&self, keyword: &str) -> Location {
        self.keywords
            .get(keyword)
            .cloned()
            .unwrap_or_else(|| self.at.clone())
    }
}

fn reference_name(resolver: &Resolver, at: &Location) -> Option<String> {
    let reference = resolver.ref_at(at)?;
    let name = reference.rsplit(['/', '#']).next()?;
    (!name.is_empty()).then(|| name.to_owned())
}

fn title(resolver: &mut Resolver, at: &Location) -> Option<String> {
    let target = resolver.deref(at).ok()?;
    let value = resolver.get(&target)?;
    value.get("title")?.as_str().map(str::to_owned)
}

fn empty(at: Location) -> Shape {
    Shape {
        site: at.clone(),
        at,
        key: None,
        types: None,
        values: None,
        excluded: Vec::new(),
        alternatives: None,
        properties: IndexMap::new(),
        required: BTreeSet::new(),
        additional: Additional::Any,
        items: None,
        tuple: None,
        bounds: BTreeMap::new(),
        texts: BTreeMap::new(),
        multiple_of: None,
        not: None,
        conditional: [None, None, None],
        pattern_properties: IndexMap::new(),
        unique_items: false,
        keywords: BTreeMap::new(),
    }
}

fn read_merged(resolver: &mut Resolver, at: &Location, depth: usize) -> Shape {
    if depth > MAX_DEPTH {
        return empty(at.clone());
    }
    let Some(Value::Object(object)) = resolver.get(at).cloned() else {
        return empty(at.clone());
    };
    if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
        // One link at a time: keywords beside a `$ref` anywhere along a chain apply too.
        let Ok(next) = resolver.resolve_ref(at, reference) else {
            return empty(at.clone());
        };
        let target = read_merged(resolver, &next, depth + 1);
        let Some(siblings) = ref_siblings(&object) else {
            return target;
        };
        // `{"$ref": …, "enum": […]}`: both apply, as if in an `allOf`; the keywords
        // beside the `$ref` come first (they restrict what it names).
        let mut shape = read_own(at, &siblings);
        merge(&mut shape, target);
        shape.types = shape.types.take().or_else(|| implied_types(&shape));
        return shape;
    }
    let mut shape = read_own(at, &object);
    let members = at.key("allOf");
    for i in 0..resolver.array_len(&members) {
        let member = read_merged(resolver, &members.index(i), depth + 1);
        merge(&mut shape, member);
    }
    if shape.types.is_none() {
        shape.types = implied_types(&shape);
    }
    shape
}

/// The keywords written beside a `$ref` that constrain values (annotations aside);
/// `None` when there are none.
fn ref_siblings(object: &Map<String, Value>) -> Option<Map<String, Value>> {
    const ANNOTATIONS: [&str; 7] = [
        "$ref",
        "title",
        "description",
        "examples",
        "default",
        "$comment",
        "deprecated",
    ];
    let siblings: Map<String, Value> = object
        .iter()
        .filter(|(k, _)| !ANNOTATIONS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (!siblings.is_empty()).then_some(siblings)
}

/// The keywords of one schema object, `allOf` aside.
fn read_own(at: &Location, object: &Map<String, Value>) -> Shape {
    let mut shape = empty(at.clone());
    let mark = |keyword: &'static str, shape: &mut Shape| {
        shape.keywords.insert(keyword, at.key(keyword));
    };
    if let Some(types) = object.get("type").and_then(type_set) {
        shape.types = Some(types);
        mark("type", &mut shape);
    }
    if let Some(Value::Array(values)) = object.get("enum") {
        shape.values = Some(values.clone());
        mark("enum", &mut shape);
    } else if let Some(value) = object.get("const") {
        shape.values = Some(vec![value.clone()]);
        shape.keywords.insert("enum", at.key("const"));
    }
    read_applicators(at, object, &mut shape);
    if let Some(Value::Object(not)) = object.get("not") {
        match (not.get("enum"), not.get("const")) {
            (Some(Value::Array(values)), _) => shape.excluded.extend(values.iter().cloned()),
            (_, Some(value)) => shape.excluded.push(value.clone()),
            _ => {}
        }
    }
    for keyword in ["oneOf", "anyOf"] {
        if let Some(Value::Array(members)) = object.get(keyword) {
            let base = at.key(keyword);
            shape.alternatives = Some((0..members.len()).map(|i| base.index(i)).collect());
            shape.keywords.insert("alternatives", base);
        }
    }
    read_object_keywords(at, object, &mut shape);
    shape.unique_items = object.get("uniqueItems") == Some(&Value::Bool(true));
    for keyword in LOWER_BOUNDS.into_iter().chain(UPPER_BOUNDS) {
        if let Some(bound) = object.get(keyword).and_then(Value::as_f64) {
            shape.bounds.insert(keyword, bound);
            mark(keyword, &mut shape);
        }
    }
    for keyword in TEXT_KEYWORDS {
        if let Some(value) = object.get(keyword) {
            let text = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_owned);
            shape.texts.insert(keyword, text);
            mark(keyword, &mut shape);
        }
    }
    shape
}

/// `multipleOf`, `not`, `if`/`then`/`else`.
fn read_applicators(at: &Location, object: &Map<String, Value>, shape: &mut Shape) {
    let is_schema = |v: &Value| v.is_object() || v.is_boolean();
    if let Some(multiple) = object.get("multipleOf").and_then(Value::as_f64) {
        shape.multiple_of = Some(multiple);
        shape.keywords.insert("multipleOf", at.key("multipleOf"));
    }
    if object.get("not").is_some_and(is_schema) {
        shape.not = Some(at.key("not"));
        shape.keywords.insert("not", at.key("not"));
    }
    for (i, keyword) in ["if", "then", "else"].into_iter().enumerate() {
        if object.get(keyword).is_some_and(is_schema) {
            shape.conditional[i] = Some(at.key(keyword));
            shape.keywords.insert(keyword, at.key(keyword));
        }
    }
}

fn read_object_keywords(at: &Location, object: &Map<String, Value>, shape: &mut Shape) {
    if let Some(Value::Object(properties)) = object.get("properties") {
        let base = at.key("properties");
        for name in properties.keys() {
            shape.properties.insert(name.clone(), base.key(name));
        }
        shape.keywords.insert("properties", base);
    }
    if let Some(Value::Object(patterns)) = object.get("patternProperties") {
        let base = at.key("patternProperties");
        for pattern in patterns.keys() {
            shape
                .pattern_properties
                .insert(pattern.clone(), base.key(pattern));
        }
        shape.keywords.insert("patternProperties", base);
    }
    if let Some(Value::Array(required)) = object.get("required") {
        shape
            .required
            .extend(required.iter().filter_map(Value::as_str).map(str::to_owned));
        shape.keywords.insert("required", at.key("required"));
    }
    shape.additional = match object.get("additionalProperties") {
        Some(Value::Bool(false)) => Additional::Forbidden,
        Some(Value::Object(_)) => Additional::Schema(at.key("additionalProperties")),
        _ => Additional::Any,
    };
    if object.contains_key("additionalProperties") {
        let place = at.key("additionalProperties");
        shape.keywords.insert("additionalProperties", place);
    }
    match object.get("items") {
        Some(Value::Object(_)) => shape.items = Some(at.key("items")),
        Some(Value::Array(items)) => {
            let base = at.key("items");
            shape.tuple = Some((0..items.len()).map(|i| base.index(i)).collect());
        }
        _ => {}
    }
    if object.contains_key("items") {
        shape.keywords.insert("items", at.key("items"));
    }
}

/// Merges an `allOf` member into the schema holding it: a value must satisfy both.
fn merge(shape: &mut Shape, member: Shape) {
    shape.types = match (shape.types.take(), member.types) {
        (Some(a), Some(b)) => Some(a.intersection(&b).cloned().collect()),
        (a, b) => a.or(b),
    };
    shape.values = match (shape.values.take(), member.values) {
        (Some(a), Some(b)) => Some(a.into_iter().filter(|v| b.contains(v)).collect()),
        (a, b) => a.or(b),
    };
    shape.excluded.extend(member.excluded);
    shape.alternatives = shape.alternatives.take().or(member.alternatives);
    for (name, at) in member.properties {
        shape.properties.entry(name).or_insert(at);
    }
    shape.required.extend(member.required);
    if shape.additional == Additional::Any {
        shape.additional = member.additional;
    }
    shape.items = shape.items.take().or(member.items);
    shape.tuple = shape.tuple.take().or(member.tuple);
    for (keyword, bound) in member.bounds {
        shape.bounds.entry(keyword).or_insert(bound);
    }
    for (keyword, text) in member.texts {
        shape.texts.entry(keyword).or_insert(text);
    }
    shape.multiple_of = shape.multiple_of.or(member.multiple_of);
    shape.not = shape.not.take().or(member.not);
    if shape.conditional[0].is_none() {
        shape.conditional = member.conditional;
    }
    for (pattern, at) in member.pattern_properties {
        shape.pattern_properties.entry(pattern).or_insert(at);
    }
    shape.unique_items |= member.unique_items;
    for (keyword, at) in member.keywords {
        shape.keywords.entry(keyword).or_insert(at);
    }
}

fn type_set(value: &Value) -> Option<BTreeSet<String>> {
    match value {
        Value::String(t) => Some(BTreeSet::from([t.clone()])),
        Value::Array(ts) => Some(
            ts.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        ),
        _ => None,
    }
}

/// The types a schema without `type` still implies: those of its values, or `object`
/// for members, `array` for items.
fn implied_types(shape: &Shape) -> Option<BTreeSet<String>> {
    if let Some(values) = &shape.values {
        return Some(values.iter().map(|v| json_type(v).to_owned()).collect());
    }
    if !shape.properties.is_empty()
        || !shape.pattern_properties.is_empty()
        || shape.additional != Additional::Any
    {
        return Some(BTreeSet::from(["object".to_owned()]));
    }
    (shape.items.is_some() || shape.tuple.is_some()).then(|| BTreeSet::from(["array".to_owned()]))
}

/// The JSON Schema type of `value` (an integral number, `1.0` too, is an `integer`).
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether the type set `types` lets a value of type `t` through (`number` covers
/// `integer`).
pub(crate) fn covers(types: &BTreeSet<String>, t: &str) -> bool {
    types.contains(t) || (t == "integer" && types.contains("number"))
}

impl Shape {
    /// A numeric bound as a count (`minItems`, `maxLength`, …); the mock's.
    pub(crate) fn count(&self, keyword: &str) -> Option<usize> {
        self.bounds.get(keyword).map(|b| *b as usize)
    }
}

impl Shape {
    /// The alternative at `at` of this union as a value meets it: the alternative's own
    /// keywords, with those written beside the union (an `allOf` member next to a
    /// `oneOf`, the union's own `properties`) merged in.
    pub(crate) fn branch(&self, resolver: &mut Resolver, at: &Location) -> Shape {
        let mut branch = Shape::read(resolver, at);
        let mut outer = self.clone();
        outer.alternatives = None;
        outer.keywords.remove("alternatives");
        merge(&mut branch, outer);
        if branch.types.is_none() {
            branch.types = implied_types(&branch);
        }
        branch
    }
}

/// What identifies the schema at `at` among alternatives: the name of every `$ref` along
/// its chain (`BROADCASTED_INVOKE_TXN`, then the `INVOKE_TXN_V3` it points to), then
/// the `title` of the schema the chain ends at.
pub(crate) fn identities(resolver: &mut Resolver, at: &Location) -> Vec<String> {
    let (mut names, end) = chain(resolver, at);
    if let Some(title) = resolver
        .get(&end)
        .and_then(|v| v.get("title"))
        .and_then(Value::as_str)
    {
        names.push(title.to_owned());
    }
    names
}

/// The name of every `$ref` along the chain from `at` (the identities a title aside:
/// two schemas may share a title, as Starknet's receipt and pending receipt unions do,
/// never a name).
pub(crate) fn reference_names(resolver: &mut Resolver, at: &Location) -> Vec<String> {
    chain(resolver, at).0
}

/// The name of every `$ref` along the chain from `at`, and where the chain ends.
fn chain(resolver: &mut Resolver, at: &Location) -> (Vec<String>, Location) {
    let mut names = Vec::new();
    let mut current = at.clone();
    for _ in 0..MAX_DEPTH {
        let Some(reference) = resolver.ref_at(&current).map(str::to_owned) else {
            break;
        };
        if let Some(name) = reference_name(resolver, &current) {
            names.push(name);
        }
        let Ok(next) = resolver.resolve_ref(&current, &reference) else {
            break;
        };
        current = next;
    }
    (names, current)
}
