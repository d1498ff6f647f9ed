//! View structs of the client and the server: every decision about their Rust text.

use serde::Serialize;

use super::checks::{Checks, ImplView};
use super::rust::{Spelling, doc_attrs, doc_text, literal_text, string_literal, ty_expr};
use super::subscription::{SubscribeView, UnsubscribeView, subscribe, unsubscribe};
use crate::direction::Direction;
use crate::openrpc::ParamStructure;
use crate::service::{DeclaredError, Method, Param, Part, Services};
use crate::settings::{ParamsBy, Settings};
use crate::typespace::{Ty, TypeDef, Validation};

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
    /// Emit the client.
    pub(crate) client: bool,
    /// Emit the server.
    pub(crate) server: bool,
    /// The sender of these methods (`client_name`) is emitted too: a method's docs are
    /// written once, on the sender, and the batch builder and the handler trait link there.
    pub(crate) sender: bool,
    /// Give every handler trait method a default body answering `-32601`.
    pub(crate) partial: bool,
    /// The client→server methods (`<Doc>Client`, `<Doc>Server`), not the server→client
    /// ones (`<Doc>Push`, `<Doc>Listener`): their docs differ.
    pub(crate) forward: bool,
    /// Emit the typed batch builder.
    pub(crate) batch: bool,
    /// Emit `DOCUMENT`, and have the dispatcher answer `rpc.discover` with it.
    pub(crate) discover: bool,
    /// The document answered on `rpc.discover`, as a Rust string literal; empty when the
    /// module includes it from `document_file`.
    pub(crate) document: String,
    /// The file beside the module's that holds the document answered on `rpc.discover`,
    /// as a Rust string literal for `include_str!`; empty when `document` holds it.
    pub(crate) document_file: String,
    pub(crate) has_methods: bool,
    /// Some method subscribes (the batch builder leaves it out, and says so).
    pub(crate) has_subscribe: bool,
    /// The wire names (Rust string literals) of the methods marked `x-idempotent`, for
    /// the client's `IDEMPOTENT`; empty emits none.
    pub(crate) idempotent: Vec<String>,
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
    /// Whether the method is deprecated.
    pub(crate) deprecated: bool,
    pub(crate) params: Vec<ParamView>,
    pub(crate) has_params: bool,
    /// Some param is a stream (`"x-stream": true`).
    pub(crate) has_streams: bool,
    /// Whether this view's dispatcher writes the params' `decode` (`has_params`, except in
    /// the listener for a method the server dispatcher also handles).
    pub(crate) decode: bool,
    /// `<Method>Params`.
    pub(crate) params_name: String,
    /// The params struct's `Validate` impl: the dispatcher checks the params before the
    /// handler runs, the client before sending when asked to.
    pub(crate) check: Option<ImplView>,
    pub(crate) has_check: bool,
    /// Serialize the params struct by name (else by position).
    pub(crate) by_name: bool,
    /// Serialize the params by position as a tuple of references (the same JSON array):
    /// every param is always sent and there are at most 16 (serde's largest tuple). The
    /// client and the batch then send the tuple of their arguments, not the struct.
    pub(crate) tuple: bool,
    /// The number of params that are always sent by position.
    pub(crate) fixed_len: usize,
    /// The lengths of the positional array when an optional param after the fixed part
    /// is given, the last param first: the array runs up to the last one given. (The
    /// built-in template hands the params to `serialize_by_position!`, which computes the
    /// same; this, `fixed_len` and a param's `index` stay for a user's copy of `params.hbs`.)
    pub(crate) lengths: Vec<Length>,
    /// The shapes of params the server accepts, as the runtime's `decode_params!` and
    /// `arm!` name them: `by_name`, `by_position` or `by_name_or_position`;
    /// `params_object` when the one param is the whole params object.
    pub(crate) structure: &'static str,
    /// The one param is the whole params object: the params struct is transparent.
    pub(crate) whole: bool,
    pub(crate) is_notification: bool,
    /// `<Method>Result`.
    pub(crate) result_name: String,
    pub(crate) result_ty: String,
    /// The result is the type of the same name in `types`: re-exported, not aliased, so
    /// that `use api::*; use api::types::*;` names one item, never two.
    pub(crate) result_reexported: bool,
    pub(crate) has_errors: bool,
    /// `<Method>Error`.
    pub(crate) error_name: String,
    /// The declared error type: `<Method>Error` or `Infallible`.
    pub(crate) error_ty: String,
    pub(crate) errors: Vec<ErrorView>,
    /// The method subscribes: the client returns a `Subscription<{{item_ty}}>`, the
    /// server trait `Items<{{item_ty}}>`, and `feed` is its items' way.
    pub(crate) is_subscribe: bool,
    pub(crate) subscribe: SubscribeView,
    /// The method ends subscriptions: the runtime answers it, the server trait has no
    /// method for it.
    pub(crate) is_unsubscribe: bool,
    pub(crate) unsubscribe: UnsubscribeView,
}

/// The positional length when the param `rust` is given.
#[derive(Debug, Serialize)]
pub(crate) struct Length {
    pub(crate) rust: String,
    pub(crate) count: usize,
}

/// One param.
#[derive(Debug, Serialize)]
pub(crate) struct ParamView {
    pub(crate) rust: String,
    /// The wire name, as a Rust string literal.
    pub(crate) wire: String,
    pub(crate) docs: Vec<String>,
    /// The wire name as a string literal when the by-name field is named otherwise.
    pub(crate) rename: Option<String>,
    /// Whether the param may be absent (the by-name field is then left out when `None`).
    pub(crate) optional: bool,
    /// The field and argument type (`Option<T>` when optional).
    pub(crate) ty: String,
    pub(crate) index: usize,
    /// Sent by position only when a later param is present.
    pub(crate) conditional: bool,
    /// A stream param (`"x-stream": true`): `ty` is `__rt::Streamed<item>`; the client
    /// hosts it before sending, the server's arm binds it to the caller.
    pub(crate) stream: bool,
}

/// One declared error.
#[derive(Debug, Serialize)]
pub(crate) struct ErrorView {
    pub(crate) variant: String,
    /// The variant's doc as a string literal, when `declared_errors!`'s own ("`code`:
    /// message", and a paragraph for the data) would read otherwise: a message not on
    /// one trimmed line.
    pub(crate) doc: Option<String>,
    pub(crate) code: i64,
    /// The declared message, as a Rust string literal.
    pub(crate) message: String,
    pub(crate) has_data: bool,
    pub(crate) data_ty: String,
}

/// The document answered on `rpc.discover`: its JSON, and the file beside the module's
/// that holds it (`None`: the module holds it as a string literal).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Embed<'a> {
    pub(crate) json: &'a str,
    pub(crate) file: Option<&'a str>,
}

/// The views of `services`, whose types are `defs`; `document` is the document answered
/// on `rpc.discover`.
///
/// The client→server items are left out only when every method goes the other way (a
/// document of what the client serves): a document without server→client methods always
/// has its `<Doc>Client` and `<Doc>Server`, even empty.
pub(crate) fn services_views(
    services: &Services,
    defs: &[TypeDef],
    settings: &Settings,
    checks: Option<&Checks<'_>>,
    document: Embed<'_>,
) -> Views {
    let (client, server, partial) = (settings.client, settings.server, settings.partial);
    let title = literal_text(&services.title);
    let view = |direction: Option<Direction>| {
        let methods = method_views(services, defs, settings, checks, direction);
        let role = Role::of(&services.name, direction);
        let idempotent = services
            .methods
            .iter()
            .filter(|m| {
                m.idempotent && role.forward && direction.is_some_and(|d| m.direction.goes(d))
            })
            .map(|m| string_literal(&m.wire))
            .collect();
        ServicesView {
            idempotent,
            forward: role.forward,
            client_name: role.client_name,
            batch_name: role.batch_name,
            server_name: role.server_name,
            dispatcher_name: role.dispatcher_name,
            title: title.clone(),
            client,
            server,
            sender: if role.forward { client } else { server },
            partial,
            batch: role.forward,
            discover: role.forward,
            document: match (role.forward, document.file) {
                (true, None) => string_literal(document.json),
                _ => String::new(),
            },
            document_file: document.file.map(string_literal).unwrap_or_default(),
            has_methods: !methods.is_empty(),
            has_subscribe: methods.iter().any(|m| m.is_subscribe),
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

/// The views of the methods of `direction` (`None`: every method).
fn method_views(
    services: &Services,
    defs: &[TypeDef],
    settings: &Settings,
    checks: Option<&Checks<'_>>,
    direction: Option<Direction>,
) -> Vec<MethodView> {
    services
        .methods
        .iter()
        .filter(|m| direction.is_none_or(|d| m.direction.goes(d)))
        // The runtime consumes the notifications carrying a subscription's items.
        .filter(|m| direction.is_none() || m.part != Part::Items)
        .map(|m| {
            let mut view = method(m, services, defs, checks);
            // A method either side sends has one params `decode`: the server
            // dispatcher's when both dispatchers are emitted.
            let twice = settings.client && settings.server && m.direction == Direction::Both;
            view.decode =
                view.has_params && !(twice && direction == Some(Direction::ServerToClient));
            view
        })
        .collect()
}

/// The names of one direction's items.
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
}

fn method(
    m: &Method,
    services: &Services,
    defs: &[TypeDef],
    checks: Option<&Checks<'_>>,
) -> MethodView {
    let shown = literal_text(&m.wire);
    let positions = Positions::of(m, defs);
    let check = checks.and_then(|c| params_checks(c, m));
    let errors: Vec<ErrorView> = m.errors.iter().map(|e| error(e, defs)).collect();
    let has_errors = !errors.is_empty() && m.result.is_some();
    let error_name = format!("{}Error", m.base);
    let error_ty = if has_errors {
        error_name.clone()
    } else {
        "::std::convert::Infallible".to_owned()
    };
    let subscribe = subscribe(m, services, defs);
    let unsubscribe = unsubscribe(m, services);
    let result_name = format!("{}Result", m.base);
    let result_ty = m.result.as_ref().map_or_else(
        || "()".to_owned(),
        |t| ty_expr(t, Spelling::beside_types(defs)),
    );
    MethodView {
        wire: string_literal(&m.wire),
        shown,
        rust: m.rust.clone(),
        docs: doc_attrs(&method_docs(m)),
        deprecated: m.deprecated,
        has_params: !positions.params.is_empty(),
        has_streams: positions.params.iter().any(|p| p.stream),
        decode: !positions.params.is_empty(),
        has_check: check.is_some(),
        check,
        lengths: positions.lengths,
        params: positions.params,
        params_name: format!("{}Params", m.base),
        by_name: m.sends == ParamsBy::Name,
        tuple: positions.tuple,
        fixed_len: positions.fixed_len,
        whole: m.whole,
        structure: structure(m),
        is_notification: m.result.is_none(),
        result_reexported: result_ty == format!("types::{result_name}"),
        result_name,
        result_ty,
        error_ty,
        has_errors,
        error_name,
        errors,
        is_subscribe: subscribe.is_some(),
        subscribe: subscribe.unwrap_or_default(),
        is_unsubscribe: unsubscribe.is_some(),
        unsubscribe: unsubscribe.unwrap_or_default(),
    }
}

/// A method's docs: its description, then the wire name it calls.
fn method_docs(m: &Method) -> String {
    let mut text = m.docs.clone().unwrap_or_default();
    if !text.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str(&format!("Calls `{}`.", m.wire.replace('`', "'")));
    text
}

/// A method's params, and how they go by position.
struct Positions {
    params: Vec<ParamView>,
    /// How many are always sent.
    fixed_len: usize,
    /// The array's length when each optional param after them is given, the last first.
    lengths: Vec<Length>,
    /// Sent as the tuple of the arguments (see [`MethodView::tuple`]).
    tuple: bool,
}

impl Positions {
    fn of(m: &Method, defs: &[TypeDef]) -> Positions {
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
        let lengths = params
            .iter()
            .rev()
            .filter(|p| p.conditional)
            .map(|p| Length {
                rust: p.rust.clone(),
                count: p.index + 1,
            })
            .collect();
        let tuple = m.sends != ParamsBy::Name
            && fixed_len == params.len()
            && (1..=16).contains(&params.len());
        Positions {
            params,
            fixed_len,
            lengths,
            tuple,
        }
    }
}

/// The shapes of params the server accepts, as the runtime's `decode_params!` and
/// `arm!` name them.
fn structure(m: &Method) -> &'static str {
    match m.accepts {
        _ if m.whole => "params_object",
        ParamStructure::ByName => "by_name",
        ParamStructure::ByPosition => "by_position",
        ParamStructure::Either => "by_name_or_position",
    }
}

/// The checks of the params of `m`, as the body of its params struct's impl.
fn params_checks(checks: &Checks<'_>, m: &Method) -> Option<ImplView> {
    let types: Vec<Ty> = m
        .params
        .iter()
        .map(|p| {
            if p.required {
                p.ty.clone()
            } else {
                p.ty.clone().optional()
            }
        })
        .collect();
    let list: Vec<(&str, &str, &Ty, &Validation)> = m
        .params
        .iter()
        .zip(&types)
        .map(|(p, ty)| (p.rust.as_str(), p.wire.as_str(), ty, &p.validation))
        .collect();
    checks.params_impl(&list)
}

fn param(p: &Param, index: usize, fixed_len: usize, defs: &[TypeDef]) -> ParamView {
    let ty = if p.required {
        p.ty.clone()
    } else {
        p.ty.clone().optional()
    };
    let renamed = p.rust.trim_start_matches("r#") != p.wire;
    let mut text = p
        .docs
        .clone()
        .unwrap_or_else(|| format!("The `{}` param.", p.wire.replace('`', "'")));
    if p.deprecated {
        text.push_str("\n\nDeprecated.");
    }
    let mut ty = ty_expr(&ty, Spelling::beside_types(defs));
    if p.stream {
        ty = format!("__rt::Streamed<{ty}>");
    }
    ParamView {
        rust: p.rust.clone(),
        wire: string_literal(&p.wire),
        docs: doc_attrs(&text),
        rename: renamed.then(|| string_literal(&p.wire)),
        optional: !p.required,
        ty,
        index,
        conditional: index >= fixed_len,
        stream: p.stream,
    }
}

fn error(e: &DeclaredError, defs: &[TypeDef]) -> ErrorView {
    let mut docs = format!("`{}`: {}", e.code, e.message.trim());
    if e.data.is_some() {
        docs.push_str("\n\nCarries the error's `data`.");
    }
    let plain = e.message.trim() == e.message && !e.message.contains(char::is_control);
    ErrorView {
        variant: e.variant.clone(),
        doc: (!plain).then(|| string_literal(&doc_text(&docs))),
        code: e.code,
        message: string_literal(&e.message),
        has_data: e.data.is_some(),
        data_ty: e.data.as_ref().map_or_else(String::new, |t: &Ty| {
            ty_expr(t, Spelling::beside_types(defs))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(message: &str, data: Option<Ty>) -> ErrorView {
        let e = DeclaredError {
            code: -32001,
            message: message.to_owned(),
            variant: "Busy".to_owned(),
            data,
        };
        error(&e, &[])
    }

    #[test]
    fn a_variant_is_worded_by_the_macro_unless_its_message_is_not_one_trimmed_line() {
        assert_eq!(declared("busy", None).doc, None);
        assert_eq!(declared("busy", Some(Ty::Bool)).doc, None);
        assert_eq!(
            declared(" busy\n    try later ", None).doc.as_deref(),
            Some(r#"" `-32001`: busy\n    try later""#)
        );
        assert_eq!(
            declared("busy\nnow", Some(Ty::Bool)).doc.as_deref(),
            Some(r#"" `-32001`: busy\n now\n\n Carries the error's `data`.""#)
        );
    }
}
