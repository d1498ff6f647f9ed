//! The `x-` extensions of an OpenRPC document that the generator reads, as a Rust model
//! from which their JSON Schemas are derived: `x-subscription` and `x-idempotent` on
//! method objects, `x-stream` on content descriptors (params).
//!
//! The schemas (`schemas/x-<name>.schema.json` in the repository, for editors and
//! document linters) are generated from these types by `schemars`, a dev-dependency:
//! this module is compiled for the crate's tests alone, so users never compile
//! schemars. `RPCSMITH_BLESS=1 cargo test -p rpcsmith-build --lib extension` writes the
//! files; without it the test fails when a committed file is not what the model gives.
//!
//! The generator's readers stay hand-written, for their messages (which key is wrong and
//! why, at its JSON pointer; serde's for an untagged enum only says "no variant
//! matched"). A second test holds the schemas to them: every value of a table is
//! accepted by the schema (checked by the `jsonschema` crate) exactly when the reader
//! accepts it, so a key a reader learns and the model does not (or the reverse) fails.

/// The value of `x-subscription` on an OpenRPC method object: the method subscribes,
/// and its items travel as a notification of the document. `true` infers every part;
/// `false` says the method is no subscription (a conventional name such as
/// `eth_subscribe` stays a plain method). Parts left out are inferred: `notification`
/// from the Starknet convention (`<prefix>_subscribe<X>` -> `<prefix>_subscription<X>`)
/// or Ethereum's (`eth_subscribe` -> `eth_subscription`); `id` as the notification's
/// param whose schema is the method's result; `item` as its other param; `unsubscribe`
/// as the method whose name contains `unsubscribe` and whose only param has the id's
/// schema. A `<prefix>_subscribe<X>` method whose notification the document does not
/// declare is read as jsonrpsee's convention: `"result": "item"`.
#[derive(schemars::JsonSchema)]
#[schemars(
    title = "x-subscription",
    extend("$id" = "https://github.com/rpcsmith/rpcsmith/schemas/x-subscription.schema.json")
)]
#[serde(untagged)]
#[expect(dead_code, reason = "read by the schema derive, never built")]
enum Subscription {
    /// `true`: a subscription whose parts are all inferred; `false`: no subscription.
    Flag(bool),
    /// A subscription naming some of its parts.
    Declared(Declaration),
}

/// The parts of a subscription a document names; each may be left out.
#[derive(schemars::JsonSchema)]
#[schemars(inline)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "read by the schema derive, never built")]
struct Declaration {
    /// The notification method (a method of the document without a result) that
    /// carries the items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", length(min = 1))]
    notification: Option<String>,
    /// The notification's param that holds the subscription id (the subscribe method's
    /// result).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", length(min = 1))]
    id: Option<String>,
    /// The notification's param that holds the item: its schema is the items' type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", length(min = 1))]
    item: Option<String>,
    /// The method that ends a subscription: one param (the id), a result. The runtime
    /// answers it: `true` for a live subscription of the connection; for an unknown id,
    /// the method's declared error when it declares exactly one, else `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", length(min = 1))]
    unsubscribe: Option<String>,
    /// The notification method (a method of the document without a result) the server
    /// sends when a subscription's items are over; its params hold the id alone, under
    /// the name of the id param of `notification` (or first, by position). The client's
    /// stream ends with it. Without `end`, a subscription whose items stop stays
    /// registered, silent, until the client unsubscribes or disconnects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", length(min = 1))]
    end: Option<String>,
    /// What the method's result describes.
    #[serde(default)]
    result: ResultIs,
    /// Items are always pulled (`rpc.stream.next`), even on transports that can push;
    /// the notification then only describes the item.
    #[serde(default)]
    pull: bool,
}

/// What a subscribe method's result describes: `id`, the subscription id (Starknet,
/// Ethereum), or `item`, the items' type, as documents of jsonrpsee-based servers have
/// it (the wire result is still the id, a number or a string). With `item`,
/// `notification` defaults to the method's own name, `id` to `subscription`, `item` to
/// `result`, and `unsubscribe` to `<prefix>_unsubscribe<X>` (sent the id by position),
/// listed in the document or not.
#[derive(schemars::JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
#[expect(dead_code, reason = "read by the schema derive, never built")]
enum ResultIs {
    /// The result is the subscription id.
    #[default]
    Id,
    /// The result describes the item.
    Item,
}

/// The value of `x-idempotent` on an OpenRPC method object: `true` marks the method
/// safe to send again (the generated client lists it in `IDEMPOTENT`, for the runtime's
/// retry layer); `false`, like no value, marks nothing.
#[derive(schemars::JsonSchema)]
#[schemars(
    title = "x-idempotent",
    extend("$id" = "https://github.com/rpcsmith/rpcsmith/schemas/x-idempotent.schema.json")
)]
#[expect(dead_code, reason = "read by the schema derive, never built")]
struct Idempotent(bool);

/// The value of `x-stream` on an OpenRPC content descriptor that is a param of a method
/// with a result: `true` makes the param a stream of items, each described by the
/// param's schema. The caller passes a stream (the generated client takes
/// `Streamed<Item>`); the call carries a stream id in the param's place, and the server
/// pulls the items from the caller on the same connection with `rpc.stream.next`
/// (`{"stream": id}`, answered `{"item": …}`, `{"idle": true}` or `{"done": true}`) and
/// may end it early with `rpc.stream.cancel`, the pull streams' protocol in the other
/// direction. The generated handler receives a `Streamed<Item>` it reads as a `Stream`.
/// Only connections on which the server can call the caller carry it (WebSocket, byte
/// streams). `false`, like no value, marks nothing; on an optional param, the whole
/// params object or a notification's param it is ignored with a warning.
#[derive(schemars::JsonSchema)]
#[schemars(
    title = "x-stream",
    extend("$id" = "https://github.com/rpcsmith/rpcsmith/schemas/x-stream.schema.json")
)]
#[expect(dead_code, reason = "read by the schema derive, never built")]
struct StreamParam(bool);

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use schemars::Schema;
    use schemars::generate::SchemaSettings;
    use schemars::transform::RecursiveTransform;
    use serde_json::{Value, json};

    use super::{Idempotent, StreamParam, Subscription};

    /// The schema of `T` as committed: draft 7 (what OpenRPC documents' own schemas
    /// use), pretty-printed, with a final newline. A doc comment's lines are joined into
    /// one line per paragraph.
    fn schema<T: schemars::JsonSchema>() -> String {
        let settings = SchemaSettings::draft07().with_transform(RecursiveTransform(unwrap));
        let schema = settings.into_generator().into_root_schema_for::<T>();
        let mut text = serde_json::to_string_pretty(&schema).expect("a schema serializes");
        text.push('\n');
        text
    }

    fn unwrap(schema: &mut Schema) {
        if let Some(Value::String(text)) = schema.get_mut("description") {
            let paragraphs: Vec<String> = text
                .split("\n\n")
                .map(|p| p.split('\n').collect::<Vec<_>>().join(" "))
                .collect();
            *text = paragraphs.join("\n\n");
        }
    }

    fn validator(text: &str) -> jsonschema::Validator {
        let schema: Value = serde_json::from_str(text).expect("the schema is JSON");
        jsonschema::draft7::new(&schema).expect("the schema compiles")
    }

    #[test]
    fn committed_schemas_are_the_models() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schemas");
        let bless = std::env::var_os("RPCSMITH_BLESS").is_some_and(|v| v == "1");
        let mut stale = Vec::new();
        for (name, text) in [
            ("x-subscription", schema::<Subscription>()),
            ("x-idempotent", schema::<Idempotent>()),
            ("x-stream", schema::<StreamParam>()),
        ] {
            let path = dir.join(format!("{name}.schema.json"));
            if bless {
                crate::write_if_changed(&path, &text).expect("write the schema");
            } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                stale.push(path.display().to_string());
            }
        }
        assert!(
            stale.is_empty(),
            "stale: {stale:?}\n(rerun with RPCSMITH_BLESS=1 and review the diff)"
        );
    }

    /// Values an `x-subscription` may hold, good and bad: what the reader accepts, the
    /// schema accepts, and nothing else.
    #[test]
    fn the_subscription_schema_accepts_what_the_reader_accepts() {
        let values = [
            json!(true),
            json!(false),
            json!({}),
            json!({"notification": "ticks"}),
            json!({"notification": "n", "id": "i", "item": "r", "unsubscribe": "u", "pull": true}),
            json!({"pull": false}),
            json!("yes"),
            json!(1),
            json!(null),
            json!([]),
            json!({"pull": "no"}),
            json!({"id": 3}),
            json!({"item": null}),
            json!({"notification": ""}),
            json!({"topic": "x"}),
            json!({"end": "ended"}),
            json!({"result": "item"}),
            json!({"result": "id"}),
            json!({"result": "both"}),
            json!({"result": true}),
            json!({"end": ""}),
        ];
        let schema = validator(&schema::<Subscription>());
        for value in values {
            let read = crate::Subscription::from_extension(&value);
            assert_eq!(
                schema.is_valid(&value),
                read.is_ok(),
                "{value}: the reader says {read:?}"
            );
        }
    }

    /// The two boolean extensions: each schema accepts what its reader accepts.
    #[test]
    fn the_boolean_schemas_accept_what_their_readers_accept() {
        type Reader = fn(&Value) -> Option<bool>;
        let pairs: [(String, Reader); 2] = [
            (schema::<Idempotent>(), crate::service::idempotent_value),
            (schema::<StreamParam>(), crate::service::stream_value),
        ];
        for (text, reader) in pairs {
            let schema = validator(&text);
            for value in [
                json!(true),
                json!(false),
                json!("yes"),
                json!(1),
                json!(null),
                json!({}),
            ] {
                assert_eq!(schema.is_valid(&value), reader(&value).is_some(), "{value}");
            }
        }
    }
}
