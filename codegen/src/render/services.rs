//! View structs of the client and the server: every decision about their Rust text.

use serde::Serialize;

use super::rust::{doc_attrs, string_literal, ty_expr_in};
use crate::direction::Direction;
use crate::openrpc::ParamStructure;
use crate::service::{DeclaredError, Method, Param, Services};
use crate::settings::ParamsBy;
use crate::typespace::{Ty, TypeDef};

/// The runtime's support module, as generated code names it.
const SUPPORT: &str = "::rpcsmith::__private";

/// Lint levels for items that carry the document's own text (its Markdown is not
/// rustdoc's) or its own shapes (deprecated types, long parameter lists, method names
/// such as `from_block` or `next` that clippy reads as conventions). The `types` module
/// sets them for itself; an included file cannot hold inner attributes.
const ALLOW: &str = "#[allow(deprecated, rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags, rustdoc::bare_urls, rustdoc::invalid_rust_codeblocks, rustdoc::redundant_explicit_links, clippy::too_many_arguments, clippy::doc_lazy_continuation, clippy::doc_overindented_list_items, clippy::empty_docs, clippy::wrong_self_convention, clippy::should_implement_trait)]";

/// The client and server of one document, for one direction of its methods (or, for
/// what both directions share, all of them).
#[derive(Debug, Serialize)]
pub(crate) struct ServicesView {
    /// The sender: `<Doc>Client`, or `<Doc>Push` for server→client methods.
    pub(crate) client_name: String,
    /// `<Doc>Batch`.
    pub(crate) batch_name: String,
    /// The handler trait: `<Doc>Server`, or `<Doc>Listener`.
    pub(crate) server_name: String,
    /// `<Doc>Dispatcher`, or `<Doc>ListenerDispatcher`.
    pub(crate) dispatcher_name: String,
    /// The title shown in docs.
    pub(crate) title: String,
    /// The lint levels of generated items.
    pub(crate) allow: String,
    /// Emit the client.
    pub(crate) client: bool,
    /// Emit the server.
    pub(crate) server: bool,
    /// The sender's doc lines, each the inside of a string literal.
    pub(crate) client_docs: Vec<String>,
    /// The first doc lines of the handler trait, each the inside of a string literal.
    pub(crate) server_docs: Vec<String>,
    /// Emit the typed batch builder.
    pub(crate) batch: bool,
    /// Emit `DOCUMENT`, and have the dispatcher answer `rpc.discover` with it.
    pub(crate) discover: bool,
    /// The document answered on `rpc.discover`, as a Rust string literal.
    pub(crate) document: String,
    pub(crate) has_methods: bool,
    pub(crate) methods: Vec<MethodView>,
}

/// What the templates render for one document.
#[derive(Debug)]
pub(crate) struct Views {
    /// Every method, in document order: the params, results and errors both directions
    /// share.
    pub(crate) shared: ServicesView,
    /// The client→server methods: `<Doc>Client` and `<Doc>Server`. `None` when every
    /// method goes the other way.
    pub(crate) forward: Option<ServicesView>,
    /// The server→client methods: `<Doc>Push` and `<Doc>Listener`. `None` when there
    /// are none.
    pub(crate) reverse: Option<ServicesView>,
}

/// One method.
#[derive(Debug, Serialize)]
pub(crate) struct MethodView {
    /// The wire name as a Rust string literal.
    pub(crate) wire: String,
    /// The wire name for docs (backticks made safe).
    pub(crate) shown: String,
    pub(crate) rust: String,
    pub(crate) docs: Vec<String>,
    /// `#[deprecated]`, or nothing.
    pub(crate) attrs: Vec<String>,
    pub(crate) params: Vec<ParamView>,
    pub(crate) has_params: bool,
    /// `<Method>Params`.
    pub(crate) params_name: String,
    /// The params argument of a client call: `&()` or `&XParams { a, b }`.
    pub(crate) params_expr: String,
    /// The params as they reach the handler: `params.a, params.b`.
    pub(crate) handler_args: String,
    /// The params struct's fields, as a struct expression lists them: `a, b`.
    pub(crate) field_list: String,
    /// The pattern that takes apart what `::rpcsmith::__private::decode` returns, nested
    /// pairs in declaration order: `(a, (b, ()))`.
    pub(crate) decode_pattern: String,
    /// Serialize the params struct by name (else by position).
    pub(crate) by_name: bool,
    /// The number of params that are always sent by position.
    pub(crate) fixed_len: usize,
    /// The length of the positional array, as an expression over `self`.
    pub(crate) len_expr: String,
    /// `::rpcsmith::__private::Structure::…`.
    pub(crate) structure: String,
    /// The param names, as a Rust array of string literals.
    pub(crate) names: String,
    pub(crate) is_notification: bool,
    /// `<Method>Result`.
    pub(crate) result_name: String,
    pub(crate) result_ty: String,
    pub(crate) has_errors: bool,
    /// `<Method>Error`.
    pub(crate) error_name: String,
    /// The declared error type: `<Method>Error` or `Infallible`.
    pub(crate) error_ty: String,
    pub(crate) errors: Vec<ErrorView>,
}

/// One param.
#[derive(Debug, Serialize)]
pub(crate) struct ParamView {
    pub(crate) rust: String,
    pub(crate) docs: Vec<String>,
    /// Serde attributes of the by-name field.
    pub(crate) attrs: Vec<String>,
    /// The field and argument type (`Option<T>` when optional).
    pub(crate) ty: String,
    pub(crate) index: usize,
    /// Sent by position only when a later param is present.
    pub(crate) conditional: bool,
}

/// One declared error.
#[derive(Debug, Serialize)]
pub(crate) struct ErrorView {
    pub(crate) variant: String,
    pub(crate) docs: Vec<String>,
    pub(crate) code: String,
    /// The declared message, as a Rust string literal.
    pub(crate) message: String,
    pub(crate) has_data: bool,
    pub(crate) data_ty: String,
}

/// The views of `services`, whose types are `defs`; `document` is the JSON answered on
/// `rpc.discover`.
///
/// The client→server items are left out only when every method goes the other way (a
/// document of what the client serves): a document without server→client methods always
/// has its `<Doc>Client` and `<Doc>Server`, even empty.
pub(crate) fn services_views(
    services: &Services,
    defs: &[TypeDef],
    client: bool,
    server: bool,
    document: &str,
) -> Views {
    let title = literal_text(&services.title);
    let view = |direction: Option<Direction>| {
        let methods: Vec<MethodView> = services
            .methods
            .iter()
            .filter(|m| direction.is_none_or(|d| m.direction == d))
            .map(|m| method(m, defs))
            .collect();
        let role = Role::of(&services.name, direction);
        ServicesView {
            client_docs: role.client_docs(&title),
            server_docs: role.server_docs(&title),
            client_name: role.client_name,
            batch_name: role.batch_name,
            server_name: role.server_name,
            dispatcher_name: role.dispatcher_name,
            title: title.clone(),
            allow: ALLOW.to_owned(),
            client,
            server,
            batch: role.forward,
            discover: role.forward,
            document: string_literal(document),
            has_methods: !methods.is_empty(),
            methods,
        }
    };
    let reverse = Some(view(Some(Direction::ServerToClient))).filter(|v| v.has_methods);
    let forward =
        Some(view(Some(Direction::ClientToServer))).filter(|v| v.has_methods || reverse.is_none());
    Views {
        shared: view(None),
        forward,
        reverse,
    }
}

/// The names and docs of one direction's items.
struct Role {
    /// Client→server (or every method, for what both share).
    forward: bool,
    client_name: String,
    batch_name: String,
    server_name: String,
    dispatcher_name: String,
}

impl Role {
    fn of(name: &str, direction: Option<Direction>) -> Role {
        let forward = direction != Some(Direction::ServerToClient);
        let (client, server, dispatcher) = if forward {
            ("Client", "Server", "Dispatcher")
        } else {
            ("Push", "Listener", "ListenerDispatcher")
        };
        Role {
            forward,
            client_name: format!("{name}{client}"),
            batch_name: format!("{name}Batch"),
            server_name: format!("{name}{server}"),
            dispatcher_name: format!("{name}{dispatcher}"),
        }
    }

    fn client_docs(&self, title: &str) -> Vec<String> {
        if self.forward {
            return vec![format!(
                " A typed client of {title}: one method per API method, over any transport."
            )];
        }
        vec![
            format!(" Sends the server→client methods of {title} to a client, one typed method each."),
            String::new(),
            " Wraps the client of one connection: in a handler `rpcsmith::transport::peer::remote(&cx)`,".to_owned(),
            " elsewhere one of `rpcsmith::transport::peer::Hub::clients()`. A notification returns once".to_owned(),
            " written; a request returns the client's typed answer, or its declared error.".to_owned(),
        ]
    }

    fn server_docs(&self, title: &str) -> Vec<String> {
        let dispatcher = &self.dispatcher_name;
        if self.forward {
            return vec![format!(
                " {title}, served: implement it, then serve `{dispatcher}::new(your_impl)`."
            )];
        }
        vec![
            format!(
                " The server→client methods of {title}, handled by the client: implement it, then give"
            ),
            format!(" `Server::new({dispatcher}::new(your_impl))` to the client's peer"),
            " (`rpcsmith::transport::peer::Peer::builder().serve(..)`). Without it, the server's"
                .to_owned(),
            " requests are answered `-32601` and its notifications dropped; `rpc.discover` is"
                .to_owned(),
            " not answered either way.".to_owned(),
        ]
    }
}

/// `text` made safe to appear inside a Rust string literal, in backticks in docs.
fn literal_text(text: &str) -> String {
    let literal = string_literal(&text.replace('`', "'"));
    literal[1..literal.len() - 1].to_owned()
}

fn method(m: &Method, defs: &[TypeDef]) -> MethodView {
    let mut attrs = Vec::new();
    if m.deprecated {
        attrs.push("#[deprecated]".to_owned());
    }
    let shown = literal_text(&m.wire);
    let mut text = m.docs.clone().unwrap_or_default();
    if !text.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str(&format!("Calls `{}`.", m.wire.replace('`', "'")));
    let fixed_len = m
        .params
        .iter()
        .rposition(|p| p.required)
        .map_or(0, |i| i + 1);
    let params: Vec<ParamView> = m
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| param(p, i, fixed_len, defs))
        .collect();
    let fields: Vec<&str> = params.iter().map(|p| p.rust.as_str()).collect();
    let params_name = format!("{}Params", m.base);
    let params_expr = if params.is_empty() {
        "&()".to_owned()
    } else {
        format!("&{params_name} {{ {} }}", fields.join(", "))
    };
    let handler_args: Vec<String> = fields.iter().map(|f| format!(", params.{f}")).collect();
    let field_list = fields.join(", ");
    let decode_pattern = decode_pattern(&fields);
    let names: Vec<String> = m.params.iter().map(|p| string_literal(&p.wire)).collect();
    let errors: Vec<ErrorView> = m.errors.iter().map(|e| error(e, defs)).collect();
    let has_errors = !errors.is_empty() && m.result.is_some();
    let error_name = format!("{}Error", m.base);
    MethodView {
        wire: string_literal(&m.wire),
        shown,
        rust: m.rust.clone(),
        docs: doc_attrs(&text),
        attrs,
        has_params: !params.is_empty(),
        len_expr: len_expr(&params, fixed_len),
        params,
        params_name,
        params_expr,
        handler_args: handler_args.concat(),
        field_list,
        decode_pattern,
        by_name: m.sends == ParamsBy::Name,
        fixed_len,
        structure: format!(
            "{SUPPORT}::Structure::{}",
            match m.accepts {
                ParamStructure::ByName => "ByName",
                ParamStructure::ByPosition => "ByPosition",
                ParamStructure::Either => "Either",
            }
        ),
        names: format!("[{}]", names.join(", ")),
        is_notification: m.result.is_none(),
        result_name: format!("{}Result", m.base),
        result_ty: m
            .result
            .as_ref()
            .map_or_else(|| "()".to_owned(), |t| ty_expr_in(t, defs, "types::")),
        error_ty: if has_errors {
            error_name.clone()
        } else {
            "::std::convert::Infallible".to_owned()
        },
        has_errors,
        error_name,
        errors,
    }
}

fn param(p: &Param, index: usize, fixed_len: usize, defs: &[TypeDef]) -> ParamView {
    let ty = if p.required {
        p.ty.clone()
    } else {
        p.ty.clone().optional()
    };
    let mut attrs = Vec::new();
    if p.rust.trim_start_matches("r#") != p.wire {
        attrs.push(format!("#[serde(rename = {})]", string_literal(&p.wire)));
    }
    if !p.required {
        attrs.push("#[serde(skip_serializing_if = \"::std::option::Option::is_none\")]".to_owned());
    }
    let mut text = p
        .docs
        .clone()
        .unwrap_or_else(|| format!("The `{}` param.", p.wire.replace('`', "'")));
    if p.deprecated {
        text.push_str("\n\nDeprecated.");
    }
    ParamView {
        rust: p.rust.clone(),
        docs: doc_attrs(&text),
        attrs,
        ty: ty_expr_in(&ty, defs, "types::"),
        index,
        conditional: index >= fixed_len,
    }
}

/// `(a, (b, ()))` for fields `a` and `b`: the nested pairs `::rpcsmith::__private::decode`
/// returns.
fn decode_pattern(fields: &[&str]) -> String {
    let mut pattern = String::new();
    for field in fields {
        pattern.push('(');
        pattern.push_str(field);
        pattern.push_str(", ");
    }
    pattern.push_str("()");
    pattern.push_str(&")".repeat(fields.len()));
    pattern
}

/// The positional length: up to the last optional param given, else the fixed part.
fn len_expr(params: &[ParamView], fixed_len: usize) -> String {
    let mut expr = String::new();
    for p in params.iter().rev().filter(|p| p.conditional) {
        expr.push_str(&format!(
            "if self.{}.is_some() {{ {} }} else ",
            p.rust,
            p.index + 1
        ));
    }
    if expr.is_empty() {
        fixed_len.to_string()
    } else {
        format!("{expr}{{ {fixed_len} }}")
    }
}

fn error(e: &DeclaredError, defs: &[TypeDef]) -> ErrorView {
    let mut docs = format!("`{}`: {}", e.code, e.message.trim());
    if e.data.is_some() {
        docs.push_str("\n\nCarries the error's `data`.");
    }
    ErrorView {
        variant: e.variant.clone(),
        docs: doc_attrs(&docs),
        code: format!("{}_i64", e.code),
        message: string_literal(&e.message),
        has_data: e.data.is_some(),
        data_ty: e
            .data
            .as_ref()
            .map_or_else(String::new, |t: &Ty| ty_expr_in(t, defs, "types::")),
    }
}
