//! The types entry point: one document in, its types module out.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Diagnostic, Diagnostics, Error, ErrorKind};
use crate::load::{Options, load_document};
use crate::render::{Renderer, ty_expr_in};
use crate::typespace::TypeSpace;

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
/// The report's warnings include the front half's (validation) and the type space's
/// (fallbacks to `serde_json::Value`, keywords that are not enforced).
///
/// # Errors
///
/// An [`Error`] listing every problem when the document cannot be read or resolved,
/// when a schema cannot be generated (an unknown `type`, a type that requires itself),
/// under `strict` when there are warnings, or when `out` cannot be written.
pub fn generate_types(
    path: impl AsRef<Path>,
    out: impl AsRef<Path>,
    options: &Options,
) -> Result<Report, Error> {
    let report = render_types(path, options)?;
    crate::emit::write_if_changed(out.as_ref(), &report.source)?;
    Ok(report)
}

/// Like [`generate_types`], returning the source in the [`Report`] without writing it.
///
/// # Errors
///
/// As [`generate_types`], except for writing.
pub fn render_types(path: impl AsRef<Path>, options: &Options) -> Result<Report, Error> {
    let path = path.as_ref();
    let mut document = load_document(path, options)?;
    let space = TypeSpace::build(&mut document);
    let mut collected = Diagnostics::new();
    for d in document.warnings.iter().chain(space.diagnostics()) {
        collected.push(ErrorKind::Generate, d.clone());
    }
    if options.is_strict() {
        collected.make_strict();
    }
    let diagnostics = collected.finish()?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let source = Renderer::embedded()?.types(&space, &name)?;
    let examples = examples(&space);
    Ok(Report {
        source,
        types: space.defs().len(),
        fallbacks: space.fallback_count(),
        warnings: diagnostics,
        files_read: document.resolver.files_read(),
        examples,
    })
}

/// Every example and default of `space`, with its Rust type.
pub(crate) fn examples(space: &TypeSpace) -> Vec<ExampleValue> {
    space
        .examples()
        .iter()
        .map(|e| ExampleValue {
            rust_type: ty_expr_in(&e.ty, space.defs(), "types::"),
            value: e.value.clone(),
            origin: e.origin.clone(),
        })
        .collect()
}
