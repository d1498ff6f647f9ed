//! The service as it was before it had a document: Rust types, every serde shape a
//! JSON-RPC API written in Rust uses, deriving `JsonSchema`, and the list of its methods.

use std::collections::BTreeMap;

use rpcsmith::describe::{Document, Method};
use schemars::{JsonSchema, schema_for};
use serde::{Deserialize, Serialize};

/// A user's number: a newtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UserId(pub u64);

/// A point on the plane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Point {
    /// Across.
    pub x: i32,
    /// Down.
    pub y: i32,
}

/// A shape: externally tagged, serde's default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// Nothing at all.
    Empty,
    /// A circle of this radius.
    Circle(f64),
    /// A rectangle.
    Rect {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
    },
    /// A polygon through these points.
    Polygon(Vec<Point>),
    /// A segment between two points.
    Segment(Point, Point),
}

/// What happened: internally tagged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Event {
    /// The job started.
    Started {
        /// When, in seconds.
        at: u64,
    },
    /// The job stopped.
    Stopped {
        /// Why.
        reason: String,
        /// The exit code, if there was one.
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<i32>,
    },
    /// A point was reached.
    Reached(Point),
    /// Still there.
    Ping,
}

/// An order to a robot: adjacently tagged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", content = "data", rename_all = "snake_case")]
pub enum Command {
    /// Go there.
    Move(Point),
    /// Say this.
    Say(String),
    /// Turn by degrees, then wait milliseconds.
    Turn {
        /// Degrees.
        degrees: i16,
        /// Milliseconds.
        wait_ms: u32,
    },
    /// Stop.
    Halt,
}

/// A key: a number or a name, untagged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Key {
    /// By number.
    Number(u64),
    /// By name.
    Name(String),
    /// By both.
    Both {
        /// The number.
        number: u64,
        /// The name.
        name: String,
    },
}

/// Where a page is in a listing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageInfo {
    /// The page's number, from 0.
    pub page_number: u32,
    /// Whether a page follows.
    pub has_next: bool,
}

/// A page of users: a flattened struct beside its own members.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UserPage {
    /// Where the page is.
    #[serde(flatten)]
    pub info: PageInfo,
    /// The users on it.
    pub users: Vec<User>,
}

/// A user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct User {
    /// The user's number.
    pub id: UserId,
    /// The name shown.
    pub display_name: String,
    /// An e-mail address, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Scores by game, keys sorted.
    pub scores: BTreeMap<String, u32>,
    /// Everything they paid, in the smallest unit: beyond 64 bits.
    pub paid: u128,
    /// Their last position and when they were there.
    pub last_seen: (Point, u64),
    /// A signed balance.
    pub balance: i64,
    /// A ratio.
    pub ratio: f64,
}

/// A tree of numbers: recursion through a vector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Tree {
    /// The number here.
    pub value: i32,
    /// The subtrees.
    pub children: Vec<Tree>,
}

/// An expression: recursion through boxes in an externally tagged enum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub enum Expr {
    /// A literal.
    Num(i64),
    /// A sum.
    Add(Box<Expr>, Box<Expr>),
    /// A negation.
    Neg(Box<Expr>),
}

/// The settings of a job, with extra members kept in a map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Settings {
    /// The job's name.
    pub name: String,
    /// Its priority, 0 to 255.
    pub priority: u8,
    /// How many times it ran.
    pub runs: usize,
    /// Anything else, kept as written.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// What a search asks for: a params object, as a hand-written service decodes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Search {
    /// Words in the user's name.
    pub query: String,
    /// At most this many users.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

/// An error's data: why a user was refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Refusal {
    /// The user refused.
    pub user: UserId,
    /// Why.
    pub reason: String,
}

/// The service's methods, described.
pub fn document() -> Document {
    Document::new("Codefirst", "1.0.0")
        .description("A service written in Rust before it had a document.")
        .method(
            Method::new("shape_area")
                .summary("The area of a shape.")
                .param::<Shape>("shape")
                .result::<f64>("area")
                .by_position(),
        )
        .method(
            Method::new("user_get")
                .param::<UserId>("id")
                .optional::<bool>("with_scores")
                .result::<Option<User>>("user")
                .error_with::<Refusal>(-32001, "Refused"),
        )
        .method(
            Method::new("user_list")
                .param::<u32>("page")
                .result::<UserPage>("page")
                .by_name(),
        )
        .method(
            Method::new("robot_command")
                .param::<Command>("command")
                .param::<Vec<Key>>("keys")
                .result::<Vec<Event>>("events"),
        )
        .method(
            Method::new("expr_eval")
                .param::<Expr>("expr")
                .param::<Tree>("tree")
                .result::<(i64, Tree)>("value"),
        )
        .method(
            Method::new("user_search")
                .params::<Search>()
                .result::<Vec<User>>("users"),
        )
        .method(Method::new("job_configure").param::<Settings>("settings"))
}

/// The same service as a document whose every schema is schemars' own root schema
/// (`schema_for!`: JSON Schema 2020-12, each with its `$defs`, `prefixItems` tuples), as
/// code that does not use `describe` writes one. A root schema's `$ref`s
/// (`#/$defs/Point`) mean its own `$defs`.
pub fn document_with_defs() -> serde_json::Value {
    let param = |name: &str, schema: schemars::Schema| serde_json::json!({"name": name, "required": true, "schema": schema});
    let method = |name: &str, params: Vec<serde_json::Value>, result: schemars::Schema| serde_json::json!({"name": name, "params": params, "result": {"name": "result", "schema": result}});
    serde_json::json!({
        "openrpc": "1.3.2",
        "info": {"title": "Defs", "version": "1.0.0"},
        "methods": [
            method("shape_area", vec![param("shape", schema_for!(Shape))], schema_for!(f64)),
            method("user_get", vec![param("id", schema_for!(UserId))], schema_for!(Option<User>)),
            method("user_list", vec![param("page", schema_for!(u32))], schema_for!(UserPage)),
            method(
                "robot_command",
                vec![param("command", schema_for!(Command)), param("keys", schema_for!(Vec<Key>))],
                schema_for!(Vec<Event>),
            ),
            method(
                "expr_eval",
                vec![param("expr", schema_for!(Vec<Expr>)), param("tree", schema_for!(Vec<Tree>))],
                schema_for!((i64, Vec<Tree>)),
            ),
            method("job_configure", vec![param("settings", schema_for!(Settings))], schema_for!(Refusal)),
        ]
    })
}
