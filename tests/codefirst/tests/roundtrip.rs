//! The generated types write and read the original types' JSON, byte for byte, both
//! ways: a value of an original type, written, is read by the generated type and written
//! back to the same text; a value built with the generated types, written, is read by
//! the original type and written back to the same text.

use std::collections::BTreeMap;
use std::fmt::Debug;

use rpcsmith_codefirst::codefirst::{self as generated, types as gen_types};
use rpcsmith_codefirst::original::{self, *};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;

/// Each original value's text, read and written by `G`, then by `O` again: unchanged.
fn original_to_generated<O, G>(values: &[O])
where
    O: Serialize + DeserializeOwned + PartialEq + Debug,
    G: Serialize + DeserializeOwned + Debug,
{
    for value in values {
        let text = serde_json::to_string(value).unwrap();
        let generated: G = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("the generated type reads {text}: {e}"));
        let written = serde_json::to_string(&generated).unwrap();
        assert_eq!(written, text, "{generated:?}");
        let back: O = serde_json::from_str(&written).unwrap();
        assert_eq!(&back, value);
    }
}

/// A generated value's text, read by the original type, is the original value's text.
fn generated_to_original<G, O>(generated: G, expected: O)
where
    G: Serialize + DeserializeOwned,
    O: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let text = serde_json::to_string(&generated).unwrap();
    let original: O = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("the original type reads {text}: {e}"));
    assert_eq!(original, expected);
    assert_eq!(serde_json::to_string(&original).unwrap(), text);
    let again: G = serde_json::from_str(&text).unwrap();
    assert_eq!(serde_json::to_string(&again).unwrap(), text);
}

fn point(x: i32, y: i32) -> Point {
    Point { x, y }
}

fn user(email: Option<&str>) -> User {
    User {
        id: UserId(7),
        display_name: "Ada".into(),
        email: email.map(str::to_owned),
        scores: BTreeMap::from([("chess".into(), 1800), ("go".into(), 3)]),
        paid: u128::MAX - 1,
        last_seen: (point(-3, 4), u64::MAX),
        balance: i64::MIN,
        ratio: 0.25,
    }
}

fn tree() -> Tree {
    let leaf = |value| Tree {
        value,
        children: Vec::new(),
    };
    Tree {
        value: 1,
        children: vec![
            leaf(2),
            Tree {
                value: 3,
                children: vec![leaf(4)],
            },
        ],
    }
}

#[test]
fn externally_tagged_enums_and_tuples() {
    original_to_generated::<Shape, gen_types::Shape>(&[
        Shape::Empty,
        Shape::Circle(1.5),
        Shape::Rect {
            width: 3,
            height: u32::MAX,
        },
        Shape::Polygon(vec![point(0, 0), point(1, 0), point(0, 1)]),
        Shape::Segment(point(1, 2), point(3, 4)),
    ]);
    generated_to_original(
        gen_types::Shape::Rect(gen_types::ShapeRect {
            width: 3,
            height: 4,
        }),
        Shape::Rect {
            width: 3,
            height: 4,
        },
    );
}

#[test]
fn internally_tagged_enums() {
    original_to_generated::<Event, gen_types::Event>(&[
        Event::Started { at: 12 },
        Event::Stopped {
            reason: "done".into(),
            code: None,
        },
        Event::Stopped {
            reason: "killed".into(),
            code: Some(-9),
        },
        Event::Reached(point(5, 6)),
        Event::Ping,
    ]);
    generated_to_original(
        gen_types::Event::Reached(gen_types::Point { x: 1, y: 2 }),
        Event::Reached(point(1, 2)),
    );
    generated_to_original(gen_types::Event::Ping, Event::Ping);
}

#[test]
fn adjacently_tagged_enums() {
    original_to_generated::<Command, gen_types::Command>(&[
        Command::Move(point(1, -1)),
        Command::Say("hello".into()),
        Command::Turn {
            degrees: -90,
            wait_ms: 250,
        },
        Command::Halt,
    ]);
    generated_to_original(
        gen_types::Command::Turn(gen_types::CommandTurn {
            degrees: 45,
            wait_ms: 0,
        }),
        Command::Turn {
            degrees: 45,
            wait_ms: 0,
        },
    );
    generated_to_original(gen_types::Command::Halt, Command::Halt);
}

#[test]
fn untagged_enums() {
    original_to_generated::<Key, gen_types::Key>(&[
        Key::Number(u64::MAX),
        Key::Name("ada".into()),
        Key::Both {
            number: 1,
            name: "one".into(),
        },
    ]);
    generated_to_original(gen_types::Key::Name("x".into()), Key::Name("x".into()));
}

#[test]
fn structs_with_options_maps_wide_integers_and_tuples() {
    original_to_generated::<User, gen_types::User>(&[user(None), user(Some("ada@example.org"))]);
    // `deny_unknown_fields` (`additionalProperties: false`) holds on both sides.
    let text = serde_json::to_string(&user(None)).unwrap();
    let unknown = text.replacen('{', r#"{"nickname":"A","#, 1);
    assert!(serde_json::from_str::<User>(&unknown).is_err());
    assert!(serde_json::from_str::<gen_types::User>(&unknown).is_err());
}

#[test]
fn flattened_members() {
    original_to_generated::<UserPage, gen_types::UserPage>(&[UserPage {
        info: PageInfo {
            page_number: 2,
            has_next: false,
        },
        users: vec![user(None)],
    }]);
    original_to_generated::<Settings, gen_types::Settings>(&[Settings {
        name: "nightly".into(),
        priority: 255,
        runs: 3,
        extra: BTreeMap::from([
            ("owner".into(), json!({"team": "infra"})),
            ("tags".into(), json!([1, "a"])),
        ]),
    }]);
}

#[test]
fn recursion_and_newtypes() {
    original_to_generated::<Tree, gen_types::Tree>(&[tree()]);
    let sum = Expr::Add(
        Box::new(Expr::Num(1)),
        Box::new(Expr::Neg(Box::new(Expr::Num(i64::MAX)))),
    );
    original_to_generated::<Expr, gen_types::Expr>(&[Expr::Num(-1), sum]);
    original_to_generated::<UserId, gen_types::UserId>(&[UserId(0), UserId(u64::MAX)]);
    original_to_generated::<Refusal, gen_types::Refusal>(&[Refusal {
        user: UserId(3),
        reason: "banned".into(),
    }]);
}

#[test]
fn params_and_results() {
    // A params struct spread into named params is the generated params object.
    let search = Search {
        query: "ada".into(),
        limit: Some(5),
    };
    let text = serde_json::to_string(&search).unwrap();
    let params = generated::UserSearchParams {
        query: "ada".into(),
        limit: Some(5),
    };
    assert_eq!(serde_json::to_string(&params).unwrap(), text);
    original_to_generated::<(i64, Tree), generated::ExprEvalResult>(&[(-4, tree())]);
    original_to_generated::<Option<User>, generated::UserGetResult>(&[None, Some(user(None))]);
    original_to_generated::<Vec<Event>, generated::RobotCommandResult>(&[vec![Event::Ping]]);
    let _ = original::document();
}

/// The same values through the types generated from `defs.json`, whose schemas are
/// `schema_for!` roots (draft 2020-12, `$defs` in each, a newtype variant as a `$ref`
/// beside the tag): one type per Rust type, named as the originals.
#[test]
fn schema_for_roots_generate_the_same_types() {
    use rpcsmith_codefirst::defs::types as defs;
    original_to_generated::<Shape, defs::Shape>(&[
        Shape::Empty,
        Shape::Rect {
            width: 1,
            height: 2,
        },
        Shape::Segment(point(1, 2), point(3, 4)),
    ]);
    original_to_generated::<Event, defs::Event>(&[
        Event::Reached(point(5, 6)),
        Event::Ping,
        Event::Stopped {
            reason: "x".into(),
            code: Some(1),
        },
    ]);
    original_to_generated::<Command, defs::Command>(&[
        Command::Turn {
            degrees: 1,
            wait_ms: 2,
        },
        Command::Halt,
    ]);
    original_to_generated::<Key, defs::Key>(&[Key::Number(1), Key::Name("a".into())]);
    original_to_generated::<User, defs::User>(&[user(Some("a@b.c"))]);
    original_to_generated::<Vec<Tree>, Vec<defs::Tree>>(&[vec![tree()]]);
    original_to_generated::<Vec<Expr>, Vec<defs::Expr>>(&[vec![Expr::Neg(Box::new(Expr::Num(2)))]]);
    generated_to_original(
        defs::Command::Turn(defs::CommandTurn {
            degrees: 3,
            wait_ms: 4,
        }),
        Command::Turn {
            degrees: 3,
            wait_ms: 4,
        },
    );
    generated_to_original(
        defs::Event::Reached(defs::Point { x: 1, y: 2 }),
        Event::Reached(point(1, 2)),
    );
}
