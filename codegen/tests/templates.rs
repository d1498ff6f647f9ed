//! A user's templates are handlebars, all of it: Rust helpers with arguments, `~`
//! whitespace control, partials with a context (from the templates directory or
//! registered by name); and their errors name the file, line and column.
//!
//! Fixtures are named by relative paths, as a build script names them (tests run in the
//! package directory).

use rpcsmith_build::{Builder, Emitted, Error, ErrorKind, configure};

use helpers::shout;

const DIR: &str = "tests/fixtures/builder";

/// The helpers the user templates call.
mod helpers {
    // The macro writes an undocumented `pub struct`.
    #![allow(missing_docs, unreachable_pub)]

    use rpcsmith_build::handlebars::handlebars_helper;

    // `{{shout " struct" name sep=": "}}`: its arguments joined by `sep`, in capitals.
    handlebars_helper!(shout: |kind: str, name: str, { sep: str = " " }| {
        format!("{kind}{sep}{name}").to_uppercase()
    });
}

/// `pets.json` emitted into `out` by `builder` with the templates directory `templates`.
fn pets(builder: Builder, out: &std::path::Path, templates: &str) -> Result<Emitted, Error> {
    builder
        .out_dir(out)
        .include_dir(format!("{DIR}/include"))
        .templates_dir(format!("{DIR}/{templates}"))
        .emit(format!("{DIR}/pets.json"))
}

/// `helper-templates/types/struct.hbs` calls the helper `shout` with two arguments and a
/// hash argument inside a `~`-trimmed tag, includes the partial `banner` (registered by
/// the builder) and the partial `parts/field_note` (a file of the templates directory)
/// with each field as its context and the struct's name as a hash argument.
#[test]
fn a_user_template_uses_a_helper_whitespace_control_and_partials_with_context() {
    let out = tempfile::tempdir().unwrap();
    let builder = configure()
        .helper("shout", shout)
        .template_partial("banner", format!("{DIR}/partials/banner.hbs"));
    let emitted = pets(builder, out.path(), "helper-templates").unwrap();
    assert!(emitted.warnings.is_empty(), "{:?}", emitted.warnings);
    let source = std::fs::read_to_string(&emitted.file).unwrap();
    // The banner partial, then the helper's text on one line (`~` took the newlines
    // around its tag), then the struct's own docs.
    let docs = "    /// Rendered by the user's template.\n    /// STRUCT: MONEY\n    /// Generated from `#/components/schemas/Money`.\n";
    assert!(source.contains(docs), "{source}");
    // The field partial, with the field as its context and the owner from the hash.
    assert!(
        source.contains("        /// Money.cents: i64\n        pub cents: i64,"),
        "{source}"
    );
    assert_eq!(source.matches("/// STRUCT: ").count(), 3, "{source}");
    // Every file read reruns the build: the partials too.
    let lines = emitted.cargo_lines();
    for file in [
        "partials/banner.hbs",
        "helper-templates/parts/field_note.hbs",
        "helper-templates/types/struct.hbs",
    ] {
        let line = format!("cargo:rerun-if-changed={DIR}/{file}");
        assert!(lines.contains(&line), "{line} not in {lines:?}");
    }
}

/// Without the helper the template names it is an error at its place.
#[test]
fn a_missing_helper_is_named_with_its_place() {
    let out = tempfile::tempdir().unwrap();
    let builder = configure().template_partial("banner", format!("{DIR}/partials/banner.hbs"));
    let err = pets(builder, out.path(), "helper-templates").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Generate);
    assert_eq!(
        err.to_string(),
        "tests/fixtures/builder/helper-templates/types/struct.hbs:3:1: at (root): template error: Helper not found shout"
    );
}

/// A field the view does not have, in a partial of the user's, names the partial's file
/// and the place of the tag in it (strict mode), not the template that includes it.
#[test]
fn a_missing_field_in_a_partial_names_the_partial_line_and_column() {
    let out = tempfile::tempdir().unwrap();
    let err = pets(configure(), out.path(), "missing-field").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Generate);
    assert_eq!(
        err.to_string(),
        "tests/fixtures/builder/missing-field/parts/oops.hbs:2:18: at (root): template error: `tpye` is not in the view (strict mode)"
    );
}

/// A registered partial whose file cannot be read fails, naming it.
#[test]
fn an_unreadable_partial_is_named() {
    let out = tempfile::tempdir().unwrap();
    let builder = configure().template_partial("banner", format!("{DIR}/partials/nope.hbs"));
    let err = pets(builder, out.path(), "helper-templates").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io);
    assert_eq!(
        err.to_string(),
        "tests/fixtures/builder/partials/nope.hbs: at (root): cannot read: No such file or directory"
    );
}
