//! A `pattern`, compiled once, on first use.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;

/// A `pattern` keyword: the text the document writes (shown in messages) and the
/// regular expression it was translated to (by the generator: ECMA-262 → `regex`
/// syntax), compiled on first use and kept.
///
/// A translation the engine does not compile (the generator compiles every one it emits,
/// so this means a mismatch of versions) is never a panic: the pattern then checks
/// nothing, and says so once in the logs (`tracing`, target `rpcsmith::constraint`).
#[derive(Debug)]
pub struct Pattern {
    source: Cow<'static, str>,
    regex: Cow<'static, str>,
    compiled: OnceLock<Option<Regex>>,
}

impl Pattern {
    /// A pattern for a `static` (what generated code writes).
    pub const fn new(source: &'static str, regex: &'static str) -> Self {
        Pattern {
            source: Cow::Borrowed(source),
            regex: Cow::Borrowed(regex),
            compiled: OnceLock::new(),
        }
    }

    /// A pattern read at run time.
    pub fn owned(source: String, regex: String) -> Self {
        Pattern {
            source: Cow::Owned(source),
            regex: Cow::Owned(regex),
            compiled: OnceLock::new(),
        }
    }

    /// The pattern as the document writes it.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether `text` matches (anywhere in it: JSON Schema patterns are not anchored).
    pub fn is_match(&self, text: &str) -> bool {
        let compiled = self.compiled.get_or_init(|| match Regex::new(&self.regex) {
            Ok(regex) => Some(regex),
            Err(error) => {
                tracing::warn!(
                    target: "rpcsmith::constraint",
                    pattern = %self.source,
                    %error,
                    "pattern not compiled: not checked"
                );
                None
            }
        });
        compiled.as_ref().is_none_or(|regex| regex.is_match(text))
    }
}
