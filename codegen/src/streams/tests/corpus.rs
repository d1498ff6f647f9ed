//! Tying subscriptions on the corpus documents that have them (D08, D16, D32), read in
//! place.

use super::*;

#[test]
fn starknet_ws_d16_ties_every_subscription_and_shares_reorg() {
    let Some(s) = corpus(
        "starknet-specs/api/starknet_ws_api.json",
        Some("starknet-specs"),
    ) else {
        return;
    };
    assert!(s.diagnostics.is_empty(), "{:?}", messages(&s));
    let pairs = [
        (
            "starknet_subscribeNewHeads",
            "starknet_subscriptionNewHeads",
        ),
        ("starknet_subscribeEvents", "starknet_subscriptionEvents"),
        (
            "starknet_subscribeTransactionStatus",
            "starknet_subscriptionTransactionStatus",
        ),
        (
            "starknet_subscribeNewTransactionReceipts",
            "starknet_subscriptionNewTransactionReceipts",
        ),
        (
            "starknet_subscribeNewTransactions",
            "starknet_subscriptionNewTransaction",
        ),
    ];
    assert_eq!(s.by_subscribe.len(), pairs.len());
    for (subscribe, notification) in pairs {
        let stream = &s.by_subscribe[subscribe];
        assert_eq!(stream.notification, notification);
        assert_eq!(
            (stream.id_param.as_str(), stream.item_param.as_str()),
            ("subscription_id", "result")
        );
        assert!(
            !stream.by_position && !stream.integer_ids && !stream.pull,
            "{subscribe}"
        );
        let unsubscribe = Unsubscribe {
            method: "starknet_unsubscribe".to_owned(),
            param: "subscription_id".to_owned(),
            listed: true,
            positional: false,
        };
        assert_eq!(stream.unsubscribe, Some(unsubscribe), "{subscribe}");
        assert!(s.is_consumed(notification));
    }
    assert_eq!(s.shared, ["starknet_subscriptionReorg"]);
    assert!(!s.is_consumed("starknet_subscriptionReorg"));
    assert_eq!(s.notes.len(), pairs.len() + 1);
    assert!(
        s.notes[0].starts_with("note: starknet_ws_api.json:"),
        "{}",
        s.notes[0]
    );
    assert!(s.notes[0].contains(": at /methods/0: "), "{}", s.notes[0]);
    assert!(
        s.notes[0].ends_with(
            "the subscription recognised (Starknet convention) on `starknet_subscribeNewHeads`: items on `starknet_subscriptionNewHeads` (id `subscription_id`, item `result`), unsubscribe `starknet_unsubscribe`"
        ),
        "{}",
        s.notes[0]
    );
}

#[test]
fn starknet_ws_d16_is_plain_without_conventions() {
    let Some(dir) = rpcsmith_corpus::dir() else {
        return;
    };
    let mut settings = Settings::default();
    settings.load = settings.load.include_dir(dir.join("starknet-specs"));
    settings.conventions = false;
    let s = streams_of(
        &dir.join("starknet-specs/api/starknet_ws_api.json"),
        &settings,
    );
    assert!(s.by_subscribe.is_empty() && s.shared.is_empty() && s.diagnostics.is_empty());
}

#[test]
fn metamask_d08_eth_subscribe_without_eth_subscription_is_a_warning() {
    let Some(s) = corpus("metamask-api-specs/openrpc.json", None) else {
        return;
    };
    assert!(s.by_subscribe.is_empty());
    let found = messages(&s);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("warning: openrpc.json:"),
        "{}",
        found[0]
    );
    assert!(
        found[0].ends_with(
            ": at /methods/22: the subscription recognised (Ethereum's eth_subscribe) on `eth_subscribe` cannot be tied: no notification carries its items (the document declares no `eth_subscription`), so their type is unknown; it is generated as a plain method"
        ),
        "{}",
        found[0]
    );
}

/// D32 (a Substrate node, served by jsonrpsee) marks its subscribe methods
/// `x-subscription: true` and lists neither notifications nor unsubscribe methods: each
/// `<prefix>_subscribe<X>` is read as jsonrpsee's shape (the result is the item), with
/// jsonrpsee's unsubscribe name; the one named otherwise still cannot be tied.
#[test]
fn midnight_d32_x_subscription_true_reads_as_jsonrpsee() {
    let Some(s) = corpus("midnight-node/openrpc.json", None) else {
        return;
    };
    let tied = [
        ("chain_subscribeNewHeads", "chain_unsubscribeNewHeads"),
        (
            "chain_subscribeFinalizedHeads",
            "chain_unsubscribeFinalizedHeads",
        ),
        ("chain_subscribeAllHeads", "chain_unsubscribeAllHeads"),
        (
            "state_subscribeRuntimeVersion",
            "state_unsubscribeRuntimeVersion",
        ),
        ("state_subscribeStorage", "state_unsubscribeStorage"),
        (
            "grandpa_subscribeJustifications",
            "grandpa_unsubscribeJustifications",
        ),
        (
            "beefy_subscribeJustifications",
            "beefy_unsubscribeJustifications",
        ),
    ];
    assert_eq!(s.by_subscribe.len(), tied.len());
    for (subscribe, unsubscribe) in tied {
        let stream = &s.by_subscribe[subscribe];
        assert_eq!(stream.notification, subscribe);
        assert_eq!(
            (stream.id_param.as_str(), stream.item_param.as_str()),
            ("subscription", "result")
        );
        let expected = Unsubscribe {
            method: unsubscribe.to_owned(),
            param: String::new(),
            listed: false,
            positional: true,
        };
        assert_eq!(stream.unsubscribe, Some(expected), "{subscribe}");
    }
    let notes: Vec<&String> = s
        .notes
        .iter()
        .filter(|n| n.contains("chain_subscribeNewHeads"))
        .collect();
    assert_eq!(notes.len(), 1, "{:?}", s.notes);
    assert!(notes[0].ends_with(
        ": at /methods/44: the subscription declared by x-subscription on `chain_subscribeNewHeads`: items on `chain_subscribeNewHeads` (id `subscription`, item `result`), unsubscribe `chain_unsubscribeNewHeads` (not in the document: jsonrpsee's name), the result is the item (the wire result is the id)"
    ), "{}", notes[0]);
    let found = messages(&s);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains(
        ": at /methods/39/x-subscription: the subscription declared by x-subscription on `author_submitAndWatchExtrinsic` cannot be tied: no notification is named and none follows from its name"
    ), "{}", found[0]);
}
