//! Placeholder for the service generator (branch `cg-services`): types only, in the shape
//! the builder and the CLI read. Replaced by the real `generate` on merge.

use std::path::{Path, PathBuf};

use crate::error::{Diagnostic, Error};
use crate::settings::Settings;

/// One generated module.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Generated {
    /// The formatted Rust source.
    pub source: String,
    /// The warnings.
    pub warnings: Vec<Diagnostic>,
    /// Every file read.
    pub files_read: Vec<PathBuf>,
}

/// Generates the module of the document at `path`.
///
/// # Errors
///
/// Every problem of the document, as an [`Error`].
pub fn generate(path: impl AsRef<Path>, settings: &Settings) -> Result<Generated, Error> {
    let path = path.as_ref();
    let mut document = crate::load::load_document(path, &settings.load)?;
    let mut space = crate::typespace::TypeSpace::build(&mut document.resolver, document.root);
    let override_errors =
        space.apply_overrides(&document.resolver, document.root, &settings.overrides);
    let mut collected = crate::error::Diagnostics::new();
    for d in document.warnings.iter().chain(space.diagnostics()) {
        collected.push(crate::error::ErrorKind::Generate, d.clone());
    }
    for d in override_errors {
        collected.push(crate::error::ErrorKind::Invalid, d);
    }
    if settings.load.is_strict() {
        collected.make_strict();
    }
    let warnings = collected.finish()?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let source = crate::render::Renderer::embedded()?.types(&space, &name)?;
    Ok(Generated {
        source,
        warnings,
        files_read: document.resolver.files_read(),
    })
}
