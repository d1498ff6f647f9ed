//! The view of the whole generated file (`templates/module.hbs`): the lints it allows
//! once when it is a module file, the constraint checks' statics, and the rendered parts.

use serde::Serialize;

use super::checks::StaticView;

/// The lints generated code can trigger, allowed once for the whole generated module: by
/// its own inner attribute in a module file (`templates/module.hbs`), else by whoever
/// declares the module (the runtime's `__generated_module!`, which `include_api!` and the
/// builder's `<module>.mod.rs` use, lists the same; `tests/lints.rs` checks they agree).
/// Each fires on what the document says, or on what every generated module has by design. Found by compiling the goldens and every corpus
/// document without them (`cargo clippy`, `cargo doc`); nothing else fires there.
const LINTS: &[&str] = &[
    // A program rarely uses every generated item (a client-only binary never calls the
    // server trait), and generated items are `pub` by design, also in a private module.
    "dead_code",
    "unreachable_pub",
    // Fields and variants the document does not describe have no docs.
    "missing_docs",
    // A deprecated type or method is still used by the generated code around it (a
    // params struct, the dispatcher).
    "deprecated",
    // Descriptions are Markdown written for other tools, kept as written: bare URLs,
    // `[links]` to their own names (`[crate::CLValue]`, `[N]`), HTML such as `<html>`,
    // list items continued without indentation.
    "rustdoc::bare_urls",
    "rustdoc::broken_intra_doc_links",
    "rustdoc::invalid_html_tags",
    "clippy::doc_lazy_continuation",
    // The document's shapes: a method with many params, a `oneOf` whose variants differ
    // much in size or are all named alike (MCP's `TextContent`, `ImageContent`, ...,
    // each variant named after its schema), method names such as `next`, `from_block` or
    // `into_raw` that clippy reads as Rust conventions.
    "clippy::too_many_arguments",
    "clippy::large_enum_variant",
    "clippy::enum_variant_names",
    "clippy::should_implement_trait",
    "clippy::wrong_self_convention",
    // The module's `use` of the runtime (`__rt`): a types module with nothing to
    // derive or check does not use it.
    "unused_imports",
];

/// The whole generated file: its parts, and its lint levels when it is a module file.
#[derive(Debug, Serialize)]
pub(crate) struct ModuleView<'a> {
    /// The lints allowed in generated code.
    pub(crate) lints: &'static [&'static str],
    /// Whether the file is a module file (`mod api;`), which sets its own lint levels;
    /// else it is `include!`d into a module that sets them.
    pub(crate) module_file: bool,
    /// The constraint checks' statics, written once for the whole module.
    pub(crate) statics: Vec<StaticView>,
    /// The rendered parts: types, params, client, server.
    pub(crate) body: &'a str,
}

/// The view of the whole file around `body`, a module file or not.
pub(crate) fn view(body: &str, statics: Vec<StaticView>, module_file: bool) -> ModuleView<'_> {
    ModuleView {
        lints: LINTS,
        module_file,
        statics,
        body,
    }
}
