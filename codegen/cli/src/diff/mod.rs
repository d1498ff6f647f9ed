//! Wire compatibility between two versions of a document: every difference, and who it
//! breaks.
//!
//! [`diff`] loads both documents (each through the whole front half: validation, `$ref`s)
//! and compares them as they are seen on the wire, never by Rust names: methods by wire
//! name, params by name and position, schemas by the values they let through. Each
//! [`Finding`] says who it breaks and names its place in both documents as
//! `file:line:col: at /pointer`.
//!
//! "Breaks clients": a client built against the old document fails against a server of the
//! new one. "Breaks servers": a server built against the old document fails a client of
//! the new one, or no longer implements what the new document describes. A value read by
//! one side fails when the other may send what it does not take, so a schema change
//! breaks by the way its value travels:
//!
//! | a schema …         | in params (client → server) | in results and errors (server → client) |
//! |--------------------|-----------------------------|-----------------------------------------|
//! | narrowed           | breaks clients              | breaks servers                          |
//! | widened            | breaks servers              | breaks clients                          |
//! | changed both ways  | breaks both                 | breaks both                             |
//!
//! What narrows (fewer values pass) and what widens (more pass):
//!
//! | difference | verdict |
//! |---|---|
//! | a JSON type removed / added (`integer` is within `number`) | narrowed / widened; both at once (`string` → `integer`): changed |
//! | `type` added / removed | narrowed / widened |
//! | `enum` (or `const`) values removed / added; `enum` added / removed | narrowed / widened |
//! | a lower bound (`minimum`, `exclusiveMinimum`, `minLength`, `minItems`, `minProperties`) raised or added / lowered or removed | narrowed / widened |
//! | an upper bound (`maximum`, `exclusiveMaximum`, `maxLength`, `maxItems`, `maxProperties`) lowered or added / raised or removed | narrowed / widened |
//! | `pattern`, `format`, `multipleOf` added / removed | narrowed / widened |
//! | `pattern` changed | as the two regular languages compare (`diff/regular.rs`: anchored classes, bounded repetitions, alternatives): narrowed, widened or changed; outside what is decided (a lookaround, `^` inside), *direction unknown*: reported, breaking nobody for sure |
//! | `multipleOf` a → b | narrowed when b is a multiple of a, widened when a is one of b, else changed |
//! | `format` changed | changed |
//! | `not` | its schema compared with the verdicts reversed (a wider `not` refuses more) |
//! | `if`/`then`/`else` | added / removed: narrowed / widened; the same `if`: `then` and `else` compared; `if` changed: direction unknown |
//! | `patternProperties` | the same pattern's schemas compared; a pattern added narrows (widens where other members were refused), removed the reverse |
//! | tuple `items` | each position compared; a position added narrows, removed widens |
//! | a type changed to one sharing no value (`null` → `integer`) | that finding alone: bounds or members of one type against the other are not compared |
//! | a member now required / no longer required | narrowed / widened |
//! | a required member removed | widened (the reader can no longer count on it) |
//! | a new required member | narrowed |
//! | a new optional member, or an optional member removed | compatible (unknown members are ignored), unless `additionalProperties: false` refused it before (widened) or refuses it now (narrowed) |
//! | `additionalProperties` any → schema → `false` | narrowed each step (the other way: widened); two schemas are compared |
//! | an alternative (`oneOf`/`anyOf`, paired by `$ref` name or title, `const`/`enum` values or discriminator, then structure: never by position, see `diff/union.rs`) removed / added | narrowed / widened; both: changed |
//! | members beside a union (`allOf` of common members and a `oneOf`) | compared in each alternative, reported once with each alternative's path |
//! | a schema that becomes alternatives, one of which is the old schema / the reverse (a union narrowed to one `$ref`) | widened / narrowed, and the matched pair compared |
//!
//! Methods, params and errors:
//!
//! | difference | breaks |
//! |---|---|
//! | method removed | clients |
//! | method added | servers (they do not implement it) |
//! | a notification (no `result`) becomes a request | servers (they never answer it) |
//! | a request becomes a notification | clients (they wait for an answer) |
//! | `paramStructure` narrowed (`either` → `by-name`) / widened / swapped | clients / servers / both |
//! | param removed | clients (they still send it); also servers when it was required |
//! | param added | servers (they do not take it); also clients when it is required |
//! | param optional → required / required → optional | clients / servers |
//! | params sent by position moved (a param inserted or removed before others counts) | both |
//! | a param at the same position renamed, sent by name | both; by position only: compatible |
//! | error code no longer declared / newly declared | servers / clients (errors travel like results) |
//! | error message or `data` changed, deprecation changed | compatible |
//! | one of several errors sharing a code removed / added (errors are paired by code and message, then data, never by code alone) | compatible, with a finding counting the errors of that code |
//!
//! A method the server sends to the client swaps the roles: what would break clients
//! breaks servers, and the reverse. The notifications of subscriptions are recognised as
//! the generator recognises them ([`rpcsmith_build::server_sent_notifications`]: `x-subscription`,
//! the Ethereum and Starknet conventions); [`Options::server_to_client`] names others.
//!
//! Annotations (`title`, `description`, `summary`, examples, `default`) are not on the
//! wire and are not reported. A changed shared schema is reported once, with every use.
//! Each finding names its schema by `$ref` name or title (the component its place is in,
//! `` `BLOCK_HEADER`.event_count ``), and both places. A document that does not load is
//! named (`old document: …`), with the include directory a root-relative `$ref` needs.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use serde::Serialize;

use rpcsmith_build::document::Document;
use rpcsmith_build::load_document;
use rpcsmith_build::{Cause, Diagnostic, Error, ErrorKind, Location, Resolver};

mod applicators;
mod finding;
mod methods;
mod regular;
mod schema;
mod union;

pub use finding::{Breaks, Finding, Kind, Place};

/// Every difference between two documents, in the order met (methods in the old
/// document's order, then added methods).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Report {
    /// The differences.
    pub findings: Vec<Finding>,
}

impl Report {
    /// Whether any finding breaks clients or servers.
    pub fn is_breaking(&self) -> bool {
        self.findings.iter().any(|f| f.breaks.is_breaking())
    }

    /// How many findings break clients, servers, and neither.
    pub fn counts(&self) -> (usize, usize, usize) {
        let clients = self.findings.iter().filter(|f| f.breaks.clients).count();
        let servers = self.findings.iter().filter(|f| f.breaks.servers).count();
        let compatible = self
            .findings
            .iter()
            .filter(|f| !f.breaks.is_breaking())
            .count();
        (clients, servers, compatible)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for finding in &self.findings {
            writeln!(f, "{finding}")?;
        }
        let (clients, servers, compatible) = self.counts();
        let n = self.findings.len();
        write!(
            f,
            "{n} difference{}: {clients} break clients, {servers} break servers, {compatible} compatible",
            if n == 1 { "" } else { "s" }
        )?;
        let unknown = self
            .findings
            .iter()
            .filter(|f| f.kind == Kind::DirectionUnknown)
            .count();
        match unknown {
            0 => Ok(()),
            _ => write!(
                f,
                " ({unknown} of them of unknown direction: check by hand)"
            ),
        }
    }
}

/// How to load and read the two documents.
#[derive(Debug, Clone, Default)]
pub struct Options {
    old: rpcsmith_build::Options,
    new: rpcsmith_build::Options,
    /// Only its `server_to_client` patterns are read.
    roles: rpcsmith_build::Settings,
}

impl Options {
    /// The defaults: no include directories, every method sent by the client.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an include directory for both documents (see [`rpcsmith_build::Options::include_dir`]).
    pub fn include_dir(self, dir: impl Into<std::path::PathBuf>) -> Self {
        let dir = dir.into();
        self.old_include_dir(dir.clone()).new_include_dir(dir)
    }

    /// Adds an include directory for the old document only.
    pub fn old_include_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.old = self.old.include_dir(dir);
        self
    }

    /// Adds an include directory for the new document only.
    pub fn new_include_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.new = self.new.include_dir(dir);
        self
    }

    /// Marks the methods whose wire name matches `pattern` (`*` matches any run of
    /// characters) as sent by the server to the client, as
    /// [`Builder::server_to_client`](rpcsmith_build::Builder::server_to_client) does: for them the
    /// roles swap, so what would break clients breaks servers and the reverse.
    pub fn server_to_client(mut self, pattern: impl Into<String>) -> Self {
        self.roles.server_to_client.push(pattern.into());
        self
    }
}

/// Loads the documents at `old` and `new` and compares them.
///
/// # Errors
///
/// An [`Error`] holding the problems of both documents when either does not load (see
/// [`load_document`]): each message says which document (`old document: …`), and a
/// `$ref` to a file that is found relative to a directory above the document names the
/// include directory to pass.
pub fn diff(
    old: impl AsRef<Path>,
    new: impl AsRef<Path>,
    options: &Options,
) -> Result<Report, Error> {
    let loaded_old = load_document(old.as_ref(), &options.old);
    let loaded_new = load_document(new.as_ref(), &options.new);
    match (loaded_old, loaded_new) {
        (Ok(mut old), Ok(mut new)) => Ok(compare(&mut old, &mut new, options)),
        (old_result, new_result) => {
            let mut kind = None;
            let mut diagnostics = Vec::new();
            for (side, result) in [("old", old_result.err()), ("new", new_result.err())] {
                if let Some(e) = result {
                    kind = kind.or(Some(e.kind()));
                    let document = if side == "old" {
                        old.as_ref()
                    } else {
                        new.as_ref()
                    };
                    let on_side = |d: &Diagnostic| on_side(side, document, d);
                    diagnostics.extend(e.diagnostics().iter().map(on_side));
                }
            }
            Err(Error::new(kind.unwrap_or(ErrorKind::Invalid), diagnostics))
        }
    }
}

/// `d`, said of the `side` document; with the include directory to pass when it is a
/// `$ref` to a file not found that a directory above the referring file holds.
fn on_side(side: &str, document: &Path, d: &Diagnostic) -> Diagnostic {
    let mut d = d.clone();
    let mut message = format!("{side} document: {}", d.message);
    if let Some(dir) = include_hint(document, &d) {
        let dir = dir.display();
        message.push_str(&format!(
            "; the path is relative to {dir}: pass --{side}-include {dir} (-I {dir} for both documents)"
        ));
    }
    d.message = message;
    d
}

/// The directory above the referring file (or, when its shown path is not found from
/// here, above `document`) from which the `$ref` of `d` to a file found nowhere
/// ([`Cause::MissingFile`]) names an existing file.
fn include_hint(document: &Path, d: &Diagnostic) -> Option<std::path::PathBuf> {
    let Some(Cause::MissingFile { path }) = &d.cause else {
        return None;
    };
    let referring = match d.file.is_file() {
        true => std::path::absolute(&d.file).ok()?,
        false => std::path::absolute(document).ok()?,
    };
    referring
        .ancestors()
        .skip(2)
        .find(|dir| dir.join(path).is_file())
        .map(Path::to_path_buf)
}

/// Compares two loaded documents (`&mut`: following `$ref`s remembers where chains end).
/// Only [`Options::server_to_client`] of `options` matters here.
pub fn compare(old: &mut Document, new: &mut Document, options: &Options) -> Report {
    let (old_methods, new_methods) = (old.methods.clone(), new.methods.clone());
    let mut sent_by_server = rpcsmith_build::server_sent_notifications(old);
    sent_by_server.extend(rpcsmith_build::server_sent_notifications(new));
    let mut diff = Diff {
        old_root: Location::root(old.root),
        new_root: Location::root(new.root),
        old: &mut old.resolver,
        new: &mut new.resolver,
        roles: &options.roles,
        sent_by_server,
        reversed: false,
        found: Vec::new(),
        schema: None,
        touched: Vec::new(),
        by_key: HashMap::new(),
    };
    diff.methods(&old_methods, &new_methods);
    let found = std::mem::take(&mut diff.found);
    let findings = found.into_iter().map(|raw| diff.finish(raw)).collect();
    Report { findings }
}

/// A finding before its places are resolved to positions.
struct Raw {
    kind: Kind,
    schema: Option<String>,
    breaks: Breaks,
    message: String,
    uses: Vec<String>,
    old: Location,
    new: Location,
}

/// The comparison of two documents under way.
pub(crate) struct Diff<'r> {
    old_root: Location,
    new_root: Location,
    pub(crate) old: &'r mut Resolver,
    pub(crate) new: &'r mut Resolver,
    roles: &'r rpcsmith_build::Settings,
    /// The notifications of subscriptions, in either document: sent by the server.
    sent_by_server: Vec<String>,
    /// The method compared now is sent by the server: who breaks is swapped.
    reversed: bool,
    found: Vec<Raw>,
    /// Every finding recorded or met again, with the use: a pair of schemas compared
    /// once gives its findings new uses when it is met again elsewhere.
    pub(crate) touched: Vec<(usize, String)>,
    /// The schema the next finding is in (its `$ref` name or title), set by the walk.
    pub(crate) schema: Option<String>,
    /// The same difference met again (a shared schema reached from another method)
    /// adds a use to the first finding.
    by_key: HashMap<(Kind, Breaks, String, Location, Location), usize>,
}

impl Diff<'_> {
    /// Records a difference, met at `path` on the wire.
    pub(crate) fn push(
        &mut self,
        kind: Kind,
        breaks: Breaks,
        message: String,
        path: &str,
        old: Location,
        new: Location,
    ) {
        let breaks = match self.reversed {
            true => Breaks {
                clients: breaks.servers,
                servers: breaks.clients,
            },
            false => breaks,
        };
        let schema = self.schema.take();
        // A thing removed is the same wherever the other document lacks it (a member
        // beside a union, met through each alternative), and one added the same wherever
        // the old document lacked it.
        let (key_old, key_new) = match kind {
            Kind::MemberRemoved => (old.clone(), Location::root(old.file)),
            Kind::MemberAdded => (Location::root(new.file), new.clone()),
            _ => (old.clone(), new.clone()),
        };
        if let Some(&i) = self.by_key.get(&(
            kind,
            breaks,
            message.clone(),
            key_old.clone(),
            key_new.clone(),
        )) {
            return self.add_use(i, path);
        }
        self.by_key.insert(
            (kind, breaks, message.clone(), key_old, key_new),
            self.found.len(),
        );
        let key = (kind, breaks, message, old, new);
        let (kind, breaks, message, old, new) = key;
        let uses = vec![path.to_owned()];
        self.touched.push((self.found.len(), path.to_owned()));
        self.found.push(Raw {
            kind,
            schema,
            breaks,
            message,
            uses,
            old,
            new,
        });
    }

    /// Adds the use `path` to finding `i` (a shared schema met again).
    pub(crate) fn add_use(&mut self, i: usize, path: &str) {
        self.touched.push((i, path.to_owned()));
        let uses = &mut self.found[i].uses;
        if !uses.iter().any(|u| u == path) {
            uses.push(path.to_owned());
        }
    }

    /// Sets who sends the method named `name` for the findings that follow.
    pub(crate) fn direction_of(&mut self, name: &str) {
        self.reversed =
            self.sent_by_server.iter().any(|n| n == name) || self.roles.is_server_to_client(name);
    }

    fn finish(&self, raw: Raw) -> Finding {
        // The schema a finding is in is where its definition is: a member written in
        // `BLOCK_HEADER` is `BLOCK_HEADER`'s, wherever the walk met it.
        let removed = matches!(
            raw.kind,
            Kind::MemberRemoved | Kind::ErrorRemoved | Kind::ParamRemoved | Kind::MethodRemoved
        );
        let places = match removed {
            true => [&raw.old, &raw.new],
            false => [&raw.new, &raw.old],
        };
        let defined = places.iter().find_map(|at| component_label(&at.pointer));
        let schema = match (raw.schema, defined) {
            (Some(walked), Some((name, label))) if !walked.contains(&format!("`{name}`")) => {
                Some(label)
            }
            (None, Some((_, label))) => Some(label),
            (walked, _) => walked,
        };
        Finding {
            kind: raw.kind,
            schema,
            breaks: raw.breaks,
            message: raw.message,
            uses: raw.uses,
            old: place(self.old, &raw.old),
            new: place(self.new, &raw.new),
        }
    }
}

/// `(NAME, label)` for a place inside `/components/schemas/NAME`: the label is
/// `` `NAME` `` and the members on the way (`` `BLOCK_HEADER`.event_count ``).
fn component_label(pointer: &str) -> Option<(String, String)> {
    let rest = pointer.strip_prefix("/components/schemas/")?;
    let tokens: Vec<String> = rest
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    let name = tokens.first()?.clone();
    let mut label = format!("`{name}`");
    let mut i = 1;
    while i < tokens.len() {
        match tokens[i].as_str() {
            "properties" if i + 1 < tokens.len() => {
                label.push('.');
                label.push_str(&tokens[i + 1]);
                i += 2;
            }
            "items" => {
                label.push_str("[]");
                i += 1;
            }
            "allOf" | "oneOf" | "anyOf" => i += 2,
            _ => break,
        }
    }
    Some((name, label))
}

/// The position of `at`; where nothing is there (a keyword a schema lacks), its nearest
/// enclosing value, so the pointer printed is one that exists.
fn place(resolver: &Resolver, at: &Location) -> Place {
    let mut at = at.clone();
    while resolver.get(&at).is_none() {
        match at.parent() {
            Some(parent) => at = parent,
            None => break,
        }
    }
    let (line, column) = resolver.position(&at);
    Place {
        file: resolver.display_path(at.file).to_path_buf(),
        line,
        column,
        pointer: at.pointer.clone(),
    }
}
