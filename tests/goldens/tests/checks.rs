//! What the runtime's `validate!` and `serialize_by_position!` write for the `checks`
//! golden: the violations its types and params answer (keyword, param, pointer) and the
//! arrays its params are sent as.

use std::collections::BTreeMap;

use rpcsmith::__private::{Rules, Validate, Violation};
use rpcsmith_goldens::services::checks::types::{Account, Tree};
use rpcsmith_goldens::services::checks::{OpenParams, WideParams};
use serde_json::json;

fn account(name: &str, tags: Option<&[&str]>, extra: &[(&str, &str)]) -> Account {
    Account {
        name: name.to_owned(),
        tags: tags.map(|t| t.iter().map(|s| (*s).to_owned()).collect()),
        extra: extra
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect::<BTreeMap<_, _>>(),
    }
}

/// Where a violation is: its keyword, param and pointer.
fn at(result: Result<(), Violation>) -> (&'static str, Option<String>, String) {
    let v = result.expect_err("a violation");
    (v.keyword(), v.param_name().map(str::to_owned), v.pointer())
}

#[test]
fn a_named_type_checks_its_own_keywords_then_its_members() {
    let fine = account("ann", Some(&["a"]), &[("k", "v")]);
    assert_eq!(fine.validate(&Rules::NONE), Ok(()));
    // Its own schema: at least two members.
    let lone = at(account("ann", None, &[]).validate(&Rules::NONE));
    assert_eq!(lone, ("minProperties", None, String::new()));
    // Then its members, in order: the name before the tags.
    let name = at(account("a", Some(&["a", "b"]), &[]).validate(&Rules::NONE));
    assert_eq!(name, ("minLength", None, "/name".to_owned()));
    let tags = at(account("ann", Some(&["a", "b"]), &[]).validate(&Rules::NONE));
    assert_eq!(tags, ("maxItems", None, "/tags".to_owned()));
    // Then the members no property describes, against `additionalProperties`.
    let extra = at(account("ann", None, &[("k", "")]).validate(&Rules::NONE));
    assert_eq!(extra, ("minLength", None, "/k".to_owned()));
}

/// Every tree ends in an empty one, which its `minItems: 1` refuses: the pointer says how
/// deep.
#[test]
fn a_newtype_checks_its_value_at_every_level() {
    let leaf = || Tree(vec![]);
    let top = at(leaf().validate(&Rules::NONE));
    assert_eq!(top, ("minItems", None, String::new()));
    let nested = at(Tree(vec![leaf()]).validate(&Rules::NONE));
    assert_eq!(nested, ("minItems", None, "/0".to_owned()));
    let deep = at(Tree(vec![Tree(vec![leaf()])]).validate(&Rules::NONE));
    assert_eq!(deep, ("minItems", None, "/0/0".to_owned()));
}

#[test]
fn params_name_the_param_at_fault() {
    let params = |name: &str, tree: Option<Tree>, note: Option<&str>| OpenParams {
        account: account(name, Some(&[]), &[]),
        tree,
        note: note.map(str::to_owned),
    };
    let fine = params("ann", None, Some("hi"));
    assert_eq!(fine.validate(&Rules::NONE), Ok(()));
    let name = at(params("a", None, None).validate(&Rules::NONE));
    assert_eq!(
        name,
        ("minLength", Some("account".to_owned()), "/name".to_owned())
    );
    let tree = at(params("ann", Some(Tree(vec![])), None).validate(&Rules::NONE));
    assert_eq!(tree, ("minItems", Some("tree".to_owned()), String::new()));
    let note = at(params("ann", None, Some("hello")).validate(&Rules::NONE));
    assert_eq!(note, ("maxLength", Some("note".to_owned()), String::new()));
}

#[test]
fn params_by_position_run_up_to_the_last_one_given() {
    let sent = |tree: Option<Tree>, note: Option<&str>| {
        let params = OpenParams {
            account: account("ann", Some(&[]), &[]),
            tree,
            note: note.map(str::to_owned),
        };
        serde_json::to_value(&params).expect("encodes")
    };
    let account = json!({"name": "ann", "tags": []});
    assert_eq!(sent(None, None), json!([account]));
    assert_eq!(sent(Some(Tree(vec![])), None), json!([account, []]));
    assert_eq!(sent(None, Some("hi")), json!([account, null, "hi"]));
    let wide = WideParams {
        p0: 0,
        p1: 1,
        p2: 2,
        p3: 3,
        p4: 4,
        p5: 5,
        p6: 6,
        p7: 7,
        p8: 8,
        p9: 9,
        p10: 10,
        p11: 11,
        p12: 12,
        p13: 13,
        p14: 14,
        p15: 15,
        p16: 16,
    };
    let every: Vec<u64> = (0..=16).collect();
    assert_eq!(serde_json::to_value(&wide).expect("encodes"), json!(every));
}

/// `patternProperties` beside `additionalProperties: false`: a map whose keys are checked
/// against the pattern (the dispatcher answers the violation with -32602), not a struct
/// that refuses every member.
#[test]
fn a_map_of_pattern_properties_checks_its_keys() {
    use rpcsmith_goldens::services::checks::HeightsParams;
    let counts = |pairs: &[(&str, u64)]| -> BTreeMap<String, u64> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
    };
    let fine = HeightsParams {
        counts: counts(&[("1", 3), ("20", 4)]),
    };
    assert_eq!(fine.validate(&Rules::NONE), Ok(()));
    let decoded = HeightsParams {
        counts: serde_json::from_value(json!({"7": 1, "x": 2})).expect("decodes"),
    };
    let refused = at(decoded.validate(&Rules::NONE));
    assert_eq!(
        refused,
        (
            "additionalProperties",
            Some("counts".to_owned()),
            "/x".to_owned()
        )
    );
}
