use proptest::prelude::*;

use super::super::fields::{ParseError, parse_by_serde};
use super::*;

/// What a member was read as, owned, to compare the two readers.
#[derive(Debug, PartialEq)]
enum Seen {
    Object {
        strings: [Option<Option<String>>; 2],
        raws: [Option<String>; 4],
        duplicate: bool,
    },
    Other,
}

fn seen(member: Member<'_>) -> Seen {
    let Member::Object(f) = member else {
        return Seen::Other;
    };
    let string = |s: Option<Str<'_>>| s.map(|Str(s)| s.map(Cow::into_owned));
    let raw = |r: Option<&RawValue>| r.map(|r| r.get().to_owned());
    Seen::Object {
        strings: [string(f.jsonrpc), string(f.method)],
        raws: [
            raw(f.params),
            f.id.map(str::to_owned),
            raw(f.result),
            raw(f.error),
        ],
        duplicate: f.duplicate,
    }
}

fn by_hand(text: &str, max_batch: usize) -> Option<Vec<Seen>> {
    read(text, max_batch, seen).map(flat)
}

fn by_serde(text: &str, max_batch: usize) -> Result<Vec<Seen>, &'static str> {
    match parse_by_serde(text, max_batch, seen) {
        Ok(top) => Ok(flat(top)),
        Err(ParseError::Syntax) => Err("syntax"),
        Err(ParseError::BatchTooLarge) => Err("too large"),
        Err(ParseError::EmptyBatch) => Err("empty"),
    }
}

/// A single message as a batch of one: `[x]` and `x` read alike otherwise.
fn flat(top: Top<Seen>) -> Vec<Seen> {
    match top {
        Top::Single(seen) => vec![seen],
        Top::Batch(members) => members,
    }
}

#[test]
fn the_common_messages_are_read_by_hand_as_serde_reads_them() {
    let messages = [
        r#"{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}"#,
        "\n { \"jsonrpc\" : \"2.0\" ,\t\"method\":\"add\",\r\"params\":{\"a\":[1,{}]},\"id\":\"x\\\"y\"} \n",
        r#"{"jsonrpc":"2.0","method":"tick"}"#,
        r#"{"jsonrpc":"2.0","result":{"block":[1,2,3]},"id":7}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"no"},"id":null}"#,
        r#"{"jsonrpc":"2.0","method":"a","id":1,"id":2,"extra":[true]}"#,
        r#"{"jsonrpc":"1.0","method":"é ü","params":null,"id":1e400}"#,
        "{}",
        r#"{"jsonrpc":2,"method":["add"],"id":1}"#,
        r#"[{"jsonrpc":"2.0","method":"a","id":1}, {"jsonrpc":"2.0","method":"b"}]"#,
    ];
    for text in messages {
        let hand = by_hand(text, 10);
        assert!(hand.is_some(), "{text} is left to serde");
        assert_eq!(hand.map(Ok), Some(by_serde(text, 10)), "{text}");
    }
}

#[test]
fn every_other_message_is_left_to_serde() {
    let messages = [
        r#"{"jsonrpc":"2.0","\u006dethod":"add","id":1}"#,
        r#"{"jsonrpc":"2.0","method":"a\u0064d","id":1}"#,
        "{\"jsonrpc\":\"2.0\",\"method\":\"a\td\",\"id\":1}",
        r#"{"jsonrpc":"2.0","method":"add","id":1,}"#,
        r#"{"jsonrpc":"2.0","method":"add","id":01}"#,
        r#"{"jsonrpc":"2.0","method":"add","id":1} x"#,
        r#"{"jsonrpc":"2.0","method":"add","id":1"#,
        "[]",
        "[1]",
        "42",
        r#"[{"method":"a"},{"method":"b"},{"method":"c"}]"#,
    ];
    for text in messages {
        assert!(by_hand(text, 2).is_none(), "{text} is read by hand");
    }
}

/// Pieces of text a message is made of: most make messages of the common shape, some
/// make messages serde reads otherwise or refuses.
fn token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        " ",
        "\n",
        "\t",
        "\u{c}",
        "\"jsonrpc\"",
        "\"method\"",
        "\"params\"",
        "\"id\"",
        "\"result\"",
        "\"error\"",
        "\"other\"",
        "\"2.0\"",
        "\"add\"",
        "\"me\\u0074hod\"",
        "\"a\\\"b\"",
        "\"\u{1}\"",
        "\"é\"",
        "1",
        "-0",
        "-",
        "-17",
        "90",
        "\"\"",
        "1.5e3",
        "01",
        "1e400",
        "null",
        "true",
        "[1,2]",
        "{\"a\":[]}",
        "[1,",
        "tru",
        "\"",
    ])
}

/// A message of the common shape, `members` objects (none: a single one).
fn message() -> impl Strategy<Value = String> {
    let value = prop::sample::select(vec![
        "\"2.0\"",
        "\"add\"",
        "1",
        "null",
        "[1,2]",
        "{\"a\":{}}",
        "\"x\"",
        "true",
    ]);
    let key = prop::sample::select(vec![
        "jsonrpc", "method", "params", "id", "result", "error", "other",
    ]);
    let object = prop::collection::vec((key, value), 0..6).prop_map(|members| {
        let members: Vec<String> = members
            .into_iter()
            .map(|(key, value)| format!("\"{key}\":{value}"))
            .collect();
        format!("{{{}}}", members.join(","))
    });
    prop::collection::vec(object, 0..4).prop_map(|objects| match objects.as_slice() {
        [one] => one.clone(),
        _ => format!("[{}]", objects.join(",")),
    })
}

proptest! {
    /// Whatever the text, the hand reader reads it as serde does, or leaves it to serde.
    #[test]
    fn the_hand_reader_agrees_with_serde_or_stands_aside(
        tokens in prop::collection::vec(token(), 0..40),
        max_batch in 0_usize..4,
    ) {
        let text = tokens.concat();
        if let Some(hand) = by_hand(&text, max_batch) {
            prop_assert_eq!(Ok(hand), by_serde(&text, max_batch), "{}", text);
        }
    }

    /// Messages of the common shape, cut anywhere and with spaces anywhere: the same.
    #[test]
    fn messages_cut_or_spaced_read_alike(
        text in message(),
        cut in any::<prop::sample::Index>(),
        space in any::<prop::sample::Index>(),
        max_batch in 0_usize..5,
    ) {
        let mut spaced = text.clone();
        let at = space.index(text.len() + 1);
        if text.is_char_boundary(at) {
            spaced.insert(at, ' ');
        }
        for text in [&text, &spaced, &text[..cut.index(text.len() + 1)]] {
            if let Some(hand) = by_hand(text, max_batch) {
                prop_assert_eq!(Ok(hand), by_serde(text, max_batch), "{}", text);
            }
        }
        let whole = by_hand(&text, usize::MAX).is_some() || text == "[]";
        prop_assert!(whole, "{} is left to serde", text);
    }
}

proptest! {
    /// The word-at-a-time scan stops where a byte-at-a-time one does.
    #[test]
    fn plain_len_finds_the_first_quote_backslash_or_control(
        bytes in prop::collection::vec(
            prop::sample::select(vec![b'a', b'"', b'\\', 0x00, 0x1f, 0x20, 0x7f, 0x80, 0xff, b'!', b'#']),
            0..40,
        ),
    ) {
        let expected = bytes
            .iter()
            .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)
            .unwrap_or(bytes.len());
        prop_assert_eq!(plain_len(&bytes), expected);
    }
}

proptest! {
    /// Ids of every kind, the integers and plain strings read by hand among them, read
    /// as serde reads them wherever they stand, or left to serde.
    #[test]
    fn ids_read_alike(
        id in prop::collection::vec(
            prop::sample::select(vec!["0", "1", "9", "-", "+", ".", "e", "E", "\"", "\\", "a", " ", "\n", "}", ",", "]", "null"]),
            0..8,
        ),
        layout in 0_usize..3,
    ) {
        let id = id.concat();
        let text = match layout {
            0 => format!(r#"{{"jsonrpc":"2.0","method":"a","id":{id}}}"#),
            1 => format!(r#"{{"id":{id},"jsonrpc":"2.0","method":"a"}}"#),
            _ => format!(r#"[{{"jsonrpc":"2.0","id":{id}}},{{"id":{id}}}]"#),
        };
        if let Some(hand) = by_hand(&text, 10) {
            prop_assert_eq!(Ok(hand), by_serde(&text, 10), "{}", text);
        }
    }
}

#[test]
fn the_usual_ids_are_read_by_hand() {
    for id in [
        "0",
        "-0",
        "7",
        "-42",
        "18446744073709551616",
        r#""""#,
        r#""a-1""#,
    ] {
        for text in [
            format!(r#"{{"jsonrpc":"2.0","method":"a","id":{id}}}"#),
            format!(r#"{{"id":{id} ,"method":"a"}}"#),
        ] {
            let hand = by_hand(&text, 10);
            assert!(hand.is_some(), "{text} is left to serde");
            assert_eq!(hand.map(Ok), Some(by_serde(&text, 10)), "{text}");
        }
    }
}

#[test]
fn deep_values_read_alike() {
    let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
    let text = format!(r#"{{"jsonrpc":"2.0","method":"a","params":{deep},"id":1}}"#);
    let hand = by_hand(&text, 10);
    assert!(hand.is_some());
    assert_eq!(hand.map(Ok), Some(by_serde(&text, 10)));
}
