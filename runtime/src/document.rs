//! The macro a generated `DOCUMENT` (the document answered on `rpc.discover`) is made
//! with, from the file beside the module: it saves compile work (see its docs).

/// The document a generated module answers on `rpc.discover`, from the file beside the
/// module: `DOCUMENT = document!("petstore.discover.json")`, the file's text
/// (`include_str!`, the path relative to the module's file as for `include_str!`).
///
/// It is the value of a call ([`document_text`]) rather than the `include_str!` itself:
/// a `const` whose value is a literal is written into the crate's metadata as that
/// literal printed again, which for a 2 MB document costs about 100 million compiler
/// instructions (1 % of compiling the execution APIs' module: BENCHMARKS.md, "Issue 30:
/// D09's compile cost"); the value of a call is not printed. A macro keeps the generated
/// line as short as the bare `include_str!`.
#[doc(hidden)]
#[macro_export]
macro_rules! __document {
    ($file:literal) => {
        $crate::__private::document_text(::std::include_str!($file))
    };
}

/// `text`, unchanged: what `__document!` makes a generated
/// `DOCUMENT` with (see there why).
///
/// ```
/// const DOCUMENT: &str = rpcsmith::__private::document_text(r#"{"openrpc":"1.3.2"}"#);
/// assert_eq!(DOCUMENT, r#"{"openrpc":"1.3.2"}"#);
/// ```
#[must_use]
pub const fn document_text(text: &'static str) -> &'static str {
    text
}
