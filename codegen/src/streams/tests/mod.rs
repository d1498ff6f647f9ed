//! Tying subscriptions: small inline documents for each rule; the corpus documents that
//! have subscriptions in `corpus.rs`.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Value, json};

use super::{Stream, Streams, Unsubscribe, streams};
use crate::load::load_document;
use crate::settings::Settings;
use crate::subscription::Subscription;
use crate::typespace::{Ty, TypeSpace};

mod corpus;

/// The subscriptions of the document at `path` under `settings`.
fn streams_of(path: &Path, settings: &Settings) -> Streams {
    let mut document = load_document(path, &settings.load).expect("loads");
    let space = TypeSpace::build(&mut document);
    let types: HashMap<&str, _> = space
        .methods()
        .iter()
        .map(|m| (m.name.as_str(), m))
        .collect();
    streams(&document, &types, space.defs(), settings)
}

/// The subscriptions of an inline document made of `methods`.
fn inline(methods: Value, settings: &Settings) -> Streams {
    inline_with(methods, json!({}), settings)
}

/// The subscriptions of an inline document made of `methods` and `components`.
fn inline_with(methods: Value, components: Value, settings: &Settings) -> Streams {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.json");
    let doc = json!({
        "openrpc": "1.3.2",
        "info": {"title": "T", "version": "1"},
        "methods": methods,
        "components": components
    });
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    streams_of(&path, settings)
}

fn corpus(relative: &str, include: Option<&str>) -> Option<Streams> {
    let dir = rpcsmith_corpus::dir()?;
    let mut settings = Settings::default();
    if let Some(include) = include {
        settings.load = settings.load.include_dir(dir.join(include));
    }
    Some(streams_of(&dir.join(relative), &settings))
}

fn messages(s: &Streams) -> Vec<String> {
    s.diagnostics.iter().map(ToString::to_string).collect()
}

fn p(name: &str, schema: Value) -> Value {
    json!({"name": name, "required": true, "schema": schema})
}

fn method(name: &str, params: Vec<Value>, result: Option<Value>) -> Value {
    let mut m = json!({"name": name, "params": params});
    if let Some(schema) = result {
        m["result"] = json!({"name": "r", "schema": schema});
    }
    m
}

/// `eth_subscribe`, `eth_subscription` (by name: `subscription`, `result`) and
/// `eth_unsubscribe`, string ids.
fn ethereum() -> Vec<Value> {
    let s = json!({"type": "string"});
    let head = json!({"type": "object", "properties": {"number": {"type": "string"}}});
    vec![
        method("eth_subscribe", vec![p("kind", s.clone())], Some(s.clone())),
        method(
            "eth_subscription",
            vec![p("subscription", s.clone()), p("result", head)],
            None,
        ),
        method(
            "eth_unsubscribe",
            vec![p("id", s.clone())],
            Some(json!({"type": "boolean"})),
        ),
    ]
}

/// A `<prefix>_subscribe<X>` method alone, as jsonrpsee-based servers publish theirs
/// (Sui's `suix_subscribeEvent`), is recognised without any declaration; with a
/// notification of the Starknet convention it is Starknet's shape instead.
#[test]
fn a_subscribe_method_alone_is_jsonrpsees_shape() {
    let event = json!({"type": "object", "properties": {"packageId": {"type": "string"}}});
    let filter = p("filter", json!({"type": "object"}));
    let alone = json!([method(
        "suix_subscribeEvent",
        vec![filter.clone()],
        Some(event.clone())
    )]);
    let s = inline(alone, &Settings::default());
    assert!(s.diagnostics.is_empty(), "{:?}", messages(&s));
    let stream = &s.by_subscribe["suix_subscribeEvent"];
    assert_eq!(stream.notification, "suix_subscribeEvent");
    assert!(
        matches!(stream.item, Ty::Named(_)),
        "the result's type is the item's"
    );
    assert_eq!(
        stream
            .unsubscribe
            .as_ref()
            .map(|u| (u.method.as_str(), u.listed, u.positional)),
        Some(("suix_unsubscribeEvent", false, true))
    );
    assert!(s.notes[0].contains(
        "the subscription recognised (jsonrpsee convention: no notification is declared, the result is the item) on `suix_subscribeEvent`"
    ), "{}", s.notes[0]);

    // The unsubscribe method listed: consumed, still by position.
    let listed = json!([
        method(
            "suix_subscribeEvent",
            vec![filter.clone()],
            Some(event.clone())
        ),
        method(
            "suix_unsubscribeEvent",
            vec![p("id", json!({"type": "integer"}))],
            Some(json!({"type": "boolean"}))
        ),
    ]);
    let s = inline(listed, &Settings::default());
    let u = s.by_subscribe["suix_subscribeEvent"]
        .unsubscribe
        .clone()
        .unwrap();
    assert_eq!(
        (u.param.as_str(), u.listed, u.positional),
        ("id", true, true)
    );

    // Disabled conventions: a plain method, no warning.
    let plain = Settings {
        conventions: false,
        ..Settings::default()
    };
    let alone = json!([method("suix_subscribeEvent", vec![filter], Some(event))]);
    let s = inline(alone, &plain);
    assert!(s.by_subscribe.is_empty() && s.diagnostics.is_empty());
}

/// `end` names a notification carrying the id as the items do; anything else is said.
#[test]
fn an_end_notification_is_tied_or_refused_with_its_reason() {
    let s = json!({"type": "string"});
    let int = json!({"type": "integer"});
    let cases = [
        (json!({"end": "done"}), None),
        (
            json!({"end": "gone"}),
            Some("its end notification `gone` is no method of the document"),
        ),
        (
            json!({"end": "progress"}),
            Some("its end notification `progress` is the notification of its items"),
        ),
        (
            json!({"end": "watch"}),
            Some("`watch` has a result: it is no notification"),
        ),
        (
            json!({"end": "other"}),
            Some(
                "its end notification `other` has no param `job` (the id, named as on `progress`)",
            ),
        ),
    ];
    for (extension, refused) in cases {
        let mut subscribe = method("watch", vec![], Some(s.clone()));
        let mut declared = json!({"notification": "progress"});
        declared
            .as_object_mut()
            .unwrap()
            .extend(extension.as_object().unwrap().clone());
        subscribe["x-subscription"] = declared;
        let methods = json!([
            subscribe,
            method(
                "progress",
                vec![p("job", s.clone()), p("percent", int.clone())],
                None
            ),
            method("done", vec![p("job", s.clone())], None),
            method("other", vec![p("id", s.clone())], None),
        ]);
        let streams = inline(methods, &Settings::default());
        match refused {
            None => {
                assert!(streams.diagnostics.is_empty(), "{:?}", messages(&streams));
                assert_eq!(streams.by_subscribe["watch"].end.as_deref(), Some("done"));
                assert!(streams.is_consumed("done"));
                assert!(
                    streams.notes[0].ends_with(", ended by `done`"),
                    "{}",
                    streams.notes[0]
                );
            }
            Some(reason) => {
                let found = messages(&streams);
                assert_eq!(found.len(), 1, "{extension}: {found:?}");
                assert!(found[0].contains(reason), "{extension}: {}", found[0]);
            }
        }
    }
}

#[test]
fn ethereum_shape_is_recognised() {
    let s = inline(json!(ethereum()), &Settings::default());
    assert!(s.diagnostics.is_empty(), "{:?}", messages(&s));
    let stream = &s.by_subscribe["eth_subscribe"];
    assert_eq!(stream.notification, "eth_subscription");
    assert_eq!(
        (stream.id_param.as_str(), stream.item_param.as_str()),
        ("subscription", "result")
    );
    assert_eq!(
        stream.unsubscribe.as_ref().map(|u| u.param.as_str()),
        Some("id")
    );
    assert!(matches!(stream.item, Ty::Named(_)));
    assert_eq!(s.notes.len(), 1);
}

#[test]
fn the_extension_names_every_part_and_integer_ids_and_positions_follow_the_document() {
    let int = json!({"type": "integer"});
    let mut notify = method(
        "ticks",
        vec![
            p("n", json!({"type": "number"})),
            p("sub", int.clone()),
            p("extra", int.clone()),
        ],
        None,
    );
    notify["paramStructure"] = json!("by-position");
    let mut subscribe = method("watch", vec![], Some(int.clone()));
    subscribe["x-subscription"] = json!({"notification": "ticks", "id": "sub", "item": "n", "unsubscribe": "stop", "pull": true});
    let stop = method(
        "stop",
        vec![p("which", int)],
        Some(json!({"type": "boolean"})),
    );
    let s = inline(json!([subscribe, notify, stop]), &Settings::default());
    assert!(s.diagnostics.is_empty(), "{:?}", messages(&s));
    let expected = Stream {
        notification: "ticks".to_owned(),
        id_param: "sub".to_owned(),
        item_param: "n".to_owned(),
        item: Ty::Float,
        by_position: true,
        unsubscribe: Some(Unsubscribe {
            method: "stop".to_owned(),
            param: "which".to_owned(),
            listed: true,
            positional: false,
        }),
        end: None,
        integer_ids: true,
        pull: true,
    };
    assert_eq!(s.by_subscribe["watch"], expected);
    assert!(
        s.notes[0].ends_with("unsubscribe `stop`, always pulled"),
        "{}",
        s.notes[0]
    );
}

#[test]
fn the_builder_declares_for_documents_that_cannot_and_names_missing_methods() {
    let mut methods = ethereum();
    methods[0]["name"] = json!("watch");
    let mut settings = Settings::default();
    settings.subscriptions.insert(
        "watch".to_owned(),
        Subscription::notification("eth_subscription").unsubscribe("eth_unsubscribe"),
    );
    settings
        .subscriptions
        .insert("nothing".to_owned(), Subscription::inferred());
    let s = inline(json!(methods), &settings);
    assert_eq!(s.by_subscribe["watch"].id_param, "subscription");
    let found = messages(&s);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]
            .ends_with(": at /methods: subscription declared on \"nothing\", which is no method (a subscription is declared on the subscribe method's wire name)"),
        "{}",
        found[0]
    );
}

#[test]
fn a_misspelt_method_in_a_builder_declaration_is_answered_with_the_nearest_name() {
    let mut settings = Settings::default();
    settings
        .subscriptions
        .insert("eth_subscibe".to_owned(), Subscription::inferred());
    let s = inline(json!(ethereum()), &settings);
    let found = messages(&s);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].ends_with(
            ": at /methods: subscription declared on \"eth_subscibe\", which is no method: did you mean \"eth_subscribe\"? (a subscription is declared on the subscribe method's wire name)"
        ),
        "{}",
        found[0]
    );
}

#[test]
fn a_declaration_that_cannot_be_tied_says_why_at_its_pointer() {
    let s = json!({"type": "string"});
    let cases = [
        (
            json!("yes"),
            "x-subscription must be `true` or an object; the method is generated as a plain method",
        ),
        (
            json!({"notification": "gone"}),
            "its notification `gone` is no method of the document",
        ),
        (
            json!({"notification": "watch"}),
            "`watch` has a result: it is no notification",
        ),
        (
            json!({"notification": "n3"}),
            "`n3` has 2 params besides the id: name the item param (`item`)",
        ),
        (
            json!({"notification": "n2", "id": "x"}),
            "`n2` has no param `x`",
        ),
        (
            json!({"notification": "n0"}),
            "no param of `n0` has the type of the subscribe method's result",
        ),
        (
            json!({"notification": "n2", "unsubscribe": "n2"}),
            "its unsubscribe method `n2` must take one param (the id) and have a result",
        ),
    ];
    for (extension, expected) in cases {
        let mut subscribe = method("watch", vec![], Some(s.clone()));
        subscribe["x-subscription"] = extension.clone();
        let methods = json!([
            subscribe,
            method(
                "n2",
                vec![p("id", s.clone()), p("item", json!({"type": "integer"}))],
                None
            ),
            method(
                "n3",
                vec![
                    p("id", s.clone()),
                    p("a", json!({"type": "integer"})),
                    p("b", json!({"type": "boolean"}))
                ],
                None
            ),
            method(
                "n0",
                vec![
                    p("a", json!({"type": "integer"})),
                    p("b", json!({"type": "boolean"}))
                ],
                None
            ),
        ]);
        let streams = inline(methods, &Settings::default());
        assert!(streams.by_subscribe.is_empty(), "{extension}");
        let found = messages(&streams);
        assert_eq!(found.len(), 1, "{extension}: {found:?}");
        assert!(
            found[0].contains(": at /methods/0/x-subscription: "),
            "{}",
            found[0]
        );
        assert!(found[0].contains(expected), "{extension}: {}", found[0]);
    }
}

#[test]
fn several_unsubscribe_methods_are_chosen_by_name_or_refused() {
    let s = json!({"type": "string"});
    let b = Some(json!({"type": "boolean"}));
    let mut methods = vec![
        method("chain_subscribeHeads", vec![], Some(s.clone())),
        method(
            "chain_subscriptionHeads",
            vec![
                p("subscription", s.clone()),
                p("result", json!({"type": "integer"})),
            ],
            None,
        ),
        method("chain_unsubscribeAll", vec![p("id", s.clone())], b.clone()),
        method("other_unsubscribe", vec![p("id", s.clone())], b.clone()),
    ];
    let refused = inline(json!(methods), &Settings::default());
    assert!(messages(&refused)[0].contains(
        "several methods may unsubscribe it (`chain_unsubscribeAll`, `other_unsubscribe`): name one (`unsubscribe`)"
    ), "{:?}", messages(&refused));
    methods.push(method("chain_unsubscribeHeads", vec![p("id", s)], b));
    let chosen = inline(json!(methods), &Settings::default());
    let unsubscribe = chosen.by_subscribe["chain_subscribeHeads"]
        .unsubscribe
        .clone();
    assert_eq!(
        unsubscribe.map(|u| u.method),
        Some("chain_unsubscribeHeads".to_owned())
    );
}

#[test]
fn x_subscription_false_keeps_a_conventional_name_plain() {
    let mut methods = ethereum();
    methods[0]["x-subscription"] = json!(false);
    let s = inline(json!(methods), &Settings::default());
    assert!(s.by_subscribe.is_empty() && s.diagnostics.is_empty());
}

#[test]
fn ids_named_as_integers_are_integer_ids() {
    let id = json!({"$ref": "#/components/schemas/Id"});
    let methods = json!([
        method("feed_subscribeNews", vec![], Some(id.clone())),
        method(
            "feed_subscriptionNews",
            vec![
                p("subscription_id", id),
                p("result", json!({"type": "string"}))
            ],
            None,
        ),
    ]);
    let components = json!({"schemas": {"Id": {"title": "Id", "type": "integer"}}});
    let s = inline_with(methods, components, &Settings::default());
    assert!(s.diagnostics.is_empty(), "{:?}", messages(&s));
    assert!(s.by_subscribe["feed_subscribeNews"].integer_ids);
}
