use super::*;
use crate::protocol::Responses;
use proptest::prelude::*;

/// What the general reader makes of `answer`: the id and the result's place, for one
/// response with a whole-number id and a result.
fn general(answer: &[u8]) -> Option<(u64, Range<usize>)> {
    let Ok(Responses::Single(response)) = Responses::parse(answer) else {
        return None;
    };
    let result = response.payload.ok()?.get();
    let start = result.as_ptr() as usize - answer.as_ptr() as usize;
    Some((response.id.as_u64()?, start..start + result.len()))
}

/// A result of `len` bytes or more: an object whose strings hold what a bracket
/// counter could trip on.
fn large(len: usize) -> String {
    let mut result = String::from(r#"{"tricky":"]}\"[{\\","list":["#);
    while result.len() < len {
        result.push_str(r#"{"hash":"0x5b0e","note":"a \"quoted\" ] and }"},"#);
    }
    result.push_str(r#"null],"nested":[[[]],{}]}"#);
    result
}

#[test]
fn leaves_every_other_shape_to_the_general_reader() {
    let result = large(FROM);
    let others = [
        // Other members, repeated ones, or one missing.
        format!(r#"{{"jsonrpc":"2.0","result":{result},"id":7,"extra":1}}"#),
        format!(r#"{{"jsonrpc":"2.0","result":{result},"id":7,"id":8}}"#),
        format!(r#"{{"jsonrpc":"2.0","result":{result},"result":[],"id":7}}"#),
        format!(r#"{{"jsonrpc":"2.0","result":{result}}}"#),
        format!(r#"{{"result":{result},"id":7}}"#),
        // Ids and versions it does not read.
        format!(r#"{{"jsonrpc":"2.0","result":{result},"id":"7"}}"#),
        format!(r#"{{"jsonrpc":"2.0","result":{result},"id":null}}"#),
        format!(r#"{{"jsonrpc":"2.0","result":{result},"id":07}}"#),
        format!(r#"{{"jsonrpc":"2.0","result":{result},"id":7.0}}"#),
        format!(r#"{{"jsonrpc":"2.0","result":{result},"id":-7}}"#),
        format!(r#"{{"jsonrpc":"2.0","result":{result},"id":18446744073709551616}}"#),
        format!(r#"{{"jsonrpc":"1.0","result":{result},"id":7}}"#),
        format!(r#"{{"jsonrpc":"2\u002e0","result":{result},"id":7}}"#),
        format!(r#"{{"jsonrpc":"2.0","res\u0075lt":{result},"id":7}}"#),
        // A scalar result, a batch, text after the answer, an unclosed result.
        format!(
            r#"{{"jsonrpc":"2.0","result":"{}","id":7}}"#,
            "x".repeat(FROM)
        ),
        format!(r#"[{{"jsonrpc":"2.0","result":{result},"id":7}}]"#),
        format!(r#"{{"jsonrpc":"2.0","result":{result},"id":7}} {{}}"#),
        format!(
            r#"{{"jsonrpc":"2.0","id":7,"result":{}"#,
            &result[..result.len() - 1]
        ),
    ];
    for answer in others {
        assert_eq!(read(answer.as_bytes(), Utf8::Known), None, "{answer:.60}…");
    }
}

#[test]
fn reads_a_large_answer_in_any_order_and_routes_it_by_its_ends() {
    let result = large(FROM);
    // Whether the result can be guessed from the ends: the id first, or last.
    let orders = [
        (
            format!(r#"{{"jsonrpc":"2.0","id":7,"result":{result}}}"#),
            true,
        ),
        (
            format!(r#"{{"id":7,"jsonrpc":"2.0","result":{result} }}"#),
            true,
        ),
        (
            format!("{{\"jsonrpc\":\"2.0\",\"result\":{result} ,\n\"id\" : 7 }}\n"),
            true,
        ),
        (
            format!("{{ \"result\" :\n{result} ,\t\"id\": 7 , \"jsonrpc\" : \"2.0\" }}\r\n"),
            false,
        ),
    ];
    for (answer, guessed) in orders {
        let (id, place) = read(answer.as_bytes(), Utf8::Known).expect("read here");
        assert_eq!((id, &answer[place.clone()]), (7, &*result));
        assert_eq!(general(answer.as_bytes()), Some((id, place.clone())));
        let routed = route(answer.as_bytes());
        if guessed {
            assert_eq!(
                routed,
                Some(Routed {
                    id,
                    result: Some(place)
                })
            );
        } else {
            assert_eq!(routed, None);
        }
    }
    // Another member after the result: the guess is not one value, and the call reads
    // the answer whole.
    for answer in [
        format!(r#"{{"jsonrpc":"2.0","id":7,"result":{result},"x":1}}"#),
        format!(r#"{{"jsonrpc":"2.0","result":{result},"x":1,"id":7}}"#),
    ] {
        let routed = route(answer.as_bytes()).expect("routed");
        assert_eq!(routed.id, 7);
        let guess = &answer[routed.result.expect("a guess")];
        assert!(serde_json::from_str::<serde_json::Value>(guess).is_err());
    }
    // No version before the result: routed, nothing guessed.
    let answer = format!(r#"{{"id":7,"result":{result},"jsonrpc":"2.0"}}"#);
    assert_eq!(
        route(answer.as_bytes()),
        Some(Routed {
            id: 7,
            result: None
        })
    );
    // Not routed: the id neither before the result nor last, or not a whole number; a
    // call; a batch; a small answer.
    for answer in [
        format!(r#"{{"jsonrpc":"2.0","result":{result},"id":7,"x":1}}"#),
        format!(r#"{{"jsonrpc":"2.0","result":{result},"id":"7"}}"#),
        format!(r#"{{"jsonrpc":"2.0","result":{result},"id":-7}}"#),
        format!(r#"{{"jsonrpc":"2.0","result":{result},"id":7.5}}"#),
        format!(r#"{{"jsonrpc":"2.0","method":"m","params":{result},"id":7}}"#),
        format!(r#"[{{"jsonrpc":"2.0","id":7,"result":{result}}}]"#),
        r#"{"jsonrpc":"2.0","id":7,"result":[]}"#.to_owned(),
    ] {
        assert_eq!(route(answer.as_bytes()), None, "{answer:.60}…");
    }
}

#[test]
fn leaves_a_small_answer_to_the_general_reader() {
    let answer = br#"{"jsonrpc":"2.0","result":[1,2,3],"id":7}"#;
    assert_eq!(read(answer, Utf8::Known), None);
    assert!(general(answer).is_some());
}

/// Each corpus document as the result of `rpc.discover`: real JSON, with escapes and
/// brackets in its strings, that nobody here wrote.
#[test]
fn finds_the_end_of_every_corpus_document_as_a_result() {
    let Some(corpus) = rpcsmith_corpus::dir() else {
        return;
    };
    let mut read_here = 0;
    for (id, path) in rpcsmith_corpus::DOCUMENTS {
        let text = std::fs::read_to_string(corpus.join(path)).expect("a corpus document");
        let document = text.trim();
        let answer = format!("{{\"jsonrpc\":\"2.0\",\"result\":{document},\"id\":42}}\n");
        let quick = read(answer.as_bytes(), Utf8::Known);
        if answer.len() >= FROM {
            assert!(quick.is_some(), "{id} not read here");
            read_here += 1;
        }
        if let Some(quick) = quick {
            assert_eq!(Some(quick), general(answer.as_bytes()), "{id}");
        }
    }
    assert!(
        read_here >= 20,
        "only {read_here} corpus documents read here"
    );
}

/// Whether [`route`]'s guess, where it is one JSON value, is the result the general
/// reader finds, of the id routed; and whether that id is the general reader's.
fn guess_is_safe(answer: &[u8]) -> bool {
    let Some(routed) = route(answer) else {
        return true;
    };
    let general = general(answer);
    let guess_decodes = routed
        .result
        .clone()
        .is_some_and(|guess| serde_json::from_slice::<serde_json::Value>(&answer[guess]).is_ok());
    match general {
        Some((id, result)) => id == routed.id && (!guess_decodes || routed.result == Some(result)),
        None => !guess_decodes,
    }
}

/// A JSON value with strings that hold brackets, quotes and escapes.
fn value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<i64>().prop_map(serde_json::Value::from),
        "[\\[\\]{}\"\\\\a-z \u{e9}\u{1F600}\n]{0,12}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::from),
            proptest::collection::btree_map("[a-z\"\\]{]{0,6}", inner, 0..8)
                .prop_map(|map| serde_json::Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest! {
    /// Wherever it reads an answer, it reads what the general reader reads; and it
    /// reads every large answer of its shape.
    #[test]
    fn agrees_with_the_general_reader(
        items in proptest::collection::vec(value(), 1..40),
        id in any::<u64>(),
        layout in 0..4_u8,
        pretty in any::<bool>(),
        at in any::<prop::sample::Index>(),
        byte in prop::sample::select(b"{}[]\",:\\x\xff".to_vec()),
    ) {
        let result = serde_json::Value::from(items);
        let result = if pretty {
            serde_json::to_string_pretty(&result).unwrap()
        } else {
            serde_json::to_string(&result).unwrap()
        };
        let result = format!("{result}{}", " ".repeat(FROM.saturating_sub(result.len())));
        let answer = match layout {
            0 => format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#),
            1 => format!(r#"{{"jsonrpc":"2.0","result":{result},"id":{id}}}"#),
            2 => format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result},"x":{result}}}"#),
            _ => format!(r#"{{"jsonrpc":"2.0","result":{result},"x":[{id}],"id":{id}}}"#),
        };
        if layout < 2 {
            prop_assert_eq!(read(answer.as_bytes(), Utf8::Known), general(answer.as_bytes()));
        } else {
            prop_assert_eq!(read(answer.as_bytes(), Utf8::Known), None);
        }
        prop_assert!(guess_is_safe(answer.as_bytes()));
        // A broken answer: read here, it is read as the general reader reads it; or
        // read here alone, its result is no JSON, and the call's decoding says so.
        let mut broken = answer.into_bytes();
        let at = at.index(broken.len());
        broken[at] = byte;
        prop_assert!(guess_is_safe(&broken));
        match (read(&broken, Utf8::Unknown), general(&broken)) {
            (Some(quick), Some(general)) => prop_assert_eq!(quick, general),
            (Some((_, result)), None) => prop_assert!(
                crate::protocol::mismatch::from_slice::<serde_json::Value>(&broken[result]).is_err()
            ),
            (None, _) => {}
        }
    }
}

/// The text of an answer's members: JSON's punctuation, names, numbers and escapes.
fn member_soup() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("\"jsonrpc\":\"2.0\""),
            Just("\"id\":7"),
            Just("\"id\":8"),
            Just("\"result\":"),
            Just("\"error\":{\"code\":1,\"message\":\"m\"}"),
            Just("[1,{\"a\":\"]\\\"\"}]"),
            Just(","),
            Just(":"),
            Just("{"),
            Just("}"),
            Just("["),
            Just("]"),
            Just("\""),
            Just("\\"),
            Just(" "),
            Just("\u{e9}"),
        ],
        0..24,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    /// Whatever follows and precedes a large result, routing and reading never panic,
    /// and a call decodes a result only when the general reader finds that result, for
    /// the id routed.
    #[test]
    fn a_call_decodes_only_what_the_general_reader_reads(
        before in prop_oneof![
            Just(r#""jsonrpc":"2.0","id":7,"#.to_owned()),
            Just(r#""id":7,"jsonrpc":"2.0","#.to_owned()),
            Just(r#""jsonrpc":"2.0","#.to_owned()),
            member_soup().prop_map(|soup| format!(r#""jsonrpc":"2.0",{soup}"#)),
            member_soup(),
        ],
        after in prop_oneof![
            Just(String::new()),
            Just(r#","id":7"#.to_owned()),
            Just(r#" , "id" : 8 "#.to_owned()),
            Just(r#","x":[1],"id":7"#.to_owned()),
            Just(r#","error":{"code":1,"message":"m"},"id":7"#.to_owned()),
            member_soup().prop_map(|soup| format!(r#"{soup},"id":7"#)),
            member_soup(),
        ],
        pad in 0..64_usize,
    ) {
        use crate::client::pending::Answer;
        let filler = format!("[{}0]", "1,".repeat(FROM / 2 + pad));
        let answer = format!("{{{before}\"result\":{filler}{after}}}");
        let message = bytes::Bytes::from(answer.clone());
        let _ = read(&message, Utf8::Unknown);
        let Some(routed) = route(&message) else {
            return Ok(());
        };
        let id = routed.id;
        let unread = || Answer::Unread { message: message.clone(), utf8: Utf8::Known, routed: routed.clone() };
        let _ = unread().read();
        if let Ok(Ok(value)) = unread().decode::<serde_json::Value>() {
            let (general_id, result) = general(answer.as_bytes()).expect("a response");
            prop_assert_eq!(general_id, id);
            prop_assert_eq!(value, serde_json::from_str::<serde_json::Value>(&answer[result]).unwrap());
        }
    }
}
