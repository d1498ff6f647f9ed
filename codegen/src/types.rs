//! The types entry point: one document in, its types module out.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Diagnostic, Error, ErrorKind};
use crate::render::{Renderer, ty_expr_in};
use crate::resolve::Resolver;
use crate::typespace::TypeSpace;

/// Options for [`generate_types`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct TypesOptions {
    /// Directories searched for files named by cross-file `$ref`s, after the referring
    /// file's own directory (like `protoc -I`).
    pub include_dirs: Vec<PathBuf>,
    /// Turn warnings (such as fallbacks to `serde_json::Value`) into errors.
    pub strict: bool,
}

impl TypesOptions {
    /// Default options: no include directories, warnings stay warnings.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an include directory.
    pub fn include_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.include_dirs.push(dir.into());
        self
    }

    /// Sets `strict`.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }
}

/// An example or default value of the document, with the Rust type it should fit.
#[derive(Debug, Clone, PartialEq)]
pub struct ExampleValue {
    /// The Rust type, with the document's types named `types::Name`.
    pub rust_type: String,
    /// The value.
    pub value: Value,
    /// Where it is written (`file#pointer`).
    pub origin: String,
}

/// What one generation did.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Report {
    /// The generated source.
    pub source: String,
    /// How many named types were emitted.
    pub types: usize,
    /// How many schemas fell back to `serde_json::Value` (each also a warning).
    pub fallbacks: usize,
    /// Every warning, in the order found.
    pub warnings: Vec<Diagnostic>,
    /// Every file read (for `cargo:rerun-if-changed`).
    pub files_read: Vec<PathBuf>,
    /// Every example and default of the document, with its Rust type.
    pub examples: Vec<ExampleValue>,
}

/// Generates the types module of the OpenRPC document at `path` and writes it to `out`
/// (only when its content changed, so builds that depend on it are not redone).
///
/// # Errors
///
/// An [`Error`] listing every problem when the document cannot be read or resolved,
/// when a schema cannot be generated (an unknown `type`, a type that requires itself),
/// under `strict` when there are warnings, or when `out` cannot be written.
pub fn generate_types(
    path: impl AsRef<Path>,
    out: impl AsRef<Path>,
    options: &TypesOptions,
) -> Result<Report, Error> {
    let report = render_types(path, options)?;
    let out = out.as_ref();
    let unchanged = std::fs::read_to_string(out).is_ok_and(|old| old == report.source);
    if !unchanged {
        std::fs::write(out, &report.source).map_err(|e| {
            let d = Diagnostic::error(out, (0, 0), "", format!("cannot write: {e}"));
            Error::new(ErrorKind::Io, vec![d])
        })?;
    }
    Ok(report)
}

/// Like [`generate_types`], returning the source in the [`Report`] without writing it.
///
/// # Errors
///
/// As [`generate_types`], except for writing.
pub fn render_types(path: impl AsRef<Path>, options: &TypesOptions) -> Result<Report, Error> {
    let path = path.as_ref();
    let mut resolver = Resolver::new(options.include_dirs.clone());
    let root = resolver.load(path)?;
    let space = TypeSpace::build(&mut resolver, root);
    let mut diagnostics = space.diagnostics().to_vec();
    if options.strict {
        diagnostics.iter_mut().for_each(|d| d.severity = crate::error::Severity::Error);
    }
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Err(Error::new(ErrorKind::Generate, diagnostics));
    }
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let source = Renderer::embedded()?.types(&space, &name)?;
    let examples = space
        .examples()
        .iter()
        .map(|e| ExampleValue {
            rust_type: ty_expr_in(&e.ty, space.defs(), "types::"),
            value: e.value.clone(),
            origin: e.origin.clone(),
        })
        .collect();
    Ok(Report {
        source,
        types: space.defs().len(),
        fallbacks: space.fallback_count(),
        warnings: diagnostics,
        files_read: resolver.files_read(),
        examples,
    })
}
