//! The front half's entry point: load → validate → resolve, with every problem collected.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};

use crate::document::{Builder, Document};
use crate::error::{Diagnostics, Error, ErrorKind};
use crate::openrpc::OpenRpc;
use crate::resolve::{Location, Resolver};
use crate::validate::{self, Expect, Finding, Findings, Rule};

/// How to load a document.
#[derive(Debug, Clone, Default)]
pub struct Options {
    include_dirs: Vec<PathBuf>,
    strict: bool,
}

impl Options {
    /// The defaults: no include directories, warnings stay warnings.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a directory where referenced files are looked for after the referring
    /// file's own directory (like `protoc -I`), in the order added.
    pub fn include_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.include_dirs.push(dir.into());
        self
    }

    /// Turns every warning into an error.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// The include directories, in order.
    pub fn include_dirs(&self) -> &[PathBuf] {
        &self.include_dirs
    }

    /// Whether warnings are errors.
    pub fn is_strict(&self) -> bool {
        self.strict
    }
}

/// Loads the OpenRPC document at `path`, validates it, and resolves every `$ref` it
/// holds (loading the other files they name).
///
/// # Errors
///
/// An [`Error`] holding every problem found (and the warnings): the file cannot be read
/// ([`ErrorKind::Io`]) or parsed ([`ErrorKind::Syntax`]); the document breaks the
/// specification in a way generation cannot get past, or has warnings under `strict`
/// ([`ErrorKind::Invalid`]); a `$ref` cannot be resolved or is a cycle
/// ([`ErrorKind::Resolve`]).
pub fn load_document(path: impl AsRef<Path>, options: &Options) -> Result<Document, Error> {
    let mut resolver = Resolver::new(options.include_dirs.clone());
    let root = resolver.load(path)?;
    let mut diagnostics = Diagnostics::new();
    for dir in options.include_dirs.iter().filter(|d| !d.is_dir()) {
        let message = "include directory not found: no $ref is looked up there";
        let d = crate::Diagnostic::warning(dir, (0, 0), "", message);
        diagnostics.push(ErrorKind::Io, d);
    }
    let (findings, refs) = validate::check_structure_parts(&resolver, root);
    let bad_version = findings.iter().any(|f| f.rule == Rule::Version);
    push_findings(&mut diagnostics, findings);
    if bad_version {
        return Err(finish(diagnostics, options).unwrap_err());
    }
    let ref_count = resolve_all(&mut resolver, refs, &mut diagnostics);
    if diagnostics.has_errors() {
        return Err(finish(diagnostics, options).unwrap_err());
    }
    let root_value = resolver
        .get(&Location::root(root))
        .unwrap_or(&serde_json::Value::Null);
    let model = match <OpenRpc as serde::Deserialize>::deserialize(root_value) {
        Ok(model) => model,
        Err(e) => {
            let d = resolver.error_at(
                &Location::root(root),
                format!("cannot read the document: {e}"),
            );
            diagnostics.push(ErrorKind::Invalid, d);
            return Err(finish(diagnostics, options).unwrap_err());
        }
    };
    let mut builder = Builder {
        resolver: &mut resolver,
        problems: Vec::new(),
    };
    let mut methods = builder.methods(root);
    for d in std::mem::take(&mut builder.problems) {
        diagnostics.push(ErrorKind::Resolve, d);
    }
    push_findings(
        &mut diagnostics,
        validate::check_semantics(&resolver, &mut methods),
    );
    let warnings = finish(diagnostics, options)?;
    Ok(Document {
        model,
        resolver,
        root,
        methods,
        warnings,
        ref_count,
    })
}

fn push_findings(diagnostics: &mut Diagnostics, findings: Vec<Finding>) {
    for f in findings {
        diagnostics.push(ErrorKind::Invalid, f.diagnostic);
    }
}

fn finish(
    mut diagnostics: Diagnostics,
    options: &Options,
) -> Result<Vec<crate::Diagnostic>, Error> {
    if options.strict {
        diagnostics.make_strict();
    }
    diagnostics.finish()
}

/// Resolves every `$ref` met (following chains to their end), checks each target for
/// what it must be (which finds the refs inside it, in any file), and returns how many
/// distinct `$ref`s were resolved.
fn resolve_all(
    resolver: &mut Resolver,
    refs: Vec<(Location, Expect)>,
    diagnostics: &mut Diagnostics,
) -> usize {
    let mut pending = VecDeque::from(refs);
    let mut sites: HashSet<Location> = HashSet::new();
    let mut checked: HashSet<Location> = HashSet::new();
    while let Some((site, expect)) = pending.pop_front() {
        if !sites.insert(site.clone()) {
            continue;
        }
        let target = match resolver.deref(&site) {
            Ok(target) => target,
            Err(d) => {
                diagnostics.push(ErrorKind::Resolve, d);
                continue;
            }
        };
        if !checked.insert(target.clone()) {
            continue;
        }
        let Some(value) = resolver.get(&target) else {
            continue;
        };
        let mut findings = Findings::new(resolver);
        validate::check_expected(&mut findings, &target, value, expect);
        let (found, refs) = findings.into_parts();
        push_findings(diagnostics, found);
        pending.extend(refs);
    }
    sites.len()
}
