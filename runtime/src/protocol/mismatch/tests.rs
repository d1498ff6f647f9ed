use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::*;

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Item {
    id: i64,
    qty: u8,
    #[serde(default)]
    tag: Option<String>,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Color {
    Red,
    Green,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(untagged)]
enum BlockId {
    Hash { block_hash: String },
    Number(u64),
}

#[derive(Debug, PartialEq, Deserialize)]
struct Order {
    items: Vec<Item>,
    color: Color,
    block: Option<BlockId>,
    pair: Option<(String, u32)>,
    labels: Option<BTreeMap<String, bool>>,
    ratio: Option<f64>,
}

/// The message of decoding `json` as `T`, as `Display` writes it.
fn message<T: DeserializeOwned + fmt::Debug>(json: &str) -> String {
    let error = from_str::<T>(json).unwrap_err();
    let bytes = from_slice::<T>(json.as_bytes()).unwrap_err();
    assert_eq!(error, bytes, "{json}");
    error.to_string()
}

const ORDER: &str = r#""items":[{"id":1,"qty":2}],"color":"red""#;

#[test]
fn messages_name_json_types_and_where() {
    let order = |rest: &str| message::<Order>(&format!("{{{ORDER}{rest}}}"));
    let cases = [
        (
            message::<i64>(r#""abc""#),
            r#"expected an integer, found a string "abc""#,
        ),
        (
            message::<u64>("-1"),
            "expected a non-negative integer, found an integer -1",
        ),
        (
            message::<u8>("300"),
            "expected an integer between 0 and 255, found an integer 300",
        ),
        (
            message::<i64>("1.5"),
            "expected an integer, found a number 1.5",
        ),
        (
            message::<f64>("true"),
            "expected a number, found a boolean true",
        ),
        (
            message::<String>("[1]"),
            "expected a string, found an array",
        ),
        (
            message::<Vec<i64>>("{}"),
            "expected an array, found an object",
        ),
        (message::<bool>("null"), "expected a boolean, found null"),
        (message::<Item>("[]"), "expected an object, found an array"),
        (
            message::<(i64, i64)>("[1,2,3]"),
            "expected an array of 2 elements, found an array of 3 elements",
        ),
        (message::<Item>(r#"{"qty":1}"#), "missing member `id`"),
        (
            message::<Item>(r#"{"id":1,"qty":1,"x":0}"#),
            "unknown member `x`",
        ),
        (
            message::<Item>(r#"{"id":1,"id":2,"qty":1}"#),
            "duplicate member `id`",
        ),
        (
            message::<Color>(r#""blue""#),
            r#"expected one of "red", "green", found a string "blue""#,
        ),
        (
            message::<Color>("7"),
            r#"expected one of "red", "green", found an integer 7"#,
        ),
        (
            message::<Item>("5"),
            "expected an object, found an integer 5",
        ),
        (
            message::<Order>(r#"{"items":[{"id":1,"qty":2},{"id":"7","qty":2}],"color":"red"}"#),
            r#"at /items/1/id: expected an integer, found a string "7""#,
        ),
        (
            order(r#","block":"newest""#),
            r#"at /block: expected a value matching one of its schemas, found a string "newest""#,
        ),
        (
            order(r#","pair":["a",-2]"#),
            "at /pair/1: expected an integer between 0 and 4294967295, found an integer -2",
        ),
        (
            order(r#","labels":{"a/b~c":1}"#),
            "at /labels/a~1b~0c: expected a boolean, found an integer 1",
        ),
        (
            order(r#","ratio":"x""#),
            r#"at /ratio: expected a number, found a string "x""#,
        ),
        (
            message::<Order>(r#"{"items":[{"id":1}]}"#),
            "at /items/0: missing member `qty`",
        ),
        (
            message::<i64>("[1"),
            "not valid JSON: EOF while parsing a list",
        ),
    ];
    for (got, want) in cases {
        assert_eq!(got, want);
    }
}

#[test]
fn huge_values_are_quoted_by_a_short_prefix() {
    let huge = "x".repeat(100_000);
    let json = format!(r#"{{"{huge}":{{"id":"{huge}"}}}}"#);
    let error = from_str::<BTreeMap<String, Item>>(&json).unwrap_err();
    let short = "x".repeat(32);
    assert_eq!(error.path(), format!("/{short}…/id"));
    assert_eq!(
        error.reason(),
        format!(r#"expected an integer, found a string "{short}…""#)
    );
    let error = from_str::<i64>(&format!(r#""é{huge}\n""#)).unwrap_err();
    assert_eq!(error.reason().chars().count(), 71, "{error}");
    let error = from_str::<Item>(&format!(r#"{{"id":1,"qty":1,"{huge}":1}}"#)).unwrap_err();
    assert_eq!(error.reason(), format!("unknown member `{short}…`"));
}

#[test]
fn negative_zero_is_an_integer() {
    assert_eq!(from_str::<i64>("-0"), Ok(0));
    assert_eq!(from_slice::<u64>(b"-0"), Ok(0));
    assert_eq!(from_str::<u8>(" -0 "), Ok(0));
    assert_eq!(from_str::<Option<i32>>("-0"), Ok(Some(0)));
    assert_eq!(
        from_str::<Item>(r#"{"id":-0,"qty":-0}"#),
        Ok(Item {
            id: 0,
            qty: 0,
            tag: None
        })
    );
    assert_eq!(from_str::<Vec<i64>>("[1,-0]"), Ok(vec![1, 0]));
    // Where a number is expected, `-0` stays the float it is.
    let ratio = from_str::<f64>("-0").unwrap();
    assert!(ratio == 0.0 && ratio.is_sign_negative());
    let order = format!(r#"{{{ORDER},"ratio":-0,"pair":["a",-0]}}"#);
    let order = from_str::<Order>(&order).unwrap();
    assert!(order.ratio.is_some_and(f64::is_sign_negative));
    assert_eq!(order.pair, Some(("a".to_owned(), 0)));
    // Not a fraction, nor anything else that is no integer.
    assert!(from_str::<i64>("-0.5").is_err());
    assert!(from_str::<i64>(r#""-0""#).is_err());
}

#[test]
fn the_careful_reading_decodes_what_serde_json_does() {
    // Raw values inside the type, written back as JSON.
    #[derive(Debug, Deserialize)]
    struct Raw {
        n: i64,
        raw: Box<RawValue>,
    }
    let raw = from_str::<Raw>(r#"{"n":-0,"raw":{"b":[1, -0.0]}}"#).unwrap();
    assert_eq!((raw.n, raw.raw.get()), (0, r#"{"b":[1,-0.0]}"#));
    // Externally tagged enums, both forms.
    #[derive(Debug, PartialEq, Deserialize)]
    enum Shape {
        Dot,
        Circle { r: u32 },
    }
    let shapes = from_str::<Vec<Shape>>(r#"["Dot",{"Circle":{"r":-0}}]"#);
    assert_eq!(shapes, Ok(vec![Shape::Dot, Shape::Circle { r: 0 }]));
    assert_eq!(
        message::<Vec<Shape>>(r#"[{"Circle":{"r":"x"}}]"#),
        r#"at /0/Circle/r: expected an integer between 0 and 4294967295, found a string "x""#
    );
    assert_eq!(
        message::<Shape>(r#""Square""#),
        r#"expected one of "Dot", "Circle", found a string "Square""#
    );
}

#[test]
fn no_message_names_rust() {
    // Decoded only for their messages: their fields are never read.
    #[allow(dead_code)]
    #[derive(Debug, Deserialize)]
    #[serde(tag = "kind")]
    enum Tagged {
        #[serde(rename = "a")]
        A { value: i16 },
    }
    #[allow(dead_code)]
    #[derive(Debug, Deserialize)]
    struct Wrapper(Vec<char>);
    #[derive(Debug, Deserialize)]
    struct Unit;
    let inputs = [
        "null",
        "true",
        "-1",
        "-0.5",
        "1e300",
        r#""s""#,
        "[]",
        "[1,2,3]",
        "{}",
        r#"{"kind":"b"}"#,
        r#"{"kind":"a","value":1e5}"#,
        r#"{"items":[{"id":{}}]}"#,
        r#"{"a":[[[[1]]]]}"#,
        r#"["ab"]"#,
        "[",
        "{\"a\"}",
    ];
    let forbidden = [
        "i8",
        "i16",
        "i32",
        "i64",
        "u8",
        "u16",
        "u32",
        "u64",
        "f64",
        "struct ",
        "enum ",
        "::",
        "tuple",
        "sequence",
        "map",
        "Option",
        "Vec",
        "String",
        "Item",
        "Order",
        "Color",
        "BlockId",
        "Tagged",
        "Wrapper",
        "Unit",
        "panic",
        ".rs",
        "line ",
        "column",
        "invalid type",
        "`-",
        "Some(",
    ];
    for json in inputs {
        let messages = [
            from_str::<Order>(json).err(),
            from_str::<Item>(json).err(),
            from_str::<Vec<Color>>(json).err(),
            from_str::<Tagged>(json).err(),
            from_str::<Wrapper>(json).err(),
            from_str::<Unit>(json).err(),
            from_str::<(i8, BlockId)>(json).err(),
            from_str::<BTreeMap<String, u16>>(json).err(),
        ];
        for message in messages.into_iter().flatten() {
            let text = message.to_string();
            for word in forbidden {
                assert!(!text.contains(word), "{json}: {text} names {word}");
            }
        }
    }
}

/// A struct named as the generator names it: its place after the Rust name.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(rename(deserialize = "Full @ #/components/schemas/Full at api.json:3:5"))]
#[serde(deny_unknown_fields)]
struct Full {
    hash: String,
    stamp: u64,
}

/// An untagged enum decoded as the generator writes it.
#[derive(Debug, PartialEq)]
enum Txs {
    Hashes(Vec<String>),
    Full(Vec<Full>),
}

crate::__untagged_enum!(Txs from "#/components/schemas/Txs at api.json:9:5" {
    Hashes(Vec<String>),
    Full(Vec<Full>),
});

/// One with a variant that holds nothing, read from `null`.
#[derive(Debug, PartialEq)]
enum Maybe {
    Number(u8),
    Nothing,
}
crate::__untagged_enum!(Maybe from "#/components/schemas/Maybe" { Number(u8), Nothing });

#[test]
fn a_variant_that_holds_nothing_is_read_from_null() {
    assert_eq!(from_str::<Maybe>("7"), Ok(Maybe::Number(7)));
    assert_eq!(from_str::<Maybe>("null"), Ok(Maybe::Nothing));
    let refused = from_str::<Maybe>("\"x\"").unwrap_err().to_string();
    assert!(refused.contains("nearest of 2 variants"), "{refused}");
}

#[derive(Debug, PartialEq, Deserialize)]
struct Block {
    txs: Txs,
}

#[test]
fn generated_types_name_their_schema_and_the_nearest_variant() {
    let full = r#"{"txs":[{"hash":"0x1","stamp":5}]}"#;
    assert_eq!(
        from_str::<Block>(full),
        Ok(Block {
            txs: Txs::Full(vec![Full {
                hash: "0x1".to_owned(),
                stamp: 5
            }])
        })
    );
    assert_eq!(
        from_str::<Block>(r#"{"txs":["0x1"]}"#),
        Ok(Block {
            txs: Txs::Hashes(vec!["0x1".to_owned()])
        })
    );
    let cases = [
        (
            r#"{"txs":[{"hash":"0x1"}]}"#,
            "at /txs/0: missing member `stamp` (schema #/components/schemas/Full at api.json:3:5); nearest of 2 variants: `Full` of #/components/schemas/Txs at api.json:9:5",
        ),
        (
            r#"{"txs":[{"hash":"0x1","stamp":"5"}]}"#,
            "at /txs/0/stamp: expected a non-negative integer, found a string \"5\" (schema #/components/schemas/Full at api.json:3:5); nearest of 2 variants: `Full` of #/components/schemas/Txs at api.json:9:5",
        ),
        (
            r#"{"txs":[7]}"#,
            "at /txs/0: expected a string, found an integer 7 (schema #/components/schemas/Txs at api.json:9:5); nearest of 2 variants: `Hashes` of #/components/schemas/Txs at api.json:9:5",
        ),
        (
            r#"{"txs":[{"hash":"0x1","stamp":5,"extra":1}]}"#,
            "at /txs/0: unknown member `extra` (schema #/components/schemas/Full at api.json:3:5); nearest of 2 variants: `Full` of #/components/schemas/Txs at api.json:9:5",
        ),
    ];
    for (json, expected) in cases {
        let mismatch = from_str::<Block>(json).unwrap_err();
        assert_eq!(mismatch.to_string(), expected, "{json}");
    }
    // serde_json itself gets the nearest variant's fault in words.
    let e = serde_json::from_str::<Block>(r#"{"txs":[{"hash":"0x1"}]}"#).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("no variant fits: at /0: missing member `stamp`"),
        "{e}"
    );
}

#[test]
fn bytes_are_read_as_text_once_checked_and_refused_when_not_utf8() {
    assert_eq!(from_slice::<String>("\"é\"".as_bytes()), Ok("é".to_owned()));
    assert_eq!(
        from_slice::<Vec<String>>(br#"["a","b\u00e9"]"#),
        from_str::<Vec<String>>(r#"["a","b\u00e9"]"#)
    );
    assert!(from_slice::<String>(b"\"\xff\"").is_err());
    assert!(from_slice::<serde_json::Value>(b"[1,\"\xc3\x28\"]").is_err());
}
