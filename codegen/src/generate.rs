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
    let report = crate::types::render_types(path, &settings.load)?;
    Ok(Generated {
        source: report.source,
        warnings: report.warnings,
        files_read: report.files_read,
    })
}
