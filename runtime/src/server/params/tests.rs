//! The params decoders, against the careful reading they stand for.

use super::*;
use crate::protocol::mismatch::Places;

const NAMES: &[&str] = &["a", "b"];

fn raw(json: &str) -> Box<RawValue> {
    RawValue::from_string(json.to_owned()).unwrap()
}

fn parse<'a>(raw: &'a RawValue, s: Structure) -> Result<Params<'a>, ErrorObject> {
    Params::parse(Some(raw), s, NAMES)
}

#[test]
fn positional_and_named_params_fill_the_same_slots() {
    for json in ["[1, 2]", r#"{"b": 2, "a": 1}"#] {
        let r = raw(json);
        let p = parse(&r, Structure::Either).unwrap();
        assert_eq!(p.required::<i64>(0).unwrap(), 1);
        assert_eq!(p.optional::<i64>(1).unwrap(), Some(2));
    }
    let r = raw("[1]");
    let p = parse(&r, Structure::ByPosition).unwrap();
    assert_eq!(p.optional::<i64>(1).unwrap(), None);
    let none = Params::parse(None, Structure::ByName, NAMES).unwrap();
    assert_eq!(none.optional::<i64>(0).unwrap(), None);
    assert_eq!(none.required::<Option<i64>>(1).unwrap(), None);
}

#[test]
fn failures_name_the_param() {
    let message = |json: &str, s: Structure| {
        let r = raw(json);
        let p = match parse(&r, s) {
            Ok(p) => p,
            Err(e) => return e.message.into_owned(),
        };
        let e = p
            .required::<i64>(0)
            .and(p.required::<String>(1))
            .unwrap_err();
        assert_eq!(e.code, -32602);
        e.message.into_owned()
    };
    assert_eq!(message("[1]", Structure::Either), "missing param `b`");
    assert_eq!(
        message(r#"{"b":"x"}"#, Structure::Either),
        "missing param `a`"
    );
    assert_eq!(
        message(r#"[1, 2]"#, Structure::Either),
        "invalid param `b`: expected a string, found an integer 2"
    );
    assert_eq!(
        message(r#"[1, "x", 3]"#, Structure::Either),
        "too many params: the method takes 2, got more"
    );
    assert_eq!(
        message(r#"{"a":1,"c":2}"#, Structure::Either),
        "unknown param `c`"
    );
    assert_eq!(
        message(r#"{"a":1,"a":2}"#, Structure::Either),
        "duplicate param `a`"
    );
    assert_eq!(
        message("[1]", Structure::ByName),
        "params must be an object (by name)"
    );
    assert_eq!(
        message("{}", Structure::ByPosition),
        "params must be an array (by position)"
    );
}

/// The careful way [`decode`] falls back to.
fn careful<P: ParamList>(
    raw: Option<&RawValue>,
    s: Structure,
    names: &'static [&'static str],
) -> Result<P, ErrorObject> {
    P::from_params(&Params::parse(raw, s, names)?, 0)
}

#[test]
fn one_pass_decodes_as_the_careful_way() {
    type Two = (i64, (Option<String>, ()));
    type Nullable = (Option<i64>, (Option<String>, ()));
    let cases = [
        "[1]",
        r#"[1, "x"]"#,
        "[1, null]",
        r#"[null, "x"]"#,
        "[]",
        r#"[1, "x", 3]"#,
        "[1, null, null]",
        r#"["1"]"#,
        "[1.5]",
        "{}",
        r#"{"b": "x", "a": 1}"#,
        r#"{"a": 1, "a": 2}"#,
        r#"{"a": null, "a": 2}"#,
        r#"{"a": 1, "c": 2}"#,
        r#"{"c": [1], "a": "x"}"#,
        r#"{"\u0061": 5}"#,
        r#"{"b": 2}"#,
        r#"{"_meta": {"traceparent": "00-x"}, "a": 1, "b": "x"}"#,
        r#"{"a": 1, "_meta": 2}"#,
        r#"{"_meta": {}, "c": 2}"#,
        "null",
        r#""x""#,
    ];
    for json in cases {
        let r = raw(json);
        for s in [Structure::ByName, Structure::ByPosition, Structure::Either] {
            let case = format!("{json} {s:?}");
            let two = decode::<Two>(Some(&r).into(), s, NAMES);
            assert_eq!(two, careful(Some(&r), s, NAMES), "{case}");
            let nullable = decode::<Nullable>(Some(&r).into(), s, NAMES);
            assert_eq!(nullable, careful(Some(&r), s, NAMES), "{case}");
            let none = decode::<()>(Some(&r).into(), s, &[]);
            assert_eq!(none, careful(Some(&r), s, &[]), "{case}");
        }
    }
    assert_eq!(
        decode::<Nullable>(None::<&RawValue>.into(), Structure::Either, NAMES),
        Ok((None, (None, ())))
    );
    let e = decode::<Two>(None::<&RawValue>.into(), Structure::Either, NAMES).unwrap_err();
    assert_eq!((e.code, &*e.message), (-32602, "missing param `a`"));
    let r = raw(r#"{"a": "x", "c": 2}"#);
    let e = decode::<Two>(Some(&r).into(), Structure::Either, NAMES).unwrap_err();
    assert_eq!(e.message, "unknown param `c`", "shape errors come first");
    let r = raw(r#"{"_meta": {"traceparent": "00-x"}, "b": "y", "a": 2}"#);
    assert_eq!(
        decode::<Two>(Some(&r).into(), Structure::Either, NAMES),
        Ok((2, (Some("y".to_owned()), ()))),
        "`_meta` is metadata, not a param"
    );
    let r = raw(r#"{"b": 7}"#);
    let e = decode::<Two>(Some(&r).into(), Structure::Either, NAMES).unwrap_err();
    assert_eq!(
        e.message, "missing param `a`",
        "errors in declaration order"
    );
}

#[test]
fn negative_zero_is_an_integer_param() {
    type Two = (i64, (Option<u8>, ()));
    for json in ["[-0, -0]", r#"{"b": -0, "a": -0}"#] {
        let r = raw(json);
        let two = decode::<Two>(Some(&r).into(), Structure::Either, NAMES);
        assert_eq!(two, Ok((0, (Some(0), ()))), "{json}");
    }
    let r = raw("[-0.5]");
    let e = decode::<Two>(Some(&r).into(), Structure::Either, NAMES).unwrap_err();
    assert_eq!(
        e.message,
        "invalid param `a`: expected an integer, found a number -0.5"
    );
}

#[test]
fn a_param_cites_its_schema_under_the_method_called_with_its_position() {
    #[derive(Debug, serde::Deserialize)]
    #[serde(rename(deserialize = "Tx @ #/methods/0/params/0/schema"))]
    struct Tx {
        #[allow(dead_code)]
        hash: String,
    }
    static PLACES: Places = Places::new(
        "api.json",
        "get_block\t#/methods/0\nsend_tx\t#/methods/1\n",
        "#/methods/0/params/0/schema\t12\t19\n\
         #/methods/1/params/0/schema\t40\t19\t#/methods/0/params/0/schema\n",
    );
    let r = raw(r#"[{"hash": 5}]"#);
    let at = CallParams::at(Some(&r), &PLACES, "send_tx");
    let e = decode::<(Tx, ())>(at, Structure::Either, &["tx"]).unwrap_err();
    assert_eq!(
        e.message,
        "invalid param `tx` at /hash: expected a string, found an integer 5 \
         (schema #/methods/1/params/0/schema at api.json:40:19)"
    );
    let e = decode::<(Tx, ())>(Some(&r).into(), Structure::Either, &["tx"]).unwrap_err();
    assert_eq!(
        e.message,
        "invalid param `tx` at /hash: expected a string, found an integer 5 \
         (schema #/methods/0/params/0/schema)",
        "without a site, the type's own place"
    );
    let r = raw(r#"{"hash": 5}"#);
    let at = CallParams::at(Some(&r), &PLACES, "send_tx");
    let e = decode_whole::<Tx>(at, "tx").unwrap_err();
    assert!(
        e.message
            .ends_with("(schema #/methods/1/params/0/schema at api.json:40:19)")
    );
}
