//! The overrides took effect in the generated code, and the derives work.

use rpcsmith_overrides::money::Cents;
use rpcsmith_overrides::shop::types::{Animal, Kind, Price};

#[test]
fn the_renamed_type_and_the_replacement_are_used() {
    let price: Price =
        serde_json::from_str(r#"{"amount": 1250, "pet": {"name": "Rex", "kind": "dog"}}"#).unwrap();
    assert_eq!(price.amount, Cents(1250));
    assert_eq!(
        price.pet,
        Animal {
            name: "Rex".to_owned(),
            kind: Kind::Dog
        }
    );
    assert_eq!(price.discount, None);
}

#[test]
fn every_type_derives_json_schema() {
    let schema = serde_json::to_value(schemars::schema_for!(Price)).unwrap();
    assert_eq!(schema["title"], "Price");
    assert_eq!(schema["required"], serde_json::json!(["amount", "pet"]));
    let animal = serde_json::to_value(schemars::schema_for!(Animal)).unwrap();
    assert_eq!(animal["properties"]["name"]["type"], "string");
    let kind = serde_json::to_value(schemars::schema_for!(Kind)).unwrap();
    assert_eq!(kind["enum"], serde_json::json!(["cat", "dog"]));
}

#[test]
fn a_derive_on_one_type_applies_to_it() {
    assert!(Kind::Cat < Kind::Dog);
}

#[test]
fn undescribed_members_are_kept_when_asked() {
    use rpcsmith_overrides::loose::types::{Closed, Event};
    let written = serde_json::json!({"kind": "tick", "at": 3, "source": {"id": 7}, "tags": []});
    let event: Event = serde_json::from_value(written.clone()).unwrap();
    assert_eq!(event.extra["source"], serde_json::json!({"id": 7}));
    assert_eq!(serde_json::to_value(&event).unwrap(), written);
    // A closed object has nothing undescribed to keep, and still refuses other members.
    let closed = serde_json::from_value::<Closed>(serde_json::json!({"kind": "x", "y": 1}));
    assert!(
        closed
            .unwrap_err()
            .to_string()
            .contains("unknown field `y`")
    );
}
