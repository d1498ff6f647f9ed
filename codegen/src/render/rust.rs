//! Spelling model pieces as Rust source text: type expressions, doc attributes,
//! string literals, derives.

use crate::typespace::{Docs, Int, Kind, Payload, Ty, TypeDef};

/// The absolute path of serde, for `#[serde(crate = ..)]` (a string serde resolves
/// inside the code it derives).
const SERDE_CRATE: &str = "::rpcsmith::__private::serde";

/// How type expressions name what they are made of, for the module they are written in.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spelling<'a> {
    /// The document's types.
    pub(crate) defs: &'a [TypeDef],
    /// Before the name of each of `defs`: `types::`, or nothing inside `types`.
    prefix: &'static str,
    /// std's types by their prelude names (`Option`, `Vec`, `String`, `Box`), else by
    /// their full paths.
    prelude: bool,
    /// The runtime's `__private`: `__rt` inside the generated module (its `use`), the
    /// full path outside.
    runtime: &'static str,
}

/// The std types generated code names by their prelude names where nothing shadows them.
const PRELUDE_TYPES: &[&str] = &["Option", "Vec", "String", "Box"];

impl<'a> Spelling<'a> {
    /// Inside the `types` module: a generated type named like a prelude type (`String`)
    /// shadows it there, and std's types are then named by their full paths.
    pub(crate) fn in_types(defs: &'a [TypeDef]) -> Self {
        let shadowed = defs
            .iter()
            .any(|d| d.replaced_by.is_none() && PRELUDE_TYPES.contains(&d.name.as_str()));
        Spelling {
            defs,
            prefix: "",
            prelude: !shadowed,
            runtime: "__rt",
        }
    }

    /// Beside the `types` module, among the params, results, errors, client and server:
    /// every name there ends in a suffix (`Params`, `Client`, …), so none shadows the
    /// prelude.
    pub(crate) fn beside_types(defs: &'a [TypeDef]) -> Self {
        Spelling {
            defs,
            prefix: "types::",
            prelude: true,
            runtime: "__rt",
        }
    }

    /// In the user's code, beside the module (`types::Name`), where anything may be
    /// shadowed.
    pub(crate) fn outside(defs: &'a [TypeDef]) -> Self {
        Spelling {
            defs,
            prefix: "types::",
            prelude: false,
            runtime: "::rpcsmith::__private",
        }
    }

    /// `Option`, or its full path.
    pub(crate) fn option(self) -> &'static str {
        if self.prelude {
            "Option"
        } else {
            "::std::option::Option"
        }
    }

    fn string(self) -> &'static str {
        if self.prelude {
            "String"
        } else {
            "::std::string::String"
        }
    }
}

/// A Rust type expression for `ty`, written as `spelling` says.
pub(crate) fn ty_expr(ty: &Ty, spelling: Spelling<'_>) -> String {
    let expr = |t: &Ty| ty_expr(t, spelling);
    let std = |short: &str, full: &str, t: &Ty| {
        let path = if spelling.prelude { short } else { full };
        format!("{path}<{}>", expr(t))
    };
    // Inside the module through `__rt`, its name for the runtime (templates/module.hbs).
    let json = format!("{}::serde_json", spelling.runtime);
    match ty {
        Ty::Value => format!("{json}::Value"),
        Ty::Object => format!("{json}::Map<{}, {json}::Value>", spelling.string()),
        Ty::Unit => "()".to_owned(),
        Ty::Bool => "bool".to_owned(),
        Ty::String => spelling.string().to_owned(),
        Ty::Int(i) => int_expr(*i).to_owned(),
        Ty::Number => format!("{json}::Number"),
        Ty::Float => "f64".to_owned(),
        Ty::Named(id) => spelling.defs.get(id.0).map_or_else(
            || "()".to_owned(),
            |d| match &d.replaced_by {
                Some(path) => path.clone(),
                None => format!("{}{}", spelling.prefix, d.name),
            },
        ),
        Ty::Option(t) => std("Option", "::std::option::Option", t),
        Ty::Vec(t) => std("Vec", "::std::vec::Vec", t),
        Ty::Array(t, n) => format!("[{}; {n}]", expr(t)),
        Ty::Tuple(ts) => {
            let inner: Vec<String> = ts.iter().map(expr).collect();
            format!("({},)", inner.join(", "))
        }
        Ty::Map(t) => format!(
            "::std::collections::BTreeMap<{}, {}>",
            spelling.string(),
            expr(t)
        ),
        Ty::Box(t) => std("Box", "::std::boxed::Box", t),
    }
}

fn int_expr(i: Int) -> &'static str {
    match i {
        Int::I8 => "i8",
        Int::I16 => "i16",
        Int::I32 => "i32",
        Int::I64 => "i64",
        Int::I128 => "i128",
        Int::U8 => "u8",
        Int::U16 => "u16",
        Int::U32 => "u32",
        Int::U64 => "u64",
        Int::U128 => "u128",
    }
}

/// A Rust string literal holding `s`.
pub(crate) fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `text` made safe to appear inside a Rust string literal, in backticks in docs.
pub(crate) fn literal_text(text: &str) -> String {
    let literal = string_literal(&text.replace('`', "'"));
    literal[1..literal.len() - 1].to_owned()
}

/// `#[doc = "…"]` attributes for a text, one per line, made safe for rustdoc: code
/// fences become `text` blocks (never doctests), indentation that would start an
/// indented code block is cut to three spaces.
pub(crate) fn doc_attrs(text: &str) -> Vec<String> {
    doc_lines(text).iter().map(|line| doc_line(line)).collect()
}

/// The text [`doc_attrs`] documents, as one string: its lines, each but an empty one
/// after a space, joined by newlines (as rustdoc joins the attributes).
pub(crate) fn doc_text(text: &str) -> String {
    let lines: Vec<String> = doc_lines(text)
        .into_iter()
        .map(|line| {
            if line.is_empty() {
                line
            } else {
                format!(" {line}")
            }
        })
        .collect();
    lines.join("\n")
}

/// The lines of a doc text, made safe for rustdoc (see [`doc_attrs`]).
fn doc_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for raw in text.lines() {
        let line = raw.replace('\t', "    ");
        let line = line.trim_end();
        let trimmed = line.trim_start();
        let shown = if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            if in_fence {
                "```text".to_owned()
            } else {
                "```".to_owned()
            }
        } else if in_fence {
            line.to_owned()
        } else {
            let indent = (line.len() - trimmed.len()).min(3);
            format!("{}{trimmed}", " ".repeat(indent))
        };
        out.push(shown);
    }
    if in_fence {
        out.push("```".to_owned());
    }
    out
}

fn doc_line(line: &str) -> String {
    if line.is_empty() {
        "#[doc = \"\"]".to_owned()
    } else {
        format!("#[doc = {}]", string_literal(&format!(" {line}")))
    }
}

/// Doc attributes for a type: its docs, then where it came from.
pub(crate) fn type_docs(docs: &Docs, origin: &str) -> Vec<String> {
    let mut out = docs.text.as_deref().map(doc_attrs).unwrap_or_default();
    if !out.is_empty() {
        out.push(doc_line(""));
    }
    out.extend(doc_attrs(&format!(
        "Generated from `{}`.",
        origin.replace('`', "'")
    )));
    out
}

/// Whether each type can derive `Eq`.
///
/// A replacement (not known to be `Eq`) is not,
/// and neither is any type that names one that is not: propagated backwards along the
/// names, each type visited once.
pub(crate) fn eq_types(defs: &[TypeDef]) -> Vec<bool> {
    let mut eq = vec![true; defs.len()];
    let mut named_by: Vec<Vec<usize>> = vec![Vec::new(); defs.len()];
    let mut not_eq = Vec::new();
    for (i, def) in defs.iter().enumerate() {
        let mut names = Vec::new();
        for ty in kind_tys(&def.kind) {
            ty_parts(ty, &mut names);
        }
        for n in names.into_iter().filter(|&n| n < defs.len()) {
            named_by[n].push(i);
        }
        // A replacement is not known to be `Eq`; an `f64` is not.
        if def.replaced_by.is_some() || kind_tys(&def.kind).into_iter().any(holds_float) {
            eq[i] = false;
            not_eq.push(i);
        }
    }
    while let Some(t) = not_eq.pop() {
        for &i in &named_by[t] {
            if eq[i] {
                eq[i] = false;
                not_eq.push(i);
            }
        }
    }
    eq
}

/// Every type `kind` holds.
fn kind_tys(kind: &Kind) -> Vec<&Ty> {
    fn of_struct<'k>(s: &'k crate::typespace::Struct, out: &mut Vec<&'k Ty>) {
        out.extend(s.fields.iter().map(|x| &x.ty));
        out.extend(&s.flattened);
        out.extend(&s.extra);
    }
    let mut out = Vec::new();
    match kind {
        Kind::Struct(s) => of_struct(s, &mut out),
        Kind::Enum(e) => {
            for v in &e.variants {
                match &v.payload {
                    Payload::Unit => {}
                    Payload::Newtype(t) => out.push(t),
                    Payload::Struct(s) => of_struct(s, &mut out),
                }
            }
        }
        Kind::Alias(t) | Kind::Newtype(t) => out.push(t),
        Kind::IntEnum(_) | Kind::Never => {}
    }
    out
}

/// Whether `ty` holds an `f64` (not through a named type).
fn holds_float(ty: &Ty) -> bool {
    match ty {
        Ty::Float => true,
        Ty::Option(t) | Ty::Vec(t) | Ty::Array(t, _) | Ty::Map(t) | Ty::Box(t) => holds_float(t),
        Ty::Tuple(ts) => ts.iter().any(holds_float),
        _ => false,
    }
}

/// Collects the named types in `ty`.
fn ty_parts(ty: &Ty, names: &mut Vec<usize>) {
    match ty {
        Ty::Named(id) => names.push(id.0),
        Ty::Option(t) | Ty::Vec(t) | Ty::Array(t, _) | Ty::Map(t) | Ty::Box(t) => {
            ty_parts(t, names);
        }
        Ty::Tuple(ts) => ts.iter().for_each(|t| ty_parts(t, names)),
        _ => {}
    }
}

/// Which optional traits a type derives (beyond `Debug`, `Clone`, `PartialEq` and serde).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Traits {
    /// `Eq` (no replacement inside, which may not be `Eq`).
    pub(crate) eq: bool,
    /// `Copy` and `Hash` (unit-only enums).
    pub(crate) copy: bool,
    /// `Default` (structs whose fields are all optional).
    pub(crate) default: bool,
    /// Which of serde's traits are derived.
    pub(crate) serde: SerdeDerives,
}

/// Which of serde's traits a type derives; the others are written for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum SerdeDerives {
    /// `Serialize` and `Deserialize`.
    #[default]
    Both,
    /// `Serialize`: `Deserialize` is written out (untagged enums).
    Serialize,
    /// Neither: the runtime's `object!` writes both (see `view::object`); the type then
    /// carries no serde attribute.
    Neither,
}

/// The derive attribute, and serde's crate attribute when serde derives anything.
pub(crate) fn derives(traits: Traits) -> Vec<String> {
    let Traits {
        eq,
        copy,
        default,
        serde,
    } = traits;
    // The prelude's derive macros live in the macro namespace: a generated type named
    // `Debug` or `Default` does not shadow them.
    let mut names = vec!["Debug", "Clone"];
    if default {
        names.push("Default");
    }
    if copy {
        names.push("Copy");
    }
    names.push("PartialEq");
    if eq {
        names.push("Eq");
    }
    if copy {
        names.push("Hash");
    }
    let mut all: Vec<String> = names.into_iter().map(str::to_owned).collect();
    // serde's derive macros as the runtime's door re-exports them (`__rt::Serialize`):
    // the derive list then fits one line.
    if serde != SerdeDerives::Neither {
        all.push("__rt::Serialize".to_owned());
    }
    if serde == SerdeDerives::Both {
        all.push("__rt::Deserialize".to_owned());
    }
    let derive = format!("#[derive({})]", all.join(", "));
    if serde == SerdeDerives::Neither {
        return vec![derive];
    }
    vec![derive, format!("#[serde(crate = \"{SERDE_CRATE}\")]")]
}

/// The attributes `attrs` with every `#[serde(..)]` among them merged into one, where
/// the first stood (after the derive that declares it): one attribute for serde to parse
/// instead of several. Others keep their order. (Used for a type's own attributes; a
/// field's stay apart, where one merged attribute would be wrapped over more lines.)
pub(crate) fn merge_serde(attrs: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(attrs.len());
    let mut merged: Option<(usize, Vec<String>)> = None;
    for attr in attrs {
        match attr
            .strip_prefix("#[serde(")
            .and_then(|a| a.strip_suffix(")]"))
        {
            Some(inner) => match &mut merged {
                Some((_, parts)) => parts.push(inner.to_owned()),
                None => {
                    merged = Some((out.len(), vec![inner.to_owned()]));
                    out.push(String::new());
                }
            },
            None => out.push(attr),
        }
    }
    if let Some((at, parts)) = merged {
        out[at] = format!("#[serde({})]", parts.join(", "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_escape_quotes_and_controls() {
        assert_eq!(string_literal("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u{1}\"");
    }

    #[test]
    fn serde_attributes_merge_into_the_first() {
        let attrs = [
            "#[derive(Debug)]",
            "#[serde(crate = \"c\")]",
            "#[doc = \"x\"]",
            "#[serde(deny_unknown_fields)]",
        ];
        assert_eq!(
            merge_serde(attrs.map(str::to_owned).to_vec()),
            [
                "#[derive(Debug)]",
                "#[serde(crate = \"c\", deny_unknown_fields)]",
                "#[doc = \"x\"]",
            ]
        );
        assert_eq!(
            merge_serde(vec!["#[deprecated]".to_owned()]),
            ["#[deprecated]"]
        );
    }

    #[test]
    fn docs_never_become_doctests() {
        let lines = doc_attrs("Intro\n```\nlet x = 1;\n```\n\n        indented");
        assert_eq!(
            lines,
            [
                "#[doc = \" Intro\"]",
                "#[doc = \" ```text\"]",
                "#[doc = \" let x = 1;\"]",
                "#[doc = \" ```\"]",
                "#[doc = \"\"]",
                "#[doc = \"    indented\"]",
            ]
        );
    }

    #[test]
    fn a_doc_text_is_what_its_attributes_document() {
        let text = "Intro\n```\nlet x = 1;\n```\n\n        indented";
        assert_eq!(
            doc_text(text),
            " Intro\n ```text\n let x = 1;\n ```\n\n    indented"
        );
    }
}
