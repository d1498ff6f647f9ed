//! The runtime's layers import one way, `protocol` ← `client`/`server` ← `proxy` ←
//! `transport`/`http`/`fanout`, and its files import each other without a circle (nor do
//! the generator's); HTTP names no WebSocket, and its server and client stand apart;
//! `protocol` holds no engine; `transport/` holds no broker; generated code's one door
//! holds re-exports only.
//!
//! Read from the source text: every `use`, and every path written out in code
//! (`crate::…`, `super::…`; comments left aside), that names a module of this crate is
//! an edge from its file to the file that defines what it names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under the runtime's `src`, as a path relative to it with `/`
/// separators.
fn files() -> BTreeMap<String, String> {
    files_under(&src())
}

/// Every `.rs` file under `root`, as a path relative to it with `/` separators.
fn files_under(root: &Path) -> BTreeMap<String, String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(root).unwrap();
                let name = relative.to_string_lossy().replace('\\', "/");
                out.insert(name, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// The text of a file without its comments (line comments, doc comments included) and
/// without its unit tests (an inline `mod tests`, whose `super` is the file itself).
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    text.lines()
        .map(|line| match line.find("//") {
            // `//` inside a string (a URL) is rare in this crate's code; a line that
            // starts a comment is what matters here.
            Some(at) if line[..at].trim().is_empty() => "",
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module path of a file: `server/engine.rs` → `["server", "engine"]`,
/// `server/mod.rs` → `["server"]`, `lib.rs` (or a binary's `main.rs`) → `[]`.
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The file defining module `path`, if there is one.
fn file_of(path: &[String], files: &BTreeMap<String, String>) -> Option<String> {
    if path.is_empty() {
        return Some("lib.rs".to_owned());
    }
    let joined = path.join("/");
    [format!("{joined}.rs"), format!("{joined}/mod.rs")]
        .into_iter()
        .find(|candidate| files.contains_key(candidate))
}

/// Every `use` statement's paths, braces expanded (`a::{b, c::d}` → `a::b`, `a::c::d`).
fn use_paths(code: &str) -> Vec<String> {
    use_statements(code)
        .into_iter()
        .map(|(_, path)| path)
        .collect()
}

/// Every `use` statement's paths, each with whether its statement is a re-export
/// (`pub use`, `pub(crate) use`, …).
fn use_statements(code: &str) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().last();
        let statement_start = rest[..at].rfind([';', '{', '}', '\n']).map_or(0, |i| i + 1);
        let reexport = rest[statement_start..at].trim_start().starts_with("pub");
        rest = &rest[at + 4..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some(end) = rest.find(';') else { break };
        let tree: String = rest[..end].chars().filter(|c| !c.is_whitespace()).collect();
        let mut paths = Vec::new();
        expand("", &tree, &mut paths);
        out.extend(paths.into_iter().map(|path| (reexport, path)));
        rest = &rest[end..];
    }
    out
}

/// Every path written out in code outside `use` statements that starts at this crate
/// (`crate::…`, `super::…`): `super::untagged::take(…)`, `crate::transport::ws::upgrade(…)`.
/// Macro paths (`$crate::…`) and visibilities (`pub(in crate::http)`) are none.
fn code_paths(code: &str) -> Vec<String> {
    let mut without_uses = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let starts_word = !rest[..at]
            .chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        let end = if starts_word {
            rest[at..].find(';')
        } else {
            None
        };
        let Some(end) = end else {
            without_uses.push_str(&rest[..at + 4]);
            rest = &rest[at + 4..];
            continue;
        };
        without_uses.push_str(&rest[..at]);
        rest = &rest[at + end..];
    }
    without_uses.push_str(rest);
    let mut out = Vec::new();
    for root in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(found) = without_uses[from..].find(root) {
            let at = from + found;
            from = at + root.len();
            let before = without_uses[..at].trim_end_matches(' ');
            let joined = before
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == ':');
            if joined || before.ends_with(" in") || before.ends_with("(in") {
                continue;
            }
            let path: String = without_uses[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            out.push(path.trim_end_matches(':').to_owned());
        }
    }
    out
}

fn expand(prefix: &str, tree: &str, out: &mut Vec<String>) {
    match tree.find('{') {
        None => {
            for part in tree.split(',').filter(|p| !p.is_empty()) {
                let part = part.split(" as ").next().unwrap_or(part);
                out.push(format!("{prefix}{part}"));
            }
        }
        Some(open) => {
            let head = &tree[..open];
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            for item in split_top(inner) {
                expand(&format!("{prefix}{head}"), item, out);
            }
        }
    }
}

/// Splits `a, b::{c, d}, e` at its top-level commas.
fn split_top(text: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0, 0, Vec::new());
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out.into_iter().filter(|s| !s.is_empty()).collect()
}

/// The file a `use` path of `file` lands in: the deepest module it names; through a
/// `mod.rs` (or `lib.rs`) that only re-exports the item, the file that defines it.
fn target(file: &str, path: &str, files: &BTreeMap<String, String>) -> Option<String> {
    let mut segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let mut module = match segments.first().copied() {
        Some("crate") => Vec::new(),
        Some("super") => {
            let mut module = module_of(file);
            module.pop();
            module
        }
        Some("self") => module_of(file),
        _ => return None,
    };
    segments.remove(0);
    while segments.first() == Some(&"super") {
        module.pop();
        segments.remove(0);
    }
    let mut landed = file_of(&module, files)?;
    for segment in segments {
        if segment == "*" {
            break;
        }
        let mut deeper = module.clone();
        deeper.push(segment.to_owned());
        match file_of(&deeper, files) {
            Some(found) => {
                module = deeper;
                landed = found;
            }
            None => {
                // An item of `module`: where its `mod.rs` re-exports it from, if it does.
                if let Some(defined) = reexport(&landed, segment, files) {
                    landed = defined;
                }
                break;
            }
        }
    }
    Some(landed)
}

/// The file `front` (a `mod.rs` or `lib.rs`) re-exports `item` from, if it does.
fn reexport(front: &str, item: &str, files: &BTreeMap<String, String>) -> Option<String> {
    if !(front.ends_with("mod.rs") || front == "lib.rs") {
        return None;
    }
    let text = code(files.get(front)?);
    let mut statements = String::new();
    for chunk in text.split(';') {
        if let Some(at) = chunk.find("pub use ") {
            statements.push_str("use ");
            statements.push_str(&chunk[at + 8..]);
            statements.push(';');
        }
    }
    use_paths(&statements)
        .into_iter()
        .find(|path| path.rsplit("::").next() == Some(item))
        .and_then(|path| {
            // `pub use crate::item` in lib.rs names an item of the crate root itself (a
            // `#[macro_export]` macro lives there): defined in lib.rs, not re-exported.
            if front == "lib.rs" && path.starts_with("crate::") && path.matches("::").count() == 1 {
                return Some(front.to_owned());
            }
            let path = match path.split_once("::") {
                Some((first, _)) if ["crate", "super", "self"].contains(&first) => path,
                _ => format!("self::{path}"),
            };
            target(front, &path, files)
        })
}

/// The layer a file belongs to.
fn layer(file: &str) -> &str {
    file.split('/')
        .next()
        .unwrap_or(file)
        .trim_end_matches(".rs")
}

#[test]
fn layers_import_one_way() {
    let forbidden: &[(&str, &[&str])] = &[
        (
            "protocol",
            &["client", "server", "proxy", "transport", "http", "fanout"],
        ),
        (
            "client",
            &["server", "proxy", "transport", "http", "fanout"],
        ),
        (
            "server",
            &["client", "proxy", "transport", "http", "fanout"],
        ),
        ("proxy", &["transport", "http", "fanout"]),
    ];
    let mut wrong = Vec::new();
    for (file, text) in files() {
        let text = code(&text);
        for (from, to) in forbidden {
            if layer(&file) != *from {
                continue;
            }
            for target in *to {
                if text.contains(&format!("crate::{target}")) {
                    wrong.push(format!("{file} names crate::{target}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn no_file_imports_in_a_circle() {
    let circles = circles(&edges(&files()));
    assert!(circles.is_empty(), "files import in a circle: {circles:#?}");
}

/// The generator's crates keep the same rule: `rpcsmith-build` (`codegen/src`) and the
/// command-line tool (`codegen/cli/src`). Read from the workspace; a packaged runtime,
/// which has no generator beside it, checks only itself.
#[test]
fn no_generator_file_imports_in_a_circle() {
    let codegen = Path::new(env!("CARGO_MANIFEST_DIR")).join("../codegen");
    if !codegen.is_dir() {
        eprintln!("no generator beside the runtime: its files are not checked");
        return;
    }
    let mut found = Vec::new();
    for root in [codegen.join("src"), codegen.join("cli/src")] {
        for circle in circles(&edges(&files_under(&root))) {
            found.push((root.display().to_string(), circle));
        }
    }
    assert!(found.is_empty(), "files import in a circle: {found:#?}");
}

/// Which file imports which: an edge for every `use` path that lands in another file.
/// A module's front (`mod.rs`, `lib.rs`) re-exporting its own files (`pub use
/// child::Item`) declares them and is no import; a front that uses what its files
/// define (`use child::Item`) imports them like any other file, so a child that uses
/// its front back makes a circle.
fn edges(files: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let modules: Vec<Vec<String>> = files.keys().map(|file| module_of(file)).collect();
    for (file, text) in files {
        // A file whose module has modules of its own (`mod.rs`, `lib.rs`, `a.rs` beside `a/`).
        let own = module_of(file);
        let front = modules
            .iter()
            .any(|module| module.len() > own.len() && module.starts_with(&own));
        let code = code(text);
        let written = code_paths(&code).into_iter().map(|path| (false, path));
        for (reexport, path) in use_statements(&code).into_iter().chain(written) {
            let Some(to) = target(file, &path, files) else {
                continue;
            };
            let own_child = module_of(&to).starts_with(&own);
            if to != *file && !(front && reexport && own_child) {
                edges.entry(file.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

/// One circle for each back edge a depth-first search meets.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
        found: &mut Vec<Vec<String>>,
    ) {
        state.insert(node.to_owned(), 1);
        stack.push(node.to_owned());
        for next in edges.get(node).into_iter().flatten() {
            match state.get(next.as_str()) {
                Some(1) => {
                    let start = stack.iter().position(|n| n == next).unwrap_or(0);
                    let mut circle = stack[start..].to_vec();
                    circle.push(next.clone());
                    found.push(circle);
                }
                Some(_) => {}
                None => visit(next, edges, state, stack, found),
            }
        }
        stack.pop();
        state.insert(node.to_owned(), 2);
    }
    let (mut state, mut found) = (BTreeMap::new(), Vec::new());
    for node in edges.keys() {
        if !state.contains_key(node.as_str()) {
            visit(node, edges, &mut state, &mut Vec::new(), &mut found);
        }
    }
    found
}

#[test]
fn generated_code_has_one_door_of_reexports() {
    let lib = code(&files()["lib.rs"]);
    let start = lib
        .find("pub mod __private")
        .expect("the `__private` module in lib.rs");
    let body = &lib[start..];
    let open = body.find('{').unwrap();
    let close = open + body[open..].find("\n}").expect("the module's end");
    for statement in body[open + 1..close].split(';').map(str::trim) {
        // A re-export may be there only with a feature.
        let statement = match statement.strip_prefix("#[cfg(") {
            Some(rest) => rest
                .split_once(")]")
                .map_or(statement, |(_, s)| s.trim_start()),
            None => statement,
        };
        assert!(
            statement.is_empty() || statement.starts_with("pub use "),
            "`__private` holds re-exports only, not `{statement}`"
        );
    }
}

/// The identifiers of a file's code (comments left aside).
fn identifiers(code: &str) -> BTreeSet<&str> {
    code.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|word| !word.is_empty())
        .collect()
}

/// HTTP knows no WebSocket: WebSocket attaches to the HTTP server through its upgrade
/// hook (`http::Upgrade`), so nothing under `http/` names it, and the next protocol on
/// the HTTP port lands beside it, touching neither.
#[test]
fn http_names_no_websocket() {
    let files = files();
    let edges = edges(&files);
    let mut wrong = Vec::new();
    for (file, text) in files.iter().filter(|(file, _)| file.starts_with("http/")) {
        let code = code(text);
        let words = identifiers(&code);
        for word in [
            "ws",
            "websocket",
            "WebSocket",
            "tungstenite",
            "tokio_tungstenite",
        ] {
            if words.contains(word) {
                wrong.push(format!("{file} names `{word}`"));
            }
        }
        for to in edges.get(file).into_iter().flatten() {
            if to.starts_with("transport/ws/") {
                wrong.push(format!("{file} imports {to}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The HTTP server and the HTTP client are apart: neither imports the other; what both
/// use (media types, the event-stream codec, reading bodies) sits beside them in `http/`.
#[test]
fn http_server_and_client_import_each_other_nothing() {
    let edges = edges(&files());
    let mut wrong = Vec::new();
    for (from, to) in [
        ("http/server/", "http/client/"),
        ("http/client/", "http/server/"),
    ] {
        for (file, targets) in edges.iter().filter(|(file, _)| file.starts_with(from)) {
            for target in targets.iter().filter(|target| target.starts_with(to)) {
                wrong.push(format!("{file} imports {target}"));
            }
        }
    }
    // What both share imports neither side.
    for (file, targets) in edges.iter().filter(|(file, _)| {
        file.starts_with("http/")
            && !file.starts_with("http/server/")
            && !file.starts_with("http/client/")
    }) {
        for target in targets {
            if (target.starts_with("http/server/") || target.starts_with("http/client/"))
                && file != "http/mod.rs"
            {
                wrong.push(format!("{file}, shared, imports {target}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The wire model holds no engine and no I/O: `protocol` names neither engine, no
/// runtime and no HTTP stack.
#[test]
fn protocol_holds_no_engine() {
    let mut wrong = Vec::new();
    for (file, text) in files()
        .iter()
        .filter(|(file, _)| file.starts_with("protocol/"))
    {
        let code = code(text);
        for name in [
            "crate::server",
            "crate::client",
            "tokio::",
            "hyper::",
            "super::super::server",
            "super::super::client",
        ] {
            if code.contains(name) {
                wrong.push(format!("{file} names {name}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// `transport/` holds transports: the fan-out of pushes across instances (the broker)
/// and HTTP have rooms of their own (`fanout/`, `http/`); a transport folder defining
/// them again fails.
#[test]
fn transport_holds_no_broker_and_no_http() {
    let mut wrong = Vec::new();
    for (file, text) in files()
        .iter()
        .filter(|(file, _)| file.starts_with("transport/"))
    {
        if file.starts_with("transport/broker") || file.starts_with("transport/http") {
            wrong.push(format!("{file} is under transport/"));
        }
        let code = code(text);
        for definition in [
            "trait Broker",
            "struct Fanout",
            "struct Topic",
            "struct Service",
            "struct Serve ",
        ] {
            if code.contains(definition) {
                wrong.push(format!("{file} defines `{definition}`"));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
