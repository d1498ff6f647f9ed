//! Rendering: view structs (all decisions) laid out by templates (a subset of
//! handlebars, rendered by [`template`]), then checked and formatted by [`crate::format`].
//!
//! The templates live in the workspace's `templates/` directory and are embedded at
//! compile time, read through `codegen/templates`: a symlink to it, which `cargo package`
//! follows, so the package holds the templates it embeds. Strict mode is on (a template naming a missing field fails), HTML
//! escaping is off (it would mangle `<`, `>` and `&` in Rust).

mod case;
mod checks;
mod rust;
mod schema;
mod services;
mod template;
mod view;

use std::path::{Path, PathBuf};

use crate::embedded::EmbeddedSchema;
use crate::error::{Diagnostic, Error, ErrorKind};
use crate::format::{NotRust, format_rust};
use crate::service::Services;
use crate::settings::Settings;
use crate::source::io_message;
use crate::typespace::TypeSpace;

pub(crate) use rust::{Spelling, ty_expr};

/// The embedded templates, by registered name.
const TEMPLATES: &[(&str, &str)] = &[
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

/// The template registry.
pub(crate) struct Renderer {
    registry: template::Registry,
    /// The user's templates that replaced built-in ones.
    overrides: Vec<UserTemplate>,
    /// Problems with the user's templates directory that do not stop generation.
    warnings: Vec<Diagnostic>,
}

/// A user's template that replaces the built-in one of its name.
struct UserTemplate {
    /// The registered name (`types/struct`).
    name: &'static str,
    /// Its file.
    path: PathBuf,
    /// Its text.
    text: String,
}

impl Renderer {
    /// A renderer with the embedded templates.
    ///
    /// # Errors
    ///
    /// A template that does not parse (a mistake in this crate), naming it.
    pub(crate) fn embedded() -> Result<Renderer, Error> {
        Renderer::with_templates(TEMPLATES)
    }

    /// A renderer with the given `(name, text)` templates (the embedded set, or a user's
    /// copies of it).
    ///
    /// # Errors
    ///
    /// A template that does not parse, naming it.
    pub(crate) fn with_templates(templates: &[(&str, &str)]) -> Result<Renderer, Error> {
        let mut registry = template::Registry::default();
        for (name, text) in templates {
            registry
                .register(name, text)
                .map_err(|e| template_error(&format!("templates/{name}.hbs"), &e.to_string()))?;
        }
        Ok(Renderer {
            registry,
            overrides: Vec::new(),
            warnings: Vec::new(),
        })
    }

    /// The embedded templates, each replaced by `dir/<name>.hbs` where that file exists
    /// (`dir/client.hbs`, `dir/types/struct.hbs`). A `.hbs` file of another name (a
    /// typo) is a warning naming the known ones: it would otherwise be silently unused.
    ///
    /// # Errors
    ///
    /// `dir` is not a readable directory (a mistyped path would otherwise generate with
    /// the built-in templates, and make cargo rerun the build script every time); a user
    /// template cannot be read or does not parse. Each names the file.
    pub(crate) fn with_overrides(dir: &Path) -> Result<Renderer, Error> {
        let mut renderer = Self::embedded()?;
        let found = template_files(dir).map_err(|e| {
            let message = format!("cannot read the templates directory: {}", io_message(&e));
            Error::new(
                ErrorKind::Io,
                vec![Diagnostic::error(dir, (0, 0), "", message)],
            )
        })?;
        for relative in found {
            let path = dir.join(&relative);
            let name = relative.strip_suffix(".hbs").unwrap_or(&relative);
            let Some(&(name, _)) = TEMPLATES.iter().find(|(known, _)| *known == name) else {
                renderer.warnings.push(unknown_template(&path, &relative));
                continue;
            };
            let fail = |message: String| {
                let d = Diagnostic::error(&path, (0, 0), "", message);
                Error::new(ErrorKind::Generate, vec![d])
            };
            let text = std::fs::read_to_string(&path)
                .map_err(|e| fail(format!("cannot read: {}", io_message(&e))))?;
            renderer
                .registry
                .register(name, &text)
                .map_err(|e| fail(format!("template error: {e}")))?;
            renderer.overrides.push(UserTemplate { name, path, text });
        }
        Ok(renderer)
    }

    /// The user's template files in use (for `cargo:rerun-if-changed`).
    pub(crate) fn overrides(&self) -> Vec<PathBuf> {
        self.overrides.iter().map(|o| o.path.clone()).collect()
    }

    /// Problems with the user's templates that do not stop generation.
    pub(crate) fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// The file a template comes from: the user's copy, or `templates/<name>.hbs`.
    fn file_of(&self, name: &str) -> String {
        match self.overrides.iter().find(|o| o.name == name) {
            Some(o) => o.path.display().to_string(),
            None => format!("templates/{name}.hbs"),
        }
    }

    /// The formatted module of one document: its `types`, then the params, results and
    /// errors of its methods, the client and the server as `settings` ask (and for
    /// server→client methods, the server's `<Doc>Push` and the client's `<Doc>Listener`);
    /// `document` is the JSON answered on `rpc.discover`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Generate`] naming the template when rendering fails or produces text
    /// that is not Rust (with user templates, the one that breaks it: see
    /// [`blame`](Self::blame)).
    pub(crate) fn module(&self, parts: &ModuleParts<'_>, source: &str) -> Result<String, Error> {
        let (text, rendered) = self.render_module(parts)?;
        let header = format!("// @generated by rpcsmith-build from {source}\n");
        format_rust("", &header, &text).map_err(|e| self.blame(e, &rendered, parts))
    }

    /// The module's text, and the text each top-level template rendered inside it.
    fn render_module(&self, parts: &ModuleParts<'_>) -> Result<(String, Rendered), Error> {
        let ModuleParts {
            space,
            services,
            settings,
            document,
            schemas,
        } = *parts;
        let checks = settings.validation.then(|| {
            let params = services.methods.iter().flat_map(|m| &m.params);
            checks::Checks::new(space.defs(), params.map(|p| (&p.ty, &p.validation)))
        });
        let views =
            services::services_views(services, space.defs(), settings, checks.as_ref(), document);
        let mut rendered = Vec::new();
        let mut add = |name: &'static str, text: String| rendered.push((name, text));
        let mut types = view::types_file(space, checks.as_ref());
        if let Some(schemas) = schemas {
            types.json_schema = schema::views(space.defs(), schemas);
        }
        add("types", self.render("types", &types)?);
        if settings.client || settings.server {
            add("params", self.render("params", &views.shared)?);
        }
        // The client side calls the forward methods and handles the reverse ones; the
        // server side the other way round. Both use the same two templates.
        let (forward, reverse) = (views.forward.as_ref(), views.reverse.as_ref());
        let halves = [
            (settings.client, "client", forward),
            (settings.server, "server", forward),
            (settings.server, "client", reverse),
            (settings.client, "server", reverse),
        ];
        for (wanted, template, view) in halves {
            if let (true, Some(view)) = (wanted, view) {
                add(template, self.render(template, view)?);
            }
        }
        let body: String = rendered.iter().map(|(_, text)| text.as_str()).collect();
        let statics = checks.as_ref().map(checks::Checks::statics);
        let module = self.render("module", &view::module(&body, statics.unwrap_or_default()))?;
        Ok((module, rendered))
    }

    /// The error for rendered text that is not Rust, naming the template that wrote it.
    ///
    /// With user templates, each is tried alone among the built-in ones: those that break
    /// the module by themselves are named, each with the place in the text it rendered
    /// (a broken `types/struct.hbs` is named, not the `types.hbs` that includes it).
    /// Otherwise (the built-in templates, or user templates broken only together), the
    /// first top-level template whose text is not Rust by itself (each writes whole
    /// items) is named, with the place in its text; when each is, the module template.
    fn blame(&self, error: NotRust, rendered: &Rendered, parts: &ModuleParts<'_>) -> Error {
        let mut found = Vec::new();
        for user in &self.overrides {
            let alone: Vec<(&str, &str)> = TEMPLATES
                .iter()
                .map(|&(name, text)| {
                    (
                        name,
                        if name == user.name {
                            user.text.as_str()
                        } else {
                            text
                        },
                    )
                })
                .collect();
            let Ok(renderer) = Renderer::with_templates(&alone) else {
                continue;
            };
            let broken = renderer
                .render_module(parts)
                .ok()
                .and_then(|(text, _)| format_rust("", "", &text).err());
            if let Some(e) = broken {
                found.push(not_rust(&user.path.display().to_string(), e));
            }
        }
        if found.is_empty() {
            let alone = rendered
                .iter()
                .find_map(|(name, text)| format_rust("", "", text).err().map(|e| (*name, e)));
            let (name, error) = alone.unwrap_or(("module", error));
            found.push(not_rust(&self.file_of(name), error));
        }
        Error::new(ErrorKind::Generate, found)
    }

    fn render<T: serde::Serialize>(&self, name: &str, view: &T) -> Result<String, Error> {
        self.registry.render(name, view).map_err(|e| {
            // The partial where it failed (`types/struct`), else the template rendered.
            template_error(&self.file_of(&e.template), &e.to_string())
        })
    }
}

/// The text each top-level template rendered, in the module's order.
type Rendered = Vec<(&'static str, String)>;

/// What one module is rendered from.
#[derive(Clone, Copy)]
pub(crate) struct ModuleParts<'a> {
    pub(crate) space: &'a TypeSpace,
    pub(crate) services: &'a Services,
    pub(crate) settings: &'a Settings,
    /// The JSON answered on `rpc.discover`.
    pub(crate) document: &'a str,
    /// Each def's own schema, when its `JsonSchema` impl is wanted.
    pub(crate) schemas: Option<&'a [EmbeddedSchema]>,
}

/// The diagnostic for text that is not Rust, rendered by the template in `file`. The
/// position is in the rendered text (in the message), not in the template.
fn not_rust(file: &str, mut error: NotRust) -> Diagnostic {
    error.template = file.to_owned();
    Diagnostic::error(file, (0, 0), "", error.to_string())
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

/// The warning for a `.hbs` file that replaces no built-in template.
fn unknown_template(path: &Path, relative: &str) -> Diagnostic {
    let known: Vec<String> = {
        let mut names: Vec<&str> = TEMPLATES.iter().map(|(name, _)| *name).collect();
        names.sort_unstable();
        names.iter().map(|n| format!("{n}.hbs")).collect()
    };
    let message = format!(
        "unknown template `{relative}`, not used: the templates are {}",
        known.join(", ")
    );
    Diagnostic::warning(path, (0, 0), "", message)
}

fn template_error(file: &str, message: &str) -> Error {
    let d = Diagnostic::error(file, (0, 0), "", format!("template error: {message}"));
    Error::new(ErrorKind::Generate, vec![d])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The module of an empty document, types only.
    fn types_only(r: &Renderer) -> Result<String, Error> {
        let services = Services {
            name: "X".to_owned(),
            title: "x".to_owned(),
            methods: Vec::new(),
            diagnostics: Vec::new(),
            notes: Vec::new(),
        };
        let settings = Settings::types_only();
        let parts = ModuleParts {
            space: &TypeSpace::default(),
            services: &services,
            settings: &settings,
            document: "{}",
            schemas: None,
        };
        r.module(&parts, "x.json")
    }

    fn with_types(text: &'static str) -> Vec<(&'static str, &'static str)> {
        TEMPLATES
            .iter()
            .map(|&(name, t)| (name, if name == "types" { text } else { t }))
            .collect()
    }

    #[test]
    fn a_template_that_does_not_parse_is_named() {
        let err = Renderer::with_templates(&with_types("{{#each items}"))
            .err()
            .unwrap();
        assert!(
            err.to_string()
                .starts_with("templates/types.hbs: at (root): template error:"),
            "{err}"
        );
    }

    #[test]
    fn strict_mode_names_a_missing_field() {
        let r = Renderer::with_templates(&with_types("{{no_such_field}}")).unwrap();
        let err = types_only(&r).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("templates/types.hbs: at (root): template error:"),
            "{err}"
        );
        assert!(err.to_string().contains("no_such_field"), "{err}");
    }

    #[test]
    fn a_template_that_renders_bad_rust_is_named() {
        let r = Renderer::with_templates(&with_types("pub mod types {")).unwrap();
        let err = types_only(&r).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Generate);
        assert!(err.to_string().starts_with("templates/types.hbs: at (root): template `templates/types.hbs` produced invalid Rust at rendered line 1:15"), "{err}");
    }
}
