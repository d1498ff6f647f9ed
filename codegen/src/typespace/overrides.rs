//! The user's overrides of generated types: rename, replace with an existing Rust type,
//! extra derives; and of their fields, for a reality that deviates from its document: a
//! required property made optional, other member names accepted on decode. Each keyed
//! by the schema's JSON pointer.

use std::collections::BTreeMap;
use std::path::Path;

use super::{Kind, Ty, TypeSpace};
use crate::error::Diagnostic;
use crate::resolve::{FileId, Resolver};
use crate::settings::Override;

/// The key that applies an override's derives to every generated type.
pub(crate) const EVERY_TYPE: &str = "*";

impl TypeSpace {
    /// Applies `overrides` to the named types and their fields. A key is the schema's JSON
    /// pointer in the document (`/components/schemas/Pet`, or `#/components/schemas/Pet`),
    /// `file#pointer` for a schema in another file (the file relative to the document, or
    /// as diagnostics name it), or `*` for every type (derives only). Rename, replace and
    /// derives apply to a type; `optional` and aliases to a property
    /// (`/components/schemas/Pet/properties/id`). A schema written identically in several
    /// places has one type: the pointer of any of them names it.
    ///
    /// Returns the problems: a key that matches nothing (a warning: the document may have
    /// changed under it), a name or path that is not Rust, a rename onto a name already
    /// taken, a rename or replacement under `*`, a type's override on a property or a
    /// property's on a type.
    pub(crate) fn apply_overrides(
        &mut self,
        resolver: &Resolver,
        root: FileId,
        overrides: &BTreeMap<String, Override>,
    ) -> Vec<Diagnostic> {
        let document = resolver.display_path(root).to_path_buf();
        let mut problems = Vec::new();
        for (key, o) in overrides {
            let at_key =
                |message: String| Diagnostic::error(&document, (0, 0), key.as_str(), message);
            if let Some(problem) = check(o) {
                problems.push(at_key(format!("override {key:?}: {problem}")));
                continue;
            }
            if key == EVERY_TYPE {
                if let Err(message) = self.apply_to_every_type(o) {
                    problems.push(at_key(message.to_owned()));
                }
                continue;
            }
            let wanted = match key.strip_prefix('/') {
                Some(_) => format!("#{key}"),
                None => key.clone(),
            };
            let found = |origin: &str| origin == wanted || relative(origin, &document) == wanted;
            if let Some(index) = self
                .defs
                .iter()
                .position(|d| found(&d.origin) || d.sites.iter().any(|s| found(s)))
            {
                problems.extend(self.apply_to_type(index, key, o, resolver));
                continue;
            }
            let fields = self.fields_at(&found);
            if fields.is_empty() {
                let message = self.unmatched(key, &wanted);
                problems.push(Diagnostic::warning(
                    &document,
                    (0, 0),
                    key.as_str(),
                    message,
                ));
            } else if is_for_type(o) {
                let message = format!(
                    "override {key:?}: this is a property: rename, replace and derives apply to a type"
                );
                problems.push(at_key(message));
            } else {
                self.apply_to_fields(&fields, o);
            }
        }
        problems
    }

    /// Applies the `*` override: its derives, to every type.
    ///
    /// # Errors
    ///
    /// What else it asks for (a rename, a replacement, a property's override): `*` takes
    /// derives only.
    fn apply_to_every_type(&mut self, o: &Override) -> Result<(), &'static str> {
        if o.rename.is_some() || o.replace.is_some() || is_for_property(o) {
            return Err("override \"*\": only derives apply to every type");
        }
        for def in &mut self.defs {
            def.derives.extend(o.derives.iter().cloned());
        }
        Ok(())
    }

    /// The warning for an override `key` (looked up as `wanted`) that matches nothing,
    /// with the nearest type's key when one is near.
    fn unmatched(&self, key: &str, wanted: &str) -> String {
        let mut message = format!(
            "override {key:?}: no generated type or field comes from this schema (nothing applied)"
        );
        if let Some(near) = self.nearest_type(wanted) {
            let near = if key.starts_with('/') {
                near.trim_start_matches('#')
            } else {
                near
            };
            message.push_str(&format!(": did you mean {near:?}?"));
        }
        message
    }

    /// The schema pointer of a generated type nearest to the misspelt `wanted`.
    fn nearest_type(&self, wanted: &str) -> Option<&str> {
        let known = self
            .defs
            .iter()
            .flat_map(|d| std::iter::once(&d.origin).chain(&d.sites))
            .map(String::as_str);
        crate::suggest::nearest_pointer(wanted, known)
    }

    fn apply_to_type(
        &mut self,
        index: usize,
        key: &str,
        o: &Override,
        resolver: &Resolver,
    ) -> Option<Diagnostic> {
        let at = &self.origins[index];
        if is_for_property(o) {
            let message = format!(
                "override {key:?}: this is a type: `optional` and aliases apply to a property (…/properties/<name>)"
            );
            return Some(resolver.error_at(at, message));
        }
        if let Some(name) = o
            .rename
            .as_ref()
            .filter(|n| self.defs.iter().any(|d| d.name == **n))
        {
            let message = format!("cannot rename to `{name}`: another type has this name");
            return Some(resolver.error_at(at, message));
        }
        let def = &mut self.defs[index];
        if let Some(name) = &o.rename {
            def.name.clone_from(name);
        }
        if o.replace.is_some() {
            def.replaced_by.clone_from(&o.replace);
        }
        def.derives.extend(o.derives.iter().cloned());
        if !o.derives.is_empty() && matches!(def.kind, Kind::Alias(_)) && def.replaced_by.is_none()
        {
            let message = format!(
                "`{}` is a type alias: derives cannot apply to it (put them on its target)",
                def.name
            );
            return Some(resolver.error_at(at, message));
        }
        None
    }

    /// The fields whose property schema is at an origin `found` accepts, as `(def,
    /// field)` indexes: by the field's own origin, or as `<struct>/properties/<wire>`
    /// for a struct written in several places.
    fn fields_at(&self, found: &dyn Fn(&str) -> bool) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (d, def) in self.defs.iter().enumerate() {
            let Kind::Struct(s) = &def.kind else { continue };
            let places = std::iter::once(&def.origin).chain(&def.sites);
            let places: Vec<&String> = places.collect();
            for (f, field) in s.fields.iter().enumerate() {
                let token = field.wire.replace('~', "~0").replace('/', "~1");
                let at_place = places
                    .iter()
                    .any(|p| found(&format!("{p}/properties/{token}")));
                if found(&field.origin) || at_place {
                    out.push((d, f));
                }
            }
        }
        out
    }

    /// Makes the fields optional and adds their aliases.
    fn apply_to_fields(&mut self, fields: &[(usize, usize)], o: &Override) {
        for &(d, f) in fields {
            let Kind::Struct(s) = &self.defs[d].kind else {
                continue;
            };
            let mut field = s.fields[f].clone();
            if o.optional && field.required {
                field.required = false;
                field.keeps_null = super::structs::takes_null(&self.defs, &field.ty);
                field.ty = if field.keeps_null {
                    Ty::Option(Box::new(field.ty))
                } else {
                    field.ty.optional()
                };
            }
            for alias in &o.aliases {
                if !field.aliases.contains(alias) {
                    field.aliases.push(alias.clone());
                }
            }
            if let Kind::Struct(s) = &mut self.defs[d].kind {
                s.fields[f] = field;
            }
        }
    }
}

/// Whether `o` holds what applies to a type only.
fn is_for_type(o: &Override) -> bool {
    o.rename.is_some() || o.replace.is_some() || !o.derives.is_empty()
}

/// Whether `o` holds what applies to a property only.
fn is_for_property(o: &Override) -> bool {
    o.optional || !o.aliases.is_empty()
}

/// `origin` (`dir/defs/pet.json#/Pet`) relative to the directory of `document`
/// (`dir/api.json`): `defs/pet.json#/Pet`.
fn relative<'o>(origin: &'o str, document: &Path) -> &'o str {
    let dir = document.parent().unwrap_or(Path::new("")).to_string_lossy();
    if dir.is_empty() {
        return origin;
    }
    origin
        .strip_prefix(dir.as_ref())
        .and_then(|rest| rest.strip_prefix('/'))
        .unwrap_or(origin)
}

/// Why an override's values are not Rust, if they are not.
fn check(o: &Override) -> Option<String> {
    if let Some(name) = &o.rename
        && (syn::parse_str::<syn::Ident>(name).is_err() || name.starts_with("r#"))
    {
        return Some(format!("rename: `{name}` is not a Rust identifier"));
    }
    if let Some(path) = &o.replace
        && syn::parse_str::<syn::Type>(path).is_err()
    {
        return Some(format!("replace: `{path}` is not a Rust type"));
    }
    o.derives
        .iter()
        .find(|d| syn::parse_str::<syn::Path>(d).is_err())
        .map(|d| format!("derive: `{d}` is not a Rust path"))
}
