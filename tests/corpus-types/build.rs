//! Runs the generator on every corpus document, read in place, into `OUT_DIR`, and writes
//! `corpus.rs`: a module per document (types, client and server) and a table of its
//! examples with their types.

use std::fmt::Write as _;
use std::path::Path;

use std::collections::BTreeSet;

use rpcsmith_build::typespace::{Field, Kind, Payload, Struct, Tagging, Ty, TypeSpace};
use rpcsmith_build::{Settings, generate, load_document};
use rpcsmith_corpus as corpus;
use serde_json::Value;

fn main() {
    println!("cargo:rerun-if-env-changed=RPCSMITH_CORPUS_DIR");
    println!("cargo:rerun-if-env-changed=RPCSMITH_REQUIRE_CORPUS");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let out_dir = Path::new(&out_dir);
    let mut table = String::new();
    let mut modules = String::new();
    let present = match corpus::dir() {
        Some(dir) => {
            for (id, doc) in corpus::DOCUMENTS {
                generate_one(&dir, id, doc, out_dir, &mut modules, &mut table);
            }
            true
        }
        None => {
            println!("cargo:warning=OpenRPC corpus not found: the corpus-types crate is empty");
            false
        }
    };
    let text = format!(
        "/// Whether the corpus was found when this crate was built.\npub const CORPUS_PRESENT: bool = {present};\n{modules}\n/// Every document, with its examples.\npub static DOCUMENTS: &[Document] = &[\n{table}];\n"
    );
    std::fs::write(out_dir.join("corpus.rs"), text).expect("write corpus.rs");
}

fn generate_one(
    dir: &Path,
    id: &str,
    doc: &str,
    out_dir: &Path,
    modules: &mut String,
    table: &mut String,
) {
    let mut settings = Settings::default();
    for inc in corpus::include_dirs(doc) {
        settings.load = settings.load.include_dir(dir.join(inc));
    }
    let module = id.to_lowercase();
    let file = format!("{module}.rs");
    let started = std::time::Instant::now();
    let report = generate(dir.join(doc), &settings).unwrap_or_else(|e| panic!("{id} {doc}:\n{e}"));
    let generation_ms = started.elapsed().as_millis();
    let path = out_dir.join(&file);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(report.source.as_str()) {
        std::fs::write(&path, &report.source).expect("write the generated module");
    }
    for f in &report.files_read {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    let _ = writeln!(
        modules,
        "#[doc = \"Types, client and server of `{doc}`.\"]\npub mod {module} {{\n    include!(concat!(env!(\"OUT_DIR\"), \"/{file}\"));\n}}"
    );
    // Both globs at once name each item once: a result alias that shared a name with a
    // type would be an ambiguous glob re-export (denied with the other warnings).
    let _ = writeln!(
        modules,
        "#[doc = \"The module and its types through two globs.\"]\n#[allow(unused_imports, unreachable_pub)]\npub mod {module}_globs {{\n    pub use super::{module}::*;\n    pub use super::{module}::types::*;\n}}"
    );
    let undescribed = undescribed(&dir.join(doc), &settings);
    assert_eq!(
        undescribed.len(),
        report.examples.len(),
        "{id}: examples differ"
    );
    let mut examples = String::new();
    for (e, (origin, may_drop)) in report.examples.iter().zip(&undescribed) {
        assert_eq!(&e.origin, origin, "{id}: examples differ");
        let ty = e
            .rust_type
            .replace("types::", &format!("{module}::types::"));
        let json = serde_json::to_string(&e.value).expect("a JSON value serializes");
        let _ = writeln!(
            examples,
            "        Example {{ origin: {:?}, json: {json:?}, round_trip: round_trip::<{ty}>, undescribed: &{may_drop:?} }},",
            e.origin
        );
    }
    let _ = writeln!(
        table,
        "    Document {{ id: {id:?}, path: {doc:?}, methods: {}, types: {}, fallbacks: {}, warnings: {}, generation_ms: {generation_ms}, source_bytes: {}, examples: &[\n{examples}    ] }},",
        report.methods,
        report.types,
        report.fallbacks,
        report.warnings.len(),
        report.source.len()
    );
}

/// For each example of the document (in the order the generator reports them), the
/// places in its value of the members no generated type keeps: members of an object
/// whose struct does not list them and keeps no others (`additionalProperties`
/// unspecified), and members `null` where an optional field's schema does not allow
/// `null` (decoded as absent). Under a sum, a member is such only when no variant lists
/// it.
fn undescribed(path: &Path, settings: &Settings) -> Vec<(String, Vec<String>)> {
    let mut document = load_document(path, &settings.load).expect("loaded once already");
    let space = TypeSpace::build(&mut document);
    space
        .examples()
        .iter()
        .map(|e| {
            let mut found = BTreeSet::new();
            walk(&space, &e.ty, &e.value, String::new(), &mut found, 0);
            (e.origin.clone(), found.into_iter().collect())
        })
        .collect()
}

fn walk(
    space: &TypeSpace,
    ty: &Ty,
    value: &Value,
    at: String,
    out: &mut BTreeSet<String>,
    depth: usize,
) {
    if depth > 64 {
        return;
    }
    match (ty, value) {
        (Ty::Option(t) | Ty::Box(t), _) => walk(space, t, value, at, out, depth + 1),
        (Ty::Vec(t) | Ty::Array(t, _), Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                walk(space, t, item, format!("{at}/{i}"), out, depth + 1);
            }
        }
        (Ty::Tuple(ts), Value::Array(items)) => {
            for (i, (t, item)) in ts.iter().zip(items).enumerate() {
                walk(space, t, item, format!("{at}/{i}"), out, depth + 1);
            }
        }
        (Ty::Map(t), Value::Object(members)) => {
            for (k, v) in members {
                walk(space, t, v, format!("{at}/{k}"), out, depth + 1);
            }
        }
        (Ty::Named(id), _) => match space.def(*id).map(|d| &d.kind) {
            Some(Kind::Alias(t) | Kind::Newtype(t)) => walk(space, t, value, at, out, depth + 1),
            Some(Kind::Struct(s)) => members(space, &[s], value, &at, out, depth),
            Some(Kind::Enum(e)) => {
                let structs: Vec<&Struct> = e
                    .variants
                    .iter()
                    .filter_map(|v| match &v.payload {
                        Payload::Struct(s) => Some(s),
                        _ => None,
                    })
                    .collect();
                if !structs.is_empty() {
                    members(space, &structs, value, &at, out, depth);
                }
                for v in &e.variants {
                    match (&v.payload, &v.wire, &e.tagging) {
                        (Payload::Newtype(t), Some(key), Tagging::External) => {
                            if let Some(inner) = value.get(key) {
                                walk(space, t, inner, format!("{at}/{key}"), out, depth + 1);
                            }
                        }
                        (Payload::Newtype(t), _, Tagging::Untagged) => {
                            walk(space, t, value, at.clone(), out, depth + 1)
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        },
        _ => {}
    }
}

/// The members of the object `value` that none of `structs` lists (when none keeps
/// others), and those inside the members they list.
fn members(
    space: &TypeSpace,
    structs: &[&Struct],
    value: &Value,
    at: &str,
    out: &mut BTreeSet<String>,
    depth: usize,
) {
    let Value::Object(object) = value else { return };
    let keeps_others = structs
        .iter()
        .any(|s| s.extra.is_some() || !s.flattened.is_empty());
    for (k, v) in object {
        let listed: Vec<&Field> = structs
            .iter()
            .flat_map(|s| s.fields.iter().filter(|f| f.wire == *k))
            .collect();
        // A `null` the schema does not allow, given to an optional member, decodes as
        // its absence (serde's `Option` is lenient there).
        let lenient_null = v.is_null() && listed.iter().any(|f| !f.required && !f.keeps_null);
        if (listed.is_empty() && !keeps_others) || lenient_null {
            out.insert(format!("{at}/{k}"));
        }
        let fields: Vec<&Ty> = listed.iter().map(|f| &f.ty).collect();
        for ty in fields {
            walk(space, ty, v, format!("{at}/{k}"), out, depth + 1);
        }
    }
}
