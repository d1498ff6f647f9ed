//! The generated types on the wire: what they accept, what they refuse, what they write.

use rpcsmith_goldens::*;
use serde_json::{Value, json};

/// Decodes `value` as `T` and encodes it back, as the runtime writes it (an integral
/// `f64` as an integer).
fn round<T>(value: Value) -> Result<Value, String>
where
    T: rpcsmith::__private::serde::Serialize + rpcsmith::__private::serde::de::DeserializeOwned,
{
    let decoded: T = serde_json::from_value(value).map_err(|e| e.to_string())?;
    Ok(rpcsmith::protocol::number::to_value(&decoded).expect("encodes"))
}

fn same<T>(value: Value)
where
    T: rpcsmith::__private::serde::Serialize + rpcsmith::__private::serde::de::DeserializeOwned,
{
    assert_eq!(round::<T>(value.clone()), Ok(value));
}

fn refused<T>(value: Value, error: &str)
where
    T: rpcsmith::__private::serde::Serialize + rpcsmith::__private::serde::de::DeserializeOwned,
{
    match round::<T>(value) {
        Err(e) => assert!(e.contains(error), "{e:?} does not mention {error:?}"),
        Ok(v) => panic!("accepted: {v}"),
    }
}

#[test]
fn required_is_enforced_and_optional_omitted() {
    use required_optional::types::Pet;
    same::<Pet>(json!({"id": 1, "name": "rex"}));
    same::<Pet>(json!({"id": 1, "name": "rex", "tag": "dog", "owner": {"email": "a@b"}}));
    refused::<Pet>(json!({"name": "rex"}), "missing field `id`");
    refused::<Pet>(json!({}), "missing field");
    refused::<Pet>(json!({"id": -1, "name": "rex"}), "invalid value");
}

#[test]
fn nullable_fields_take_null() {
    use nullable::types::Nullables;
    same::<Nullables>(json!({"a": null, "b": "x", "c": 3, "d": {"x": 1.5, "y": 2}}));
    same::<Nullables>(json!({"a": null, "b": null, "c": null, "d": null, "e": 7}));
    refused::<Nullables>(
        json!({"b": null, "c": null, "d": null}),
        "missing field `a`",
    );
}

/// Decodes `text` as `T` and encodes it back as text, as the runtime writes it.
fn round_text<T>(text: &str) -> String
where
    T: rpcsmith::__private::serde::Serialize + rpcsmith::__private::serde::de::DeserializeOwned,
{
    let decoded: T = serde_json::from_str(text).expect("decodes");
    let mut out = Vec::new();
    rpcsmith::protocol::number::to_writer(&mut out, &decoded).expect("encodes");
    String::from_utf8(out).expect("UTF-8")
}

#[test]
fn a_required_member_no_property_describes_is_a_field() {
    use fidelity::types::{Measures, Receipt};
    same::<Receipt>(json!({"id": 1, "blockTimestamp": "0x5"}));
    refused::<Receipt>(json!({"id": 1}), "missing field `blockTimestamp`");
    // Under `additionalProperties`, the member holds what the others hold.
    same::<Measures>(json!({"total": 3, "unit": "kg", "tare": 1}));
    refused::<Measures>(json!({"total": "3"}), "invalid type");
    refused::<Measures>(json!({"unit": "kg"}), "missing field `total`");
}

#[test]
fn numbers_are_f64_and_keep_their_text_within_2_pow_53() {
    use fidelity::types::Receipt;
    let receipt: Receipt =
        serde_json::from_str(r#"{"id":1,"amount":100,"blockTimestamp":0}"#).expect("decodes");
    // A number a handler can add to.
    assert_eq!(receipt.amount.map(|a| a + 0.5), Some(100.5));
    for written in [
        r#"{"id":1,"amount":100,"blockTimestamp":0}"#,
        r#"{"id":1,"amount":1.5,"blockTimestamp":0}"#,
        r#"{"id":1,"amount":-9007199254740992,"blockTimestamp":0}"#,
    ] {
        assert_eq!(round_text::<Receipt>(written), written);
    }
    // Beyond 2^53 an f64 is not exact: `exact_numbers` keeps every digit instead.
    let beyond = r#"{"id":1,"amount":18446744073709551615,"blockTimestamp":0}"#;
    assert_eq!(
        round_text::<Receipt>(beyond),
        r#"{"id":1,"amount":1.8446744073709552e+19,"blockTimestamp":0}"#
    );
}

#[test]
fn optional_nullable_members_tell_null_from_absent() {
    use fidelity::types::Receipt;
    let null: Receipt =
        serde_json::from_value(json!({"id": 1, "blockTimestamp": 0, "note": null, "memo": null}))
            .unwrap();
    assert_eq!(null.note, Some(None));
    assert_eq!(null.memo, Some(Value::Null));
    let absent: Receipt = serde_json::from_value(json!({"id": 1, "blockTimestamp": 0})).unwrap();
    assert_eq!((absent.note, absent.memo), (None, None));
    same::<Receipt>(json!({"id": 1, "blockTimestamp": 0, "note": null, "memo": null}));
    same::<Receipt>(json!({"id": 1, "blockTimestamp": 0, "note": "n", "memo": [1]}));
    same::<Receipt>(json!({"id": 1, "blockTimestamp": 0}));
}

#[test]
fn variants_are_named_by_their_titles() {
    use fidelity::types::BlockRef;
    let number: BlockRef = serde_json::from_value(json!("0x1")).unwrap();
    assert_eq!(number, BlockRef::BlockNumber("0x1".to_owned()));
    assert!(matches!(
        BlockRef::BlockHash(String::new()),
        BlockRef::BlockHash(_)
    ));
}

#[test]
fn external_tagging_is_serde_shaped() {
    use one_of_external::types::{Rect, Shape};
    same::<Shape>(json!("Empty"));
    same::<Shape>(json!({"Circle": 1.5}));
    same::<Shape>(json!({"Rect": {"w": 1, "h": 2}}));
    let rect: Shape = serde_json::from_value(json!({"Rect": {"w": 1, "h": 2}})).unwrap();
    assert_eq!(rect, Shape::Rect(Rect { w: 1, h: 2 }));
    refused::<Shape>(json!({"Square": 1}), "unknown variant");
}

#[test]
fn internal_tagging_reads_the_tag() {
    use one_of_internal::types::{Event, TxnByRef};
    same::<Event>(json!({"kind": "created", "id": "1"}));
    same::<Event>(json!({"kind": "deleted", "id": "1", "reason": "spam"}));
    same::<Event>(json!({"kind": "ping"}));
    refused::<Event>(
        json!({"kind": "deleted", "id": "1"}),
        "missing field `reason`",
    );
    refused::<Event>(json!({"kind": "other"}), "unknown variant");
    let txn: TxnByRef =
        serde_json::from_value(json!({"type": "DECLARE", "class_hash": "0x1"})).unwrap();
    assert!(matches!(txn, TxnByRef::DeclareTxn(_)));
    same::<TxnByRef>(json!({"type": "INVOKE", "calldata": ["0x1"]}));
}

#[test]
fn adjacent_tagging_and_schemars_newtype_variants() {
    use one_of_adjacent::types::{Command, CommandTurn, Event, Point};
    same::<Command>(json!({"kind": "move", "data": {"x": 1, "y": -2}}));
    same::<Command>(json!({"kind": "halt"}));
    let turn: Command =
        serde_json::from_value(json!({"kind": "turn", "data": {"degrees": 90}})).unwrap();
    assert_eq!(turn, Command::Turn(CommandTurn { degrees: 90 }));
    refused::<Command>(json!({"kind": "move"}), "missing field `data`");
    // The object beside the tag is the variant's payload, not dropped.
    let reached: Event =
        serde_json::from_value(json!({"type": "reached", "x": 3, "y": 4})).unwrap();
    assert_eq!(reached, Event::Reached(Point { x: 3, y: 4 }));
    same::<Event>(json!({"type": "reached", "x": 3, "y": 4}));
    same::<Event>(json!({"type": "moved", "speed": 2, "x": 3, "y": 4}));
    same::<Event>(json!({"type": "stopped", "reason": "done", "detail": {"code": 1}}));
    same::<Event>(json!({"type": "ping"}));
    refused::<Event>(json!({"type": "reached", "x": 3}), "missing field `y`");
}

#[test]
fn untagged_tries_the_most_specific_first() {
    use one_of_untagged::types::{BlockId, Tag};
    let id: BlockId = serde_json::from_value(json!("latest")).unwrap();
    assert_eq!(id, BlockId::Tag(Tag::Latest));
    let id: BlockId = serde_json::from_value(json!("0xabc")).unwrap();
    assert_eq!(id, BlockId::BlockHash("0xabc".into()));
    let id: BlockId = serde_json::from_value(json!(12)).unwrap();
    assert_eq!(id, BlockId::BlockNumber(12));
    same::<BlockId>(json!({"block_number": 1, "require_canonical": true}));
    same::<BlockId>(json!({"block_hash": "0x1"}));
}

#[test]
fn all_of_merges_and_flattens() {
    use all_of::types::{Extended, WithChoice, WithChoiceKind, Wrapper};
    same::<Extended>(json!({"id": "a", "size": 3, "label": "l"}));
    refused::<Extended>(json!({"id": "a", "size": 3}), "missing field `label`");
    same::<Wrapper>(json!({"base": {"id": "a"}}));
    let w: WithChoice = serde_json::from_value(json!({"id": "a", "Left": "x"})).unwrap();
    assert_eq!(w.with_choice_kind, WithChoiceKind::Left("x".into()));
    same::<WithChoice>(json!({"id": "a", "Right": 2}));
}

#[test]
fn enums_keep_wire_values() {
    use enums::types::{Code, MaybeColor, Status};
    same::<Status>(json!("ACCEPTED_ON_L1"));
    same::<Status>(json!("accepted_on_l1"));
    same::<Status>(json!(""));
    let s: Status = serde_json::from_value(json!("Pending")).unwrap();
    assert_eq!(s, Status::Pending2);
    same::<Code>(json!(-1));
    same::<Code>(json!(100));
    refused::<Code>(json!(3), "3 is not one of -1, 0, 2, 100");
    same::<Option<MaybeColor>>(json!(null));
    same::<Option<MaybeColor>>(json!("red"));
}

#[test]
fn constants_accept_one_value() {
    use constants::types::Versioned;
    same::<Versioned>(json!({"version": 2, "jsonrpc": "2.0", "flag": true}));
    refused::<Versioned>(
        json!({"version": 2, "jsonrpc": "1.0", "flag": true}),
        "unknown variant",
    );
    refused::<Versioned>(
        json!({"version": 3, "jsonrpc": "2.0", "flag": true}),
        "not one of 2",
    );
}

#[test]
fn maps_and_closed_objects() {
    use maps::types::{Balances, Closed, Empty, Labelled};
    same::<Balances>(json!({"a": 1, "b": 2}));
    same::<Labelled>(json!({"name": "n", "x": "1", "y": "2"}));
    refused::<Labelled>(json!({"name": "n", "x": 1}), "invalid type");
    same::<Closed>(json!({"a": true}));
    refused::<Closed>(json!({"a": true, "b": 1}), "unknown field `b`");
    same::<Empty>(json!({}));
    refused::<Empty>(json!({"x": 1}), "unknown field `x`");
}

#[test]
fn arrays_lists_and_tuples() {
    use arrays::types::{Address, LotusList, Pair, Single};
    same::<Pair>(json!(["a", 1]));
    refused::<Pair>(json!(["a"]), "invalid length");
    same::<LotusList>(json!(["a", "b", "c"]));
    same::<Single>(json!([true]));
    let twenty: Vec<u8> = (0..20).collect();
    same::<Address>(json!(twenty));
    refused::<Address>(json!([1.0]), "invalid length");
}

#[test]
fn integer_widths_bound_values() {
    use integers::types::Widths;
    let ok = json!({"a": -5, "b": 255, "c": 65535, "d": 1, "e": 18446744073709551615_u64,
        "f": 1, "g": 200, "h": -100, "i": 1, "j": -1, "k": 1.5});
    same::<Widths>(ok.clone());
    let mut bad = ok;
    bad["b"] = json!(256);
    refused::<Widths>(bad, "invalid value");
}

#[test]
fn keywords_and_odd_names_are_renamed() {
    use names::types::BlockHeader;
    same::<BlockHeader>(
        json!({"type": "t", "parentHash": "p", "parent_hash": "q", "0x": "z", "self": "s", "$ref": "r",
        "nested-object": {"inner": "i"}}),
    );
}

#[test]
fn recursive_types_nest() {
    use recursive::types::{ExecutionError, List, Tree};
    same::<Tree>(json!({"value": 1, "left": {"value": 2, "children": [{"value": 3}]}}));
    same::<ExecutionError>(json!({"error": {"error": "deep"}}));
    same::<List>(json!([[], [[]]]));
}

#[test]
fn never_and_any() {
    use any_and_never::types::{Holder, Nothing};
    same::<Holder>(json!({"any": [1, {"x": null}]}));
    refused::<Holder>(json!({"any": 1, "never": 1}), "");
    refused::<Nothing>(json!(null), "");
}

#[test]
#[allow(deprecated)]
fn deprecated_items_still_work() {
    use docs::types::{Documented, Legacy, UsesLegacy};
    same::<UsesLegacy>(json!({"legacy": "a"}));
    let d: Documented = serde_json::from_value(json!({"old": "o"})).unwrap();
    assert_eq!(d.old.as_deref(), Some("o"));
    assert_eq!(d.new, None, "a default is documented, not filled in");
    let _ = Legacy::A;
}

#[test]
fn explicit_additional_properties_are_kept() {
    use maps::types::OpenEnded;
    same::<OpenEnded>(json!({"justification": "j", "periodAmount": "0x1", "n": 3}));
}

#[test]
fn types_from_other_files_are_shared() {
    use cross_file::types::{Account, Transfer};
    same::<Transfer>(json!({"from": {"address": "0x1"}, "to": {"address": "0x2", "nonce": 1}}));
    let _: Account = serde_json::from_value(json!({"address": "0x1"})).unwrap();
}
