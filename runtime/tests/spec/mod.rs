//! Every request/response example of the JSON-RPC 2.0 specification, section 7, verbatim.
//! Shared by the protocol tests and the engine tests.

/// One example: what the client sends, and what the server answers (`None`: nothing).
pub(crate) struct Example {
    pub(crate) name: &'static str,
    pub(crate) request: &'static str,
    pub(crate) response: Option<&'static str>,
}

pub(crate) const EXAMPLES: &[Example] = &[
    Example {
        name: "positional params 1",
        request: r#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#,
        response: Some(r#"{"jsonrpc": "2.0", "result": 19, "id": 1}"#),
    },
    Example {
        name: "positional params 2",
        request: r#"{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}"#,
        response: Some(r#"{"jsonrpc": "2.0", "result": -19, "id": 2}"#),
    },
    Example {
        name: "named params 1",
        request: r#"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#,
        response: Some(r#"{"jsonrpc": "2.0", "result": 19, "id": 3}"#),
    },
    Example {
        name: "named params 2",
        request: r#"{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}"#,
        response: Some(r#"{"jsonrpc": "2.0", "result": 19, "id": 4}"#),
    },
    Example {
        name: "notification with params",
        request: r#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#,
        response: None,
    },
    Example {
        name: "notification without params",
        request: r#"{"jsonrpc": "2.0", "method": "foobar"}"#,
        response: None,
    },
    Example {
        name: "non-existent method",
        request: r#"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#,
        response: Some(
            r#"{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}"#,
        ),
    },
    Example {
        name: "invalid JSON",
        request: r#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#,
        response: Some(
            r#"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#,
        ),
    },
    Example {
        name: "invalid Request object",
        request: r#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
        response: Some(
            r#"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#,
        ),
    },
    Example {
        name: "batch, invalid JSON",
        request: r#"[
  {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
  {"jsonrpc": "2.0", "method"
]"#,
        response: Some(
            r#"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#,
        ),
    },
    Example {
        name: "empty array",
        request: r#"[]"#,
        response: Some(
            r#"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#,
        ),
    },
    Example {
        name: "invalid batch, not empty",
        request: r#"[1]"#,
        response: Some(
            r#"[
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}
]"#,
        ),
    },
    Example {
        name: "invalid batch",
        request: r#"[1,2,3]"#,
        response: Some(
            r#"[
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}
]"#,
        ),
    },
    Example {
        name: "batch",
        request: r#"[
        {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
        {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ]"#,
        response: Some(
            r#"[
        {"jsonrpc": "2.0", "result": 7, "id": "1"},
        {"jsonrpc": "2.0", "result": 19, "id": "2"},
        {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
        {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"},
        {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}
    ]"#,
        ),
    },
    Example {
        name: "batch, all notifications",
        request: r#"[
        {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
    ]"#,
        response: None,
    },
];
