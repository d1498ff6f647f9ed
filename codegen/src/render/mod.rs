//! Rendering: view structs (all decisions) laid out by handlebars templates, then
//! checked and formatted by [`crate::format`].
//!
//! The templates live in the workspace's `templates/` directory and are embedded at
//! compile time. Strict mode is on (a template naming a missing field fails), HTML
//! escaping is off (it would mangle `<`, `>` and `&` in Rust).

mod rust;
mod services;
mod view;

use std::path::{Path, PathBuf};

use handlebars::Handlebars;

use crate::error::{Diagnostic, Error, ErrorKind};
use crate::format::format_rust;
use crate::service::Services;
use crate::settings::Settings;
use crate::typespace::TypeSpace;

pub(crate) use rust::ty_expr_in;

/// The embedded templates, by registered name.
const TEMPLATES: &[(&str, &str)] = &[
    ("types", include_str!("../../../templates/types.hbs")),
    (
        "types/struct",
        include_str!("../../../templates/types/struct.hbs"),
    ),
    (
        "types/field",
        include_str!("../../../templates/types/field.hbs"),
    ),
    (
        "types/enum",
        include_str!("../../../templates/types/enum.hbs"),
    ),
    (
        "types/int_enum",
        include_str!("../../../templates/types/int_enum.hbs"),
    ),
    (
        "types/alias",
        include_str!("../../../templates/types/alias.hbs"),
    ),
    (
        "types/newtype",
        include_str!("../../../templates/types/newtype.hbs"),
    ),
    ("params", include_str!("../../../templates/params.hbs")),
    ("client", include_str!("../../../templates/client.hbs")),
    ("server", include_str!("../../../templates/server.hbs")),
];

/// The template registry.
pub(crate) struct Renderer {
    registry: Handlebars<'static>,
    /// The user's template files that replaced built-in ones.
    overrides: Vec<PathBuf>,
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
        let mut registry = Handlebars::new();
        registry.set_strict_mode(true);
        registry.register_escape_fn(handlebars::no_escape);
        for (name, text) in templates {
            registry
                .register_template_string(name, *text)
                .map_err(|e| template_error(name, &e.to_string()))?;
        }
        Ok(Renderer {
            registry,
            overrides: Vec::new(),
        })
    }

    /// The embedded templates, each replaced by `dir/<name>.hbs` where that file exists
    /// (`dir/client.hbs`, `dir/types/struct.hbs`).
    ///
    /// # Errors
    ///
    /// A user template that cannot be read or does not parse, naming it.
    pub(crate) fn with_overrides(dir: &Path) -> Result<Renderer, Error> {
        let mut renderer = Self::embedded()?;
        for (name, _) in TEMPLATES {
            let path = dir.join(format!("{name}.hbs"));
            if !path.is_file() {
                continue;
            }
            let fail = |message: String| {
                let d = Diagnostic::error(&path, (0, 0), "", message);
                Error::new(ErrorKind::Generate, vec![d])
            };
            let text =
                std::fs::read_to_string(&path).map_err(|e| fail(format!("cannot read: {e}")))?;
            renderer
                .registry
                .register_template_string(name, text)
                .map_err(|e| fail(format!("template error: {e}")))?;
            renderer.overrides.push(path);
        }
        Ok(renderer)
    }

    /// The user's template files in use (for `cargo:rerun-if-changed`).
    pub(crate) fn overrides(&self) -> &[PathBuf] {
        &self.overrides
    }

    /// The formatted module of one document: its `types`, then the params, results and
    /// errors of its methods, the client and the server as `settings` ask (and for
    /// server→client methods, the server's `<Doc>Push` and the client's `<Doc>Listener`);
    /// `document` is the JSON answered on `rpc.discover`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Generate`] naming the template when rendering fails or produces text
    /// that is not Rust.
    pub(crate) fn module(
        &self,
        space: &TypeSpace,
        services: &Services,
        settings: &Settings,
        document: &str,
        source: &str,
    ) -> Result<String, Error> {
        let mut text = self.render("types", &view::types_file(space))?;
        let views = services::services_views(
            services,
            space.defs(),
            settings.client,
            settings.server,
            document,
        );
        if settings.client || settings.server {
            text.push_str(&self.render("params", &views.shared)?);
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
                text.push_str(&self.render(template, view)?);
            }
        }
        let header = format!("// @generated by rpcsmith-build from {source}\n");
        format_rust("templates/*.hbs", &header, &text).map_err(|e| {
            let d = Diagnostic::error(&e.template, (e.line, e.column), "", e.to_string());
            Error::new(ErrorKind::Generate, vec![d])
        })
    }

    fn render<T: serde::Serialize>(&self, name: &str, view: &T) -> Result<String, Error> {
        self.registry
            .render(name, view)
            .map_err(|e| template_error(name, &e.to_string()))
    }

    /// The formatted types module of `space`, headed by the `@generated` line naming
    /// `source` (a file name, never an absolute path).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Generate`] naming the template when rendering fails or produces text
    /// that is not Rust.
    pub(crate) fn types(&self, space: &TypeSpace, source: &str) -> Result<String, Error> {
        let view = view::types_file(space);
        let text = self.registry.render("types", &view).map_err(|e| {
            let name = e
                .template_name
                .clone()
                .unwrap_or_else(|| "types".to_owned());
            template_error(&name, &e.to_string())
        })?;
        let header = format!("// @generated by rpcsmith-build from {source}\n");
        format_rust("templates/types.hbs", &header, &text).map_err(|e| {
            // The position is in the rendered text (in the message), not in the template.
            let d = Diagnostic::error(&e.template, (0, 0), "", e.to_string());
            Error::new(ErrorKind::Generate, vec![d])
        })
    }
}

fn template_error(name: &str, message: &str) -> Error {
    let file = format!("templates/{name}.hbs");
    let d = Diagnostic::error(file, (0, 0), "", format!("template error: {message}"));
    Error::new(ErrorKind::Generate, vec![d])
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let err = r.types(&TypeSpace::default(), "x.json").unwrap_err();
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
        let err = r.types(&TypeSpace::default(), "x.json").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Generate);
        assert!(err.to_string().starts_with("templates/types.hbs: at (root): template `templates/types.hbs` produced invalid Rust at rendered line 1:15"), "{err}");
    }
}
