//! View structs: every decision about the Rust text, made here so templates only lay out.

use serde::Serialize;

use super::case::{Case, rule_for, serde_spelling};
use super::checks::{Checks, ImplView, MemberNames, VariantNames};
use super::rust::{
    SerdeDerives, Spelling, Traits, derives, doc_attrs, eq_types, merge_serde, string_literal,
    ty_expr, type_docs,
};
use crate::naming::{Namer, field_name, type_name};
use crate::typespace::{
    Enum, Field, Kind, Payload, Struct, Tagging, Ty, TypeDef, TypeSpace, VariantHint,
};

/// The whole types module.
#[derive(Debug, Serialize)]
pub(crate) struct TypesFile {
    /// Items, sorted by name.
    pub(crate) items: Vec<Item>,
    /// Whether a field is required and nullable: the module then has the helper that
    /// makes serde refuse the field's absence (serde takes a missing `Option` as `None`).
    pub(crate) required_nullable: bool,
    /// Whether an optional field keeps `null` apart from absence: the module then has
    /// the helper that decodes a present member as `Some`, a `null` one too.
    pub(crate) present: bool,
    /// The `JsonSchema` impls (`json_schema(true)`), sorted by name; empty when off.
    pub(crate) json_schema: Vec<super::schema::JsonSchemaView>,
}

/// The helper named by required nullable fields (`deserialize_with`).
pub(crate) const REQUIRED_NULLABLE: &str = "required_nullable";
/// The helper named by optional fields that keep `null` apart from absence.
pub(crate) const PRESENT: &str = "present";

/// One named type. Exactly one `is_*` flag is set.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Item {
    pub(crate) name: String,
    pub(crate) docs: Vec<String>,
    pub(crate) attrs: Vec<String>,
    pub(crate) is_struct: bool,
    pub(crate) is_enum: bool,
    pub(crate) is_alias: bool,
    pub(crate) is_newtype: bool,
    pub(crate) is_int_enum: bool,
    pub(crate) fields: Vec<FieldView>,
    pub(crate) variants: Vec<VariantView>,
    /// The aliased or wrapped type.
    pub(crate) target: String,
    pub(crate) int_variants: Vec<IntVariant>,
    /// The accepted values, for the decode error message of an integer enum.
    pub(crate) expected: String,
    /// For an untagged enum, whose `Deserialize` is written out (to say why the nearest
    /// variant failed): its decoding name, as a string literal.
    pub(crate) untagged: Option<String>,
    /// Its `Validate` impl, when something checks it (see `checks`).
    pub(crate) validate: Option<ImplView>,
    /// For a struct the runtime writes and reads, what its `object!` is given (see
    /// `object`).
    pub(crate) object: Option<ObjectView>,
}

/// A struct's `object!`: where its schema is, whether unknown members are refused, and
/// its members.
#[derive(Debug, Serialize)]
pub(crate) struct ObjectView {
    /// The schema's place, as a string literal.
    pub(crate) place: String,
    pub(crate) deny_unknown: bool,
    pub(crate) members: Vec<MemberView>,
}

/// One member of an `object!`: `field = "wire" kind`.
#[derive(Debug, Serialize)]
pub(crate) struct MemberView {
    pub(crate) field: String,
    /// The JSON name, as a string literal.
    pub(crate) wire: String,
    /// `required`, `optional` or `present`: how the runtime reads, settles and writes it.
    pub(crate) kind: &'static str,
}

/// One field of a struct or struct variant.
#[derive(Debug, Serialize)]
pub(crate) struct FieldView {
    pub(crate) docs: Vec<String>,
    pub(crate) attrs: Vec<String>,
    /// `pub ` for struct fields, empty in enum variants.
    pub(crate) vis: String,
    pub(crate) name: String,
    pub(crate) ty: String,
}

/// One enum variant. At most one of `is_newtype`/`is_struct`.
#[derive(Debug, Serialize)]
pub(crate) struct VariantView {
    pub(crate) docs: Vec<String>,
    pub(crate) attrs: Vec<String>,
    pub(crate) name: String,
    pub(crate) is_newtype: bool,
    pub(crate) is_struct: bool,
    pub(crate) ty: String,
    pub(crate) fields: Vec<FieldView>,
}

/// One variant of an integer enum.
#[derive(Debug, Serialize)]
pub(crate) struct IntVariant {
    pub(crate) name: String,
    pub(crate) value: String,
}

/// The view of every type of a type space, with the `Validate` impls `checks` asks for.
pub(crate) fn types_file(space: &TypeSpace, checks: Option<&Checks<'_>>) -> TypesFile {
    let defs = space.defs();
    let eq = eq_types(defs);
    let spelling = Spelling::in_types(defs);
    let mut items: Vec<Item> = defs
        .iter()
        .zip(&eq)
        .enumerate()
        .filter(|(_, (def, _))| def.replaced_by.is_none())
        .map(|(index, (def, &eq))| {
            let mut item = item(def, eq, spelling);
            item.validate = checks.and_then(|c| validate_impl(c, index, &item));
            item
        })
        .collect();
    items.sort_by(|a, b| a.name.cmp(&b.name));
    TypesFile {
        required_nullable: uses_helper(&items, REQUIRED_NULLABLE),
        present: uses_helper(&items, PRESENT),
        items,
        json_schema: Vec::new(),
    }
}

/// The `Validate` impl of the def `index`, its members named as `item` names them.
fn validate_impl(checks: &Checks<'_>, index: usize, item: &Item) -> Option<ImplView> {
    let fields: Vec<String> = item.fields.iter().map(|f| f.name.clone()).collect();
    let variants: Vec<VariantNames> = item
        .variants
        .iter()
        .map(|v| VariantNames {
            name: v.name.clone(),
            fields: v.fields.iter().map(|f| f.name.clone()).collect(),
        })
        .collect();
    let names = MemberNames {
        fields: &fields,
        variants: &variants,
    };
    checks.impl_of(index, &names)
}

/// Whether a field of `items` decodes with the helper `name`.
fn uses_helper(items: &[Item], name: &str) -> bool {
    let helper = format!("deserialize_with = \"{name}\"");
    items.iter().any(|i| {
        let in_variants = i.variants.iter().flat_map(|v| &v.fields);
        i.fields
            .iter()
            .chain(in_variants)
            .any(|f| f.attrs.iter().any(|a| a.contains(&helper)))
    })
}

fn item(def: &TypeDef, eq: bool, spelling: Spelling<'_>) -> Item {
    let mut attrs = Vec::new();
    if def.docs.deprecated {
        attrs.push("#[deprecated]".to_owned());
    }
    let mut item = Item {
        name: def.name.clone(),
        docs: type_docs(&def.docs, &def.origin),
        ..Item::default()
    };
    match &def.kind {
        Kind::Struct(s) => struct_item(&mut item, &mut attrs, def, s, eq, spelling),
        Kind::Enum(e) => enum_item(&mut item, &mut attrs, def, e, eq, spelling),
        Kind::Never => {
            attrs.extend(derives(Traits {
                eq: true,
                copy: true,
                default: false,
                serde: SerdeDerives::Both,
            }));
            item.is_enum = true;
        }
        Kind::IntEnum(values) => int_enum(&mut item, &mut attrs, values),
        Kind::Alias(t) => {
            item.is_alias = true;
            item.target = ty_expr(t, spelling);
        }
        Kind::Newtype(t) => {
            attrs.extend(derives(Traits {
                eq,
                copy: false,
                default: false,
                serde: SerdeDerives::Both,
            }));
            attrs.push("#[serde(transparent)]".to_owned());
            item.is_newtype = true;
            item.target = ty_expr(t, spelling);
        }
    }
    if !def.derives.is_empty() && !item.is_alias {
        user_derives(def, &mut attrs);
    }
    item.attrs = merge_serde(attrs);
    item
}

/// A struct's fields and attributes, and its `object!` when the runtime writes and reads it.
fn struct_item(
    item: &mut Item,
    attrs: &mut Vec<String>,
    def: &TypeDef,
    s: &Struct,
    eq: bool,
    spelling: Spelling<'_>,
) {
    let by_runtime = runtime_reads_and_writes(def, s);
    let (fields, rule) = fields(s, "pub ", !by_runtime, by_runtime, spelling);
    item.object = by_runtime.then(|| object(def, s, &fields));
    attrs.extend(struct_attrs(def, s, eq, rule, by_runtime));
    item.is_struct = true;
    item.fields = fields;
}

/// An enum's variants and attributes; an untagged one's `Deserialize` is the runtime's
/// `untagged_enum!`.
fn enum_item(
    item: &mut Item,
    attrs: &mut Vec<String>,
    def: &TypeDef,
    e: &Enum,
    eq: bool,
    spelling: Spelling<'_>,
) {
    let copy = e.variants.iter().all(|v| v.payload == Payload::Unit);
    let untagged = e.tagging == Tagging::Untagged;
    attrs.extend(derives(Traits {
        eq,
        copy,
        default: false,
        serde: if untagged {
            SerdeDerives::Serialize
        } else {
            SerdeDerives::Both
        },
    }));
    attrs.extend(tagging(&e.tagging));
    item.is_enum = true;
    item.variants = variants(e, spelling);
    if untagged {
        item.untagged = Some(string_literal(&def.place));
    } else {
        attrs.push(serde_name(def));
    }
}

/// The derives the user added to the type (an override), and for schemars the type's
/// own name back: schemars names a schema after the serde name it decodes under, which
/// here carries the schema's place.
fn user_derives(def: &TypeDef, attrs: &mut Vec<String>) {
    attrs.push(format!("#[derive({})]", def.derives.join(", ")));
    let schemars = def.derives.iter().any(|d| d.ends_with("JsonSchema"));
    if schemars
        && attrs
            .iter()
            .any(|a| a.starts_with("#[serde(rename(deserialize"))
    {
        attrs.push(format!(
            "#[schemars(rename = {})]",
            string_literal(&def.name)
        ));
    }
}

/// The attributes of a struct: derives, and for serde's derives its decoding name,
/// `rename_all` (`rule`), `expecting` and `deny_unknown_fields` (only the derives when
/// the runtime's `object!` writes and reads it, `by_runtime`).
fn struct_attrs(
    def: &TypeDef,
    s: &Struct,
    eq: bool,
    rule: Option<Case>,
    by_runtime: bool,
) -> Vec<String> {
    let default = s.flattened.is_empty() && s.fields.iter().all(|f| !f.required);
    let mut attrs = derives(Traits {
        eq,
        copy: false,
        default,
        serde: if by_runtime {
            SerdeDerives::Neither
        } else {
            SerdeDerives::Both
        },
    });
    if by_runtime {
        return attrs;
    }
    attrs.push(serde_name(def));
    if let Some(rule) = rule {
        attrs.push(format!("#[serde(rename_all = \"{}\")]", rule.name()));
    }
    if !s.flattened.is_empty() || s.extra.is_some() {
        // serde decodes a struct with a flattened member as a map, without its name:
        // what it expects carries the schema's place instead.
        let expecting = format!("struct {}", serde_name_text(def));
        attrs.push(format!(
            "#[serde(expecting = {})]",
            string_literal(&expecting)
        ));
    }
    if s.deny_unknown {
        attrs.push("#[serde(deny_unknown_fields)]".to_owned());
    }
    attrs
}

/// Whether the runtime's `object!` writes and reads the struct (see [`object`]):
/// every member a field of its own (nothing flattened, no other names), and no derive
/// the document's user added (schemars reads serde's attributes).
fn runtime_reads_and_writes(def: &TypeDef, s: &Struct) -> bool {
    s.flattened.is_empty()
        && s.extra.is_none()
        && def.derives.is_empty()
        && s.fields.iter().all(|f| f.aliases.is_empty())
}

/// What the runtime's `object!` is given to write the struct's `Serialize` and
/// `Deserialize` (`templates/types/struct.hbs`). It writes one `visit_map` where serde's
/// derive writes a field enum with three visitors and a `visit_seq` besides (about half
/// the time the compiler spent on a type's `Deserialize`), and its `Serialize` from the
/// same list of members, so the struct and its fields carry no serde attribute.
fn object(def: &TypeDef, s: &Struct, fields: &[FieldView]) -> ObjectView {
    let members = s
        .fields
        .iter()
        .zip(fields)
        .map(|(f, view)| MemberView {
            field: view.name.clone(),
            wire: string_literal(&f.wire),
            kind: if f.keeps_null {
                "present"
            } else if absent_is_none(f) {
                "optional"
            } else {
                "required"
            },
        })
        .collect();
    ObjectView {
        place: string_literal(&def.place),
        deny_unknown: s.deny_unknown,
        members,
    }
}

/// The name serde gives the type when decoding: its Rust name, then where its schema is
/// written, which the runtime's decode errors name (`Pet @ #/components/schemas/Pet at
/// pets.json:18:7`; see `rpcsmith::protocol::mismatch`). Encoding keeps the Rust name.
fn serde_name_text(def: &TypeDef) -> String {
    format!("{} @ {}", def.name, def.place)
}

/// The attribute that gives the type its decoding name ([`serde_name_text`]).
fn serde_name(def: &TypeDef) -> String {
    format!(
        "#[serde(rename(deserialize = {}))]",
        string_literal(&serde_name_text(def))
    )
}

fn int_enum(item: &mut Item, attrs: &mut Vec<String>, values: &[i64]) {
    attrs.push("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]".to_owned());
    let mut namer = Namer::default();
    item.is_int_enum = true;
    item.int_variants = values
        .iter()
        .map(|v| IntVariant {
            name: namer.claim(&type_name(&v.to_string(), "V", "Variant")),
            value: format!("{v}_i64"),
        })
        .collect();
    let listed: Vec<String> = values.iter().map(i64::to_string).collect();
    item.expected = listed.join(", ");
}

fn tagging(t: &Tagging) -> Vec<String> {
    match t {
        Tagging::External => Vec::new(),
        Tagging::Internal(tag) => vec![format!("#[serde(tag = {})]", string_literal(tag))],
        Tagging::Adjacent { tag, content } => vec![format!(
            "#[serde(tag = {}, content = {})]",
            string_literal(tag),
            string_literal(content)
        )],
        Tagging::Untagged => vec!["#[serde(untagged)]".to_owned()],
    }
}

/// The fields of `s`, and the struct's `rename_all` ([`rule_for`]) when `renaming` lets
/// one spare their `rename`s.
fn fields(
    s: &Struct,
    vis: &str,
    renaming: bool,
    by_runtime: bool,
    spelling: Spelling<'_>,
) -> (Vec<FieldView>, Option<Case>) {
    let mut namer = Namer::default();
    let named: Vec<(String, &str)> = s
        .fields
        .iter()
        .map(|f| (namer.claim(&field_name(&f.wire)), f.wire.as_str()))
        .collect();
    let rule = if renaming { rule_for(&named) } else { None };
    let mut out: Vec<FieldView> = s
        .fields
        .iter()
        .zip(named)
        .map(|(f, (name, _))| field(f, name, vis, rule, by_runtime, spelling))
        .collect();
    for (i, t) in s.flattened.iter().enumerate() {
        let base = match t {
            Ty::Named(id) => spelling
                .defs
                .get(id.0)
                .map_or("flattened".to_owned(), |d| field_name(&d.name)),
            _ => format!("flattened_{i}"),
        };
        out.push(flat(namer.claim(&base), t, vis, spelling));
    }
    if let Some(t) = &s.extra {
        out.push(flat(
            namer.claim("extra"),
            &Ty::Map(Box::new(t.clone())),
            vis,
            spelling,
        ));
    }
    (out, rule)
}

fn flat(name: String, t: &Ty, vis: &str, spelling: Spelling<'_>) -> FieldView {
    FieldView {
        docs: Vec::new(),
        attrs: vec!["#[serde(flatten)]".to_owned()],
        vis: vis.to_owned(),
        name,
        ty: ty_expr(t, spelling),
    }
}

/// Whether the member `f` may be absent, decoded as `None` then and left out when
/// `None`: an optional member of an `Option` type (as serde's derive reads `default`).
fn absent_is_none(f: &Field) -> bool {
    !f.required && matches!(f.ty, Ty::Option(_))
}

/// The field `f`, named `name` in Rust; `by_runtime` when the runtime's `object!` writes
/// its struct's `Serialize` and `Deserialize` (see [`object`]): then it carries none of
/// serde's attributes.
fn field(
    f: &Field,
    name: String,
    vis: &str,
    rule: Option<Case>,
    by_runtime: bool,
    spelling: Spelling<'_>,
) -> FieldView {
    let mut attrs = if by_runtime {
        Vec::new()
    } else {
        serde_attrs(f, &name, rule, spelling)
    };
    if f.docs.deprecated {
        attrs.push("#[deprecated]".to_owned());
    }
    let mut text = f.docs.text.clone().unwrap_or_default();
    if let Some(default) = &f.default {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&format!("Defaults to `{default}` when absent."));
    }
    FieldView {
        docs: if text.is_empty() {
            Vec::new()
        } else {
            doc_attrs(&text)
        },
        attrs,
        vis: vis.to_owned(),
        name,
        ty: ty_expr(&f.ty, spelling),
    }
}

/// serde's attributes of the field `f`, named `name` in Rust, for its derives.
fn serde_attrs(f: &Field, name: &str, rule: Option<Case>, spelling: Spelling<'_>) -> Vec<String> {
    let mut attrs = Vec::new();
    if serde_spelling(name, rule) != f.wire {
        attrs.push(format!("#[serde(rename = {})]", string_literal(&f.wire)));
    }
    for alias in &f.aliases {
        attrs.push(format!("#[serde(alias = {})]", string_literal(alias)));
    }
    if f.keeps_null {
        attrs.push(format!(
            "#[serde(default, skip_serializing_if = \"{}::is_none\", deserialize_with = \"{PRESENT}\")]",
            spelling.option()
        ));
    } else if absent_is_none(f) {
        attrs.push(format!(
            "#[serde(default, skip_serializing_if = \"{}::is_none\")]",
            spelling.option()
        ));
    } else if f.required && matches!(f.ty, Ty::Option(_)) {
        attrs.push(format!(
            "#[serde(deserialize_with = \"{REQUIRED_NULLABLE}\")]"
        ));
    }
    attrs
}

fn variants(e: &Enum, spelling: Spelling<'_>) -> Vec<VariantView> {
    let mut namer = Namer::default();
    e.variants
        .iter()
        .map(|v| {
            let base = match &v.hint {
                VariantHint::Word(w) => type_name(w, "V", "Variant"),
                VariantHint::Type(id) => spelling
                    .defs
                    .get(id.0)
                    .map_or("Variant".to_owned(), |d| d.name.clone()),
            };
            let name = namer.claim(&base);
            let mut attrs = Vec::new();
            if let Some(wire) = v.wire.as_ref().filter(|w| **w != name) {
                attrs.push(format!("#[serde(rename = {})]", string_literal(wire)));
            }
            let (is_newtype, ty, is_struct, fields) = match &v.payload {
                Payload::Unit => (false, String::new(), false, Vec::new()),
                Payload::Newtype(t) => (true, ty_expr(t, spelling), false, Vec::new()),
                Payload::Struct(s) => (
                    false,
                    String::new(),
                    true,
                    self::fields(s, "", false, false, spelling).0,
                ),
            };
            VariantView {
                docs: v.docs.text.as_deref().map(doc_attrs).unwrap_or_default(),
                attrs,
                name,
                is_newtype,
                is_struct,
                ty,
                fields,
            }
        })
        .collect()
}
