//! Each keyword refusing and accepting at its boundary, both sides, with its message.

use serde_json::json;

use super::*;

fn fails<T: Validate>(value: T, rules: &Rules<'_>) -> String {
    match value.validate(rules) {
        Err(v) => format!("{}: {v}", v.keyword()),
        Ok(()) => panic!("passed"),
    }
}

#[test]
fn lengths_count_code_points_at_both_boundaries() {
    let rules = Rules {
        min_length: Some(2),
        max_length: Some(3),
        ..Rules::NONE
    };
    // "é" is one code point (two UTF-8 bytes); "😀" one code point (two UTF-16 units).
    assert!("éé".to_owned().validate(&rules).is_ok());
    assert!("😀😀😀".to_owned().validate(&rules).is_ok());
    assert_eq!(
        fails("é".to_owned(), &rules),
        "minLength: \"é\" is shorter than the minLength 2"
    );
    assert_eq!(
        fails("abcd".to_owned(), &rules),
        "maxLength: \"abcd\" is longer than the maxLength 3"
    );
}

#[test]
fn a_long_string_is_quoted_by_its_start() {
    let rules = Rules {
        max_length: Some(3),
        ..Rules::NONE
    };
    let long = "x".repeat(40);
    assert_eq!(
        fails(long, &rules),
        format!(
            "maxLength: \"{}\"… is longer than the maxLength 3",
            "x".repeat(32)
        )
    );
}

#[test]
fn pattern_searches_and_names_the_document_text() {
    static HEX: Pattern = Pattern::new("^0x[0-9a-f]*$", "^0x[0-9a-f]*$");
    static DIGIT: Pattern = Pattern::new("\\d", "[0-9]");
    let rules = Rules {
        pattern: Some(&HEX),
        ..Rules::NONE
    };
    assert!("0x".to_owned().validate(&rules).is_ok());
    assert!("0x1f".to_owned().validate(&rules).is_ok());
    assert_eq!(
        fails("0x1G".to_owned(), &rules),
        "pattern: \"0x1G\" does not match the pattern \"^0x[0-9a-f]*$\""
    );
    let unanchored = Rules {
        pattern: Some(&DIGIT),
        ..Rules::NONE
    };
    assert!("ab1cd".to_owned().validate(&unanchored).is_ok());
    assert!("abcd".to_owned().validate(&unanchored).is_err());
}

#[test]
fn a_pattern_that_does_not_compile_checks_nothing() {
    static BROKEN: Pattern = Pattern::new("(", "(");
    let rules = Rules {
        pattern: Some(&BROKEN),
        ..Rules::NONE
    };
    assert!("anything".to_owned().validate(&rules).is_ok());
}

#[test]
fn integer_bounds_at_both_sides_of_each() {
    let inclusive = Rules {
        minimum: Some(10.0),
        maximum: Some(20.0),
        ..Rules::NONE
    };
    assert!(10_i64.validate(&inclusive).is_ok());
    assert!(20_u8.validate(&inclusive).is_ok());
    assert_eq!(
        fails(9_i32, &inclusive),
        "minimum: 9 is less than the minimum 10"
    );
    assert_eq!(
        fails(21_u64, &inclusive),
        "maximum: 21 is greater than the maximum 20"
    );
    let exclusive = Rules {
        exclusive_minimum: Some(10.0),
        exclusive_maximum: Some(20.0),
        ..Rules::NONE
    };
    assert!(11_i64.validate(&exclusive).is_ok());
    assert!(19_i64.validate(&exclusive).is_ok());
    assert_eq!(
        fails(10_i64, &exclusive),
        "exclusiveMinimum: 10 is not greater than the exclusiveMinimum 10"
    );
    assert_eq!(
        fails(20_i64, &exclusive),
        "exclusiveMaximum: 20 is not less than the exclusiveMaximum 20"
    );
}

#[test]
fn integers_beyond_f64_precision_compare_exactly() {
    let rules = Rules {
        maximum: Some(9_007_199_254_740_992.0),
        ..Rules::NONE
    };
    assert!(9_007_199_254_740_992_u64.validate(&rules).is_ok());
    assert!(9_007_199_254_740_993_u64.validate(&rules).is_err());
}

#[test]
fn fraction_bounds_and_numbers_as_written() {
    let rules = Rules {
        minimum: Some(0.5),
        exclusive_maximum: Some(1.5),
        ..Rules::NONE
    };
    assert!(0.5_f64.validate(&rules).is_ok());
    assert!(1.499_f64.validate(&rules).is_ok());
    assert_eq!(
        fails(0.499_f64, &rules),
        "minimum: 0.499 is less than the minimum 0.5"
    );
    assert_eq!(
        fails(1.5_f64, &rules),
        "exclusiveMaximum: 1.5 is not less than the exclusiveMaximum 1.5"
    );
    let n: serde_json::Number = serde_json::from_str("1.5").unwrap();
    assert!(n.validate(&rules).is_err());
    assert!(f64::NAN.validate(&rules).is_err());
}

#[test]
fn multiple_of_exact_for_integers_tolerant_for_decimals() {
    let five = Rules {
        multiple_of: Some(5.0),
        ..Rules::NONE
    };
    assert!(10_i64.validate(&five).is_ok());
    assert!(0_i64.validate(&five).is_ok());
    assert_eq!(
        fails(11_i64, &five),
        "multipleOf: 11 is not a multiple of the multipleOf 5"
    );
    let tenth = Rules {
        multiple_of: Some(0.1),
        ..Rules::NONE
    };
    assert!(0.3_f64.validate(&tenth).is_ok());
    assert!(0.35_f64.validate(&tenth).is_err());
}

#[test]
fn item_counts_and_uniqueness() {
    let rules = Rules {
        min_items: Some(1),
        max_items: Some(2),
        unique_items: true,
        ..Rules::NONE
    };
    assert!(vec![1].validate(&rules).is_ok());
    assert!(vec![1, 2].validate(&rules).is_ok());
    assert_eq!(
        fails(Vec::<i32>::new(), &rules),
        "minItems: 0 items, fewer than the minItems 1"
    );
    assert_eq!(
        fails(vec![1, 2, 3], &rules),
        "maxItems: 3 items, more than the maxItems 2"
    );
    assert_eq!(
        fails(vec![7, 7], &rules),
        "uniqueItems: items 0 and 1 are equal, against uniqueItems"
    );
    // Equal as JSON values: members in another order, 1 and 1.0.
    let objects = vec![json!({"a": 1, "b": 2}), json!({"b": 2, "a": 1.0})];
    assert!(objects.validate(&rules).is_err());
}

#[test]
fn items_and_values_are_checked_with_their_path() {
    static ITEM: Rules<'static> = Rules {
        min_length: Some(2),
        ..Rules::NONE
    };
    let rules = Rules {
        items: Some(&ITEM),
        ..Rules::NONE
    };
    let v = vec!["ab".to_owned(), "c".to_owned()];
    let violation = v.validate(&rules).unwrap_err();
    assert_eq!(violation.pointer(), "/1");
    assert_eq!(
        violation.to_string(),
        "at /1: \"c\" is shorter than the minLength 2"
    );
    let map = std::collections::BTreeMap::from([("a/b".to_owned(), "x".to_owned())]);
    let values = Rules {
        values: Some(&ITEM),
        min_properties: Some(1),
        max_properties: Some(1),
        ..Rules::NONE
    };
    assert_eq!(map.validate(&values).unwrap_err().pointer(), "/a~1b");
    let two = std::collections::BTreeMap::from([("a".to_owned(), 1), ("b".to_owned(), 2)]);
    assert_eq!(
        fails(two, &values),
        "maxProperties: 2 members, more than the maxProperties 1"
    );
    let none = std::collections::BTreeMap::<String, i32>::new();
    assert_eq!(
        fails(none, &values),
        "minProperties: 0 members, fewer than the minProperties 1"
    );
}

#[test]
fn tuples_check_each_position_with_its_rules() {
    static POSITIONS: [Rules<'static>; 2] = [
        Rules {
            minimum: Some(1.0),
            ..Rules::NONE
        },
        Rules {
            max_length: Some(1),
            ..Rules::NONE
        },
    ];
    let rules = Rules {
        prefix_items: &POSITIONS,
        ..Rules::NONE
    };
    assert!((1_i64, "a".to_owned()).validate(&rules).is_ok());
    let v = (1_i64, "ab".to_owned()).validate(&rules).unwrap_err();
    assert_eq!((v.keyword(), v.pointer().as_str()), ("maxLength", "/1"));
}

#[test]
fn const_compares_json_values() {
    let rules = Rules {
        constant: Some("\"2.0\""),
        ..Rules::NONE
    };
    assert!("2.0".to_owned().validate(&rules).is_ok());
    assert_eq!(
        fails("2.1".to_owned(), &rules),
        "const: \"2.1\" is not the const \"2.0\""
    );
    let number = Rules {
        constant: Some("1"),
        ..Rules::NONE
    };
    assert!(json!(1.0).validate(&number).is_ok());
    assert!(json!(2).validate(&number).is_err());
    assert!(
        true.validate(&Rules {
            constant: Some("true"),
            ..Rules::NONE
        })
        .is_ok()
    );
    assert!(
        false
            .validate(&Rules {
                constant: Some("true"),
                ..Rules::NONE
            })
            .is_err()
    );
}

#[test]
fn formats_accept_and_refuse_at_their_edges() {
    let cases: &[(Format, &str, bool)] = &[
        (Format::Date, "2024-02-29", true),
        (Format::Date, "2023-02-29", false),
        (Format::Date, "2024-04-31", false),
        (Format::Date, "2024-1-01", false),
        (Format::DateTime, "2024-02-29T23:59:60.123+01:00", true),
        (Format::DateTime, "2024-02-29t00:00:00z", true),
        (Format::DateTime, "2024-02-29T24:00:00Z", false),
        (Format::DateTime, "2024-02-29T12:00:00", false),
        (Format::Time, "12:00:00Z", true),
        (Format::Time, "12:00:00.Z", false),
        (Format::Uuid, "123e4567-E89B-12d3-a456-426614174000", true),
        (Format::Uuid, "123e4567e89b12d3a456426614174000", false),
        (Format::Ipv4, "192.0.2.255", true),
        (Format::Ipv4, "192.0.2.256", false),
        (Format::Ipv4, "192.0.2.01", false),
        (Format::Ipv6, "2001:db8::1", true),
        (Format::Ipv6, "2001:db8:::1", false),
        (Format::Email, "a@b.c", true),
        (Format::Email, "a@b..c", false),
        (Format::Email, "a b@c", false),
        (Format::Uri, "urn:isbn:1", true),
        (Format::Uri, "1http://x", false),
        (Format::Uri, "no-scheme", false),
    ];
    for &(format, text, ok) in cases {
        assert_eq!(format.accepts(text), ok, "{} {text:?}", format.name());
        assert_eq!(Format::from_name(format.name()), Some(format));
    }
    let rules = Rules {
        format: Some(Format::Date),
        ..Rules::NONE
    };
    assert_eq!(
        fails("2023-02-29".to_owned(), &rules),
        "format: \"2023-02-29\" is not of the format \"date\""
    );
}

#[test]
fn a_violation_in_a_param_reads_as_the_decode_errors_do() {
    static INNER: Rules<'static> = Rules {
        minimum: Some(10.0),
        ..Rules::NONE
    };
    let top = param(&5_i64, "amount", &INNER).unwrap_err();
    assert_eq!(
        top.to_string(),
        "invalid param `amount`: 5 is less than the minimum 10"
    );
    let inside = member(&5_i64, "block_number", &INNER)
        .map_err(|v| v.param("block_id"))
        .unwrap_err();
    assert_eq!(
        inside.to_string(),
        "invalid param `block_id` at /block_number: 5 is less than the minimum 10"
    );
    let error = inside.to_error_object();
    assert_eq!(error.code, -32602);
    assert_eq!(
        error.data.unwrap().get(),
        r#"{"param":"block_id","path":"/block_number","keyword":"minimum"}"#
    );
}

#[test]
fn json_values_are_checked_by_their_kind() {
    static ITEM: Rules<'static> = Rules {
        maximum: Some(3.0),
        min_length: Some(2),
        ..Rules::NONE
    };
    let rules = Rules {
        items: Some(&ITEM),
        ..Rules::NONE
    };
    // `minLength` does not apply to a number, `maximum` not to a string.
    assert!(check_json(&json!([3, "ab", null]), &rules).is_ok());
    assert_eq!(
        check_json(&json!([4]), &rules).unwrap_err().keyword(),
        "maximum"
    );
    assert_eq!(
        check_json(&json!(["a"]), &rules).unwrap_err().keyword(),
        "minLength"
    );
}

#[test]
fn uniqueness_past_a_few_items_names_the_first_pair() {
    let rules = Rules {
        unique_items: true,
        ..Rules::NONE
    };
    let mut many: Vec<i64> = (0..40).collect();
    assert!(many.validate(&rules).is_ok());
    many.push(3);
    assert_eq!(
        fails(many, &rules),
        "uniqueItems: items 3 and 40 are equal, against uniqueItems"
    );
    let mixed = vec![json!("1"), json!(1)];
    assert!(
        mixed.validate(&rules).is_ok(),
        "a string and a number differ"
    );
}

#[test]
fn string_items_are_unique_by_their_text() {
    let rules = Rules {
        unique_items: true,
        ..Rules::NONE
    };
    let few = vec!["a".to_owned(), "A".to_owned(), "a\"".to_owned()];
    assert!(few.validate(&rules).is_ok());
    let twice = vec![
        "x".to_owned(),
        "é".to_owned(),
        "y".to_owned(),
        "é".to_owned(),
    ];
    assert_eq!(
        fails(twice, &rules),
        "uniqueItems: items 1 and 3 are equal, against uniqueItems"
    );
    let mut many: Vec<String> = (0..40).map(|n| format!("tag{n}")).collect();
    assert!(many.validate(&rules).is_ok());
    many.push("tag5".to_owned());
    assert_eq!(
        fails(many, &rules),
        "uniqueItems: items 5 and 40 are equal, against uniqueItems"
    );
}

proptest::proptest! {
    /// Lengths skip counting when the byte length settles a bound: the answer is still
    /// the count of code points against each bound.
    #[test]
    fn lengths_answer_as_a_count_of_code_points(
        text in "[a\u{e9}\u{20ac}\u{1F600}]{0,12}",
        min in 0u64..14,
        max in 0u64..14,
    ) {
        let rules = Rules { min_length: Some(min), max_length: Some(max), ..Rules::NONE };
        let len = text.chars().count() as u64;
        let expected = if len < min {
            Some("minLength")
        } else if len > max {
            Some("maxLength")
        } else {
            None
        };
        let found = text.validate(&rules).err().map(|v| v.keyword().to_owned());
        proptest::prop_assert_eq!(found.as_deref(), expected);
    }
}

/// A flattened part of [`Account`].
#[derive(Serialize)]
struct Part {
    code: String,
}

/// A named type with every call `__validate!` writes: the use site's rules, its own, its
/// members in order and a flattened part.
#[derive(Serialize)]
struct Account {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    tags: Option<Vec<String>>,
    #[serde(flatten)]
    part: Part,
}

/// A newtype: its value checked against its rules, the pointer its own.
#[derive(Serialize)]
struct Id(String);

/// A method's params struct.
#[derive(Serialize)]
struct OpenParams {
    account: Account,
    note: String,
}

static NAME: Rules<'static> = Rules::NONE.min_length(2);
static TAGS: Rules<'static> = Rules::NONE.max_items(1);
static CODE: Rules<'static> = Rules::NONE.max_length(3);
/// The account's own schema: all three members present.
static ACCOUNT: Rules<'static> = Rules::NONE.min_properties(3);
static NOTE: Rules<'static> = Rules::NONE.max_length(4);

crate::__validate!(Part, whole, member(code, "code", CODE));
crate::__validate!(
    Account,
    whole,
    whole(ACCOUNT),
    member(name, "name", NAME),
    member(tags, "tags", TAGS),
    validate(part, Rules::NONE),
);
crate::__validate!(Id, whole, validate(0, NAME));
crate::__validate!(
    OpenParams,
    param(account, "account", Rules::NONE),
    param(note, "note", NOTE)
);

fn account(name: &str, tags: Option<&[&str]>, code: &str) -> Account {
    Account {
        name: name.to_owned(),
        tags: tags.map(|t| t.iter().map(|s| (*s).to_owned()).collect()),
        part: Part {
            code: code.to_owned(),
        },
    }
}

/// Where a violation is: its keyword, param and pointer.
fn at(result: Result<(), Violation>) -> (&'static str, Option<String>, String) {
    let v = result.expect_err("a violation");
    (v.keyword(), v.param_name().map(str::to_owned), v.pointer())
}

#[test]
fn validate_macro_checks_a_named_type_in_the_order_listed() {
    assert_eq!(
        account("ann", Some(&["a"]), "x1").validate(&Rules::NONE),
        Ok(())
    );
    // The use site's rules first, on the whole value.
    let use_site = Rules::NONE.max_properties(2);
    let whole = at(account("a", Some(&["a"]), "x1").validate(&use_site));
    assert_eq!(whole, ("maxProperties", None, String::new()));
    // Then its own schema's.
    let own = at(account("a", None, "x1").validate(&Rules::NONE));
    assert_eq!(own, ("minProperties", None, String::new()));
    // Then its members in order: the name's violation, not the code's.
    let name = at(account("a", Some(&["a"]), "x1234").validate(&Rules::NONE));
    assert_eq!(name, ("minLength", None, "/name".to_owned()));
    let tags = at(account("ann", Some(&["a", "b"]), "x1234").validate(&Rules::NONE));
    assert_eq!(tags, ("maxItems", None, "/tags".to_owned()));
    // A flattened part's members sit beside the type's own.
    let code = at(account("ann", Some(&["a"]), "x1234").validate(&Rules::NONE));
    assert_eq!(code, ("maxLength", None, "/code".to_owned()));
}

#[test]
fn validate_macro_checks_a_newtypes_value_and_the_use_site() {
    assert_eq!(Id("ab".to_owned()).validate(&Rules::NONE), Ok(()));
    let short = at(Id("a".to_owned()).validate(&Rules::NONE));
    assert_eq!(short, ("minLength", None, String::new()));
    let use_site = Rules::NONE.constant("\"xy\"");
    let other = at(Id("ab".to_owned()).validate(&use_site));
    assert_eq!(other, ("const", None, String::new()));
}

#[test]
fn validate_macro_checks_params_naming_the_param_at_fault() {
    let params = |name: &str, note: &str| OpenParams {
        account: account(name, Some(&[]), "x"),
        note: note.to_owned(),
    };
    // The rules it is called with are not read: params are never a member of anything.
    let unread = Rules::NONE.min_properties(9);
    assert_eq!(params("ann", "hi").validate(&unread), Ok(()));
    let member = at(params("a", "hello").validate(&Rules::NONE));
    assert_eq!(
        member,
        ("minLength", Some("account".to_owned()), "/name".to_owned())
    );
    let note = at(params("ann", "hello").validate(&Rules::NONE));
    assert_eq!(note, ("maxLength", Some("note".to_owned()), String::new()));
}

#[test]
fn map_keys_match_the_pattern_properties() {
    static DIGITS: Pattern = Pattern::new("^\\d+$", "^[0-9]+$");
    let rules = Rules::NONE.keys(&DIGITS);
    let good: BTreeMap<String, u8> = [("1".to_owned(), 1), ("20".to_owned(), 2)].into();
    assert!(good.validate(&rules).is_ok());
    let bad: BTreeMap<String, u8> = [("1".to_owned(), 1), ("x".to_owned(), 2)].into();
    let refused = bad.validate(&rules).unwrap_err();
    assert_eq!(
        format!("{}: {refused}", refused.keyword()),
        "additionalProperties: at /x: the member \"x\" matches no patternProperties (\"^\\\\d+$\") and additionalProperties is false"
    );
    assert!(check_json(&json!({"7": true}), &rules).is_ok());
    assert_eq!(
        check_json(&json!({"7": true, "a7": true}), &rules)
            .unwrap_err()
            .keyword(),
        "additionalProperties"
    );
    // Without the rule any key passes.
    assert!(bad.validate(&Rules::NONE).is_ok());
}
