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
//! | `pattern`, `format`, `multipleOf` added / removed / changed | narrowed / widened / changed |
//! | a member now required / no longer required | narrowed / widened |
//! | a required member removed | widened (the reader can no longer count on it) |
//! | a new required member | narrowed |
//! | a new optional member, or an optional member removed | compatible (unknown members are ignored), unless `additionalProperties: false` refused it before (widened) or refuses it now (narrowed) |
//! | `additionalProperties` any → schema → `false` | narrowed each step (the other way: widened); two schemas are compared |
//! | an alternative (`oneOf`/`anyOf`, matched by `$ref` name or title, else by position) removed / added | narrowed / widened; both: changed |
//! | a schema that becomes alternatives, one of which is the old schema / the reverse | widened / narrowed, and the matched pair compared |
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
//! | error message changed, deprecation changed | compatible |
//!
//! A method the server sends to the client ([`Options::server_to_client`]: a
//! subscription's notifications) swaps the roles: what would break clients breaks servers,
//! and the reverse.
//!
//! Annotations (`title`, `description`, `summary`, examples, `default`) are not on the
//! wire and are not reported. A changed shared schema is reported once, with every use.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use serde::Serialize;

use rpcsmith_build::Error;
use rpcsmith_build::document::Document;
use rpcsmith_build::load_document;
use rpcsmith_build::{Location, Resolver};

mod finding;
mod methods;
mod schema;
pub(crate) mod shape;

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
        )
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
/// [`load_document`]).
pub fn diff(
    old: impl AsRef<Path>,
    new: impl AsRef<Path>,
    options: &Options,
) -> Result<Report, Error> {
    let old = load_document(old, &options.old);
    let new = load_document(new, &options.new);
    match (old, new) {
        (Ok(mut old), Ok(mut new)) => Ok(compare(&mut old, &mut new, options)),
        (Err(e), Ok(_)) | (Ok(_), Err(e)) => Err(e),
        (Err(a), Err(b)) => {
            let mut diagnostics = a.diagnostics().to_vec();
            diagnostics.extend_from_slice(b.diagnostics());
            Err(Error::new(a.kind(), diagnostics))
        }
    }
}

/// Compares two loaded documents (`&mut`: following `$ref`s remembers where chains end).
/// Only [`Options::server_to_client`] of `options` matters here.
pub fn compare(old: &mut Document, new: &mut Document, options: &Options) -> Report {
    let (old_methods, new_methods) = (old.methods.clone(), new.methods.clone());
    let mut diff = Diff {
        old_root: Location::root(old.root),
        new_root: Location::root(new.root),
        old: &mut old.resolver,
        new: &mut new.resolver,
        roles: &options.roles,
        reversed: false,
        found: Vec::new(),
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
    /// The method compared now is sent by the server: who breaks is swapped.
    reversed: bool,
    found: Vec<Raw>,
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
        let key = (kind, breaks, message, old, new);
        if let Some(&i) = self.by_key.get(&key) {
            let uses = &mut self.found[i].uses;
            if !uses.iter().any(|u| u == path) {
                uses.push(path.to_owned());
            }
            return;
        }
        self.by_key.insert(key.clone(), self.found.len());
        let (kind, breaks, message, old, new) = key;
        let uses = vec![path.to_owned()];
        self.found.push(Raw {
            kind,
            breaks,
            message,
            uses,
            old,
            new,
        });
    }

    /// Sets who sends the method named `name` for the findings that follow.
    pub(crate) fn direction_of(&mut self, name: &str) {
        self.reversed = self.roles.is_server_to_client(name);
    }

    fn finish(&self, raw: Raw) -> Finding {
        Finding {
            kind: raw.kind,
            breaks: raw.breaks,
            message: raw.message,
            uses: raw.uses,
            old: place(self.old, &raw.old),
            new: place(self.new, &raw.new),
        }
    }
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
