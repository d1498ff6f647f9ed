//! Formatting of generated code: parse with `syn`, print with `prettyplease`.
//!
//! Parsing doubles as the check that a template produced valid Rust: a mistake is caught
//! here, at generation time, and named after the template that produced it.

/// Why rendered text is not Rust.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotRust {
    /// The template that produced the text.
    pub(crate) template: String,
    /// Line and column (1-based) of the first error in the rendered text.
    pub(crate) line: usize,
    /// Column (1-based).
    pub(crate) column: usize,
    /// What `syn` said.
    pub(crate) message: String,
    /// The offending line of rendered text.
    pub(crate) excerpt: String,
}

impl std::fmt::Display for NotRust {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "template `{}` produced invalid Rust at rendered line {}:{}: {} (in `{}`)",
            self.template, self.line, self.column, self.message, self.excerpt
        )
    }
}

/// Formats rendered Rust source. `header` (comment lines) is put in front unchanged,
/// since `syn` does not keep plain comments.
pub(crate) fn format_rust(template: &str, header: &str, text: &str) -> Result<String, NotRust> {
    let file = syn::parse_file(text).map_err(|e| {
        let start = e.span().start();
        NotRust {
            template: template.to_owned(),
            line: start.line,
            column: start.column + 1,
            message: e.to_string(),
            excerpt: text
                .lines()
                .nth(start.line.saturating_sub(1))
                .unwrap_or_default()
                .trim()
                .to_owned(),
        }
    })?;
    let mut out = String::with_capacity(text.len() + header.len());
    out.push_str(header);
    out.push_str(&prettyplease::unparse(&file));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_keeps_the_header() {
        let out = format_rust("t", "// head\n", "pub struct A{pub x:u8}").unwrap();
        assert_eq!(out, "// head\npub struct A {\n    pub x: u8,\n}\n");
    }

    #[test]
    fn names_the_template_and_place_of_a_mistake() {
        let err = format_rust("types.hbs", "", "pub struct A {\n  x: u8,,\n}").unwrap_err();
        assert_eq!(err.template, "types.hbs");
        assert_eq!((err.line, err.column), (2, 9));
        assert!(
            err.to_string()
                .starts_with("template `types.hbs` produced invalid Rust at rendered line 2:9:")
        );
    }
}
