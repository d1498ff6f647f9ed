//! Rendering a parsed template against a JSON view, with handlebars(-rust)'s scoping
//! (`each`, `with` and partials open a scope; `if` does not) and its partial indentation.

use std::borrow::Cow;

use serde_json::Value;

use super::{Block, Head, Node, Path, Pos, Registry, Template, TemplateError};

/// How deeply partials may include one another (a recursive partial would never end).
const MAX_PARTIAL_DEPTH: usize = 32;

/// Renders `template` with `root` as its context.
pub(super) fn render(
    registry: &Registry,
    template: &Template,
    root: &Value,
) -> Result<String, TemplateError> {
    let mut eval = Eval {
        registry,
        root,
        scopes: vec![Scope {
            value: root,
            locals: Locals::default(),
        }],
        inlines: vec![template],
        template: &template.name,
        out: Out::default(),
    };
    eval.nodes(&template.nodes)?;
    Ok(eval.out.text)
}

/// `@index`, `@first`, `@last` and `@key` of the innermost `each`.
#[derive(Debug, Clone, Default)]
struct Locals<'a> {
    index: Option<usize>,
    len: usize,
    key: Option<&'a str>,
}

/// A context: the value paths are read in.
struct Scope<'a> {
    value: &'a Value,
    locals: Locals<'a>,
}

/// The rendered text, and handlebars-rust's state for indenting a partial's lines.
#[derive(Default)]
struct Out {
    text: String,
    indent: Option<String>,
    indent_before_write: bool,
    trailing_newline: bool,
    content_produced: bool,
}

impl Out {
    /// Writes `text`, indented as handlebars-rust indents inside a partial: after each
    /// newline but a final one, and before `text` when the last write ended a line.
    fn write(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.content_produced = true;
        if let Some(indent) = &self.indent {
            if !text.starts_with(['\n', '\r']) && self.indent_before_write {
                self.text.push_str(indent);
            }
            let mut lines = text.split_inclusive('\n').peekable();
            while let Some(line) = lines.next() {
                self.text.push_str(line);
                if line.ends_with('\n') && lines.peek().is_some() {
                    self.text.push_str(indent);
                }
            }
        } else {
            self.text.push_str(text);
        }
        self.trailing_newline = text.ends_with(['\n', '\r']);
        self.indent_before_write = self.trailing_newline;
    }

    /// Before a block or partial: what [`leave`](Self::leave) restores if it writes nothing.
    fn enter(&mut self, indent_first: bool) -> (bool, bool) {
        let saved = (self.indent_before_write, self.content_produced);
        self.content_produced = false;
        self.indent_before_write = indent_first;
        saved
    }

    fn leave(&mut self, (indent_before_write, content_produced): (bool, bool)) {
        if self.content_produced {
            self.indent_before_write = self.trailing_newline;
        } else {
            self.content_produced = content_produced;
            self.indent_before_write = indent_before_write;
        }
    }
}

struct Eval<'a> {
    registry: &'a Registry,
    root: &'a Value,
    /// Innermost last.
    scopes: Vec<Scope<'a>>,
    /// The templates whose inline partials are in sight, innermost last.
    inlines: Vec<&'a Template>,
    /// The template (by registered name) being rendered, for errors.
    template: &'a str,
    out: Out,
}

impl<'a> Eval<'a> {
    fn fail(&self, at: Pos, message: String) -> TemplateError {
        TemplateError::new(self.template, at, message)
    }

    fn nodes(&mut self, nodes: &'a [Node]) -> Result<(), TemplateError> {
        for node in nodes {
            match node {
                Node::Text(text) => self.out.write(text),
                Node::Value(path, at) => {
                    let value = self.lookup(path).ok_or_else(|| {
                        self.fail(
                            *at,
                            format!("`{}` is not in the view (strict mode)", path.text),
                        )
                    })?;
                    self.out.write(&text_of(&value));
                }
                Node::Block {
                    block,
                    path,
                    at,
                    standalone,
                    body,
                    otherwise,
                } => {
                    let first =
                        self.out.indent_before_write || (*standalone && self.out.trailing_newline);
                    let saved = self.out.enter(first);
                    self.block(*block, path, *at, body, otherwise)?;
                    self.out.leave(saved);
                }
                Node::Partial {
                    name,
                    at,
                    standalone,
                    indent,
                } => self.partial(name, *at, *standalone, indent.as_deref())?,
            }
        }
        Ok(())
    }

    fn block(
        &mut self,
        block: Block,
        path: &Path,
        at: Pos,
        body: &'a [Node],
        otherwise: &'a [Node],
    ) -> Result<(), TemplateError> {
        let value = self.lookup(path);
        let truthy = value.as_deref().is_some_and(truthy);
        match block {
            Block::If | Block::Unless => {
                let chosen = if truthy == (block == Block::If) {
                    body
                } else {
                    otherwise
                };
                self.nodes(chosen)
            }
            Block::With if truthy => match value {
                Some(Cow::Borrowed(value)) => self.scoped(value, body),
                _ => Err(self.fail(
                    at,
                    format!("`{{{{#with {}}}}}` of a computed `@` value is outside the supported subset", path.text),
                )),
            },
            Block::Each => self.each(path, at, value, body, otherwise),
            Block::With if !otherwise.is_empty() => self.nodes(otherwise),
            Block::With => Err(self.fail(
                at,
                format!("`{{{{#with {}}}}}`: `{}` is missing or empty (strict mode)", path.text, path.text),
            )),
        }
    }

    /// Renders `body` in a scope of `value` (handlebars-rust's block context) that keeps
    /// the enclosing `each`'s `@index` and friends.
    fn scoped(&mut self, value: &'a Value, body: &'a [Node]) -> Result<(), TemplateError> {
        let locals = self
            .scopes
            .last()
            .map(|s| s.locals.clone())
            .unwrap_or_default();
        self.scopes.push(Scope { value, locals });
        let result = self.nodes(body);
        self.scopes.pop();
        result
    }

    fn each(
        &mut self,
        path: &Path,
        at: Pos,
        value: Option<Cow<'a, Value>>,
        body: &'a [Node],
        otherwise: &'a [Node],
    ) -> Result<(), TemplateError> {
        let items: Vec<(Option<&'a str>, &'a Value)> = match value {
            Some(Cow::Borrowed(Value::Array(list))) if !list.is_empty() || otherwise.is_empty() => {
                list.iter().map(|v| (None, v)).collect()
            }
            Some(Cow::Borrowed(Value::Object(map))) if !map.is_empty() || otherwise.is_empty() => {
                map.iter().map(|(k, v)| (Some(k.as_str()), v)).collect()
            }
            _ if !otherwise.is_empty() => return self.nodes(otherwise),
            _ => {
                return Err(self.fail(
                    at,
                    format!(
                        "`{{{{#each {}}}}}`: `{}` is not a list or an object (strict mode)",
                        path.text, path.text
                    ),
                ));
            }
        };
        let len = items.len();
        self.scopes.push(Scope {
            value: self.root,
            locals: Locals::default(),
        });
        for (index, (key, value)) in items.into_iter().enumerate() {
            let top = self.scopes.len() - 1;
            self.scopes[top] = Scope {
                value,
                locals: Locals {
                    index: Some(index),
                    len,
                    key,
                },
            };
            if let Err(e) = self.nodes(body) {
                self.scopes.pop();
                return Err(e);
            }
        }
        self.scopes.pop();
        Ok(())
    }

    fn partial(
        &mut self,
        name: &str,
        at: Pos,
        standalone: bool,
        indent: Option<&str>,
    ) -> Result<(), TemplateError> {
        if self.inlines.len() > MAX_PARTIAL_DEPTH {
            return Err(self.fail(
                at,
                format!("partials nest deeper than {MAX_PARTIAL_DEPTH} at `{{{{> {name}}}}}` (does it include itself?)"),
            ));
        }
        let (owner, nodes) = self
            .find_partial(name)
            .ok_or_else(|| self.fail(at, format!("no partial named `{name}`")))?;
        let first = standalone && (self.out.trailing_newline || indent.is_some());
        let saved = self.out.enter(first);
        let outer_indent = self.out.indent.clone();
        self.out.indent = match (&outer_indent, indent) {
            (None, None) => None,
            (outer, own) => Some(format!(
                "{}{}",
                outer.as_deref().unwrap_or(""),
                own.unwrap_or("")
            )),
        };
        let outer_template = std::mem::replace(&mut self.template, &owner.name);
        self.inlines.push(owner);
        let current = self.scopes.last().map(|s| s.value).unwrap_or(self.root);
        let result = self.scoped(current, nodes);
        self.inlines.pop();
        self.template = outer_template;
        self.out.indent = outer_indent;
        self.out.leave(saved);
        result
    }

    /// A partial by name: an inline one in sight (innermost first), else a registered
    /// template. With the template it belongs to.
    fn find_partial(&self, name: &str) -> Option<(&'a Template, &'a [Node])> {
        for template in self.inlines.iter().rev() {
            if let Some((_, nodes)) = template.inlines.iter().find(|(n, _)| n == name) {
                return Some((template, nodes));
            }
        }
        let template = self.registry.get(name)?;
        Some((template, &template.nodes))
    }

    /// The value `path` names, if any.
    fn lookup(&self, path: &Path) -> Option<Cow<'a, Value>> {
        let start: &'a Value = match path.head {
            Head::Root => self.root,
            Head::Context { up } => {
                let at = self.scopes.len().checked_sub(1 + up)?;
                self.scopes[at].value
            }
            Head::Data(name) => {
                let locals = &self.scopes.last()?.locals;
                let index = locals.index?;
                return Some(Cow::Owned(match name {
                    "index" => Value::from(index),
                    "first" => Value::Bool(index == 0),
                    "last" => Value::Bool(index + 1 == locals.len),
                    _ => Value::from(locals.key?),
                }));
            }
        };
        let mut value = start;
        for segment in &path.segments {
            value = match value {
                Value::Object(map) => map.get(segment)?,
                Value::Array(list) => list.get(segment.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(Cow::Borrowed(value))
    }
}

/// Handlebars' truthiness: `false`, `null`, `0`, `""`, `[]` and `{}` are false.
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(f64::is_normal),
        Value::String(s) => !s.is_empty(),
        Value::Array(list) => !list.is_empty(),
        Value::Object(map) => !map.is_empty(),
    }
}

/// A value as handlebars renders it (never escaped); a string as it is, not copied.
fn text_of(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(s) => Cow::Borrowed(s),
        Value::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
        Value::Number(n) => Cow::Owned(n.to_string()),
        Value::Null => Cow::Borrowed(""),
        Value::Array(list) => {
            let items: Vec<Cow<'_, str>> = list.iter().map(text_of).collect();
            Cow::Owned(format!("[{}]", items.join(", ")))
        }
        Value::Object(_) => Cow::Borrowed("[object]"),
    }
}
