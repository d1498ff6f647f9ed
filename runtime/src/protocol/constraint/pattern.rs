//! A `pattern`, compiled once, on first use.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;

use super::anchored::Anchored;

/// A `pattern` keyword: the text the document writes (shown in messages) and the
/// regular expression it was translated to (by the generator: ECMA-262 → `regex`
/// syntax), compiled on first use and kept.
///
/// A translation the engine does not compile (the generator compiles every one it emits,
/// so this means a mismatch of versions) is never a panic: the pattern then checks
/// nothing, and says so once in the logs (`tracing`, target `rpcsmith::constraint`).
///
/// An anchored simple pattern (`^0x[0-9a-fA-F]{40}$`: ASCII literals and classes with
/// counts, where matching greedily is exact) is matched by a one-pass matcher instead of
/// the regular expression, with the same answers and a few times faster; it is used only
/// when `regex` compiles the pattern too.
#[derive(Debug)]
pub struct Pattern {
    source: Cow<'static, str>,
    regex: Cow<'static, str>,
    compiled: OnceLock<Option<Compiled>>,
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
    #[inline]
    pub fn is_match(&self, text: &str) -> bool {
        match self.compiled.get() {
            Some(compiled) => Compiled::matches(compiled.as_ref(), text),
            None => self.compile_and_match(text),
        }
    }

    /// The first [`is_match`](Pattern::is_match): compiles the pattern, then matches.
    #[cold]
    fn compile_and_match(&self, text: &str) -> bool {
        let compiled = self.compiled.get_or_init(|| match Regex::new(&self.regex) {
            Ok(regex) => Some(match Anchored::parse(&self.regex) {
                Some(anchored) => Compiled::Anchored(anchored),
                None => Compiled::Regex(regex),
            }),
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
        Compiled::matches(compiled.as_ref(), text)
    }
}

/// What a pattern is matched with.
#[derive(Debug)]
enum Compiled {
    /// The one-pass matcher of an anchored simple pattern.
    Anchored(Anchored),
    /// The regular expression, for any other.
    Regex(Regex),
}

impl Compiled {
    /// Whether `text` matches `compiled` (`None`, a pattern not compiled: it checks
    /// nothing).
    fn matches(compiled: Option<&Compiled>, text: &str) -> bool {
        compiled.is_none_or(|compiled| match compiled {
            Compiled::Anchored(anchored) => anchored.is_match(text),
            Compiled::Regex(regex) => regex.is_match(text),
        })
    }
}
