//! Parsing a template: tags found in the text, handlebars' standalone-line rule applied,
//! then the tree of blocks built. Anything outside the subset is an error at its place.

use super::{Block, Node, Path, Pos, Template, TemplateError};

/// How deeply blocks may nest in one template (a bound, not a limit any template meets).
const MAX_NESTING: usize = 64;

/// A tag, `{{…}}`, as written.
#[derive(Debug)]
enum TagKind {
    Comment,
    Value(Path),
    Open(Block, Path),
    Inline(String),
    Else(Option<(Block, Path)>),
    Close(String),
    Partial(String),
}

#[derive(Debug)]
struct Tag {
    kind: TagKind,
    start: usize,
    end: usize,
    at: Pos,
}

/// Text or a tag, in the order of the source.
#[derive(Debug)]
enum Token {
    Text(String),
    Tag(Tag),
}

/// A tag after the standalone rule: whether it stood alone on its line, and the
/// spaces before it (a partial's indent).
struct Placed {
    tag: Tag,
    standalone: bool,
    indent: Option<String>,
}

enum Item {
    Text(String),
    Tag(Placed),
}

/// Parses `text`, the template registered as `name`.
pub(super) fn parse(name: &str, text: &str) -> Result<Template, TemplateError> {
    let err = |at: Pos, message: String| TemplateError::new(name, at, message);
    let tokens = tokenize(text).map_err(|(at, m)| err(at, m))?;
    let items = standalone(text, tokens);
    build(name, items)
}

/// Line and column (1-based, in characters) of byte `offset`, counted on from `pos`,
/// the place of the earlier byte offset `from` (each tag's from the one before it, so
/// the text is read once).
fn position(text: &str, from: usize, mut pos: Pos, offset: usize) -> Pos {
    for c in text[from..offset].chars() {
        if c == '\n' {
            pos.line += 1;
            pos.column = 1;
        } else {
            pos.column += 1;
        }
    }
    pos
}

type Fail = (Pos, String);

/// The text split into text and tags.
fn tokenize(text: &str) -> Result<Vec<Token>, Fail> {
    let mut tokens = Vec::new();
    let mut rest = 0;
    let mut counted = (0, Pos { line: 1, column: 1 });
    while let Some(found) = text[rest..].find("{{") {
        let start = rest + found;
        let at = position(text, counted.0, counted.1, start);
        counted = (start, at);
        if text[..start].ends_with('\\') {
            return Err((
                at,
                "an escaped `\\{{` is outside the supported subset".into(),
            ));
        }
        if start > rest {
            tokens.push(Token::Text(text[rest..start].to_owned()));
        }
        let (kind, end) = tag_at(text, start).map_err(|m| (at, m))?;
        tokens.push(Token::Tag(Tag {
            kind,
            start,
            end,
            at,
        }));
        rest = end;
    }
    if rest < text.len() {
        tokens.push(Token::Text(text[rest..].to_owned()));
    }
    Ok(tokens)
}

/// The tag that starts at `start` (on `{{`), and the offset after it.
fn tag_at(text: &str, start: usize) -> Result<(TagKind, usize), String> {
    let source = &text[start..];
    let unclosed = |close: &str| format!("a tag opened here is not closed by `{close}`");
    if let Some(body) = source.strip_prefix("{{!--") {
        let end = body.find("--}}").ok_or_else(|| unclosed("--}}"))?;
        return Ok((TagKind::Comment, start + 5 + end + 4));
    }
    if source.starts_with("{{!") {
        let end = source.find("}}").ok_or_else(|| unclosed("}}"))?;
        return Ok((TagKind::Comment, start + end + 2));
    }
    if source.starts_with("{{{{") {
        return Err("a raw block `{{{{` is outside the supported subset".into());
    }
    if let Some(body) = source.strip_prefix("{{{") {
        let end = body.find("}}}").ok_or_else(|| unclosed("}}}"))?;
        let path = Path::parse(body[..end].trim())?;
        return Ok((TagKind::Value(path), start + 3 + end + 3));
    }
    let end = source.find("}}").ok_or_else(|| unclosed("}}"))?;
    let inner = &source[2..end];
    if inner.starts_with('~') || inner.ends_with('~') {
        return Err("whitespace control `~` is outside the supported subset".into());
    }
    Ok((classify(inner.trim())?, start + end + 2))
}

/// What the inside of a `{{…}}` tag says.
fn classify(inner: &str) -> Result<TagKind, String> {
    if let Some(rest) = inner.strip_prefix("#*") {
        let name = rest.strip_prefix("inline").map(str::trim);
        return match name.and_then(quoted) {
            Some(name) => Ok(TagKind::Inline(name.to_owned())),
            None => Err(format!(
                "the decorator `{{{{#*{rest}}}}}` is outside the supported subset (only `{{{{#*inline \"name\"}}}}`)"
            )),
        };
    }
    if let Some(rest) = inner.strip_prefix('#') {
        if rest.starts_with('>') {
            return Err("a partial block `{{#> …}}` is outside the supported subset".into());
        }
        let (block, path) = block_and_path(rest)?;
        return Ok(TagKind::Open(block, path));
    }
    if let Some(rest) = inner.strip_prefix('/') {
        return Ok(TagKind::Close(rest.trim().to_owned()));
    }
    if inner == "else" {
        return Ok(TagKind::Else(None));
    }
    if let Some(rest) = inner.strip_prefix("else ") {
        return Ok(TagKind::Else(Some(block_and_path(rest.trim())?)));
    }
    if let Some(rest) = inner.strip_prefix('>') {
        let rest = rest.trim();
        let name = quoted(rest).unwrap_or(rest);
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(format!(
                "the partial `{{{{> {rest}}}}}` is outside the supported subset (a name alone: no context or hash arguments)"
            ));
        }
        return Ok(TagKind::Partial(name.to_owned()));
    }
    if inner.starts_with('^') {
        return Err(
            "an inverse section `{{^…}}` is outside the supported subset: use `{{else}}`".into(),
        );
    }
    if inner.starts_with('*') {
        return Err(format!(
            "the decorator `{{{{{inner}}}}}` is outside the supported subset"
        ));
    }
    let path = inner.strip_prefix('&').map_or(inner, str::trim_start);
    Ok(TagKind::Value(Path::parse(path)?))
}

/// `"name"` without its quotes.
fn quoted(text: &str) -> Option<&str> {
    let inner = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .or_else(|| text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')))?;
    (!inner.is_empty() && !inner.contains(['"', '\''])).then_some(inner)
}

/// `if path` and the like: a block helper of the subset and its one argument.
fn block_and_path(text: &str) -> Result<(Block, Path), String> {
    let (name, argument) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let block = match name {
        "if" => Block::If,
        "unless" => Block::Unless,
        "each" => Block::Each,
        "with" => Block::With,
        other => {
            return Err(format!(
                "the block helper `#{other}` is outside the supported subset (if, unless, each, with)"
            ));
        }
    };
    let argument = argument.trim();
    if argument.is_empty() {
        return Err(format!("`#{name}` needs one argument, a path"));
    }
    if argument.contains(char::is_whitespace) {
        return Err(format!(
            "`#{name} {argument}`: only one argument, a path, is in the supported subset (no hash arguments, block params or sub-expressions)"
        ));
    }
    Ok((block, Path::parse(argument)?))
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

fn is_newline(c: char) -> bool {
    c == '\n' || c == '\r'
}

/// Handlebars' rule (as handlebars-rust applies it): a block, `else`, comment,
/// partial or inline tag alone on its line (spaces around it, then a newline or the end
/// of the text) takes its line with it: the spaces before it and the rest of the line
/// after it, newline included, are dropped.
fn standalone(text: &str, tokens: Vec<Token>) -> Vec<Item> {
    let mut items: Vec<Item> = Vec::with_capacity(tokens.len());
    let mut trim_line = false;
    for token in tokens {
        let tag = match token {
            Token::Text(s) => {
                let s = if trim_line {
                    strip_first_newline(s.trim_start_matches(is_blank)).to_owned()
                } else {
                    s
                };
                trim_line = false;
                items.push(Item::Text(s));
                continue;
            }
            Token::Tag(tag) => tag,
        };
        if matches!(tag.kind, TagKind::Value(_)) {
            items.push(Item::Tag(Placed {
                tag,
                standalone: false,
                indent: None,
            }));
            continue;
        }
        let before = &text[..tag.start];
        let after = &text[tag.end..];
        let mut alone = false;
        if after.trim_start_matches(is_blank).starts_with(is_newline) || after.is_empty() {
            let trimmed = before.trim_end_matches(is_blank);
            let leading = trimmed.ends_with(is_newline) || trimmed.is_empty();
            if leading && let Some(Item::Text(previous)) = items.last_mut() {
                previous.truncate(previous.trim_end_matches(is_blank).len());
            }
            alone = leading;
        }
        trim_line = alone;
        let blanks = before.len() - before.trim_end_matches(is_blank).len();
        let indent = (matches!(tag.kind, TagKind::Partial(_)) && blanks > 0)
            .then(|| before[before.len() - blanks..].to_owned());
        items.push(Item::Tag(Placed {
            tag,
            standalone: alone,
            indent,
        }));
    }
    items
}

fn strip_first_newline(s: &str) -> &str {
    s.strip_prefix("\r\n")
        .or_else(|| s.strip_prefix('\n'))
        .unwrap_or(s)
}

/// A block being read: its opening tag and what has been read of it.
struct Frame {
    /// What opened it: a block (`Some`) or an inline partial's definition.
    opened: Opened,
    at: Pos,
    standalone: bool,
    body: Vec<Node>,
    otherwise: Option<Vec<Node>>,
    /// Opened by `{{else if …}}`: closed with the block it continues.
    chained: bool,
}

enum Opened {
    Block(Block, Path),
    Inline(String),
}

impl Frame {
    fn nodes(&mut self) -> &mut Vec<Node> {
        self.otherwise.as_mut().unwrap_or(&mut self.body)
    }

    fn name(&self) -> &str {
        match &self.opened {
            Opened::Block(block, _) => block.name(),
            Opened::Inline(_) => "inline",
        }
    }
}

/// The tree of the items.
fn build(name: &str, items: Vec<Item>) -> Result<Template, TemplateError> {
    let mut template = Template {
        name: name.to_owned(),
        nodes: Vec::new(),
        inlines: Vec::new(),
    };
    let mut frames: Vec<Frame> = Vec::new();
    for item in items {
        match item {
            Item::Text(s) if s.is_empty() => {}
            Item::Text(s) => nodes_of(&mut frames, &mut template).push(Node::Text(s)),
            Item::Tag(placed) => {
                let at = placed.tag.at;
                add_tag(&mut frames, &mut template, placed)
                    .map_err(|message| TemplateError::new(name, at, message))?;
            }
        }
    }
    match frames.into_iter().find(|f| !f.chained) {
        Some(frame) => Err(TemplateError::new(
            name,
            frame.at,
            format!("`{{{{#{}}}}}` is not closed", frame.name()),
        )),
        None => Ok(template),
    }
}

/// A tag into the tree being built.
fn add_tag(frames: &mut Vec<Frame>, template: &mut Template, placed: Placed) -> Result<(), String> {
    let at = placed.tag.at;
    if frames.len() >= MAX_NESTING {
        return Err(format!("blocks nest deeper than {MAX_NESTING}"));
    }
    match placed.tag.kind {
        TagKind::Comment => {}
        TagKind::Value(path) => nodes_of(frames, template).push(Node::Value(path, at)),
        TagKind::Partial(partial) => {
            let node = Node::Partial {
                name: partial,
                at,
                standalone: placed.standalone,
                indent: placed.indent,
            };
            nodes_of(frames, template).push(node);
        }
        TagKind::Open(block, path) => {
            frames.push(open(
                Opened::Block(block, path),
                at,
                placed.standalone,
                false,
            ));
        }
        TagKind::Inline(inline) => {
            if !frames.is_empty() {
                return Err("an inline partial is defined at the top level of a template only, not inside a block".into());
            }
            frames.push(open(Opened::Inline(inline), at, placed.standalone, false));
        }
        TagKind::Else(chain) => otherwise(frames, chain, at, placed.standalone)?,
        TagKind::Close(closing) => close(frames, template, &closing)?,
    }
    Ok(())
}

fn open(opened: Opened, at: Pos, standalone: bool, chained: bool) -> Frame {
    Frame {
        opened,
        at,
        standalone,
        body: Vec::new(),
        otherwise: None,
        chained,
    }
}

/// Where the next node goes: the innermost open block, else the template.
fn nodes_of<'a>(frames: &'a mut [Frame], template: &'a mut Template) -> &'a mut Vec<Node> {
    match frames.last_mut() {
        Some(frame) => frame.nodes(),
        None => &mut template.nodes,
    }
}

/// `{{else}}` or `{{else if …}}` in the innermost block.
fn otherwise(
    frames: &mut Vec<Frame>,
    chain: Option<(Block, Path)>,
    at: Pos,
    standalone: bool,
) -> Result<(), String> {
    let Some(frame) = frames.last_mut() else {
        return Err("`{{else}}` outside a block".into());
    };
    if matches!(frame.opened, Opened::Inline(_)) || frame.otherwise.is_some() {
        return Err("`{{else}}` where it has no block to belong to (a second `{{else}}`?)".into());
    }
    frame.otherwise = Some(Vec::new());
    if let Some((block, path)) = chain {
        frames.push(open(Opened::Block(block, path), at, standalone, true));
    }
    Ok(())
}

/// `{{/name}}`: closes the innermost block (and the `else if` blocks chained to it).
fn close(frames: &mut Vec<Frame>, template: &mut Template, closing: &str) -> Result<(), String> {
    loop {
        let Some(frame) = frames.pop() else {
            return Err(format!("`{{{{/{closing}}}}}` closes no open block"));
        };
        let chained = frame.chained;
        if !chained && frame.name() != closing && !(closing.is_empty() && frame.name() == "inline")
        {
            return Err(format!(
                "`{{{{/{closing}}}}}` closes `{{{{#{}}}}}` opened at line {}",
                frame.name(),
                frame.at
            ));
        }
        match frame.opened {
            Opened::Inline(name) => template.inlines.push((name, frame.body)),
            Opened::Block(block, path) => {
                let node = Node::Block {
                    block,
                    path,
                    at: frame.at,
                    standalone: frame.standalone,
                    body: frame.body,
                    otherwise: frame.otherwise.unwrap_or_default(),
                };
                nodes_of(frames, template).push(node);
            }
        }
        if !chained {
            return Ok(());
        }
    }
}
