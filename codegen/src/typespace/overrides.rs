//! The user's overrides of generated types: rename, replace with an existing Rust type,
//! extra derives; each keyed by the schema's JSON pointer.

use std::collections::BTreeMap;
use std::path::Path;

use super::{Kind, TypeSpace};
use crate::error::Diagnostic;
use crate::resolve::{FileId, Resolver};
use crate::settings::Override;

/// The key that applies an override's derives to every generated type.
pub(crate) const EVERY_TYPE: &str = "*";

impl TypeSpace {
    /// Applies `overrides` to the named types. A key is the schema's JSON pointer in the
    /// document (`/components/schemas/Pet`, or `#/components/schemas/Pet`), `file#pointer`
    /// for a schema in another file (the file relative to the document, or as diagnostics
    /// name it), or `*` for every type (derives only).
    ///
    /// Returns the errors: a key that names no generated type, a name or path that is not
    /// Rust, a rename onto a name already taken, a rename or replacement under `*`.
    pub fn apply_overrides(
        &mut self,
        resolver: &Resolver,
        root: FileId,
        overrides: &BTreeMap<String, Override>,
    ) -> Vec<Diagnostic> {
        let document = resolver.display_path(root).to_path_buf();
        let mut errors = Vec::new();
        for (key, o) in overrides {
            let mut error = |message: String| {
                errors.push(Diagnostic::error(&document, (0, 0), key.as_str(), message));
            };
            if let Some(problem) = check(o) {
                error(format!("override {key:?}: {problem}"));
                continue;
            }
            if key == EVERY_TYPE {
                if o.rename.is_some() || o.replace.is_some() {
                    error("override \"*\": only derives apply to every type".to_owned());
                    continue;
                }
                for def in &mut self.defs {
                    def.derives.extend(o.derives.iter().cloned());
                }
                continue;
            }
            let wanted = match key.strip_prefix('/') {
                Some(_) => format!("#{key}"),
                None => key.clone(),
            };
            let Some(index) = self
                .defs
                .iter()
                .position(|d| d.origin == wanted || relative(&d.origin, &document) == wanted)
            else {
                error(format!(
                    "override {key:?}: no generated type comes from this schema"
                ));
                continue;
            };
            errors.extend(self.apply_one(index, o, resolver));
        }
        errors
    }

    fn apply_one(&mut self, index: usize, o: &Override, resolver: &Resolver) -> Option<Diagnostic> {
        let at = &self.origins[index];
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
