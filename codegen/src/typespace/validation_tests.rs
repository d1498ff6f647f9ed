//! The validation keywords kept in the type model at every place a type is used (params,
//! results, fields, array items, tuple elements, map values, enum variants), exclusive
//! bounds apart from inclusive ones. Nothing enforces them yet; this holds the model.

use std::path::Path;

use super::{Kind, Payload, TypeSpace, Validation};
use crate::{Options, load_document};

fn space() -> TypeSpace {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/types-model/validation.json");
    let mut document = load_document(path, &Options::new()).expect("loads");
    TypeSpace::build(&mut document)
}

fn def<'s>(space: &'s TypeSpace, origin: &str) -> &'s super::TypeDef {
    space
        .defs()
        .iter()
        .find(|d| d.origin == origin)
        .unwrap_or_else(|| panic!("no type from {origin}"))
}

fn nested(v: Validation) -> Option<Box<Validation>> {
    Some(Box::new(v))
}

#[test]
fn params_and_results_keep_their_keywords() {
    let space = space();
    let method = &space.methods()[0];
    let param = |name: &str| {
        &method
            .params
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("no param {name}"))
            .validation
    };
    assert_eq!(
        *param("code"),
        Validation {
            pattern: Some("^[a-z]+$".into()),
            min_length: Some(2),
            max_length: Some(8),
            ..Validation::default()
        }
    );
    // A `$ref` into a schema's insides (not a component): the target's keywords.
    assert_eq!(
        *param("borrowed"),
        Validation {
            max_length: Some(3),
            ..Validation::default()
        }
    );
    assert_eq!(
        *param("tags"),
        Validation {
            min_items: Some(1),
            max_items: Some(4),
            unique_items: true,
            items: nested(Validation {
                pattern: Some("^t".into()),
                ..Validation::default()
            }),
            ..Validation::default()
        }
    );
    assert_eq!(
        *param("scores"),
        Validation {
            min_properties: Some(1),
            values: nested(Validation {
                maximum: Some(10.0),
                ..Validation::default()
            }),
            ..Validation::default()
        }
    );
    assert_eq!(
        param("pair").prefix_items,
        [
            Validation {
                minimum: Some(0.0),
                ..Validation::default()
            },
            Validation {
                max_length: Some(3),
                ..Validation::default()
            },
        ]
    );
    assert_eq!(
        *param("merged"),
        Validation {
            pattern: Some("^a".into()),
            ..Validation::default()
        }
    );
    assert_eq!(
        method.result_validation,
        Validation {
            items: nested(Validation {
                items: nested(Validation {
                    format: Some("uuid".into()),
                    ..Validation::default()
                }),
                ..Validation::default()
            }),
            ..Validation::default()
        }
    );
}

#[test]
fn exclusive_bounds_stay_apart_from_inclusive_ones() {
    let space = space();
    let params = &space.methods()[0].params;
    let positive = &params
        .iter()
        .find(|p| p.name == "positive")
        .unwrap()
        .validation;
    assert_eq!(positive.exclusive_minimum, Some(0.0));
    assert_eq!(positive.minimum, None);
    assert_eq!(positive.multiple_of, Some(0.5));
    // Draft 4: `exclusiveMaximum: true` makes `maximum` exclusive; `false` changes nothing.
    let draft4 = &params
        .iter()
        .find(|p| p.name == "draft4")
        .unwrap()
        .validation;
    assert_eq!(
        (draft4.minimum, draft4.exclusive_minimum),
        (Some(1.0), None)
    );
    assert_eq!(
        (draft4.maximum, draft4.exclusive_maximum),
        (None, Some(5.0))
    );
}

#[test]
fn fields_named_types_and_variants_keep_their_keywords() {
    let space = space();
    let Kind::Struct(holder) = &def(&space, "#/components/schemas/Holder").kind else {
        panic!("Holder is a struct");
    };
    assert_eq!(holder.fields[0].validation.max_length, Some(3));
    // A component keeps its keywords on its own named type, not at each use.
    assert_eq!(holder.fields[1].validation, Validation::default());
    assert_eq!(
        def(&space, "#/components/schemas/Short")
            .validation
            .max_length,
        Some(5)
    );
    let Kind::Enum(choice) = &def(&space, "#/components/schemas/Choice").kind else {
        panic!("Choice is an enum");
    };
    let mut found: Vec<(Option<u64>, Option<f64>)> = choice
        .variants
        .iter()
        .map(|v| (v.validation.max_length, v.validation.multiple_of))
        .collect();
    found.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(found, [(None, Some(2.0)), (Some(4), None)]);
    let Kind::Enum(wrapped) = &def(&space, "#/components/schemas/Wrapped").kind else {
        panic!("Wrapped is an enum");
    };
    let payloads: Vec<(&Payload, &Validation)> = wrapped
        .variants
        .iter()
        .map(|v| (&v.payload, &v.validation))
        .collect();
    assert_eq!(payloads[0].1.minimum, Some(1.0));
    assert_eq!(payloads[1].1.min_length, Some(1));
}
