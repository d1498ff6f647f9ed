//! The type space: every schema of a document as a language-neutral type.
//!
//! Each schema becomes one type, however many times it is referenced: identity is the
//! resolved [`Location`] of the schema, and identical inline schemas (same JSON text in
//! the same file) are merged. Records, sums and enumerations get a name ([`TypeDef`]);
//! strings, numbers, arrays and maps are used in place ([`Ty`]), except for component
//! schemas, which always keep their name (as an alias).
//!
//! The conversion itself is split by concern: `convert` (dispatch on the schema's
//! keywords, scalars, arrays), `structs` (objects), `enums` (`oneOf`/`anyOf`, `enum`,
//! `const`), `merge` (`allOf`), `cycles` (boxing, and types with no finite value),
//! `place` (names from where a schema sits) and `roots` (what the document reaches).

mod convert;
mod cycles;
mod deferred;
mod enums;
mod ints;
mod merge;
mod model;
mod names;
mod overrides;
mod place;
mod positions;
mod roots;
mod structs;
mod tagged;
mod undescribed;
mod validation;
#[cfg(test)]
mod validation_tests;
#[cfg(test)]
mod value_sites_tests;

use std::collections::HashMap;

use serde_json::Value;

use crate::document::Document;
use crate::error::Diagnostic;
use crate::resolve::{FileId, Location, Resolver};

pub(crate) use model::{
    Docs, Enum, Field, Int, Kind, Payload, Struct, Tagging, Ty, TypeDef, TypeId, Validation,
    VariantHint,
};
pub(crate) use positions::Positions;
pub(crate) use roots::MethodTypes;
pub(crate) use undescribed::undescribed;

/// A value found in the document (an example or a default) and the type it should fit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Example {
    /// The type the value belongs to.
    pub(crate) ty: Ty,
    /// The value.
    pub(crate) value: Value,
    /// Where it was written (`file#pointer`).
    pub(crate) origin: String,
}

/// Every type of one document, named and ready to render.
#[derive(Debug, Default)]
pub(crate) struct TypeSpace {
    defs: Vec<TypeDef>,
    methods: Vec<MethodTypes>,
    examples: Vec<Example>,
    diagnostics: Vec<Diagnostic>,
    fallbacks: usize,
    /// Where each def came from, by def index (for diagnostics about it).
    origins: Vec<Location>,
    /// The `line:col` of every place a def cites, and the methods' places.
    positions: Positions,
    /// Every schema whose type is `serde_json::Value`, in the order converted (read by
    /// the corpus test that no `Value` is silent).
    #[cfg(test)]
    value_sites: Vec<Location>,
}

/// Choices about the types that the document leaves open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) struct Shape {
    /// Keep the members an object schema allows without describing them (no
    /// `additionalProperties`: JSON Schema accepts any other member) in a flattened map
    /// of JSON values, so that a value re-encodes with them. Off by default: the struct
    /// has its listed fields only, and other members are dropped on decode.
    pub(crate) keep_undescribed: bool,
    /// Type `type: number` as `serde_json::Number` (exact: every digit kept, beyond
    /// 2^53 too) instead of `f64`. Off by default.
    pub(crate) exact_numbers: bool,
}

impl TypeSpace {
    /// Converts every schema reachable from a loaded document (methods' params, results,
    /// errors' `data`, and `components`), then names the types and breaks cycles.
    ///
    /// Problems are collected, not returned: see [`TypeSpace::diagnostics`].
    #[cfg(test)]
    pub(crate) fn build(document: &mut Document) -> TypeSpace {
        Self::build_with(document, Shape::default())
    }

    /// [`build`](Self::build), with the choices of `shape`.
    pub(crate) fn build_with(document: &mut Document, shape: Shape) -> TypeSpace {
        let Document {
            resolver,
            root,
            methods,
            ..
        } = document;
        let mut cx = Converter::new(resolver, *root);
        cx.shape = shape;
        cx.positions.file = cx
            .resolver
            .display_path(*root)
            .file_name()
            .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
        for m in methods.iter() {
            let place = cx.origin(&m.location);
            cx.positions.methods.insert(m.name.clone(), place);
        }
        let methods = roots::convert_document(&mut cx, *root, methods);
        let settled = cx.convert_deferred();
        let mut space = TypeSpace {
            defs: cx.defs,
            methods,
            examples: cx.examples,
            diagnostics: cx.diagnostics,
            fallbacks: cx.fallbacks,
            origins: cx.origins,
            positions: cx.positions,
            #[cfg(test)]
            value_sites: cx.value_sites,
        };
        deferred::settle(&mut space, settled);
        alias_ends(&mut space.defs);
        enums::order_untagged(&mut space.defs);
        names::settle(&mut space.defs, &space.methods);
        let cycle_errors = cycles::break_cycles(&mut space.defs, &space.origins, cx.resolver);
        space.diagnostics.extend(cycle_errors);
        space
    }

    /// The named types, in the order found.
    pub(crate) fn defs(&self) -> &[TypeDef] {
        &self.defs
    }

    /// Where each named type was generated from, by def index.
    pub(crate) fn origins(&self) -> &[Location] {
        &self.origins
    }

    /// The `line:col` of every place a named type cites, and the methods' places.
    pub(crate) fn positions(&self) -> &Positions {
        &self.positions
    }

    /// The named type `id`.
    pub(crate) fn def(&self, id: TypeId) -> Option<&TypeDef> {
        self.defs.get(id.0)
    }

    /// The types of each method's params, result and errors, in document order.
    pub(crate) fn methods(&self) -> &[MethodTypes] {
        &self.methods
    }

    /// Every example and default found, with the type it should fit.
    pub(crate) fn examples(&self) -> &[Example] {
        &self.examples
    }

    /// Errors and warnings found while converting, in the order found.
    pub(crate) fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// How many schemas fell back to `serde_json::Value` because they cannot be expressed.
    pub(crate) fn fallback_count(&self) -> usize {
        self.fallbacks
    }

    /// Where every schema typed `serde_json::Value` is (one that accepts any value, or a
    /// fallback, which has a warning at the same place), in the order converted.
    #[cfg(test)]
    pub(crate) fn value_sites(&self) -> &[Location] {
        &self.value_sites
    }
}

/// Makes every alias of an alias name the end of its chain (`type A0 = A4999;`, not
/// `A1`), so the compiler resolves any alias in one step however long the chain of
/// components; uses of an alias still name it (`BlockHash`, not `Hex`). Linear: each
/// chain is walked once.
fn alias_ends(defs: &mut [TypeDef]) {
    let mut end: Vec<Option<Ty>> = vec![None; defs.len()];
    for start in 0..defs.len() {
        let mut chain = Vec::new();
        let mut on_chain = std::collections::HashSet::new();
        let mut at = start;
        let found = loop {
            if let Some(known) = &end[at] {
                break known.clone();
            }
            match &defs[at].kind {
                Kind::Alias(Ty::Named(next)) if on_chain.insert(at) && next.0 != at => {
                    chain.push(at);
                    at = next.0;
                }
                _ => break Ty::Named(TypeId(at)),
            }
        };
        for link in chain {
            end[link] = Some(found.clone());
        }
    }
    for (def, end) in defs.iter_mut().zip(end) {
        if let (Kind::Alias(target @ Ty::Named(_)), Some(end)) = (&mut def.kind, end) {
            *target = end;
        }
    }
}

/// Where conversion of one location stands.
#[derive(Debug, Clone)]
enum Slot {
    /// Converted.
    Done(Ty),
    /// Being converted; holds the id reserved for it if a cycle came back to it.
    Busy(Option<TypeId>),
}

/// The state of one conversion run.
struct Converter<'r> {
    resolver: &'r mut Resolver,
    /// The document's own file (other files are named in origins).
    root: FileId,
    defs: Vec<TypeDef>,
    /// The location each def came from (for diagnostics), by def index.
    origins: Vec<Location>,
    slots: HashMap<Location, Slot>,
    /// Types reserved because a cycle came back to a schema that is not named by itself.
    placeholders: HashMap<Location, TypeId>,
    /// Identical inline schemas: `(file, JSON text)` → type.
    shapes: HashMap<(FileId, String), Ty>,
    /// `$defs`/`definitions` entries by `(file, key, JSON text)`: the first place of each.
    definitions: HashMap<(FileId, String, String), Location>,
    examples: Vec<Example>,
    diagnostics: Vec<Diagnostic>,
    fallbacks: usize,
    /// Every schema converted to `serde_json::Value`.
    value_sites: Vec<Location>,
    /// How many conversions are nested now (see `deferred`).
    depth: usize,
    /// The positions of the places the defs cite (see `positions`).
    positions: Positions,
    /// Schemas left for later because they sit too deep, with their placeholders.
    deferred: Vec<(Location, TypeId)>,
    /// The choices the document leaves open.
    shape: Shape,
    /// The `pattern`s outside the supported subset, warned about once each.
    refused_patterns: std::collections::HashSet<Location>,
}

impl<'r> Converter<'r> {
    fn new(resolver: &'r mut Resolver, root: FileId) -> Self {
        Converter {
            resolver,
            root,
            placeholders: HashMap::new(),
            defs: Vec::new(),
            origins: Vec::new(),
            slots: HashMap::new(),
            shapes: HashMap::new(),
            definitions: HashMap::new(),
            examples: Vec::new(),
            diagnostics: Vec::new(),
            fallbacks: 0,
            value_sites: Vec::new(),
            depth: 0,
            deferred: Vec::new(),
            positions: Positions::default(),
            shape: Shape::default(),
            refused_patterns: Default::default(),
        }
    }

    /// Reserves a named type for the schema at `at`, to be filled in later.
    fn reserve(&mut self, at: &Location) -> TypeId {
        let id = TypeId(self.defs.len());
        let schema = self.resolver.get(at).cloned_shallow();
        let candidates = place::candidates(self.resolver, self.root, at, &schema);
        let validation = self.validation(at);
        self.defs.push(TypeDef {
            name: String::new(),
            candidates,
            origin: self.origin(at),
            place: self.place(at),
            docs: Docs::of(&schema),
            validation,
            kind: Kind::Never,
            replaced_by: None,
            derives: Vec::new(),
            sites: Vec::new(),
        });
        self.origins.push(at.clone());
        self.record_position(at);
        id
    }

    /// Records the `line:col` of `at`, under the place generated code cites it by.
    fn record_position(&mut self, at: &Location) {
        let position = self.resolver.position(at);
        let place = self.place(at);
        self.positions.places.insert(place, position);
    }

    /// `file#pointer` of `at` for generated docs and reports: `#pointer` in the document,
    /// and other files relative to the document's directory (so the output does not
    /// depend on the directory the generator runs in).
    fn origin(&self, at: &Location) -> String {
        if at.file == self.root {
            return format!("#{}", at.pointer);
        }
        let file = self.resolver.display_path(at.file);
        let base = self
            .resolver
            .display_path(self.root)
            .parent()
            .unwrap_or(std::path::Path::new(""));
        let shown = file.strip_prefix(base).unwrap_or(file);
        let shown: Vec<String> = shown
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        format!("{}#{}", shown.join("/"), at.pointer)
    }

    /// Where decode errors say the schema at `at` is: its [`origin`](Self::origin)
    /// (`#/components/schemas/Pet`, `other.json#/…`). No `file:line:col`: generated code
    /// carries no file position, so a document reformatted (whitespace only) generates
    /// the same code.
    fn place(&self, at: &Location) -> String {
        self.origin(at)
    }

    /// Fills in a reserved type.
    fn define(&mut self, id: TypeId, kind: Kind) {
        if let Some(def) = self.defs.get_mut(id.0) {
            def.kind = kind;
        }
    }

    /// Records a warning at `at`.
    fn warn(&mut self, at: &Location, message: impl Into<String>) {
        let d = self.resolver.warning_at(at, message);
        self.diagnostics.push(d);
    }

    /// Records an error at `at`.
    fn error(&mut self, at: &Location, message: impl Into<String>) {
        let d = self.resolver.error_at(at, message);
        self.diagnostics.push(d);
    }

    /// Records a fallback to `serde_json::Value`, with the reason, and returns it.
    fn fallback(&mut self, at: &Location, why: &str) -> Ty {
        self.fallbacks += 1;
        self.warn(at, format!("{why}: generated as serde_json::Value"));
        Ty::Value
    }

    /// Follows `$ref`s from `at`; an unresolvable one is recorded and gives `None`.
    fn deref(&mut self, at: &Location) -> Option<Location> {
        match self.resolver.deref(at) {
            Ok(l) => Some(l),
            Err(d) => {
                self.diagnostics.push(d);
                None
            }
        }
    }
}

/// A copy of a schema object without its children's contents: enough to read keywords.
trait ShallowClone {
    fn cloned_shallow(self) -> Value;
}

impl ShallowClone for Option<&Value> {
    fn cloned_shallow(self) -> Value {
        match self {
            Some(Value::Object(map)) => Value::Object(
                map.iter()
                    .map(|(k, v)| {
                        let v = match v {
                            Value::Object(_) | Value::Array(_) if !is_small(k) => Value::Null,
                            other => other.clone(),
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            ),
            Some(other) => other.clone(),
            None => Value::Null,
        }
    }
}

/// Keywords whose array/object values are small and read in full (`type`, `enum`, …).
fn is_small(keyword: &str) -> bool {
    matches!(
        keyword,
        "type" | "enum" | "required" | "const" | "examples" | "default"
    )
}

/// The base of a method's item names (`eth_getBalance` → `EthGetBalance`), as the
/// service model names them.
pub(crate) fn method_base(wire: &str) -> String {
    let rust = crate::naming::field_name(wire);
    crate::naming::type_name(rust.trim_start_matches("r#"), "T", "Method")
}
