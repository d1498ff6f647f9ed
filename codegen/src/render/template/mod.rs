//! The template language: a subset of handlebars, rendered as handlebars(-rust) renders
//! it, so that the built-in templates (and a user's copies of them) keep their output
//! byte for byte without the handlebars crate and its build-time weight.
//!
//! The subset:
//! - `{{path}}`, `{{{path}}}` and `{{& path}}`: the value, never HTML-escaped. A path is
//!   `name`, `a.b.c`, `this`, `.`, `this.a`, `./a`, `../a` (one block out per `../`),
//!   `@index`, `@first`, `@last`, `@key` (inside `each`), `@root.a`. Strings render as
//!   they are, numbers and booleans as JSON writes them, `null` as nothing.
//! - `{{#if path}}`, `{{#unless path}}`, each with `{{else}}` and `{{else if path}}` /
//!   `{{else unless path}}` chains; `{{#each path}}` (a list, or an object's values in
//!   order) and `{{#with path}}`, each with an optional `{{else}}`.
//! - `{{> name}}` (a registered template or an inline partial), `{{#*inline "name"}}…{{/inline}}`
//!   at a template's top level, comments `{{! … }}` and `{{!-- … --}}`.
//! - handlebars' whitespace rules: a line holding only a block tag, `else`, a comment, a
//!   partial or an inline tag is dropped with it; a partial's output is indented by the
//!   spaces before its tag.
//!
//! Strict: `{{path}}` naming nothing, `each` of something that is not a list or object,
//! `with` of a falsy value (each without `{{else}}`) are errors; `if` of a missing value is
//! false, as in handlebars. Anything else (helpers with arguments, hash arguments, block
//! params, `~`, raw blocks, partial blocks, other decorators) is a parse error naming the
//! construct and its line and column.

mod eval;
mod parse;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::fmt;

/// A place in a template's text (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pos {
    pub(crate) line: usize,
    pub(crate) column: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Why a template does not parse or render: the template (by registered name), the place
/// in its text, and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TemplateError {
    /// The registered name of the template the place is in.
    pub(crate) template: String,
    pub(crate) at: Pos,
    pub(crate) message: String,
}

impl TemplateError {
    fn new(template: &str, at: Pos, message: String) -> TemplateError {
        TemplateError {
            template: template.to_owned(),
            at,
            message,
        }
    }
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.at, self.message)
    }
}

/// The block helpers of the subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    If,
    Unless,
    Each,
    With,
}

impl Block {
    fn name(self) -> &'static str {
        match self {
            Block::If => "if",
            Block::Unless => "unless",
            Block::Each => "each",
            Block::With => "with",
        }
    }
}

/// Where a path starts.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Head {
    /// The current context, or the one `up` blocks out.
    Context { up: usize },
    /// `@root`.
    Root,
    /// `@index`, `@first`, `@last` or `@key`.
    Data(&'static str),
}

/// A path to a value of the view, as written (`../name`, `subscribe.feed`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Path {
    text: String,
    head: Head,
    segments: Vec<String>,
}

impl Path {
    /// Parses a path of the subset.
    fn parse(text: &str) -> Result<Path, String> {
        let outside = || {
            if text.contains(char::is_whitespace) {
                let name = text.split_whitespace().next().unwrap_or_default();
                format!(
                    "the helper call `{{{{{text}}}}}` (`{name}` with arguments) is outside the supported subset"
                )
            } else {
                format!("`{text}` is not a path of the supported subset")
            }
        };
        if let Some(data) = text.strip_prefix('@') {
            return Path::data(text, data).ok_or_else(outside);
        }
        let mut rest = text;
        let mut up = 0;
        while let Some(after) = rest.strip_prefix("../") {
            up += 1;
            rest = after;
        }
        let rest = match rest {
            "this" | "." if up == 0 => "",
            _ => rest
                .strip_prefix("this.")
                .or_else(|| rest.strip_prefix("./"))
                .unwrap_or(rest),
        };
        if rest.is_empty() && up > 0 {
            return Err(outside());
        }
        let segments = segments(rest).ok_or_else(outside)?;
        Ok(Path {
            text: text.to_owned(),
            head: Head::Context { up },
            segments,
        })
    }

    /// `@name` and `@root.a.b`: `data` is `text` without its `@`.
    fn data(text: &str, data: &str) -> Option<Path> {
        let (name, rest) = data.split_once('.').unwrap_or((data, ""));
        let head = match name {
            "root" => Head::Root,
            "index" => Head::Data("index"),
            "first" => Head::Data("first"),
            "last" => Head::Data("last"),
            "key" => Head::Data("key"),
            _ => return None,
        };
        let segments = segments(rest)?;
        if matches!(head, Head::Data(_)) && !segments.is_empty() {
            return None;
        }
        Some(Path {
            text: text.to_owned(),
            head,
            segments,
        })
    }
}

/// `a.b.c` split at its dots; `None` for a character outside names.
fn segments(text: &str) -> Option<Vec<String>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    let name = |s: &str| {
        !s.is_empty()
            && s != "this"
            && s.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '$'))
    };
    let parts: Vec<&str> = text.split('.').collect();
    parts
        .iter()
        .all(|p| name(p))
        .then(|| parts.iter().map(|p| (*p).to_owned()).collect())
}

/// A piece of a parsed template.
#[derive(Debug)]
enum Node {
    Text(String),
    Value(Path, Pos),
    Block {
        block: Block,
        path: Path,
        at: Pos,
        /// The opening tag stood alone on its line (handlebars indents by it).
        standalone: bool,
        body: Vec<Node>,
        otherwise: Vec<Node>,
    },
    Partial {
        name: String,
        at: Pos,
        standalone: bool,
        /// The spaces before the tag, put before each line of the partial's output.
        indent: Option<String>,
    },
}

/// A parsed template.
#[derive(Debug)]
struct Template {
    /// The name it is registered under (errors name it).
    name: String,
    nodes: Vec<Node>,
    /// Its `{{#*inline "name"}}` partials, seen while it (and what it includes) renders.
    inlines: Vec<(String, Vec<Node>)>,
}

/// Templates by name.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    templates: HashMap<String, Template>,
}

impl Registry {
    /// Parses `text` and registers it as `name`, replacing a template of that name.
    ///
    /// # Errors
    ///
    /// The text is not a template of the subset: the place and the construct.
    pub(crate) fn register(&mut self, name: &str, text: &str) -> Result<(), TemplateError> {
        let template = parse::parse(name, text)?;
        self.templates.insert(name.to_owned(), template);
        Ok(())
    }

    /// Renders the template `name` with `view` as its context.
    ///
    /// # Errors
    ///
    /// No template of that name; the view does not serialize; a path names nothing (or
    /// `each`/`with` is given what it cannot take); a partial is unknown or partials
    /// nest too deep. The error names the template (a partial, where it failed) and place.
    pub(crate) fn render<T: serde::Serialize>(
        &self,
        name: &str,
        view: &T,
    ) -> Result<String, TemplateError> {
        let start = Pos { line: 1, column: 1 };
        let value = serde_json::to_value(view)
            .map_err(|e| TemplateError::new(name, start, format!("the view: {e}")))?;
        let template = self.get(name).ok_or_else(|| {
            TemplateError::new(name, start, format!("no template named `{name}`"))
        })?;
        eval::render(self, template, &value)
    }

    fn get(&self, name: &str) -> Option<&Template> {
        self.templates.get(name)
    }
}
