//! The templates and what they may call, registered with [`handlebars`]: the embedded
//! templates, the user's replacements of them (a templates directory), the user's
//! partials (registered by name, or any other `*.hbs` file of the templates directory)
//! and the user's Rust helpers. Strict mode is on (a template naming a missing field
//! fails) and HTML escaping off (it would mangle `<`, `>` and `&` in Rust).
//!
//! Every problem names the file it is in: `templates/<name>.hbs` for an embedded
//! template, the user's path otherwise, with handlebars' line and column.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use handlebars::{Handlebars, RenderError, RenderErrorReason, TemplateError};

use crate::error::{Diagnostic, Error, ErrorKind};
use crate::settings::Settings;
use crate::source::io_message;

use super::helper::TemplateHelper;

/// The embedded templates, by registered name.
pub(crate) const TEMPLATES: &[(&str, &str)] = &[
    ("module", include_str!("../../templates/module.hbs")),
    ("types", include_str!("../../templates/types.hbs")),
    (
        "types/struct",
        include_str!("../../templates/types/struct.hbs"),
    ),
    (
        "types/field",
        include_str!("../../templates/types/field.hbs"),
    ),
    ("types/enum", include_str!("../../templates/types/enum.hbs")),
    (
        "types/validate",
        include_str!("../../templates/types/validate.hbs"),
    ),
    (
        "types/int_enum",
        include_str!("../../templates/types/int_enum.hbs"),
    ),
    (
        "types/alias",
        include_str!("../../templates/types/alias.hbs"),
    ),
    (
        "types/newtype",
        include_str!("../../templates/types/newtype.hbs"),
    ),
    (
        "types/json_schema",
        include_str!("../../templates/types/json_schema.hbs"),
    ),
    ("params", include_str!("../../templates/params.hbs")),
    ("client", include_str!("../../templates/client.hbs")),
    ("server", include_str!("../../templates/server.hbs")),
];

/// What a user's template file is registered as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// It replaces the embedded template of its name.
    Replaces,
    /// A partial the templates may include (`{{> name}}`).
    Partial,
}

/// A template file of the user's.
#[derive(Debug, Clone)]
pub(crate) struct UserFile {
    /// The registered name (`types/struct`, or the partial's name).
    pub(crate) name: String,
    pub(crate) path: PathBuf,
    pub(crate) text: String,
    pub(crate) role: Role,
}

/// Every template and helper of one generation, and what is wrong with them that does
/// not stop it.
#[derive(Debug, Default, Clone)]
pub(crate) struct Sources {
    pub(crate) files: Vec<UserFile>,
    pub(crate) helpers: BTreeMap<String, TemplateHelper>,
    pub(crate) warnings: Vec<Diagnostic>,
}

impl Sources {
    /// The templates `settings` ask for: the embedded ones, then those of
    /// `templates_dir`, the registered partials and helpers.
    ///
    /// # Errors
    ///
    /// The templates directory is not a readable directory (a mistyped path would
    /// otherwise generate with the built-in templates, and make cargo rerun the build
    /// script every time); a user template or partial cannot be read. Each names the file.
    pub(crate) fn of(settings: &Settings) -> Result<Sources, Error> {
        let mut sources = Sources {
            helpers: settings.template_helpers.clone(),
            ..Sources::default()
        };
        if let Some(dir) = &settings.templates_dir {
            sources.read_dir(dir)?;
        }
        for (name, path) in &settings.template_partials {
            sources.files.retain(|f| f.name != *name);
            let text = read(path)?;
            sources.files.push(UserFile {
                name: name.clone(),
                path: path.clone(),
                text,
                role: Role::Partial,
            });
        }
        sources.warn_unused_partials();
        Ok(sources)
    }

    /// The `.hbs` files of `dir`: `dir/<name>.hbs` replaces the embedded template of
    /// that name (`dir/client.hbs`, `dir/types/struct.hbs`), any other is a partial
    /// named by its path without `.hbs` (`dir/macros/doc.hbs` is `macros/doc`).
    fn read_dir(&mut self, dir: &Path) -> Result<(), Error> {
        let found = template_files(dir).map_err(|e| {
            let message = format!("cannot read the templates directory: {}", io_message(&e));
            Error::new(
                ErrorKind::Io,
                vec![Diagnostic::error(dir, (0, 0), "", message)],
            )
        })?;
        for relative in found {
            let path = dir.join(&relative);
            let name = relative
                .strip_suffix(".hbs")
                .unwrap_or(&relative)
                .to_owned();
            let role = if TEMPLATES.iter().any(|(known, _)| *known == name) {
                Role::Replaces
            } else {
                Role::Partial
            };
            let text = read(&path)?;
            self.files.push(UserFile {
                name,
                path,
                text,
                role,
            });
        }
        Ok(())
    }

    /// A warning for each partial of the templates directory that no template names
    /// (a misspelt `clinet.hbs` would otherwise be silently unused).
    fn warn_unused_partials(&mut self) {
        let texts: Vec<&str> = TEMPLATES
            .iter()
            .map(|(_, text)| *text)
            .chain(self.files.iter().map(|f| f.text.as_str()))
            .collect();
        for file in self.files.iter().filter(|f| f.role == Role::Partial) {
            if !texts.iter().any(|text| includes(text, &file.name)) {
                self.warnings.push(unused_partial(file));
            }
        }
    }

    /// The user's files in use (for `cargo:rerun-if-changed`).
    pub(crate) fn paths(&self) -> Vec<PathBuf> {
        self.files.iter().map(|f| f.path.clone()).collect()
    }

    /// The user's replacements of embedded templates.
    pub(crate) fn replacements(&self) -> impl Iterator<Item = &UserFile> {
        self.files.iter().filter(|f| f.role == Role::Replaces)
    }

    /// The registry: the embedded templates, the user's partials and helpers, and the
    /// user's replacements (only the one named `only`, when given: see
    /// [`Renderer::blame`](super::Renderer)).
    ///
    /// # Errors
    ///
    /// A template that does not parse, naming its file, line and column.
    pub(crate) fn registry(&self, only: Option<&str>) -> Result<Handlebars<'static>, Error> {
        let mut registry = Handlebars::new();
        registry.set_strict_mode(true);
        registry.register_escape_fn(handlebars::no_escape);
        let fail = |file: &str, e: &TemplateError| {
            Error::new(ErrorKind::Generate, vec![template_error(file, e)])
        };
        for (name, text) in TEMPLATES {
            registry
                .register_template_string(name, *text)
                .map_err(|e| fail(&format!("templates/{name}.hbs"), &e))?;
        }
        let used = self
            .files
            .iter()
            .filter(|f| f.role == Role::Partial || only.is_none_or(|name| name == f.name));
        for file in used {
            registry
                .register_template_string(&file.name, &file.text)
                .map_err(|e| fail(&file.path.display().to_string(), &e))?;
        }
        for (name, helper) in &self.helpers {
            registry.register_helper(name, Box::new(helper.clone()));
        }
        Ok(registry)
    }

    /// The file a registered template comes from: the user's, or `templates/<name>.hbs`.
    pub(crate) fn file_of(&self, name: &str) -> String {
        match self.files.iter().find(|f| f.name == name) {
            Some(f) => f.path.display().to_string(),
            None => format!("templates/{name}.hbs"),
        }
    }

    /// The diagnostic for a template that failed to render: the file of the template
    /// (a partial, where it failed), its line and column, and why.
    pub(crate) fn render_error(&self, rendered: &str, e: &RenderError) -> Diagnostic {
        let name = e.template_name.as_deref().unwrap_or(rendered);
        let at = (e.line_no.unwrap_or(0), e.column_no.unwrap_or(0));
        let reason = match e.reason() {
            RenderErrorReason::MissingVariable(Some(path)) => {
                format!("`{path}` is not in the view (strict mode)")
            }
            RenderErrorReason::TemplateError(e) => return template_error(&self.file_of(name), e),
            reason => reason.to_string(),
        };
        Diagnostic::error(
            self.file_of(name),
            at,
            "",
            format!("template error: {reason}"),
        )
    }
}

/// A user's template file's text.
fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|e| {
        let message = format!("cannot read: {}", io_message(&e));
        Error::new(
            ErrorKind::Io,
            vec![Diagnostic::error(path, (0, 0), "", message)],
        )
    })
}

/// The diagnostic for a template that does not parse, in `file`.
fn template_error(file: &str, e: &TemplateError) -> Diagnostic {
    let at = e.pos().unwrap_or((0, 0));
    Diagnostic::error(file, at, "", format!("template error: {}", e.reason()))
}

/// The `.hbs` files under `dir`, as paths relative to it with `/` between components
/// (`types/struct.hbs`), sorted. Directories are followed a few levels deep (the
/// templates go two deep), never through a symbolic link.
fn template_files(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut found = Vec::new();
    let mut pending = vec![(dir.to_path_buf(), String::new(), 0)];
    while let Some((at, prefix, depth)) = pending.pop() {
        for entry in std::fs::read_dir(&at)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let kind = entry.file_type()?;
            if kind.is_dir() && depth < 4 {
                pending.push((entry.path(), format!("{prefix}{name}/"), depth + 1));
            } else if kind.is_file() && name.ends_with(".hbs") {
                found.push(format!("{prefix}{name}"));
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Whether `text` includes the partial `name`: `{{> name}}`, `{{#> name}}`,
/// `{{~> "name"}}` (a partial reached only through a computed name is not seen).
fn includes(text: &str, name: &str) -> bool {
    let part_of_name = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '/' | '.');
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].trim_end_matches(['"', '\'']).trim_end();
        let after = text[at + name.len()..].chars().next();
        before.ends_with('>') && !after.is_some_and(part_of_name)
    })
}

/// The warning for a partial of the templates directory that no template includes.
fn unused_partial(file: &UserFile) -> Diagnostic {
    let known: Vec<String> = {
        let mut names: Vec<&str> = TEMPLATES.iter().map(|(name, _)| *name).collect();
        names.sort_unstable();
        names.iter().map(|n| format!("{n}.hbs")).collect()
    };
    let message = format!(
        "unknown template `{}.hbs`, not used: it replaces no template and none includes it as a partial (`{{{{> {}}}}}`); the templates are {}",
        file.name,
        file.name,
        known.join(", ")
    );
    Diagnostic::warning(&file.path, (0, 0), "", message)
}
