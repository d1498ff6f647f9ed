//! What a user changes in the generated code through the builder: overrides of the
//! generated types (rename, replace, derive, per property) and templates of their own.

use super::*;

/// The generated source of `pets.json` with the builder's settings, or the error text.
fn pets(builder: rpcsmith_build::Builder) -> Result<String, String> {
    let out = tempfile::tempdir().unwrap();
    let emitted = builder
        .out_dir(out.path())
        .include_dir(fixture("include"))
        .emit(fixture("pets.json"))
        .map_err(|e| e.to_string())?;
    Ok(std::fs::read_to_string(emitted.file).unwrap())
}

#[test]
fn overrides_rename_replace_and_derive() {
    let source = pets(
        configure()
            .rename("/components/schemas/Price", "Cost")
            .rename("defs/pet.json#/Pet", "Animal")
            .replace("#/components/schemas/Money", "crate::money::Cents")
            .derive("/components/schemas/Price", "schemars::JsonSchema")
            .derive("/components/schemas/Price", "Default"),
    )
    .unwrap();
    assert!(source.contains("pub struct Cost {"), "{source}");
    assert!(source.contains("pub struct Animal {"), "{source}");
    assert!(!source.contains("struct Price"), "{source}");
    assert!(!source.contains("struct Pet "), "{source}");
    assert!(!source.contains("struct Money"), "{source}");
    assert!(
        source.contains("pub amount: crate::money::Cents,"),
        "{source}"
    );
    assert!(
        source.contains(
            "#[derive(schemars::JsonSchema, Default)]\n    #[schemars(rename = \"Cost\")]\n    pub struct Cost {"
        ),
        "{source}"
    );
    // The replacement is not known to be `Eq`, so neither is what holds it.
    let cost = &source[source.find("pub struct Cost").unwrap() - 400..];
    let derives_eq = cost[..400]
        .split(|c: char| !c.is_alphanumeric())
        .any(|word| word == "Eq");
    assert!(!derives_eq, "{cost}");
}

#[test]
fn derives_for_every_type() {
    let source = pets(configure().derive("*", "schemars::JsonSchema")).unwrap();
    // Pet, Tag, Money, Price: every struct and enum (aliases take no derive).
    assert_eq!(
        source.matches("#[derive(schemars::JsonSchema)]").count(),
        4,
        "{source}"
    );
}

#[test]
fn overrides_that_cannot_apply_are_errors() {
    let cases = [
        (
            configure().rename("/components/schemas/Money", "my type"),
            "tests/fixtures/builder/pets.json: at /components/schemas/Money: override \"/components/schemas/Money\": rename: `my type` is not a Rust identifier",
        ),
        (
            configure().replace("/components/schemas/Money", "a::<"),
            "tests/fixtures/builder/pets.json: at /components/schemas/Money: override \"/components/schemas/Money\": replace: `a::<` is not a Rust type",
        ),
        (
            configure().derive("*", "not a path"),
            "tests/fixtures/builder/pets.json: at *: override \"*\": derive: `not a path` is not a Rust path",
        ),
        (
            configure().rename("*", "All"),
            "tests/fixtures/builder/pets.json: at *: override \"*\": only derives apply to every type",
        ),
        (
            configure().optional("/components/schemas/Money"),
            "tests/fixtures/builder/pets.json:18:7: at /components/schemas/Money: override \"/components/schemas/Money\": this is a type: `optional` and aliases apply to a property (…/properties/<name>)",
        ),
        (
            configure().rename("/components/schemas/Money/properties/cents", "Cents"),
            "tests/fixtures/builder/pets.json: at /components/schemas/Money/properties/cents: override \"/components/schemas/Money/properties/cents\": this is a property: rename, replace and derives apply to a type",
        ),
        (
            configure().alias("*", "x"),
            "tests/fixtures/builder/pets.json: at *: override \"*\": only derives apply to every type",
        ),
        (
            configure().rename("/components/schemas/Money", "Price"),
            "tests/fixtures/builder/pets.json:18:7: at /components/schemas/Money: cannot rename to `Price`: another type has this name",
        ),
    ];
    for (builder, expected) in cases {
        assert_eq!(pets(builder).unwrap_err(), expected);
    }
}

#[test]
fn overrides_that_match_nothing_are_warnings_naming_the_pointer() {
    let out = tempfile::tempdir().unwrap();
    let emitted = configure()
        .rename("/components/schemas/Nope", "X")
        .derive("/components/schemas/Mony", "Hash")
        .optional("/components/schemas/Money/properties/dollars")
        .out_dir(out.path())
        .include_dir(fixture("include"))
        .emit(fixture("pets.json"))
        .expect("a warning does not stop generation");
    let warnings: Vec<String> = emitted.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        warnings,
        [
            "warning: tests/fixtures/builder/pets.json: at /components/schemas/Money/properties/dollars: override \"/components/schemas/Money/properties/dollars\": no generated type or field comes from this schema (nothing applied)",
            "warning: tests/fixtures/builder/pets.json: at /components/schemas/Mony: override \"/components/schemas/Mony\": no generated type or field comes from this schema (nothing applied): did you mean \"/components/schemas/Money\"?",
            "warning: tests/fixtures/builder/pets.json: at /components/schemas/Nope: override \"/components/schemas/Nope\": no generated type or field comes from this schema (nothing applied)",
        ]
    );
}

#[test]
fn property_overrides_make_optional_and_add_aliases() {
    let source = pets(
        configure()
            .optional("/components/schemas/Money/properties/cents")
            .alias("#/components/schemas/Money/properties/cents", "amount")
            .alias("/components/schemas/Money/properties/cents", "value"),
    )
    .unwrap();
    let money = &source[source.find("pub struct Money {").unwrap()..];
    let money = &money[..money.find('}').unwrap()];
    assert!(
        money.contains("#[serde(alias = \"amount\")]\n        #[serde(alias = \"value\")]"),
        "{money}"
    );
    assert!(money.contains("pub cents: Option<i64>,"), "{money}");
    assert!(money.contains("skip_serializing_if"), "{money}");
}

#[test]
fn the_default_module_name_comes_from_the_title() {
    let out = tempfile::tempdir().unwrap();
    let emitted = configure()
        .out_dir(out.path())
        .emit(fixture("warns.json"))
        .unwrap();
    assert_eq!(emitted.module, "warning_examples");
    assert_eq!(emitted.file, out.path().join("warning_examples.rs"));
}

/// `pets.json` emitted into `out` by `builder`, with the user templates of the fixture
/// directory `templates`.
fn pets_with_templates(
    builder: rpcsmith_build::Builder,
    out: &Path,
    templates: &str,
) -> Result<rpcsmith_build::Emitted, rpcsmith_build::Error> {
    builder
        .out_dir(out)
        .include_dir(fixture("include"))
        .templates_dir(fixture(templates))
        .emit(fixture("pets.json"))
}

#[test]
fn user_templates_replace_built_in_ones_and_rerun_the_build() {
    let out = tempfile::tempdir().unwrap();
    let emitted = pets_with_templates(configure(), out.path(), "templates").unwrap();
    let source = std::fs::read_to_string(&emitted.file).unwrap();
    // Money, Pet, Price are structs; Tag is an enum (built-in template).
    assert_eq!(
        source
            .matches("/// Rendered by the user's template.")
            .count(),
        3,
        "{source}"
    );
    let lines = emitted.cargo_lines();
    assert!(lines.contains(&"cargo:rerun-if-changed=tests/fixtures/builder/templates".to_owned()));
    assert!(lines.contains(
        &"cargo:rerun-if-changed=tests/fixtures/builder/templates/types/struct.hbs".to_owned()
    ));
}

#[test]
fn a_broken_user_template_is_named() {
    let out = tempfile::tempdir().unwrap();
    let err = configure()
        .out_dir(out.path())
        .templates_dir(fixture("bad-templates"))
        .emit(fixture("warns.json"))
        .unwrap_err();
    let text = err.to_string();
    // After the document's own warning: every problem is listed.
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("warning: "), "{text}");
    // The block opened on line 1 is still open at the end of the text (line 3).
    assert_eq!(
        lines.next().unwrap(),
        "tests/fixtures/builder/bad-templates/types.hbs:3:1: at (root): template error: invalid handlebars syntax: expected escape, expression, html_expression, decorator_expression, partial_expression, invert_tag, invert_chain_tag, helper_block_start, helper_block_end, decorator_block_start, partial_block_start, raw_block_start, hbs_comment, or hbs_comment_compact",
        "{text}"
    );
}

#[test]
fn a_missing_templates_directory_is_an_error() {
    let out = tempfile::tempdir().unwrap();
    let err = pets_with_templates(configure(), out.path(), "tempaltes").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io);
    assert_eq!(
        err.to_string(),
        "tests/fixtures/builder/tempaltes: at (root): cannot read the templates directory: No such file or directory"
    );
}

/// A template file named like no built-in template (`clinet.hbs`, or `struct.hbs` outside
/// `types/`) is a partial; when no template includes it, it is not used: a warning says
/// so and lists the names.
#[test]
fn an_unknown_template_name_is_a_warning_listing_the_known_ones() {
    let out = tempfile::tempdir().unwrap();
    let emitted = pets_with_templates(configure(), out.path(), "typo-templates").unwrap();
    let known = "client.hbs, module.hbs, params.hbs, server.hbs, types.hbs, types/alias.hbs, types/enum.hbs, types/field.hbs, types/int_enum.hbs, types/json_schema.hbs, types/newtype.hbs, types/struct.hbs, types/validate.hbs";
    let warnings: Vec<String> = emitted.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            format!(
                "warning: tests/fixtures/builder/typo-templates/clinet.hbs: at (root): unknown template `clinet.hbs`, not used: it replaces no template and none includes it as a partial (`{{{{> clinet}}}}`); the templates are {known}"
            ),
            format!(
                "warning: tests/fixtures/builder/typo-templates/struct.hbs: at (root): unknown template `struct.hbs`, not used: it replaces no template and none includes it as a partial (`{{{{> struct}}}}`); the templates are {known}"
            ),
        ]
    );
    let err =
        pets_with_templates(configure().strict(true), out.path(), "typo-templates").unwrap_err();
    assert_eq!(err.diagnostics().len(), 2);
}

/// A user's partial that writes broken Rust is named, not the `types.hbs` that includes
/// it (nor `templates/*.hbs`), even beside another user template that is fine. (The line
/// is the rendered module's: the `PLACES` table above the types writes a line per method
/// and per place, unless short.)
#[test]
fn the_user_template_that_writes_invalid_rust_is_named() {
    let out = tempfile::tempdir().unwrap();
    let err = pets_with_templates(configure(), out.path(), "broken-partial").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Generate);
    assert_eq!(
        err.to_string(),
        "tests/fixtures/builder/broken-partial/types/struct.hbs: at (root): template `tests/fixtures/builder/broken-partial/types/struct.hbs` produced invalid Rust at rendered line 21:16: cannot parse string into token stream (in `pub struct Pet {`)"
    );
}
